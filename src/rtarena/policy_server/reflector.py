"""`policy=reflector`: a scripted reflector that reads a round's evidence through the tools and submits
rule-based skills.

The server is stateless: each request carries the whole conversation, and this module reads the tool
calls made so far and their results to choose the next call. Its plan, one call per turn:

1. `list_dir("evidence")`, `get_previous_skill()`, `read_text("lints.md")`, `read_text("evidence/summary.md")`
   and `grep("pole angle", "evidence")` (the player's reasoning lines in the step tables);
2. an analysis of what it read (`analyse`): the share of pushes that followed the pole's lean, episodes
   that ended with the pole down or the cart off the track; the rules in the current skill; rules the
   notebook or a rollback marks as harmful;
3. `submit_diagnosis(...)` with failure modes, causes separated from prescriptions, additions, deletions
   and a reply to each signal of `lints.md`; then `validate_skill(skill)`, a revision without the
   judge's flagged lines while the judge asks for one, and `submit_skill(skill, notebook)`;
4. a final plain message (no tool call) when the skill is in, or when it has nothing to change.

Its rules come from the catalog `skill_rules.toml` (the scripted player recognises the same ones). On
cart-pole it tries `swing` (harmful on purpose) before `angvel`, so an offline run shows a regression and a
rollback. On a suite game it decides from the round: it greps every candidate rule's evidence and adds the
rule whose failure the step tables show most often (counted up to `EVIDENCE_MATCHES`; catalog order breaks a
tie), and it reads the scores through its tools: the notebook keeps each round's mean, and a round whose
mean fell below the one before marks the rule added last as harmful (dropped, never tried again),
with or without a rollback.

`policy=reflector-irrelevant` is its negative control (`irrelevant_step`): the same reads and the same
well-formed diagnosis, skill and notebook, but the rule it adds is one of another game's rulebook whose
text this game's player does not recognise (so never a bullet two games share): a skill that looks like
advice and changes nothing.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rtarena.policy_server.skill_player import SkillRule, recognised, rulebook, rules

READS = (("list_dir", {"path": "evidence"}), ("get_previous_skill", {}), ("read_text", {"path": "lints.md"}),
         ("read_text", {"path": "evidence/summary.md"}),
         ("grep", {"pattern": "pole angle", "path": "evidence", "max_matches": 40}))
EVIDENCE_MATCHES = 40  # per rule's evidence grep: short enough that a result is never cut; the count ranks the rules
FOLLOW_SHARE = 0.8  # below this share of lean-following pushes, the player "ignores the lean"
FALLEN_RAD, OFF_TRACK_M = 0.17, 2.0  # final pole angle / cart position that ended an episode


@dataclass
class Call:
    name: str
    args: dict[str, Any]
    result: str = ""


@dataclass
class Analysis:
    skill: str
    notebook: str
    diagnosis: dict[str, Any] = field(default_factory=dict)
    changed: bool = False
    pending: tuple[str, dict[str, Any]] | None = None  # a read still to make before deciding


def calls_so_far(messages: list[dict[str, Any]]) -> list[Call]:
    """Every tool call of the conversation with its result text, in order."""
    results = {m.get("tool_call_id"): m.get("content") or "" for m in messages if m.get("role") == "tool"}
    calls = []
    for message in messages:
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            try:
                args = json.loads(function.get("arguments") or "{}")
            except json.JSONDecodeError:
                args = {}
            calls.append(Call(function.get("name", ""), args, str(results.get(call.get("id"), ""))))
    return calls


def _json(text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return {}
    return data if isinstance(data, dict) else {}


def _bullets(skill: str) -> list[str]:
    return [line[2:].strip() for line in skill.splitlines() if line.startswith("- ")]


def game_of(calls: list[Call]) -> str:
    """The suite game of the round: the `Title:` the player's reasoning lines start with in summary.md."""
    summary = next((c.result for c in calls
                    if c.name == "read_text" and c.args.get("path") == "evidence/summary.md"), "")
    text = str(_json(summary).get("result", {}).get("text", ""))
    titles = Counter(re.findall(r"\| ([A-Z]\w+): [^|]*\(rules applied", text))
    return titles.most_common(1)[0][0] if titles else ""


