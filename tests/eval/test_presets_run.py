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
    experiment = shrink(load_preset("delay-injection-turn-based"), tmp_path, lineups={"heuristic"})
    result = run_experiment(experiment, run_id="delays", workers=1)  # the pool: test_runner.py
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
        result = run_experiment(experiment, run_id="teams", workers=1)
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


def test_delay_injection_preset_runs_in_real_time_and_the_delay_reaches_the_agent(tmp_path):
    """The paper's design: wall clock at 250 ms steps; the injected delay comes on top of the latency."""
    experiment = load_preset("delay-injection")
    assert {c.clock for c in experiment.clocks} == {"wall"} and {c.dt for c in experiment.clocks} == {0.25}
    assert sorted(c.delay_ms for c in experiment.clocks) == [0, 250, 1000, 3000]
    experiment = shrink(experiment, tmp_path, lineups={"heuristic"}, clocks={"delay-0ms", "delay-1000ms"},
                        max_steps=10)
    experiment = replace(experiment, envs=experiment.envs[:1])
    result = run_experiment(experiment, run_id="wall-delays", workers=1)
    episodes = {e["clock"]["delay_s"]: e for e in lines(result.run_dir)}
    assert result.failed == 0 and set(episodes) == {0.0, 1.0}
    for delay, episode in episodes.items():
        assert episode["clock"]["clock"] == "wall"
        summary = episode["agents"]["p0"]
        # the decision's delay in sim time: its own (measured) latency plus the injected delay
        assert summary["decision_delay_p50_s"] >= delay
        assert summary["decision_delay_p50_s"] < delay + 0.5


def test_world_waits_preset_holds_each_decision_in_real_time_and_costs_no_game_time(tmp_path):
    """The delay curve's negative control: the same delays held in wall time under the paused clock. The
    model is told the game waits; each of its requests reaches the server at least the delay after the last
    one's reply; no decision costs game time, so the same seed plays the same actions with and without it."""
    import pyarrow.parquet as pq

    from rtarena.policy_server.server import PolicyServer
    from rtarena.runtime.clocks import make_clock

    experiment = load_preset("delay-injection-world-waits")
    assert {(c.clock, c.run_clock.delay_in) for c in experiment.clocks} == {("paused", "wall")}
    assert sorted(c.delay_ms for c in experiment.clocks) == [0, 250, 1000, 3000]
    runs, prompts = {}, {}
    with PolicyServer() as server:
        experiment = load_preset("delay-injection-world-waits", params={"base_url": server.base_url})
        for name in ("delay-0ms", "delay-250ms"):
            cell = shrink(experiment, tmp_path, lineups={"model"}, clocks={name}, max_steps=6)
            result = run_experiment(replace(cell, envs=cell.envs[:1]), run_id=name, workers=1)
            assert result.failed == 0
            runs[name], prompts[name] = result.run_dir, server.bodies[-1]["messages"][0]["content"]
    held = make_clock("paused", delay_s=0.25, delay_in="wall").describe()
    assert "held a further 0.25 s of real time" in held and held in prompts["delay-250ms"]
    assert "held a further" not in prompts["delay-0ms"]
    decisions = {n: sorted(pq.read_table(next((r / "decisions").glob("*.parquet"))).to_pylist(),
                           key=lambda d: d["wall_start_s"]) for n, r in runs.items()}
    assert all(d["delay_sim_s"] == 0.0 for rows in decisions.values() for d in rows)  # no game time
    assert [d["action"] for d in decisions["delay-250ms"]] == [d["action"] for d in decisions["delay-0ms"]]
    gaps = [b["wall_start_s"] - a["wall_end_s"] for a, b in pairwise(decisions["delay-250ms"])]
    assert len(gaps) >= 4 and min(gaps) >= 0.25  # each decision held 0.25 s of real time before the next


def test_modality_ablation_sends_each_cells_modalities_to_the_model(tmp_path):
    """Each cell's modalities reach the model: observed as the content parts of the requests it gets."""
    from rtarena.policy_server.server import PolicyServer

    experiment = load_preset("modality-ablation")
    assert len(experiment.observations) == 5 and "audio" in {m for o in experiment.observations for m in o.obs}
    assert {c.name for c in experiment.clocks} == {"turn-based", "realtime-250ms"} and len(experiment.seeds) == 20
    seen = {}
    with PolicyServer() as server:
        experiment = load_preset("modality-ablation", params={"base_url": server.base_url})
        base = shrink(experiment, tmp_path, clocks={"turn-based"}, max_steps=3)
        base = replace(base, envs=base.envs[:1])
        for modality in experiment.observations:
            before = len(server.inputs)
            result = run_experiment(replace(base, observations=(modality,)), run_id=f"obs-{modality.name}",
                                    workers=1)
            assert result.failed == 0
            seen[modality.name] = server.inputs[before:]
    kinds = {name: {tuple(kind for kind, _ in shape) for shape in shapes} for name, shapes in seen.items()}
    text_tokens = {name: max(sum(n for kind, n in shape if kind == "text") for shape in shapes)
                   for name, shapes in seen.items()}
    assert kinds["text"] == {("text",)}
    assert kinds["rgb"] == {("text", "image_url")} and kinds["rgb+text"] == {("text", "image_url")}
    assert text_tokens["rgb+text"] > text_tokens["rgb"] + 20  # the text observation is there too
    assert kinds["rgb+depth+text"] == {("text", "image_url", "image_url")}
    assert kinds["rgb+audio+text"] == {("text", "image_url", "input_audio")}
