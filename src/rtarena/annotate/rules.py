"""The rule-based annotator: each code of the codebook as one deterministic function of the records.

`RULES` maps a code to `rule(evidence, params) -> [Finding]`; `annotate_episode` applies them in the
codebook's order. Exclusions between codes are explicit: a decision whose deliberation outlasted the
time left is a deliberation failure, not a perception or an action one, so the perception and action
rules skip episodes in which `overran_deadline` holds.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rtarena.annotate.codebook import Codebook, default_codebook
from rtarena.annotate.evidence import EPS, EpisodeEvidence


@dataclass(frozen=True)
class Finding:
    """One code in one episode: the decisions it rests on and the evidence in words."""

    code: str
    decisions: tuple[int, ...]
    evidence: str


def _action_key(action: Any) -> str:
    return action if isinstance(action, str) else json.dumps(action, sort_keys=True)


def _is_bad(event: dict[str, Any], params: dict[str, Any]) -> bool:
    if event.get("type") in params["bad_action_events"]:
        return True
    fields = params.get("bad_action_fields") or {}
    return bool(fields) and all(k in event and event[k] == v for k, v in fields.items())


def _bad_at(ev: EpisodeEvidence, step: int, params: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in ev.events_at(step) if _is_bad(e, params)]


def _failed_before(ev: EpisodeEvidence, d: dict[str, Any], params: dict[str, Any]) -> bool:
    """Whether an earlier identical action had met a bad-action event by the time `d` observed the world."""
    action = _action_key(d["action"])
    return any(x["index"] < d["index"] and _action_key(x["action"]) == action
               and x["applied_sim_s"] <= d["obs_sim_s"] + EPS and _bad_at(ev, int(x["applied_step"]), params)
               for x in ev.applied())


def _bad_actions(ev: EpisodeEvidence, params: dict[str, Any]) -> list[tuple[dict, list[dict], bool]]:
    """(decision, its bad events, whether the state it met was visible in its observation)."""
    out = []
    for d in ev.applied():
        bad = _bad_at(ev, int(d["applied_step"]), params)
        if bad:
            seen = d["applied_sim_s"] <= d["obs_sim_s"] + EPS or _failed_before(ev, d, params)
            out.append((d, bad, seen))
    return out


def _describe(event: dict[str, Any]) -> str:
    detail = event.get("error") or event.get("why") or ""
    return f"{event.get('type')} at {event.get('sim_s')} s" + (f" ({detail})" if detail else "")


def min_left(ev: EpisodeEvidence, params: dict[str, Any]) -> float:
    """Time left at an observation that was enough to act in: `min_left_s`, or `min_left_steps` env steps."""
    return max(params["min_left_s"], params["min_left_steps"] * ev.dt)


def _kind(d: dict[str, Any]) -> str:
    """A decision's failure kind (`timeout`, `abandoned`, `unparsed` ...), or "" when it has none."""
    return str(d.get("error") or "").split(":", 1)[0].strip()


def _abandoned(d: dict[str, Any]) -> bool:
    """Still unanswered when the episode ended (the wall clock records it so: no commit time)."""
    return d.get("committed_sim_s") is None or _kind(d) == "abandoned"


def overran(ev: EpisodeEvidence, params: dict[str, Any]) -> list[Finding]:
    if not ev.lost(params["failure_events"]):
        return []
    deliberated = [d for d in ev.decisions if not d.get("error") or d.get("tokens_out") or _abandoned(d)]
    # a reply in flight at the end counts only if its observation left time to act (min_left_s): under
    # the token clock some reply is always in flight when an episode ends
    late = [d for d in deliberated if (_abandoned(d) or d["committed_sim_s"] > ev.end_s + EPS)
            and ev.end_s - d["obs_sim_s"] >= min_left(ev, params) - EPS]
    if not late:
        return []
    d = late[0]
    if _abandoned(d):
        told = (f"decision {d['index']} saw the state at {d['obs_sim_s']} s and was still unanswered when the "
                f"episode ended at {ev.end_s} s ({d.get('error')})")
    else:
        told = (f"decision {d['index']} saw the state at {d['obs_sim_s']} s, deliberated {d['delay_sim_s']} s "
                f"({d['tokens_out']} tokens out) and committed at {d['committed_sim_s']} s; "
                f"the episode ended at {ev.end_s} s")
    return [Finding("overran_deadline", tuple(x["index"] for x in late), told)]


def no_adaptation(ev: EpisodeEvidence, params: dict[str, Any]) -> list[Finding]:
    decisions = [d for d in ev.decisions if not _abandoned(d)]
    if not ev.lost(params["failure_events"]) or len(decisions) < params["adapt_min_decisions"]:
        return []
    half = len(decisions) // 2
    early, late = decisions[:half], decisions[half:]
    mean = lambda rows: sum(r["tokens_out"] for r in rows) / len(rows)  # noqa: E731
    if not early or mean(late) < params["adapt_ratio"] * mean(early) or mean(early) == 0:
        return []
    pressed = [d for d in late if d["delay_sim_s"] > params["pressure_share"] * max(ev.end_s - d["obs_sim_s"], EPS)
               and d["delay_sim_s"] >= ev.dt - EPS  # long enough that the world moved on,
               and ev.end_s - d["obs_sim_s"] >= min_left(ev, params) - EPS]  # with time left to act
    if not pressed:
        return []
    return [Finding("no_adaptation", tuple(d["index"] for d in pressed),
                    f"tokens out per decision: {mean(early):.0f} early, {mean(late):.0f} late, while the time left "
                    f"fell; decision {pressed[0]['index']} deliberated {pressed[0]['delay_sim_s']} s with "
                    f"{ev.end_s - pressed[0]['obs_sim_s']:.2f} s left")]


