"""The time model of DESIGN.md, checked on CartPole and a counter env."""

from __future__ import annotations

import itertools
import math

import pytest

import rtarena
from helpers import CounterEnv, ScriptedTokens, cartpole
from rtarena.agents.scripted.cartpole import CartPoleBalancer, balance
from rtarena.errors import UserError


def pole_up_steps(clock: str, **settings) -> int:
    result = rtarena.run_match(cartpole(), {"agent_0": balance}, clock=clock, seed=3, max_steps=500, **settings)
    return len(result.steps)


def test_paused_keeps_the_pole_up_for_the_whole_episode():
    assert pole_up_steps("paused") == 500


@pytest.mark.parametrize("clock", ["token", "wall"])
def test_a_delay_of_a_few_control_periods_drops_the_pole_early(clock):
    if clock == "token":  # the same controller without the delay balances the whole episode
        assert pole_up_steps(clock, delay_s=0.0) == 500
    assert pole_up_steps(clock, delay_s=0.08) < 100  # 4 control periods of 20 ms


def test_paused_with_an_injected_delay_applies_actions_late_but_exactly():
    result = rtarena.run_match(cartpole(), [CartPoleBalancer()], clock="paused", seed=0, max_steps=100, delay_s=0.06)
    for d in result.decisions:
        assert d.committed_sim_s == pytest.approx(d.start_sim_s + 0.06)
        if d.applied_sim_s is not None:
            assert d.applied_sim_s == pytest.approx(math.ceil(round(d.committed_sim_s / 0.02, 6)) * 0.02)


@pytest.mark.parametrize(("tokens", "kappa", "overhead", "delay"), [(10, 100.0, 0.0, 0.0), (7, 50.0, 0.013, 0.02)])
def test_token_clock_applied_times_follow_the_formula(tokens, kappa, overhead, delay):
    dt = 0.02
    result = rtarena.run_match(cartpole(dt), [CartPoleBalancer(tokens_out=tokens)], clock="token", seed=1,
                               max_steps=200, kappa=kappa, overhead=overhead, delay_s=delay)
    assert result.decisions
    expected_delay = overhead + tokens / kappa + delay
    for d in result.decisions:
        assert d.delay_sim_s == pytest.approx(expected_delay, abs=1e-9)
        assert d.committed_sim_s == pytest.approx(d.start_sim_s + expected_delay, abs=1e-9)
        if d.applied_step is not None:
            assert d.applied_step == math.ceil(d.committed_sim_s / dt - 1e-9)
            assert d.applied_sim_s == pytest.approx(d.applied_step * dt)


def test_token_controller_acts_every_n_over_kappa_seconds():
    env = CounterEnv(num_agents=1, dt=0.1)
    result = rtarena.run_match(env, [ScriptedTokens(50)], clock="token", kappa=100.0, max_steps=40)
    starts = [d.start_sim_s for d in result.decisions]
    gaps = {round(b - a, 9) for a, b in itertools.pairwise(starts)}
    assert gaps == {0.5}
    applied = [s.step for s in result.steps if s.fresh_agents]
    assert applied == list(range(5, 40, 5))


def test_a_controller_between_steps_decides_on_the_latest_published_observation():
    env = CounterEnv(num_agents=1, dt=0.1)
    agent = ScriptedTokens(25)  # 0.25 s per decision: finishes between steps
    result = rtarena.run_match(env, [agent], clock="token", kappa=100.0, max_steps=20)
    first_three = [(d.start_sim_s, d.obs_sim_s, d.committed_sim_s, d.applied_step) for d in result.decisions[:3]]
    assert first_three == [(0.0, 0.0, 0.25, 3), (0.25, 0.2, 0.5, 5), (0.5, 0.5, 0.75, 8)]
    assert agent.seen[:3] == [0.0, 2.0, 5.0]


@pytest.mark.parametrize(("clock", "settings"), [("paused", {}), ("token", {"kappa": 80.0})])
def test_same_seed_gives_byte_identical_records(clock, settings):
    def once():
        env = CounterEnv(num_agents=3, dt=0.05)
        agents = [ScriptedTokens(3), ScriptedTokens(11), rtarena.agents.RandomAgent()]
        return rtarena.run_match(env, agents, clock=clock, seed=7, max_steps=120, **settings).records_json()

    first, second = once(), once()
    assert first == second
    assert '"decisions"' in first and len(first) > 1000


