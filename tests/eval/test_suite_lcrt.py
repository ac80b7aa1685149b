"""The suite presets' two protocols differ in one condition only: PDQ (`paused-chunks`) and LCRT (`measured`)
play the same chunk loop (the chunk plays out, the world settles, then the next observation), and only LCRT
charges the thinking as game time, during which the world runs default actions (OmniGameArena: the budget
effect is what an asynchronous pipeline would mitigate, so LCRT itself is synchronous). Read at the scripted
policy server (named as scripted) and in the decisions and steps tables."""

from __future__ import annotations

import json
from dataclasses import replace
from itertools import pairwise

import duckdb
import pytest

from rtarena.eval.presets import load_preset
from rtarena.eval.runner import run_experiment
from rtarena.runtime.clocks import make_clock

from .helpers import lines

PAIRED = ("suite-solo", "suite-coop", "suite-pvp")


@pytest.mark.parametrize("name", PAIRED)
def test_pdq_and_lcrt_share_the_chunk_protocol(name):
    clocks = {c.name: c for c in load_preset(name).clocks}
    pdq, lcrt = clocks["paused-chunks"], clocks["measured"]
    assert (pdq.clock, lcrt.clock) == ("paused", "measured")
    assert lcrt.run_clock.settle_s == pdq.run_clock.settle_s > 0  # only the clock differs
    assert {k: v for k, v in lcrt.run_clock.given().items() if k != "latency"} == pdq.run_clock.given()
    assert lcrt.run_clock.latency == "server"  # the paper anchors LCRT on the server's latency


def test_lcrt_plays_whole_chunks_and_idles_while_the_model_thinks(tmp_path):
    from rtarena.policy_server import PolicyServer

    ttft_s = 0.15  # well over a step (0.1 s): each decision costs the world a step or two of default actions
    with PolicyServer() as server:
        experiment = load_preset("suite-solo", params={"base_url": server.url(ttft_s=ttft_s)})
        model = next(lu for lu in experiment.lineups if lu.slots[0].startswith("llm:"))
        experiment = replace(experiment, envs=tuple(e for e in experiment.envs if e.id == "games/monsters-v0"),
                             lineups=(replace(model, slots=(f"{model.slots[0]},modalities=text",)),),
                             clocks=tuple(c for c in experiment.clocks if c.name == "measured"), seeds=(0,),
                             max_steps=30, out=str(tmp_path / "runs"))
        result = run_experiment(experiment, run_id="lcrt", workers=1)
        system = server.bodies[-1]["messages"][0]["content"]
    (episode,) = lines(result.run_dir)
    assert result.failed == 0 and episode["clock"]["settle_s"] == 0.2
    # the prompt tells the model both conditions, in the clock's own words
    assert make_clock("measured", settle_s=0.2).describe() in (system if isinstance(system, str) else
                                                                json.dumps(system))
    con = duckdb.connect()
    decisions = con.sql(f"select index, start_sim_s, committed_sim_s, applied_step, chunk_steps, applied_steps, "
                        f"extra from read_parquet('{result.run_dir}/decisions/*.parquet') order by index").fetchall()
    fresh = [row[0] != "[]" for row in con.sql(
        f"select fresh_agents from read_parquet('{result.run_dir}/steps/*.parquet') order by step").fetchall()]
    dt = episode["sim_seconds"] / episode["steps"]
    assert len(decisions) >= 3 and any(d[4] > 1 for d in decisions)  # several chunks of several steps
    assert max(d[2] - d[1] for d in decisions) > dt  # a wait of ttft_s: over a step of the world charged
    assert episode["clock"]["latency"] == "server"  # the paper anchors LCRT on the server's latency
    for (_, start, committed, first, steps, applied, extra), after in pairwise(decisions):
        assert applied == steps  # never replaced mid-chunk
        # the server's latency (from its response headers, so a little under the client's) is charged exactly
        server_s = json.loads(extra)["latency_server_s"]
        assert server_s > 0 and committed - start == pytest.approx(server_s, abs=1e-6)  # as game time ...
        assert not any(fresh[round(start / dt):first])  # ... during which the world ran default actions
        assert after[1] >= round((first + steps) * dt + 0.2, 6)  # next look: after the chunk and the settle


def test_suite_solo_s_fixed_lcrt_charges_a_0_3_s_answer_as_game_time(tmp_path):
    """`lcrt-300ms` (preset `suite-solo-lcrt-300ms`, the gated control of `rtarena findings`' pdq-vs-lcrt) is
    PDQ's chunk loop with each decision landing 0.3 s of game time late, whatever the stand-in's own wall
    time: LCRT for a fixed answer time, deterministic."""
    from rtarena.policy_server import PolicyServer

    pdq = next(c for c in load_preset("suite-solo").clocks if c.name == "paused-chunks")
    (fixed,) = load_preset("suite-solo-lcrt-300ms").clocks  # a named ablation: suite-solo's default runs PDQ and LCRT
    assert "lcrt-300ms" not in {c.name for c in load_preset("suite-solo").clocks}
    assert fixed.clock == "paused" and fixed.run_clock.given() == {**pdq.run_clock.given(), "delay_s": 0.3}
    with PolicyServer() as server:
        experiment = load_preset("suite-solo-lcrt-300ms", params={"base_url": server.base_url})
        model = next(lu for lu in experiment.lineups if lu.slots[0].startswith("llm:"))
        experiment = replace(experiment, envs=tuple(e for e in experiment.envs if e.id == "games/monsters-v0"),
                             lineups=(replace(model, slots=(f"{model.slots[0]},modalities=text",)),),
                             seeds=(0,), max_steps=30, out=str(tmp_path / "runs"))
        result = run_experiment(experiment, run_id="fixed", workers=1)
        system = server.bodies[-1]["messages"][0]["content"]
    (episode,) = lines(result.run_dir)
    assert result.failed == 0 and episode["clock"]["delay_s"] == 0.3
    assert fixed.run_clock.describe() in (system if isinstance(system, str) else json.dumps(system))
    decisions = duckdb.connect().sql(f"select start_sim_s, committed_sim_s from read_parquet("
                                     f"'{result.run_dir}/decisions/*.parquet') order by index").fetchall()
    assert len(decisions) >= 3  # each charged the declared 0.3 s exactly, not the answer's own wall time
    assert all(committed - start == pytest.approx(0.3, abs=1e-6) for start, committed in decisions)
