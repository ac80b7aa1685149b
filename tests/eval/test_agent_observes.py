"""Agents declare what they observe (issue 42): the runner makes the env produce it, `--obs` and
`--resolution` ask for the rest, and a request the env cannot meet is one line before any episode."""

from __future__ import annotations

import json

import gymnasium
import numpy as np
import pytest
from tests.helpers import run_main

LEVEL = ["--set", "arena.time_limit_s=5"]


@pytest.fixture(scope="module")
def pixel_policy(tmp_path_factory):
    """A tiny saved pixel policy: SB3's CnnPolicy on 84 x 84 frames, untrained (what `rtarena train sb3 --obs
    pixels` writes, without the training: the test is about observations, not skill)."""
    pytest.importorskip("stable_baselines3")
    from stable_baselines3 import PPO

    class Frames(gymnasium.Env):
        observation_space = gymnasium.spaces.Box(0, 255, (84, 84, 3), np.uint8)
        action_space = gymnasium.spaces.MultiDiscrete([3, 3, 3, 3])

        def reset(self, *, seed=None, options=None):
            return self.observation_space.sample(), {}

        def step(self, action):
            return self.observation_space.sample(), 0.0, True, False, {}

    path = tmp_path_factory.mktemp("policy") / "pixels.zip"
    PPO("CnnPolicy", Frames(), n_steps=8, batch_size=8, device="cpu", seed=0).save(path)
    return path


def test_a_pixel_policy_plays_a_bare_run_the_env_making_rgb_at_its_size(pixel_policy, tmp_path):
    code, output = run_main(["run", "arena/basic-v0", "--agent", f"sb3:{pixel_policy}", "--clock", "paused",
                             "--max-steps", "3", *LEVEL, "--out", str(tmp_path / "o")])
    assert code == 0, output
    episode = json.loads((tmp_path / "o" / "episodes.jsonl").read_text())
    assert episode["status"] == "ok" and episode["agents"]["p0"]["failed_decisions"] == 0
    assert episode["agents"]["p0"]["decisions"] == 3
    assert episode["env_kwargs"]["obs"][-1] == "rgb" and episode["env_kwargs"]["resolution"] == 84
    assert set(episode["env_kwargs"]["obs"]) == {"text", "state", "rgb"}  # the env's own, and what the policy needs


def test_obs_and_resolution_flags_and_requests_the_env_cannot_meet(pixel_policy, tmp_path):
    code, output = run_main(["run", "arena/basic-v0", "--agent", "random", "--clock", "paused", "--obs", "rgb+text",
                             "--resolution", "96", "--max-steps", "2", *LEVEL, "--out", str(tmp_path / "a")])
    assert code == 0, output
    episode = json.loads((tmp_path / "a" / "episodes.jsonl").read_text())
    assert episode["env_kwargs"]["obs"] == ["rgb", "text"] and episode["env_kwargs"]["resolution"] == 96
    for argv, words in (
        (["--agent", "random", "--obs", "smell"], "cannot make what the agents observe (obs=smell)"),
        (["--agent", f"sb3:{pixel_policy}", "--obs", "text"], "observes rgb; the env would make text"),
        (["--agent", "random", "--resolution", "5"], "--resolution: must be >= 16"),
    ):
        out = tmp_path / "refused"
        code, output = run_main(["run", "arena/basic-v0", *argv, "--clock", "paused", "--max-steps", "2",
                                 "--out", str(out)])
        assert code == 2 and len(output.strip().splitlines()) == 1 and words in output, output
        assert not (out / "episodes.jsonl").exists()