def _bad_action_finding(ev: EpisodeEvidence, params: dict[str, Any], *, seen: bool, mode: str) -> list[Finding]:
    """Bad actions split by whether the decision's observation already showed why (`seen`)."""
    hits = [(d, bad) for d, bad, was_seen in _bad_actions(ev, params) if was_seen == seen]
    if not hits:
        return []
    d, bad = hits[0]
    why = (f"was wrong for the state it saw at {d['obs_sim_s']} s" if seen else
           f"saw the state at {d['obs_sim_s']} s and was applied at {d['applied_sim_s']} s")
    return [Finding(mode, tuple(x["index"] for x, _ in hits),
                    f"decision {d['index']} ({d['action']}) {why}: {_describe(bad[0])}")]


def stale_target(ev: EpisodeEvidence, params: dict[str, Any]) -> list[Finding]:
    return _bad_action_finding(ev, params, seen=False, mode="stale_target")


def missed_change(ev: EpisodeEvidence, params: dict[str, Any]) -> list[Finding]:
    return _bad_action_finding(ev, params, seen=True, mode="missed_change")


def repeated(ev: EpisodeEvidence, params: dict[str, Any]) -> list[Finding]:
    defaults = ev.defaults_at()
    run: list[dict] = []
    best: list[dict] = []
    for d in ev.applied():
        step = int(d["applied_step"])
        if defaults.get(step, True) or ev.reward_at(step) > EPS:
            run = []
            continue
        run = [*run, d] if run and _action_key(run[-1]["action"]) == _action_key(d["action"]) else [d]
        if len(run) > len(best):
            best = run
    if len(best) < params["repeat_min"]:
        return []
    return [Finding("repeated_no_effect", tuple(d["index"] for d in best),
                    f"{best[0]['action']} applied {len(best)} times in a row from {best[0]['applied_sim_s']} s "
                    f"to {best[-1]['applied_sim_s']} s with no reward")]


def waited(ev: EpisodeEvidence, params: dict[str, Any]) -> list[Finding]:
    if not ev.lost(params["failure_events"]) or overran(ev, params):
        return []
    defaults = ev.defaults_at()
    applied = ev.applied()[-params["wait_window"]:]
    if not applied or not all(defaults.get(int(d["applied_step"]), False) for d in applied):
        return []
    return [Finding("waited_too_long", tuple(d["index"] for d in applied),
                    f"the last {len(applied)} applied decisions (from {applied[0]['applied_sim_s']} s) were all the "
                    f"default action; the episode was lost at {ev.end_s} s")]


def acted_early(ev: EpisodeEvidence, params: dict[str, Any]) -> list[Finding]:
    defaults = ev.defaults_at()
    hits = []
    for d in ev.applied():
        step = int(d["applied_step"])
        failed = [e for e in ev.events_at(step) if e.get("type") in params["failure_events"]]
        if failed and not defaults.get(step, True) and not _bad_at(ev, step, params):
            hits.append((d, failed[0]))
    if not hits:
        return []
    d, event = hits[0]
    return [Finding("acted_too_early", (d["index"],),
                    f"decision {d['index']} ({d['action']}) applied at {d['applied_sim_s']} s ended the episode: "
                    f"{_describe(event)}")]


def invalid(ev: EpisodeEvidence, params: dict[str, Any]) -> list[Finding]:
    if not ev.lost(params["failure_events"]):
        return []
    # a reply that never came in time is a deliberation failure, not an invalid action
    bad = [d for d in ev.decisions if not d.get("valid", True) and _kind(d) not in ("abandoned", "timeout")]
    malformed = [e for e in ev.events if e.get("type") == "malformed_action"]
    if not bad and not malformed:
        return []
    what = (f"decision {bad[0]['index']} did not parse or failed ({bad[0].get('error')})" if bad
            else f"{_describe(malformed[0])}")
    return [Finding("invalid_action", tuple(d["index"] for d in bad),
                    f"{len(bad)} invalid decisions, {len(malformed)} malformed actions; {what}")]


def _unless_overran(rule: Callable[[EpisodeEvidence, dict], list[Finding]]):
    def judged(ev: EpisodeEvidence, params: dict[str, Any]) -> list[Finding]:
        return [] if overran(ev, params) else rule(ev, params)
    judged.__doc__ = rule.__doc__
    return judged


RULES: dict[str, Callable[[EpisodeEvidence, dict[str, Any]], list[Finding]]] = {
    "stale_target": _unless_overran(stale_target),
    "missed_change": _unless_overran(missed_change),
    "repeated_no_effect": _unless_overran(repeated),
    "overran_deadline": overran,
    "no_adaptation": no_adaptation,
    "waited_too_long": waited,
    "acted_too_early": _unless_overran(acted_early),
    "invalid_action": invalid,
}


def annotate_episode(ev: EpisodeEvidence, codebook: Codebook | None = None) -> list[Finding]:
    """Every code of the codebook that holds for this episode under its condition (`Codebook.for_condition`),
    in the codebook's order (lost episodes only, unless the codebook's `only_lost` is false: a stray click in
    a won episode explains nothing)."""
    book = (codebook or default_codebook()).for_condition(ev.condition)
    missing = set(book.codes) - set(RULES)
    if missing:
        raise KeyError(f"codebook codes without a rule: {sorted(missing)}")
    if book.params.get("only_lost", True) and not ev.lost(book.params["failure_events"]):
        return []
    return [f for code in book.codes for f in RULES[code](ev, book.params)]
