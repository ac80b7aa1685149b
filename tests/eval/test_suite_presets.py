"""The game suite's presets: what each varies, and that it reaches the agents (shrunk runs against the
scripted policy server, which stands in for a model and is named as scripted)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

import rtarena
from rtarena.agents.llm.prompts import domain_text
from rtarena.contract import AgentContext
from rtarena.eval.presets import load_preset
from rtarena.eval.runner import run_experiment
from rtarena.runtime.documentation import env_docs

from .helpers import lines

SUITE = ("suite-solo", "suite-pvp", "suite-coop")


def shrink(experiment, tmp_path, envs, lineups, clocks=("paused-chunks",), max_steps=40):
    kept_envs = tuple(replace(e, lineups=tuple(n for n in e.lineups if n in lineups))
                      for e in experiment.envs if e.id in envs)
    return replace(experiment, envs=kept_envs, lineups=tuple(lu for lu in experiment.lineups if lu.name in lineups),
                   clocks=tuple(c for c in experiment.clocks if c.name in clocks), seeds=(0,), max_steps=max_steps,
                   out=str(tmp_path / "runs"))


@pytest.mark.parametrize("name", SUITE)
def test_each_suite_preset_runs_paused_with_chunks_and_settle_time_and_measured(name):
    clocks = {c.name: c for c in load_preset(name).clocks}
    assert clocks["paused-chunks"].clock == "paused" and clocks["paused-chunks"].run_clock.settle_s > 0
    assert clocks["measured"].clock == "measured"


def test_suite_pvp_meets_every_pair_on_both_sides_and_never_a_spec_itself():
    experiment = load_preset("suite-pvp")
    pairs = [lu.slots for lu in experiment.lineups]
    specs = {s for pair in pairs for s in pair}
    assert len(specs) == 3 and len(pairs) == len(set(pairs)) == 6
    assert all(a != b and (b, a) in pairs for a, b in pairs)
    assert all(set(e.lineups) == {lu.name for lu in experiment.lineups} for e in experiment.envs)


def test_suite_pvp_seats_reach_the_agents(tmp_path):
    from rtarena.policy_server import PolicyServer

    with PolicyServer() as server:
        experiment = load_preset("suite-pvp", params={"base_url": server.base_url})
        model_first = next(lu.name for lu in experiment.lineups if lu.slots[0].startswith("llm:")
                           and lu.slots[1] == "heuristic")
        model_second = next(lu.name for lu in experiment.lineups if lu.slots[1].startswith("llm:")
                            and lu.slots[0] == "heuristic")
        experiment = shrink(experiment, tmp_path, {"games/duel-v0"}, {model_first, model_second})
        result = run_experiment(experiment, run_id="pvp", workers=1)
        assert server.requests > 0
    episodes = {e["lineup"]: e for e in lines(result.run_dir)}
    assert result.failed == 0 and len(episodes) == 2
    for lineup, seat in ((model_first, "p0"), (model_second, "p1")):
        episode = episodes[lineup]
        assert episode["slot_specs"][seat].startswith("llm:")
        assert episode["agents"][seat]["tokens_out"] > 0  # the model played the seat the line-up gave it
        other = "p1" if seat == "p0" else "p0"
        assert episode["slot_specs"][other] == "heuristic" and episode["agents"][other].get("tokens_out", 0) == 0
        assert episode["clock"]["settle_s"] == 0.2


def test_suite_coop_is_self_play_in_both_seats(tmp_path):
    from rtarena.policy_server import PolicyServer

    with PolicyServer() as server:
        experiment = load_preset("suite-coop", params={"base_url": server.base_url})
        assert all(len(lu.slots) == 1 for lu in experiment.lineups)  # one spec fills every seat
        model = next(lu.name for lu in experiment.lineups if lu.slots[0].startswith("llm:"))
        result = run_experiment(shrink(experiment, tmp_path, {"games/kitchen-v0"}, {model, "heuristic"}),
                                run_id="coop", workers=1)
    episodes = {e["lineup"]: e for e in lines(result.run_dir)}
    assert result.failed == 0
    assert set(episodes[model]["slot_specs"].values()) == {experiment.lineups[0].slots[0]}
    assert all(episodes[model]["agents"][seat]["tokens_out"] > 0 for seat in ("p0", "p1"))
    assert set(episodes["heuristic"]["slot_specs"].values()) == {"heuristic"}


def test_suite_solo_gives_the_model_each_game(tmp_path):
    from rtarena.policy_server import PolicyServer

    with PolicyServer() as server:
        experiment = load_preset("suite-solo", params={"base_url": server.base_url})
        assert len(experiment.envs) == 7
        model = next(lu.name for lu in experiment.lineups if lu.slots[0].startswith("llm:"))
        result = run_experiment(shrink(experiment, tmp_path, {"games/tilefall-v0", "games/workshop-v0"}, {model},
                                       clocks=("paused-chunks", "measured"), max_steps=20), run_id="solo", workers=1)
    episodes = lines(result.run_dir)
    assert result.failed == 0
    assert {(e["env_id"], e["clock_name"]) for e in episodes} == {
        (g, c) for g in ("games/tilefall-v0", "games/workshop-v0") for c in ("paused-chunks", "measured")}
    assert all(e["agents"]["p0"]["tokens_out"] > 0 for e in episodes)


def test_suite_variants_covers_each_games_three_variants_and_the_variant_reaches_the_prompt():
    experiment = load_preset("suite-variants")
    ids = [e.id for e in experiment.envs]
    assert len(ids) == 36 and all(f"games/{g}-{v}-v0" in ids for g in ("duel", "kitchen", "handoff", "midline",
                                                                       "crystal") for v in ("var1", "var2", "var3"))
    for env_id in ("games/duel-var2-v0", "games/handoff-var1-v0", "games/crystal-var3-v0"):
        variant = env_id.split("-")[1]
        env = rtarena.make(env_id)
        base = rtarena.make(env_id.replace(f"-{variant}", ""))
        context = AgentContext(env_id, ("p0",), {}, {}, {}, env.dt, 0, {}, docs=env_docs(env, ("p0",)))
        prompt = domain_text(context)
        assert f"variant {variant}" in prompt
        assert env.rules_text() in prompt and env.rules_text().split("\n", 1)[1] != base.rules_text().split("\n", 1)[1]


def test_suite_identify_shows_each_game_and_stores_answers_and_frames(tmp_path):
    """The shipped preset scores mechanics too: each episode's judge seat is sent (read at the policy server)
    the player's answer and that game's own mechanics list, and the episode gets `mechanics_described`."""
    from rtarena.envs.games.identify import IdentifyProbe
    from rtarena.policy_server import PolicyServer
    from rtarena.policy_server.identify_text import PLAYER_ANSWER

    with PolicyServer() as server:
        experiment = load_preset("suite-identify", params={"base_url": server.base_url,
                                                           "judge_url": server.base_url})
        assert len(experiment.envs) == 12 and {e.kwargs["game"] for e in experiment.envs} == {
            f"games/{g}-v0" for g in ("errands", "escape", "monsters", "parkour3d", "runner2d", "tilefall",
                                      "workshop", "duel", "kitchen", "handoff", "midline", "crystal")}
        assert all(e.kwargs["judge"] is True for e in experiment.envs)
        experiment = replace(experiment, envs=tuple(e for e in experiment.envs
                                                    if e.name in ("identify-duel", "identify-kitchen")),
                             seeds=(0,), out=str(tmp_path / "runs"))
        result = run_experiment(experiment, run_id="identify", workers=1)
        assert server.requests == 6  # per episode: the question, the judge waiting for the answer, the verdict
        judged = [b for b in server.bodies if "Mechanics:" in json.dumps(b["messages"][-1]["content"])]
    episodes = lines(result.run_dir)
    assert result.failed == 0 and len(episodes) == 2
    assert all(e["agents"]["p0"]["tokens_out"] > 0 and e["agents"]["p0"]["answer_chars"] > 0 for e in episodes)
    assert all(e["agents"]["p0"]["mechanics_described"] == 0.0 for e in episodes)  # "I do not know this game"
    assert len(judged) == 2
    for game in ("games/duel-v0", "games/kitchen-v0"):
        mechanics = IdentifyProbe._rules_of(game).probe.mechanics
        asked = [json.dumps(b["messages"][-1]["content"]) for b in judged
                 if json.dumps(mechanics[0])[1:-1] in json.dumps(b["messages"][-1]["content"])]
        assert len(asked) == 1 and all(json.dumps(f"{i}. {m}")[1:-1] in asked[0] for i, m in enumerate(mechanics, 1))
        assert json.dumps(PLAYER_ANSWER)[1:-1] in asked[0]
    frames = {e["level"]: sorted((result.run_dir / "frames" / e["episode"]).glob("frame-*.png")) for e in episodes}
    assert all(len(paths) == 3 for paths in frames.values())
    assert frames["identify-duel"][0].read_bytes() != frames["identify-kitchen"][0].read_bytes()


def test_every_multiplayer_game_runs_to_its_end_with_model_agents(tmp_path):
    from rtarena.policy_server import PolicyServer

    short = {"game": {"time_limit_s": 2.0}}
    with PolicyServer() as server:
        pvp = load_preset("suite-pvp", params={"base_url": server.base_url})
        coop = load_preset("suite-coop", params={"base_url": server.base_url})
        model_vs_random = next(lu.name for lu in pvp.lineups
                               if lu.slots[0].startswith("llm:") and lu.slots[1] == "random")
        model = next(lu.name for lu in coop.lineups if lu.slots[0].startswith("llm:"))
        runs = []
        for preset, lineup, name in ((pvp, model_vs_random, "pvp-end"), (coop, model, "coop-end")):
            experiment = shrink(preset, tmp_path / name, {e.id for e in preset.envs}, {lineup}, max_steps=1000)
            experiment = replace(experiment, envs=tuple(replace(e, overrides=short) for e in experiment.envs))
            runs.append(run_experiment(experiment, run_id=name, workers=1))
    episodes = [e for result in runs for e in lines(result.run_dir)]
    assert all(r.failed == 0 for r in runs)
    assert sorted(e["env_id"] for e in episodes) == sorted(f"games/{g}-v0" for g in ("duel", "midline", "crystal",
                                                                                      "kitchen", "handoff"))
    for e in episodes:
        assert e["steps"] <= 20 and (e["steps"] == 20 or e["env_id"] in ("games/duel-v0", "games/crystal-v0"))
        assert all(0.0 <= a["score"] <= 1.0 for a in e["agents"].values())
        model_seats = [seat for seat, spec in e["slot_specs"].items() if spec.startswith("llm:")]
        assert model_seats and all(e["agents"][seat]["tokens_out"] > 0 for seat in model_seats)


def test_the_identification_probe_sends_frames_and_a_judge_scores_the_mechanics_from_the_level_file():
    """The probe's default model request holds the frames as an image; with `judge=True` a judge seat gets
    the answer and the game's own mechanics list (its level file's `[probe] mechanics`) and answers which
    are described (the policy server's judge is a scripted keyword matcher, named as such)."""
    from rtarena.agents.llm import LLMAgent
    from rtarena.envs.registry import make
    from rtarena.policy_server import PolicyServer
    from rtarena.runtime.match import run_match

    answer = "Not a game I know. You stand on a floor of tiles over a void; a tile turns red, then drops."
    with PolicyServer() as server:
        env = make("probe/identify-v0", game="games/tilefall-v0", judge=True)
        result = run_match(env, [lambda _obs: answer, LLMAgent(f"scripted-heuristic@{server.base_url}")],
                           clock="paused", seed=0)
        judge_inputs = server.inputs
        player = LLMAgent(f"scripted-heuristic@{server.base_url}")
        run_match(make("probe/identify-v0", game="games/tilefall-v0"), [player], clock="paused", seed=0)
        player_input = server.inputs[-1]
    assert any(kind == "image_url" for kind, _ in player_input)  # the frames reach the model
    assert not any(kind == "image_url" for shape in judge_inputs for kind, _ in shape)  # the judge reads text
    metrics = result.agents["p0"]
    assert metrics["names_the_game"] == 0.0 and metrics["mechanics_described"] == 0.75
    verdict = next(e for e in result.events if e["type"] == "verdict")
    assert verdict["described"] == [1, 2, 3]  # not 4: the answer says nothing of the score
