"""Four `llm:` agents play a cooperative arena match against the scripted server under every clock."""

from __future__ import annotations

import math

import pytest

from rtarena.agents.llm import LLMAgent
from rtarena.agents.specs import parse_spec
from rtarena.envs.registry import make
from rtarena.eval.episodes import controllers_for
from rtarena.runtime import run_match

KAPPA, OVERHEAD = 100.0, 0.1


def coop_match(server, spec, clock, max_steps, **settings):
    env = make("arena/coop-v0")
    url = server.url(filler_tokens=30, filler_rate=3000)
    agents = {a: LLMAgent(spec(url)) for a in env.possible_agents}
    return run_match(env, agents, clock=clock, seed=3, max_steps=max_steps, **settings)


@pytest.mark.parametrize("clock, max_steps", [("paused", 8), ("token", 12), ("wall", 8)])
def test_records_show_tokens_source_latency_and_raw_text(server, spec, clock, max_steps):
    settings = {"kappa": KAPPA, "overhead": OVERHEAD} if clock == "token" else {}
    result = coop_match(server, spec, clock, max_steps, **settings)
    assert len(result.steps) == max_steps
    assert {d.controller for d in result.decisions} == {"p0", "p1", "p2", "p3"}
    # under `wall` a call still out when the last step is taken is abandoned, and recorded as such: at most
    # one per agent, on the last observation
    abandoned = [d for d in result.decisions if (d.error or "").startswith("abandoned")]
    assert clock == "wall" or not abandoned
    assert len({d.controller for d in abandoned}) == len(abandoned) <= 4
    assert all(d.obs_version == max(x.obs_version for x in result.decisions) for d in abandoned)
    for d in (d for d in result.decisions if d not in abandoned):
        assert d.valid and d.error is None
        assert d.tokens_source == "server" and d.tokens_in > 500 and d.tokens_out > 30
        assert d.wall_latency_s > 0 and d.extra["ttft_s"] > 0 and d.extra["reasoning_tokens"] == 30
        assert d.text.startswith("Following the scripted heuristic.") and "ACTION: [" in d.text
    if clock == "paused":
        assert len(result.decisions) == 4 * max_steps  # one decision per agent per step
    for metrics in result.agents.values():
        assert metrics["tokens_out"] > 0 and set(metrics["failures"]) <= ({"abandoned"} if abandoned else set())


def test_token_clock_charges_overhead_plus_tokens_over_kappa_and_replays_exactly(server, spec):
    first = coop_match(server, spec, "token", 16, kappa=KAPPA, overhead=OVERHEAD)
    dt = 0.25
    for d in first.decisions:
        assert d.delay_sim_s == pytest.approx(OVERHEAD + d.tokens_out / KAPPA, abs=1e-9)
        assert d.committed_sim_s == pytest.approx(d.start_sim_s + d.delay_sim_s, abs=1e-9)
        if d.applied_sim_s is not None:
            assert d.applied_sim_s == pytest.approx(math.ceil(d.committed_sim_s / dt - 1e-9) * dt)
    assert any(d.applied_step is not None for d in first.decisions)
    second = coop_match(server, spec, "token", 16, kappa=KAPPA, overhead=OVERHEAD)
    assert first.records_json() == second.records_json()
    assert first.decisions == second.decisions and first.steps == second.steps


def test_team_controller_decides_for_all_four_in_one_call(server, spec):
    env = make("arena/coop-v0")
    controllers = controllers_for(env, [parse_spec("team:llm:" + spec(server.base_url))], "arena")
    assert list(controllers) == [("p0", "p1", "p2", "p3")]
    result = run_match(env, controllers, clock="paused", seed=0, max_steps=6)
    assert len(result.decisions) == 6 and server.requests > 0
    for d in result.decisions:
        assert d.valid and d.controller == "team(p0,p1,p2,p3)" and set(d.action) == {"p0", "p1", "p2", "p3"}
        assert d.text.count('"p') == 4 and d.tokens_source == "server"
    assert result.decisions[-1].tokens_in > result.decisions[0].tokens_in  # the history grows


def test_heuristic_policy_through_the_model_path_collects_coins(server, spec):
    env = make("arena/basic-v0")
    result = run_match(env, LLMAgent(spec(server.base_url, history=0)), clock="paused", seed=0, max_steps=120)
    assert result.agents["agent_0" if "agent_0" in result.agents else "p0"]["coins"] >= 3
