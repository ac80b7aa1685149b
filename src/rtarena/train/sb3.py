"""PPO with Stable-Baselines3 on a one-player arena level: `rtarena train sb3`.

    rtarena train sb3 arena/basic-v0 --steps 50000 --out runs/ppo-basic.zip
    rtarena train sb3 arena/basic-v0 --obs pixels --steps 50000 --out runs/ppo-pixels.zip
    rtarena run arena/basic-v0 --agent sb3:runs/ppo-basic.zip --clock wall --dt 0.25

`--obs state` (the default) trains an MLP on the `state` vector; `--obs pixels` trains SB3's `CnnPolicy`
(the Nature DQN encoder) on the 84 x 84 RGB frames of the vector env, the pixel baseline beside the VLM.

Training runs `ArenaVectorEnv` (N copies in one process) behind an SB3 `VecEnv` adapter. Two documented
choices make a small budget learn, and neither changes what the policy is scored on:

- Episodes last `TRAIN_TIME_LIMIT_S` (30 s of sim time, 120 steps) instead of the level's 300 s, so a
  budget of tens of thousands of steps sees hundreds of starts. The saved policy plays full episodes.
- The policy chooses the first `ACTION_FIELDS` fields of the action (move_x, move_y, yaw); pitch, fire,
  jump and minimap stay 0. Collecting coins needs nothing else, and the smaller space is explored much
  faster. The saved policy's action space says so, and `sb3:PATH` pads its actions with zeros.
- The reward is the env's reward (points: a coin is 1) plus potential-based shaping on the nearest coin
  in view, `gamma * phi(s') - phi(s)` with `phi = -SHAPING * distance / view range` (`-SHAPING` with no
  coin in view, 0 at the end of an episode). Ng, Harada and Russell (1999) show such shaping leaves the
  optimal policies unchanged. The logged `ep_rew_mean` and `score` are the env's own, unshaped. The
  pixel policy trains on the env's reward alone: the shaping reads the state vector, and a pixel
  baseline that learned from state it never sees would not be a pixel baseline.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from rtarena.envs.arena.observations.state import block
from rtarena.envs.arena.vector import ArenaVectorEnv
from rtarena.errors import UserError

TRAIN_TIME_LIMIT_S = 30.0
ACTION_FIELDS = 3  # move_x, move_y, yaw
SHAPING = 2.0
POLICIES = {"state": "MlpPolicy", "pixels": "CnnPolicy"}  # SB3's policy for each vector-env observation
PPO_SETTINGS = {"n_steps": 128, "batch_size": 256, "n_epochs": 10, "learning_rate": 1e-3, "gamma": 0.99,
                "gae_lambda": 0.95, "ent_coef": 0.01, "policy_kwargs": {"net_arch": [64, 64]}}


# A CNN minibatch costs ~100x an MLP's on a CPU: fewer, smaller epochs per rollout (SB3's Atari defaults
# use 4 epochs); the learning rate of SB3's Atari PPO.
PIXEL_SETTINGS = {"state": {}, "pixels": {"n_epochs": 4, "batch_size": 128, "learning_rate": 2.5e-4}}


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


def train_sb3(env_id: str, steps: int, out: str | Path, seed: int = 0, num_envs: int = 8,
              log: Any = print, obs: str = "state") -> Path:
    """Train PPO for `steps` env steps on `env_id`'s `obs` (state or pixels) and save the policy to `out`
    (`steps=0` saves the freshly initialised policy: the "base" row of `bench/train_table.py`)."""
    if obs not in POLICIES:
        raise UserError(f"--obs must be one of {', '.join(POLICIES)}, got {obs!r}", field="--obs")
    if steps < 0:
        raise UserError(f"--steps must be 0 (save the untrained policy: the base) or more, got {steps}",
                        field="--steps")
    if num_envs < 1:
        raise UserError(f"must be >= 1, got {num_envs}", field="--envs")
    from rtarena.limits import check_limit
    from rtarena.schema import writable_file

    check_limit("env.agents", num_envs, field="--envs")  # copies of a one-player level: players stepped together
    path = writable_file(out, "--out", (".zip",))  # before any training: a bad --out costs one line, not a run
    import torch
    from stable_baselines3 import PPO

    torch.manual_seed(seed)
    if obs == "state":
        torch.set_num_threads(1)  # a 64x64 MLP: more threads only add contention
    venv = ShapedArenaVecEnv(env_id, num_envs, PPO_SETTINGS["gamma"], seed=seed, obs=obs)
    model = PPO(POLICIES[obs], venv, seed=seed, device="cpu", verbose=0, **{**PPO_SETTINGS, **PIXEL_SETTINGS[obs]})
    if steps:
        model.learn(total_timesteps=steps)
    path.parent.mkdir(parents=True, exist_ok=True)
    model.save(path)
    episodes = list(model.ep_info_buffer or [])
    if episodes:
        log(f"{env_id}: {model.num_timesteps} steps, last {len(episodes)} training episodes: "
            f"mean return {np.mean([e['r'] for e in episodes]):.2f} (unshaped)")
    log(f"saved {path}")
    venv.close()
    return path