def evidence_grep(rule: SkillRule) -> tuple[str, dict[str, Any]]:
    return "grep", {"pattern": rule.evidence, "path": "evidence", "max_matches": EVIDENCE_MATCHES}


def next_game_rule(calls: list[Call], game: str, present: list[str], harmful: set[str],
                   tried: set[str]) -> tuple[SkillRule | None, int, tuple[str, dict[str, Any]] | None]:
    """The rule of the game's rulebook, not in the skill, not known harmful or tried, whose evidence the step
    tables show most often: (rule, decisions showing it, None); or the grep still to make (every candidate's
    evidence is read before choosing); or (None, 0, None) when no candidate's evidence shows."""
    made = {json.dumps(c.args, sort_keys=True): c.result for c in calls if c.name == "grep"}
    counted: list[tuple[int, SkillRule]] = []
    for rule in rulebook(game):
        if rule.id in present or rule.id in harmful or rule.id in tried:
            continue
        call = evidence_grep(rule)
        key = json.dumps(call[1], sort_keys=True)
        if key not in made:
            return None, 0, call
        counted.append((len(_json(made[key]).get("result", {}).get("matches", [])), rule))  # capped: a tie
    hits, best = max(counted, key=lambda c: c[0], default=(0, None))  # the first of equals on a tie
    return (best, hits, None) if hits else (None, 0, None)


ROUND_MEAN = re.compile(r"^round mean ([\d.]+), then added: (\w*)$", flags=re.M)  # the notebook's score line


def round_mean(summary: str) -> float | None:
    """The round's mean score from the evidence summary's episode rows."""
    scores = [float(v) for v in re.findall(r"^\| [^|]+ \| \d+ \| ([\d.e+-]+) \|", summary, flags=re.M)]
    return sum(scores) / len(scores) if scores else None


def fell_after(notebook: str, mean: float | None) -> str | None:
    """The rule added last, when this round's mean fell below the mean the notebook kept before it."""
    kept = ROUND_MEAN.findall(notebook)
    if mean is None or not kept:
        return None
    before, added = kept[-1]
    return added if added and mean < float(before) else None


def analyse(calls: list[Call]) -> Analysis:
    """What the evidence says and the skill it prescribes."""
    by = {(c.name, c.args.get("path")): c.result for c in calls}
    game = game_of(calls)
    if game:
        return analyse_game(by, calls, game)
    previous = _json(by.get(("get_previous_skill", None), "")).get("result") or {}
    skill, notebook = str(previous.get("skill") or ""), str(previous.get("notebook") or "")
    lints_text = str(_json(by.get(("read_text", "lints.md"), "")).get("result", {}).get("text", ""))
    codes = re.findall(r"^- (\w+):", lints_text, flags=re.M)
    present = recognised(skill)
    harmful = set(re.findall(r"harmful: (\w+)", notebook))
    rolled_back = str(previous.get("rolled_back_skill") or "")
    if rolled_back:
        harmful |= set(recognised(rolled_back)) - set(present)
    matches = _json(by.get(("grep", "evidence"), "")).get("result", {}).get("matches", [])
    follow = total = 0
    for match in matches:
        line = str(match.get("text", ""))
        angle = re.search(r"pole angle ([+-]?\d+\.\d+)", line)
        if not angle or abs(float(angle.group(1))) < 0.01:
            continue
        right = "Push right" in line
        follow += right == (float(angle.group(1)) > 0)
        total += 1
    summary = str(_json(by.get(("read_text", "evidence/summary.md"), "")).get("result", {}).get("text", ""))
    early = [row for row in summary.splitlines() if row.startswith("| ") and "| at the step limit |" not in row]
    fell = len([r for r in early if (a := re.search(r"pole angle ([+-]?\d+\.\d+)", r))
                and abs(float(a.group(1))) > FALLEN_RAD])
    off = len([r for r in early if (x := re.search(r"Cart x ([+-]?\d+\.\d+)", r))
               and abs(float(x.group(1))) > OFF_TRACK_M])
    share = follow / total if total else None
    catalog = {r.id: r for r in rules()}
    failure, cause, want = "", "", []
    if share is not None and share < FOLLOW_SHARE:
        failure = f"The player ignores the pole's lean: only {share:.0%} of pushes follow it."
        cause, want = "No rule tells it which way to push.", ["lean"]
    elif fell:
        failure = f"The pole falls in {fell} episode(s) although the pushes follow its lean."
        cause, want = "Pushes react to the angle alone and overshoot.", ["swing", "angvel"]
    elif off:
        failure = f"The cart leaves the track in {off} episode(s)."
        cause, want = "Nothing keeps the cart near the middle.", ["centre"]
    add = next((i for i in want if i not in present and i not in harmful), None)
    deletions = [catalog[i].bullet for i in present if i in harmful]
    kept = [b for b in _bullets(skill) if b not in deletions]
    additions = [catalog[add].bullet] if add else []
    new_skill = "\n".join(f"- {b}" for b in kept + additions)
    notes = [line for line in notebook.splitlines() if line.strip()]
    notes += [f"harmful: {i}" for i in sorted(harmful) if f"harmful: {i}" not in notebook]
    if add:
        notes.append(f"tried: {add}")
    diagnosis = {
        "failure_modes": [failure] if failure else ["No failure the evidence shows."],
        "causes": [cause] if cause else [],
        "prescriptions": [f"Add the rule '{add}'." if add else "Keep the skill."]
                         + [f"Drop the harmful rule '{i}'." for i in present if i in harmful],
        "additions": additions,
        "deletions": deletions,
        "lints_response": "; ".join(f"{code}: considered" for code in codes) or "no signals",
    }
    return Analysis(new_skill, "\n".join(notes), diagnosis, changed=bool(additions or deletions))


