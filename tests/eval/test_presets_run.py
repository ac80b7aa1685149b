"""Presets run end to end on the arena, shrunk to a few short episodes: heuristic bots under the
delay-injection design, and model agents (against the scripted policy server) under centralized and
decentralized control."""

from __future__ import annotations

from dataclasses import replace
from itertools import pairwise

from rtarena.eval.presets import load_preset
from rtarena.eval.report import build_report
from rtarena.eval.runner import run_experiment

from .helpers import lines


def shrink(experiment, tmp_path, lineups=None, clocks=None, max_steps=12):
    envs = tuple(replace(e, lineups=tuple(n for n in e.lineups if lineups is None or n in lineups) or e.lineups)
                 for e in experiment.envs)
    kept = tuple(lu for lu in experiment.lineups if lineups is None or lu.name in lineups)
    chosen = tuple(c for c in experiment.clocks if clocks is None or c.name in clocks)
    return replace(experiment, envs=envs, lineups=kept, clocks=chosen, seeds=(0,), max_steps=max_steps,
                   out=str(tmp_path / "runs"))


def test_delay_injection_preset_with_heuristic_bots(tmp_path):
    experiment = shrink(load_preset("delay-injection"), tmp_path, lineups={"heuristic"})
    result = run_experiment(experiment, run_id="delays", workers=2)
    episodes = lines(result.run_dir)
    assert result.failed == 0 and len(episodes) == 4 * 4  # four levels x four delays
    assert {e["clock"]["delay_s"] for e in episodes} == {0.0, 0.25, 1.0, 3.0}
    html = build_report(["delays"], root=tmp_path / "runs")
    assert "score against injected delay" in html.read_text()


def test_centralized_vs_decentralized_preset_with_model_agents(tmp_path):
    from rtarena.policy_server.server import PolicyServer

    with PolicyServer() as server:
        experiment = load_preset("centralized-vs-decentralized", params={"base_url": server.base_url})
        experiment = shrink(experiment, tmp_path, clocks={"turn-based"}, max_steps=6)
        assert experiment.concurrency == {server.base_url: 8}
        result = run_experiment(experiment, run_id="teams", workers=2)
        assert server.requests > 0
    episodes = {(e["level"], e["lineup"]): e for e in lines(result.run_dir)}
    assert result.failed == 0 and len(episodes) == 4
    central = episodes[("coop-v0", "centralized")]
    assert list(central["controllers"]) == ["team(p0,p1,p2,p3)"]
    assert len(episodes[("coop-v0", "decentralized")]["controllers"]) == 4
    mixed = episodes[("mixed-v0", "centralized-vs-heuristic")]["controllers"]
    assert "team(p0,p1)" in mixed and "p2" in mixed and "p3" in mixed
    for episode in episodes.values():
        model_agents = [a for a, spec in episode["slot_specs"].items() if "llm:" in spec]
        assert all(episode["agents"][a]["tokens_out"] > 0 for a in model_agents)


def test_endpoint_limit_keeps_episodes_on_one_endpoint_apart(tmp_path):
    from rtarena.eval.experiment_file import parse_experiment
    from rtarena.policy_server.server import PolicyServer

    with PolicyServer() as server:
        table = {"name": "limited", "out": str(tmp_path / "runs"), "seeds": 3, "max_steps": 6,
                 "envs": ["arena/basic-v0"], "clocks": [{"clock": "paused", "dt": 0.25}],
                 "agents": [f"llm:scripted-heuristic@{server.base_url}"], "concurrency": {server.base_url: 1}}
        result = run_experiment(parse_experiment(table), run_id="limited", workers=2)
    episodes = lines(result.run_dir)
    assert result.failed == 0 and len(episodes) == 3
    spans = sorted((e["worker"]["started_unix_s"], e["worker"]["finished_unix_s"]) for e in episodes)
    # two workers, but one episode at a time on that endpoint: the spans never overlap
    assert all(earlier[1] <= later[0] for earlier, later in pairwise(spans))
