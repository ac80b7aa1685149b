"""The findings' stand-ins decide from what they are given (cheap, no episodes):

- the scripted reflector adds the rule whose evidence the round shows most often, whatever its place in the
  rulebook, and marks the rule added last as harmful when the round's score fell after it;
- its negative control (`reflector-irrelevant`) writes a well-formed skill that the game's player does not
  act on (another game's rules, to its last round), and that skill plays kitchen and tilefall step for step as
  no skill does (a short game each, through the real policy server).

The other negative controls (`policy=independent`, `pixels-flat`, constant effort) are checked where they
run: in `rtarena findings --quick`, whose negative-control statistics are exactly 0 (docs/findings.md)."""

from __future__ import annotations

import json

import pytest

import rtarena
from rtarena.agents.specs import build_agent
from rtarena.improve.player import with_skill
from rtarena.policy_server import PolicyServer, reflector
from rtarena.policy_server.reflector import Call, analyse_game, analyse_irrelevant, next_game_rule
from rtarena.policy_server.skill_player import recognised, rulebook, rules
from rtarena.runtime import run_match

SUMMARY = ("| episode | seed | score | steps | decisions | ended | last reasoning |\n|---|---|---|---|---|---|---|\n"
           "| e0 | 1000 | {s} | 300 | 100 | by the env | Tilefall: walking to the safest tile. (rules applied "
           "| e1 | 1001 | {s} | 300 | 100 | by the env | Tilefall: walking to the safest tile. (rules applied ")


def tool(name: str, args: dict, result: dict) -> Call:
    return Call(name, args, json.dumps({"ok": True, "result": result}))


def grep(rule_id: str, hits: int) -> Call:
    rule = next(r for r in rulebook("Tilefall") if r.id == rule_id)
    return tool("grep", reflector.evidence_grep(rule)[1], {"matches": [{"text": "x"}] * hits})


def reads(skill: str = "", notebook: str = "", score: float = 0.5, game: str = "Tilefall") -> list[Call]:
    summary = SUMMARY.format(s=score).replace("Tilefall:", f"{game}:")
    return [tool("get_previous_skill", {}, {"skill": skill, "notebook": notebook}),
            tool("read_text", {"path": "lints.md"}, {"text": ""}),
            tool("read_text", {"path": "evidence/summary.md"}, {"text": summary})]


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


def irrelevant_skill(game: str) -> str:
    """The skill the irrelevant reflector ends with on `game` after as many rounds as it adds rules."""
    skill = ""
    while (analysis := analyse_irrelevant(reads(skill, game=game))).changed:
        assert analysis.diagnosis["additions"] and analysis.skill.startswith("- ")
        skill = analysis.skill
    return skill


@pytest.mark.parametrize("game", sorted({r.game for r in rules() if r.game}))
def test_the_irrelevant_reflector_writes_a_skill_the_player_does_not_act_on(game):
    # every round's rule, to the last: kitchen's bench bullet is also workshop's and handoff's, which a
    # reflector taking "another game's rule" by its game alone wrote into kitchen's skill (a skill that played)
    skill = irrelevant_skill(game)
    assert recognised(skill, game) == [] and recognised(skill) != []  # another game's, several of them


@pytest.mark.parametrize("env_id", ["games/kitchen-v0", "games/tilefall-v0"])
def test_a_skill_the_player_does_not_act_on_plays_exactly_as_no_skill(env_id, tmp_path):
    """The IDC arms differ only in the skill: the negative control's final skill plays the same steps as no
    skill (the held-out gain of `reflector-irrelevant` is +0.000 by construction, not by luck)."""
    def env():  # a 4 s game: kitchen's bench rule changes the cooks' keys within it
        return rtarena.make(env_id, obs=("text",), overrides={"game.time_limit_s": 4.0})

    skill_file = tmp_path / "skill.md"
    skill_file.write_text(irrelevant_skill(env().rules.game.title), encoding="utf-8")
    with PolicyServer() as server:
        player = f"llm:scripted-skill@{server.url(policy='skill')},modalities=text"
        plays = [run_match(env(), [build_agent(spec, "games") for _ in env().possible_agents], clock="paused",
                           seed=11000) for spec in (player, with_skill(player, skill_file))]
    without, with_ = ([(s.actions, s.rewards) for s in p.steps] for p in plays)
    assert without and with_ == without
    assert [d.text for d in plays[1].decisions] == [d.text for d in plays[0].decisions]