def analyse_game(by: dict[tuple[str, Any], str], calls: list[Call], game: str) -> Analysis:
    """A suite game's round: the game's rulebook against the player's reasoning lines and the scores."""
    previous = _json(by.get(("get_previous_skill", None), "")).get("result") or {}
    skill, notebook = str(previous.get("skill") or ""), str(previous.get("notebook") or "")
    lints_text = str(_json(by.get(("read_text", "lints.md"), "")).get("result", {}).get("text", ""))
    codes = re.findall(r"^- (\w+):", lints_text, flags=re.M)
    present = recognised(skill, game)
    harmful = set(re.findall(r"harmful: (\w+)", notebook))
    rolled_back = str(previous.get("rolled_back_skill") or "")
    if rolled_back:
        harmful |= set(recognised(rolled_back, game)) - set(present)
    summary = str(_json(by.get(("read_text", "evidence/summary.md"), "")).get("result", {}).get("text", ""))
    score = round_mean(summary)
    if (fell := fell_after(notebook, score)) in present:
        harmful.add(fell)  # the score fell after it went in: the scores say it hurt
    tried = set(re.findall(r"tried: (\w+)", notebook))
    mean = f" (round mean score {score:.2f})" if score is not None else ""
    catalog = {r.id: r for r in rulebook(game)}
    rule, hits, pending = next_game_rule(calls, game, present, harmful, tried)
    if pending is not None:
        return Analysis(skill, notebook, pending=pending)
    found = (rule, hits) if rule is not None else None
    deletions = [catalog[i].bullet for i in present if i in harmful]
    kept = [b for b in _bullets(skill) if b not in deletions]
    additions = [found[0].bullet] if found else []
    notes = [line for line in notebook.splitlines() if line.strip()]
    notes += [f"harmful: {i}" for i in sorted(harmful) if f"harmful: {i}" not in notebook]
    if found:
        notes.append(f"tried: {found[0].id}")
    if score is not None:
        notes.append(f"round mean {score:.4f}, then added: {found[0].id if found else ''}")
    diagnosis = {
        "failure_modes": [found[0].failure.format(n=found[1]) + mean] if found
                          else [f"No failure my {game} rules cover{mean}."],
        "causes": [found[0].cause] if found else [],
        "prescriptions": [f"Add the rule '{found[0].id}'." if found else "Keep the skill."]
                         + [f"Drop the harmful rule '{i}'." for i in present if i in harmful],
        "additions": additions,
        "deletions": deletions,
        "lints_response": "; ".join(f"{code}: considered" for code in codes) or "no signals",
    }
    return Analysis("\n".join(f"- {b}" for b in kept + additions), "\n".join(notes), diagnosis,
                    changed=bool(additions or deletions))


