"""The vectorised arena: N copies behind Gymnasium's vector API, state and 84x84 pixel observations."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.vector import VectorEnv

from rtarena.envs.arena.vector import ArenaVectorEnv
from rtarena.errors import UserError

SHORT = {"overrides": {"arena.time_limit_s": 1.0}}  # 4 steps of 0.25 s


def test_state_batches_and_same_step_autoreset():
    env = ArenaVectorEnv("arena/basic-v0", num_envs=3, obs="state", env_kwargs=SHORT)
    assert isinstance(env, VectorEnv) and env.observation_space.shape == (3, *env.single_observation_space.shape)
    obs, _ = env.reset(seed=5)
    assert obs.shape == env.observation_space.shape and env.observation_space.contains(obs)
    assert not np.array_equal(obs[0], obs[1])  # copies are seeded 5, 6, 7: different levels
    again, _ = ArenaVectorEnv("arena/basic-v0", num_envs=3, obs="state", env_kwargs=SHORT).reset(seed=5)
    np.testing.assert_array_equal(obs, again)
    for _ in range(3):
        obs, rewards, term, trunc, infos = env.step(np.zeros((3, 7), dtype=np.int64))
        assert not (term | trunc).any() and rewards.shape == (3,)
    obs, rewards, term, trunc, infos = env.step(np.zeros((3, 7), dtype=np.int64))
    assert trunc.all() and infos["_final_obs"].all() and infos["_score"].all()
    assert infos["final_obs"][0].shape == env.single_observation_space.shape
    # reset in the same step: the new episode starts with a full clock (the first entry is time left)
    assert (obs[:, 0] > infos["final_obs"][0][0]).all()


def test_pixels_are_84_by_84_rgb():
    env = ArenaVectorEnv("arena/basic-v0", num_envs=2, obs="pixels")
    obs, _ = env.reset(seed=0)
    assert obs.shape == (2, 84, 84, 3) and obs.dtype == np.uint8 and obs.std() > 5
    obs, *_ = env.step(env.action_space.sample())
    assert env.observation_space.contains(obs)


def test_multi_player_levels_and_unknown_kinds_are_refused():
    with pytest.raises(UserError, match="one-player"):
        ArenaVectorEnv("arena/coop-v0", num_envs=2)
    with pytest.raises(UserError, match="obs"):
        ArenaVectorEnv("arena/basic-v0", obs="audio")
