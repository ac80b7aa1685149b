"""PPO with Stable-Baselines3 on a one-player arena level: `rtarena train sb3`.

    rtarena train sb3 arena/basic-v0 --steps 50000 --out runs/ppo-basic.zip
    rtarena train sb3 arena/basic-v0 --obs pixels --steps 50000 --out runs/ppo-pixels.zip
    rtarena run arena/basic-v0 --agent sb3:runs/ppo-basic.zip --clock wall --dt 0.25

`--obs state` (the default) trains an MLP on the `state` vector; `--obs pixels` trains SB3's `CnnPolicy`
(the Nature DQN encoder) on the 84 x 84 RGB frames of the vector env, the pixel baseline beside the VLM.

Training runs `ArenaVectorEnv` (N copies in one process) behind an SB3 `VecEnv` adapter (`train/sb3_env.py`,
apart so that a bad argument is refused before torch loads). Two documented choices make a small budget
learn, and neither changes what the policy is scored on:

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

from rtarena.errors import UserError

POLICIES = {"state": "MlpPolicy", "pixels": "CnnPolicy"}  # SB3's policy for each vector-env observation
PPO_SETTINGS = {"n_steps": 128, "batch_size": 256, "n_epochs": 10, "learning_rate": 1e-3, "gamma": 0.99,
                "gae_lambda": 0.95, "ent_coef": 0.01, "policy_kwargs": {"net_arch": [64, 64]}}


# A CNN minibatch costs ~100x an MLP's on a CPU: fewer, smaller epochs per rollout (SB3's Atari defaults
# use 4 epochs); the learning rate of SB3's Atari PPO.
PIXEL_SETTINGS = {"state": {}, "pixels": {"n_epochs": 4, "batch_size": 128, "learning_rate": 2.5e-4}}


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

    from rtarena.train.sb3_env import ShapedArenaVecEnv

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
