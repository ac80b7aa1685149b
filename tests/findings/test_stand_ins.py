"""The findings' stand-ins decide from what they are given (cheap, no episodes):

- the scripted reflector adds the rule whose evidence the round shows most often, whatever its place in the
  rulebook, and marks the rule added last as harmful when the round's score fell after it;
- its negative control (`reflector-irrelevant`) writes a well-formed skill that the game's player does not
  act on (another game's rule).

The other negative controls (`policy=independent`, `pixels-flat`, constant effort) are checked where they
run: in `rtarena findings --quick`, whose negative-control statistics are exactly 0 (docs/findings.md)."""

from __future__ import annotations

import json

from rtarena.policy_server import reflector
from rtarena.policy_server.reflector import Call, analyse_game, analyse_irrelevant, next_game_rule
from rtarena.policy_server.skill_player import recognised, rulebook

SUMMARY = ("| episode | seed | score | steps | decisions | ended | last reasoning |\n|---|---|---|---|---|---|---|\n"
           "| e0 | 1000 | {s} | 300 | 100 | by the env | Tilefall: walking to the safest tile. (rules applied "
           "| e1 | 1001 | {s} | 300 | 100 | by the env | Tilefall: walking to the safest tile. (rules applied ")


def tool(name: str, args: dict, result: dict) -> Call:
    return Call(name, args, json.dumps({"ok": True, "result": result}))


def grep(rule_id: str, hits: int) -> Call:
    rule = next(r for r in rulebook("Tilefall") if r.id == rule_id)
    return tool("grep", reflector.evidence_grep(rule)[1], {"matches": [{"text": "x"}] * hits})


def reads(skill: str = "", notebook: str = "", score: float = 0.5) -> list[Call]:
    return [tool("get_previous_skill", {}, {"skill": skill, "notebook": notebook}),
            tool("read_text", {"path": "lints.md"}, {"text": ""}),
            tool("read_text", {"path": "evidence/summary.md"}, {"text": SUMMARY.format(s=score)})]


def test_the_reflector_adds_the_rule_the_evidence_shows_most_not_the_first_listed():
    ids = [r.id for r in rulebook("Tilefall")]
    assert ids.index("patch") > ids.index("run")  # listed later
    calls = [grep("still", 0), grep("run", 3), grep("patch", 12)]
    rule, hits, pending = next_game_rule(calls, "Tilefall", [], set(), set())
    assert (rule.id, hits, pending) == ("patch", 12, None)
    rule, _, pending = next_game_rule(calls[:1], "Tilefall", [], set(), set())  # evidence not read yet: grep first
    assert rule is None and pending == reflector.evidence_grep(rulebook("Tilefall")[1])


def test_a_round_whose_score_fell_marks_the_rule_added_last_harmful():
    still = next(r for r in rulebook("Tilefall") if r.id == "still")
    calls = reads(f"- {still.bullet}", "tried: still\nround mean 0.9000, then added: still", score=0.4)
    evidence = [*calls, grep("run", 5), grep("patch", 2)]
    analysis = analyse_game({(c.name, c.args.get("path")): c.result for c in calls}, evidence, "Tilefall")
    assert still.bullet in analysis.diagnosis["deletions"] and "harmful: still" in analysis.notebook
    assert recognised(analysis.skill, "Tilefall") == ["run"]  # the evidence's leader among what is left


def test_the_irrelevant_reflector_writes_a_skill_the_player_does_not_act_on():
    calls = reads()
    analysis = analyse_irrelevant(calls)
    assert analysis.changed and analysis.diagnosis["additions"] and analysis.skill.startswith("- ")
    assert recognised(analysis.skill, "Tilefall") == [] and recognised(analysis.skill) != []  # another game's

