"""Each remaining preset's varied condition reaches the agent (the delay-injection, modality-ablation
and centralized-vs-decentralized ones are in test_presets_run.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rtarena.eval.presets import load_preset
from rtarena.eval.runner import run_experiment

from .helpers import lines
from .test_presets_run import shrink


def test_cartpole_delays_reach_the_balancer(tmp_path):
    experiment = shrink(load_preset("cartpole-delays"), tmp_path, lineups={"heuristic"}, max_steps=30)
    result = run_experiment(experiment, run_id="cartpole", workers=1)
    episodes = lines(result.run_dir)
    assert result.failed == 0 and len(episodes) == 4
    for episode in episodes:
        delay = episode["clock"]["delay_s"]
        summary = episode["agents"]["agent_0"]
        # turn-based: the injected delay is the decision's whole cost in sim time
        assert summary["decision_delay_p50_s"] == pytest.approx(delay)
    assert {e["clock"]["delay_s"] for e in episodes} == {0.0, 0.02, 0.06, 0.1}


def test_main_table_clocks_reach_the_agent(tmp_path):
    """Turn-based costs a decision no sim time; 250 ms real time charges its measured latency."""
    experiment = shrink(load_preset("main-table"), tmp_path, lineups={"heuristic"}, max_steps=8)
    experiment = replace(experiment, envs=experiment.envs[:1])
    result = run_experiment(experiment, run_id="main", workers=1)
    episodes = {e["clock_name"]: e for e in lines(result.run_dir)}
    assert result.failed == 0 and set(episodes) == {"turn-based", "realtime-250ms"}
    paused, wall = (episodes[n]["agents"]["p0"] for n in ("turn-based", "realtime-250ms"))
    assert episodes["realtime-250ms"]["clock"]["clock"] == "wall"
    assert episodes["turn-based"]["clock"]["clock"] == "paused"
    assert paused["decision_delay_p50_s"] == 0.0
    assert wall["decision_delay_p50_s"] > 0.0 and wall["wall_latency_p50_s"] > 0.0


def test_agentic_vs_plain_reaches_the_model(tmp_path):
    """Same seed, same scripted server: the agentic framework's context (notes, memory) makes its prompts
    longer than the plain agent's, and the token clock charges each decision its output tokens; the
    turn-based cell tells the model that time is free and charges nothing."""
    from rtarena.policy_server.server import PolicyServer
    from rtarena.runtime.clocks import make_clock

    seen = {}
    with PolicyServer() as server:
        experiment = load_preset("agentic-vs-plain", params={"base_url": server.base_url})
        assert {c.clock for c in experiment.clocks} == {"paused", "token", "wall"}
        cell = shrink(experiment, tmp_path, lineups={"agentic"}, clocks={"turn-based"}, max_steps=3)
        (episode,) = lines(run_experiment(replace(cell, envs=cell.envs[:1]), run_id="turn", workers=1).run_dir)
        system = server.bodies[-1]["messages"][0]["content"]
        assert make_clock("paused").describe() in system and episode["clock"]["clock"] == "paused"
        assert episode["agents"]["p0"]["decision_delay_p50_s"] == 0.0
        for lineup in ("plain", "agentic"):
            cell = shrink(experiment, tmp_path, lineups={lineup}, clocks={"token-100tps"}, max_steps=6)
            cell = replace(cell, envs=cell.envs[:1])
            result = run_experiment(cell, run_id=lineup, workers=1)
            (episode,) = lines(result.run_dir)
            seen[lineup] = episode["agents"]["p0"]
    plain, agentic = seen["plain"], seen["agentic"]
    assert plain["decisions"] == agentic["decisions"] > 0
    assert agentic["tokens_in"] > plain["tokens_in"]
    assert plain["decision_delay_p50_s"] > 0 and agentic["decision_delay_p50_s"] > 0


def test_rl_eval_clocks_and_frames_reach_the_trained_agent(tmp_path):
    """rl-eval's three clocks (turn-based, 250 ms and 40 ms real time) reach the agent it evaluates, and the
    84 x 84 frame it makes reaches a model as an image part (read at the scripted policy server). Each reply
    takes 0.3 s, so the 40 ms world's six steps (0.24 s) hold fewer replies than the 250 ms world's (1.5 s)."""
    from rtarena.policy_server.server import PolicyServer

    with PolicyServer() as server:
        spec = f"llm:scripted-heuristic@{server.url(ttft_s=0.3)},modalities=rgb+text"
        experiment = load_preset("rl-eval", params={"trained": spec})
        assert experiment.seeds == tuple(range(20)) and experiment.envs[0].kwargs == {"resolution": 84}
        trained = experiment.lineups[0].name
        cell = shrink(experiment, tmp_path, lineups={trained}, max_steps=6)
        result = run_experiment(cell, run_id="rl-eval", workers=1)
        shapes = server.inputs
    episodes = {e["clock_name"]: e for e in lines(result.run_dir)}
    assert result.failed == 0 and set(episodes) == {"turn-based", "realtime-250ms", "realtime-40ms"}
    assert {n: (e["clock"]["clock"], round(e["sim_seconds"] / e["steps"], 3)) for n, e in episodes.items()} == {
        "turn-based": ("paused", 0.25), "realtime-250ms": ("wall", 0.25), "realtime-40ms": ("wall", 0.04)}
    paused, slow, fast = (episodes[n]["agents"]["p0"] for n in ("turn-based", "realtime-250ms", "realtime-40ms"))
    assert paused["decision_delay_p50_s"] == 0.0 and slow["decision_delay_p50_s"] > 0.0
    assert fast["decisions"] < slow["decisions"]  # the 40 ms world moves on while a reply is written
    assert shapes and all(any(kind == "image_url" for kind, _ in shape) for shape in shapes)


def test_live_vs_request_reaches_the_endpoint_by_both_protocols(tmp_path):
    """The `request` line-up's decisions are chat requests; the `live` line-up's are responses in one Realtime
    session per episode (the connect check opens one more, with no response), at the same endpoint."""
    from rtarena.policy_server.server import PolicyServer

    with PolicyServer() as server:
        experiment = load_preset("live-vs-request", params={"base_url": server.base_url})
        assert {c.clock for c in experiment.clocks} == {"paused", "token", "wall"}
        assert {s.split(":")[0] for lu in experiment.lineups for s in lu.slots} == {"llm", "live"}
        seen = {}
        for lineup in ("request", "live"):
            before = server.requests
            cell = shrink(experiment, tmp_path, lineups={lineup}, clocks={"token-B64"}, max_steps=3)
            cell = replace(cell, envs=cell.envs[:1])
            result = run_experiment(cell, run_id=lineup, workers=1)
            (episode,) = lines(result.run_dir)
            seen[lineup] = (episode["agents"], server.requests - before, list(server.sessions))
    (request, request_calls, after_request), (live, live_calls, after_live) = seen["request"], seen["live"]
    (metrics,) = request.values()
    assert after_request == [] and request_calls == metrics["decisions"] == 3  # chat only
    (live_metrics,) = live.values()
    check, session = after_live
    assert check.responses == 0 and session.responses == live_calls == live_metrics["decisions"] == 3
    assert live_metrics["tokens_out"] == metrics["tokens_out"] > 0  # same scripted answers, charged the same
