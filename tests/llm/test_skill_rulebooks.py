"""Every suite game has a skill rulebook (`policy_server/skill_rules.toml`), and on the eight games beyond
the IDC pair (`tests/improve/test_games_idc.py`) its rules change how `policy=skill` plays, through the real
policy server: the helpful bullets beat the empty skill (the cold start), the harmful bullet added to them
scores below the helpful ones alone (below half of them: the runner's rollback threshold), and the scripted
reflector, reading a round of the cold start's evidence, proposes the rulebook's first rule.

Cheap: one seed, shortened games (`game.time_limit_s`, named below); a PvP game plays the skill player against
its own cold start in both seats of the seed (so an equal player scores 0.5 exactly). docs/improve.md has the
numbers over more seeds.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from tests.improve.helpers import role

import rtarena
from rtarena.agents.specs import build_agent
from rtarena.envs.registry import ENV_TABLE
from rtarena.improve.loop import ImproveRun, Loop
from rtarena.improve.settings import ImproveSettings
from rtarena.policy_server.skill_player import rulebook
from rtarena.runtime import run_match

SUITE = [spec.id for spec in ENV_TABLE if spec.family == "games" and "-var" not in spec.id]
# env played (monsters: var3, where the cold start does not already clear every monster) and its length
GAMES = {
    "Runner": ("games/runner2d-v0", 15.0),
    "Errands": ("games/errands-v0", 90.0),
    "Escape": ("games/escape-v0", 30.0),
    "Monsters": ("games/monsters-var3-v0", 20.0),
    "Parkour": ("games/parkour3d-v0", 12.0),
    "Crystal": ("games/crystal-v0", 15.0),
    "Duel": ("games/duel-v0", 20.0),
    "Midline": ("games/midline-v0", 20.0),
}
SEEDS = (1,)
GAIN = 0.1  # the least gain of the helpful bullets over the empty skill


def title_of(env_id: str) -> str:
    return rtarena.make(env_id).rules.game.title


def test_every_game_of_the_suite_has_a_rulebook_with_a_helpful_rule():
    books = {env_id: rulebook(title_of(env_id)) for env_id in SUITE}
    assert all(any(not r.harmful for r in book) for book in books.values()), books
    # a harmful rule too, except on workshop and handoff, which share kitchen's bench rule only
    assert {env_id for env_id, book in books.items() if not any(r.harmful for r in book)} == \
        {"games/workshop-v0", "games/handoff-v0"}


def mean_score(server, env_id: str, overrides: dict, skill_file) -> float:
    """The skill player's mean score over SEEDS; a PvP game plays it against its own cold start, both seats of
    each seed."""
    spec = role(server, "skill", "llm:") + ",modalities=text" + f",skill={skill_file}"
    cold = role(server, "skill", "llm:") + ",modalities=text"
    pvp = len(rtarena.make(env_id).possible_agents) > 1
    plays = [(seed, [spec, cold], 0) for seed in SEEDS] + [(seed, [cold, spec], 1) for seed in SEEDS] if pvp \
        else [(seed, [spec], 0) for seed in SEEDS]
    scores = []
    for seed, lineup, seat in plays:
        env = rtarena.make(env_id, obs=("text",), overrides=overrides)
        result = run_match(env, [build_agent(s, "games") for s in lineup], clock="paused", seed=seed, settle_s=0.2)
        scores.append(result.agents[f"p{seat}"]["score"])
    return float(np.mean(scores))


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_games_rules_change_the_skill_players_score_and_the_reflector_proposes_one(server, game, tmp_path):
    env_id, length_s = GAMES[game]
    overrides = {"game.time_limit_s": length_s}
    pvp = len(rtarena.make(env_id).possible_agents) > 1
    # round 0 of an improvement run: the empty skill (the cold start), then the scripted reflector reads its
    # evidence; a PvP round (the player in both seats) only feeds the reflector: one capped episode
    run_dir = tmp_path / "run"
    settings = ImproveSettings(rounds=2, episodes=1 if pvp else len(SEEDS), seed_start=SEEDS[0], bootstrap=100,
                               max_steps=100 if pvp else None, frames=0)  # no video
    run = ImproveRun(env_id, role(server, "skill", "llm:") + ",modalities=text", role(server, "reflector"),
                     role(server, "judge"), settings, run_dir, (), {"overrides": overrides})
    run_dir.mkdir()
    (run_dir / "improve.json").write_text(json.dumps(run.to_dict()))
    state = Loop(run).play_round(0)
    book = rulebook(game)
    assert state["reflection"]["accepted"], state["reflection"]
    # the reflector adds the rule whose failure the round's evidence shows most (tests/findings/test_stand_ins.py
    # checks that choice against the evidence); here: it is one of the game's rules, not free text
    assert (run_dir / "round_00" / "skill_out.md").read_text().strip() in {f"- {r.bullet}" for r in book}

    helpful = [r.bullet for r in book if not r.harmful]
    harmful = next(r.bullet for r in book if r.harmful)
    files = {}
    for name, bullets in (("helpful", helpful), ("harmful", [*helpful, harmful])):
        files[name] = tmp_path / f"{name}.md"
        files[name].write_text("".join(f"- {b}\n" for b in bullets))
    # the cold start against itself in both seats of a seed plays one episode twice: it scores 0.5 exactly
    empty = 0.5 if pvp else float(np.mean(state["scores"]))
    good, bad = (mean_score(server, env_id, overrides, files[name]) for name in ("helpful", "harmful"))
    assert round(good - empty, 6) >= GAIN, (game, empty, good, bad)
    assert bad < 0.5 * good, (game, empty, good, bad)  # below the runner's rollback threshold (alpha 0.5)
