"""The batched vector env (one compiled call per batch, `fused.py`) gives the records of stepping the copies one
by one through `ArenaEnv.step`: pixels, rewards, ends, autoreset, final frames, events and scores."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from rtarena.envs.arena.vector import ArenaVectorEnv
from rtarena.envs.registry import make
from rtarena.errors import UserError

# 1 s episodes (4 steps): two autoresets in 10 steps; turrets that reach far and shoot often, so shells,
# flashes and HUD marks are drawn; coins everywhere, so some are taken (rewards)
KWARGS = {"overrides": {"arena.time_limit_s": 1.0, "turret.range_m": 40.0, "coins.count": 60,
                        "coins.pickup_radius_m": 3.0}}


def records(batched: bool, steps: int = 10):
    env = ArenaVectorEnv("arena/basic-v0", num_envs=3, obs="pixels", env_kwargs=KWARGS, batched=batched)
    assert env.batched is batched
    for one in env.envs:
        one.fuse = False  # copy by copy through `ArenaEnv.step` itself, not its one-agent compiled step
    out = [env.reset(seed=11)[0]]
    rng = np.random.default_rng(4)
    for _ in range(steps):
        obs, rewards, term, trunc, infos = env.step(rng.integers(0, env.single_action_space.nvec, size=(3, 7)))
        out.append((obs, rewards, term, trunc, infos))
    layouts = [e.world.obstacles.boxes for e in env.envs]
    env.close()
    return out, layouts


def test_batched_records_equal_copy_by_copy():
    fused, layouts = records(True)
    plain, _ = records(False)
    assert not np.array_equal(layouts[0], layouts[1])  # copies play different layouts
    np.testing.assert_array_equal(fused[0], plain[0])
    ended = rewarded = 0
    for (obs, rew, term, trunc, infos), (obs2, rew2, term2, trunc2, infos2) in zip(fused[1:], plain[1:], strict=True):
        np.testing.assert_array_equal(obs, obs2)
        np.testing.assert_array_equal(rew, rew2)
        np.testing.assert_array_equal(term, term2)
        np.testing.assert_array_equal(trunc, trunc2)
        assert infos.keys() == infos2.keys()
        if infos:
            np.testing.assert_array_equal(infos["_final_obs"], infos2["_final_obs"])
            for k in np.flatnonzero(infos["_final_obs"]):
                np.testing.assert_array_equal(infos["final_obs"][k], infos2["final_obs"][k])
                for key in ("events", "score"):
                    assert infos["final_info"][key][k] == infos2["final_info"][key][k]
                assert infos["score"][k] == infos2["score"][k]
                ended += 1
        rewarded += int((rew > 0).sum())
    assert ended >= 3 and rewarded >= 1


def test_one_agent_compiled_step_equals_the_env_step():
    """`ArenaEnv.step` of a one-player rgb env runs `fused.OneAgent` (one compiled call): same frames, rewards,
    ends, events, world clock and metrics as the env's own step."""
    envs = [make("arena/basic-v0", obs=("rgb",), resolution=(96, 72), **KWARGS) for _ in range(2)]
    envs[1].fuse = False
    runs = []
    for env in envs:
        rng = np.random.default_rng(2)
        steps = [env.reset(seed=3)]
        assert (env._fused is not None) is env.fuse
        while env.agents:
            steps.append(env.step({"p0": rng.integers(0, env.action_space("p0").nvec)}))
        runs.append((steps, env.world.time_s, env.episode_metrics()))
    assert envs[0]._fused is None and len(runs[0][0]) == 5  # it ran fused, and handed back at the end
    for a, b in zip(runs[0][0], runs[1][0], strict=True):
        np.testing.assert_array_equal(a[0]["p0"]["rgb"], b[0]["p0"]["rgb"])
        assert a[1:] == b[1:]
    assert runs[0][1:] == runs[1][1:]


def test_a_copy_of_a_fused_env_goes_on_with_the_env_step():
    """The fused step's compiled objects do not copy: a deep copy taken mid-episode steps on with the env's own
    step, from the same world, to the same records."""
    env = make("arena/basic-v0", obs=("rgb",), resolution=(96, 72), render_threads=1, **KWARGS)
    env.reset(seed=3)
    for k in range(2):
        env.step({"p0": np.array([k % 3, 2, 1, 0, 1, 0, 1])})
    clone = copy.deepcopy(env)
    assert env._fused is not None and clone._fused is None
    action = {"p0": np.array([1, 2, 2, 0, 1, 0, 1])}
    (obs, *rest), (obs2, *rest2) = env.step(action), clone.step(action)
    np.testing.assert_array_equal(obs["p0"]["rgb"], obs2["p0"]["rgb"])
    assert rest == rest2


def test_batched_is_refused_where_the_fused_step_does_not_play():
    with pytest.raises(UserError, match="batched step plays pixels"):
        ArenaVectorEnv("arena/basic-v0", num_envs=2, obs="state", batched=True)
    assert not ArenaVectorEnv("arena/basic-v0", num_envs=2, obs="state").batched  # state: copy by copy
