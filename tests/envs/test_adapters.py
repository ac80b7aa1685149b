"""Any Gymnasium or PettingZoo env runs under the runtime once it has a dt."""

from __future__ import annotations

import gymnasium
import pytest
from pettingzoo.classic import rps_v2
from pettingzoo.test import parallel_api_test

import rtarena
from rtarena.errors import UserError


def test_wrapped_pettingzoo_env_passes_the_api_test_and_plays():
    parallel_api_test(rtarena.wrap_pettingzoo(rps_v2.parallel_env(), dt=0.5), num_cycles=20)
    env = rtarena.wrap_pettingzoo(rps_v2.parallel_env(), dt=0.5)
    result = rtarena.run_match(env, [lambda o: 0, lambda o: 1], clock="paused", max_steps=10)  # rock vs paper
    assert len(result.steps) == 10
    assert result.agents["player_1"]["return"] > result.agents["player_0"]["return"]
    assert result.sim_seconds == pytest.approx(5.0)


def test_wrapped_gymnasium_env_keeps_observations_as_they_are():
    env = rtarena.wrap_gymnasium(gymnasium.make("CartPole-v1"), dt=0.02)
    seen = []
    rtarena.run_match(env, {"agent_0": lambda obs: seen.append(obs) or 0}, clock="paused", max_steps=3)
    assert seen[0].shape == (4,)


def test_default_actions_can_be_given():
    env = rtarena.wrap_pettingzoo(rps_v2.parallel_env(), dt=0.5, default_actions={"player_0": 2})
    assert env.default_action("player_0") == 2 and env.default_action("player_1") == 0


@pytest.mark.parametrize("dt", [0, -1, "fast", float("nan")])
def test_a_bad_dt_is_one_clear_error(dt):
    with pytest.raises(UserError, match="dt must be a positive number"):
        rtarena.wrap_gymnasium(gymnasium.make("CartPole-v1"), dt=dt)


def test_gymnasium_and_pettingzoo_registries_know_the_ids():
    import pettingzoo

    env = gymnasium.make("classic/cartpole-v0")
    observation, _ = env.reset(seed=0)
    assert observation.shape == (4,)
    assert pettingzoo.make("parallel", "classic/cartpole-v0").possible_agents == ["agent_0"]


def test_a_wrapper_forwards_the_contract_and_nothing_else():
    """Wrappers subclass PettingZoo's `BaseParallelWrapper` and forward the contract member by member: a name
    outside it is refused, not silently read through from the env (issue 44)."""
    from pettingzoo.utils import BaseParallelWrapper
    from tests.helpers import CounterEnv

    from rtarena.contract import RealtimeEnv
    from rtarena.envs.base import RealtimeWrapper

    env = CounterEnv(num_agents=1)
    wrapped = RealtimeWrapper(env)
    assert isinstance(wrapped, BaseParallelWrapper) and isinstance(wrapped, RealtimeEnv)
    assert not isinstance(env.horizon, AttributeError)  # the env has it ...
    with pytest.raises(AttributeError, match="forwards the env contract only, not 'horizon'"):
        wrapped.horizon  # noqa: B018  (... the wrapper does not pass it through)
    result = rtarena.run_match(wrapped, {"a0": lambda observation: 1}, clock="paused", max_steps=3)
    assert env.points["a0"] == 3 and result.env_id == "counter" and wrapped.unwrapped is env