def test_random_agents_with_different_seeds_differ():
    def once(seed):
        return rtarena.run_match(CounterEnv(2), [rtarena.agents.RandomAgent(), rtarena.agents.RandomAgent()],
                                 clock="paused", seed=seed, max_steps=50).records_json()

    assert once(1) != once(2)


def test_obs_every_publishes_every_k_steps_and_paused_decides_on_each():
    env = CounterEnv(num_agents=1, dt=0.1)
    result = rtarena.run_match(env, [ScriptedTokens(0)], clock="paused", max_steps=30, obs_every=3)
    assert [d.obs_sim_s for d in result.decisions] == pytest.approx([0.3 * i for i in range(10)])
    fresh_steps = [s.step for s in result.steps if s.fresh_agents]
    assert fresh_steps == list(range(0, 30, 3))
    assert result.agents["a0"]["effective_action_frequency"] == pytest.approx(10 / 30)


def test_measured_clock_charges_the_wall_latency():
    env = CounterEnv(num_agents=1, dt=0.01)
    result = rtarena.run_match(env, [ScriptedTokens(0, sleep_s=0.03)], clock="measured", max_steps=40)
    for d in result.decisions:
        assert d.delay_sim_s == pytest.approx(d.wall_latency_s, abs=1e-6)
        assert d.delay_sim_s >= 0.03
    gaps = [b.start_sim_s - a.start_sim_s for a, b in zip(result.decisions, result.decisions[1:], strict=False)]
    assert min(gaps) >= 0.03


def test_team_controller_owns_several_bodies():
    class Team(rtarena.Agent):
        def act(self, observation):
            assert set(observation) == {"a0", "a1"}
            return rtarena.Decision(action={"a0": 1, "a1": 0})

    result = rtarena.run_match(CounterEnv(3), {("a0", "a1"): Team(), "a2": lambda obs: 1}, clock="paused",
                               max_steps=5)
    assert set(result.controllers) == {"team(a0,a1)", "a2"}
    assert result.agents["a0"]["return"] == 5 and result.agents["a1"]["return"] == 0
    assert result.agents["a2"]["return"] == 5


def test_a_team_of_one_still_gets_a_dict_observation_and_answers_with_a_dict():
    class Team(rtarena.Agent):
        def act(self, observation):
            assert set(observation) == {"a0"}
            return rtarena.Decision(action={"a0": 1})

    result = rtarena.run_match(CounterEnv(2), {("a0",): Team(), "a1": lambda obs: 0}, clock="paused", max_steps=3)
    assert result.agents["a0"]["return"] == 3 and result.agents["a0"]["invalid_decisions"] == 0


def test_a_failing_or_malformed_agent_becomes_default_actions_and_is_counted():
    calls = {"n": 0}

    def flaky(observation):
        calls["n"] += 1
        if calls["n"] % 3 == 0:
            raise RuntimeError("model server went away")
        return "not-an-action" if calls["n"] % 3 == 1 else 1

    result = rtarena.run_match(CounterEnv(1), [flaky], clock="paused", max_steps=30)
    assert len(result.steps) == 30
    errors = [d for d in result.decisions if d.error]
    invalid = [d for d in result.decisions if not d.valid]
    assert len(errors) == 10 and "model server went away" in errors[0].error
    assert len(invalid) == 20
    assert result.agents["a0"]["invalid_decisions"] == 20
    assert result.agents["a0"]["return"] == 10


def test_events_are_collected_with_their_step():
    result = rtarena.run_match(CounterEnv(1), [lambda obs: 1], clock="paused", max_steps=4)
    assert [(e["step"], e["agent"], e["type"]) for e in result.events] == [(k, "a0", "point") for k in range(4)]


def test_settings_are_validated_with_one_line_errors():
    with pytest.raises(UserError, match="unknown clock 'fast'"):
        rtarena.run_match(CounterEnv(1), [lambda o: 1], clock="fast")
    with pytest.raises(UserError, match="kappa"):
        rtarena.run_match(CounterEnv(1), [lambda o: 1], clock="token", kappa=-1)
    with pytest.raises(UserError, match="dt"):
        rtarena.wrap_gymnasium(cartpole().env, dt=0)
    with pytest.raises(UserError, match="unknown env id"):
        rtarena.make("arena/nope-v9")


def test_kappa_from_tokens_per_interval_times_observation_rate():
    clock = rtarena.make_clock("token", tokens_per_interval=40, obs_rate_hz=4)
    assert clock.kappa == 160.0