def analyse_irrelevant(calls: list[Call]) -> Analysis:
    """The negative control's analysis: a well-formed diagnosis and skill that ignore the evidence, adding
    one rule of another game's rulebook per round (the first not yet in the skill) whose text this game's
    player does not recognise: workshop's and handoff's bench rule is kitchen's bullet word for word, which
    kitchen's player would act on (a skill that changes play is no negative control)."""
    by = {(c.name, c.args.get("path")): c.result for c in calls}
    previous = _json(by.get(("get_previous_skill", None), "")).get("result") or {}
    skill, notebook = str(previous.get("skill") or ""), str(previous.get("notebook") or "")
    lints_text = str(_json(by.get(("read_text", "lints.md"), "")).get("result", {}).get("text", ""))
    codes = re.findall(r"^- (\w+):", lints_text, flags=re.M)
    game = game_of(calls)
    written = _bullets(skill)
    other = next((r for r in rules() if r.family == "games" and r.game not in (game, "")
                  and not r.harmful and r.bullet not in written and not (game and recognised(r.bullet, game))),
                 None)
    if other is None:
        return Analysis(skill, notebook)
    diagnosis = {
        "failure_modes": ["The round leaves room to score more."],
        "causes": ["The skill does not yet say enough about how to play."],
        "prescriptions": [f"Add the rule '{other.id}'."],
        "additions": [other.bullet],
        "deletions": [],
        "lints_response": "; ".join(f"{code}: considered" for code in codes) or "no signals",
    }
    notes = [line for line in notebook.splitlines() if line.strip()] + [f"tried: {other.id}"]
    return Analysis("\n".join(f"- {b}" for b in [*written, other.bullet]), "\n".join(notes), diagnosis,
                    changed=True)


def next_step(messages: list[dict[str, Any]], analyse: Callable[[list[Call]], Analysis] = analyse
              ) -> tuple[str | None, list[tuple[str, dict[str, Any]]]]:
    """The next reply: (text, []) to finish, or (None, [one tool call])."""
    calls = calls_so_far(messages)
    made = [(c.name, c.args) for c in calls]
    for read in READS:
        if read not in [(n, {k: v for k, v in a.items() if k in read[1]}) for n, a in made]:
            return None, [read]
    analysis = analyse(calls)
    if analysis.pending is not None:
        return None, [analysis.pending]
    if not analysis.changed:
        return "The evidence shows nothing my rules can fix; I keep the skill.", []
    names = [c.name for c in calls]
    if "submit_diagnosis" not in names:
        return None, [("submit_diagnosis", analysis.diagnosis)]
    skill = analysis.skill
    verdicts = [_json(c.result).get("result") or {} for c in calls if c.name == "validate_skill"]
    for verdict in verdicts:  # drop any line the judge flagged (a revision)
        for violation in verdict.get("violations") or []:
            quoted = re.search(r"'(.+?)'", str(violation.get("detail", "")))
            if quoted:
                skill = "\n".join(line for line in skill.splitlines() if quoted.group(1) not in line)
    last = calls[-1]
    if last.name == "submit_skill":
        if _json(last.result).get("ok"):
            return "Skill submitted.", []
        if names.count("submit_skill") >= 2:
            return "My submissions were refused twice; I stop here.", []
    if not verdicts or (verdicts[-1].get("verdict") != "pass" and len(verdicts) < 3
                        and last.name == "validate_skill" and last.args.get("skill") != skill):
        return None, [("validate_skill", {"skill": skill})]
    return None, [("submit_skill", {"skill": skill, "notebook": analysis.notebook})]


def tool_reply(messages: list[dict[str, Any]]) -> tuple[str | None, list[tuple[str, dict[str, Any]]]]:
    return next_step(messages)


def irrelevant_step(messages: list[dict[str, Any]]) -> tuple[str | None, list[tuple[str, dict[str, Any]]]]:
    return next_step(messages, analyse_irrelevant)


# The tool-calling reflectors by server policy (`tool_calls.reply`): any other policy gets `tool_reply`.
TOOL_REPLIES: dict[str, Callable[[list[dict[str, Any]]], tuple[str | None, list[tuple[str, dict[str, Any]]]]]] = {
    "reflector": tool_reply, "reflector-irrelevant": irrelevant_step}


def answer(system: str, user: str, default: Callable[[], str] | None = None) -> str:
    """Without tools in the request there is nothing to do but say so."""
    return "The scripted reflector works through tools; send the request with `tools`."
