"""Stable-Baselines3's `VecEnv` over `ArenaVectorEnv`, with the coin-distance shaping `train/sb3.py` documents.

Apart from `train/sb3.py` because importing SB3 imports torch (seconds): `rtarena train sb3` checks its
arguments before it pays for that.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from rtarena.envs.arena.observations.state import block
from rtarena.envs.arena.vector import ArenaVectorEnv

TRAIN_TIME_LIMIT_S = 30.0
ACTION_FIELDS = 3  # move_x, move_y, yaw
SHAPING = 2.0


def coin_potential(states: np.ndarray) -> np.ndarray:
    """`phi` per row: minus SHAPING times the nearest visible coin's distance (in view ranges)."""
    out = np.full(len(states), -SHAPING)
    for k, state in enumerate(states):
        coins = block(state, "coins")  # (slots, [present, distance, sin, cos]), nearest first
        if coins[0, 0] > 0:
            out[k] = -SHAPING * float(coins[0, 1])
    return out


class ShapedArenaVecEnv(VecEnv):
    """`ArenaVectorEnv` (state) as an SB3 `VecEnv`, with coin-distance shaping and Monitor-style episode
    infos (`episode: {r, l}` with the unshaped return, and the level `score`)."""

    def __init__(self, env_id: str, num_envs: int, gamma: float, seed: int = 0,
                 env_kwargs: dict[str, Any] | None = None, obs: str = "state") -> None:
        kwargs = {"overrides": {"arena.time_limit_s": TRAIN_TIME_LIMIT_S}, **(env_kwargs or {})}
        self.vec = ArenaVectorEnv(env_id, num_envs=num_envs, obs=obs, env_kwargs=kwargs)
        self.shaped = obs == "state"
        full = self.vec.single_action_space
        self.width = len(full.nvec)
        super().__init__(num_envs, self.vec.single_observation_space, spaces.MultiDiscrete(full.nvec[:ACTION_FIELDS]))
        self.gamma, self._seed = gamma, seed
        self._returns = np.zeros(num_envs)
        self._lengths = np.zeros(num_envs, dtype=np.int64)
        self._obs: np.ndarray | None = None
        self._actions: np.ndarray | None = None

    def reset(self) -> np.ndarray:
        self._obs, _ = self.vec.reset(seed=self._seed)
        self._returns[:], self._lengths[:] = 0.0, 0
        return self._obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self):
        assert self._obs is not None and self._actions is not None
        actions = np.zeros((self.num_envs, self.width), dtype=np.int64)
        actions[:, :ACTION_FIELDS] = np.asarray(self._actions).reshape(self.num_envs, -1)
        obs, rewards, terms, truncs, infos = self.vec.step(actions)
        dones = terms | truncs
        after = obs.copy()
        if dones.any():
            after[dones] = np.stack([infos["final_obs"][k] for k in np.flatnonzero(dones)])
        shaped = rewards.astype(np.float64)
        if self.shaped:
            potential_after = np.where(dones, 0.0, coin_potential(after))
            shaped = shaped + self.gamma * potential_after - coin_potential(self._obs)
        self._returns += rewards
        self._lengths += 1
        out: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for k in np.flatnonzero(dones):
            out[k] = {"terminal_observation": infos["final_obs"][k], "TimeLimit.truncated": bool(truncs[k]),
                      "episode": {"r": float(self._returns[k]), "l": int(self._lengths[k])},
                      "score": float(infos["score"][k])}
            self._returns[k], self._lengths[k] = 0.0, 0
        self._obs = obs
        return obs, shaped.astype(np.float32), dones, out

    def close(self) -> None:
        self.vec.close()

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        return [getattr(self.vec, attr_name) for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self.vec, attr_name, value)

    def env_method(self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any) -> list[Any]:
        return [getattr(env, method_name)(*args, **kwargs) for env in self._envs(indices)]

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False for _ in self._indices(indices)]

    def _indices(self, indices: Any) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        return [indices] if isinstance(indices, int) else list(indices)

    def _envs(self, indices: Any) -> list[Any]:
        return [self.vec.envs[i] for i in self._indices(indices)]
