"""PPO with Stable-Baselines3 on arena/basic-v0's state: `rtarena train sb3` trains and saves a policy in a
CI-sized budget, `--agent sb3:PATH` plays it, and over 20 held-out seeds it collects more coins than the
random agent (a real measurement, turn-based so it is exact)."""

from __future__ import annotations

import numpy as np
import pytest
from tests.helpers import run_main

import rtarena
from rtarena.agents.specs import build_agent
from rtarena.contract import Agent
from rtarena.errors import UserError
from rtarena.runtime.match import run_match

# Training takes about 20 s on two idle cores; a loaded machine needs more than the default 300 s.
pytestmark = pytest.mark.timeout(1200)

# Two copies, not the CLI's 8: a rollout of 2 x 128 steps is one 256-step minibatch, so the policy is updated
# four times as often per step and learns in a third of the steps (docs/training.md has the curves).
STEPS, ENVS = 12288, 2
LEVEL = {"overrides": {"arena.time_limit_s": 30.0}}  # the training episode length (train/sb3.py)
SEEDS = range(1000, 1020)  # never used in training (its copies are seeded 0, 1, 2 ...)


def coins(agent: str | Agent, seed: int, clock: str = "paused", max_steps: int = 120) -> dict:
    """One episode of `agent` (a spec, or an agent built once: a saved policy is loaded once for all seeds)."""
    env = rtarena.make("arena/basic-v0", obs=("state",), **LEVEL)  # what the policy reads; the world is the same
    played = build_agent(agent, "arena") if isinstance(agent, str) else agent
    result = run_match(env, [played], clock=clock, seed=seed, max_steps=max_steps)
    return result.agents["p0"]


@pytest.fixture(scope="module")
def policy(tmp_path_factory):
    path = tmp_path_factory.mktemp("sb3") / "ppo.zip"  # the CLI in this process: torch is imported here anyway
    code, output = run_main(["train", "sb3", "arena/basic-v0", "--steps", str(STEPS), "--envs", str(ENVS),
                             "--out", str(path)])
    assert code == 0, output
    assert path.is_file() and "saved" in output
    return path


def test_trained_policy_beats_random_and_its_untrained_self_over_20_seeds(policy, tmp_path):
    from rtarena.train.sb3 import train_sb3

    base = train_sb3("arena/basic-v0", 0, tmp_path / "base.zip", num_envs=ENVS, log=lambda line: None)  # no training
    ppo, ppo_base = build_agent(f"sb3:{policy}", "arena"), build_agent(f"sb3:{base}", "arena")
    trained = [coins(ppo, seed)["coins"] for seed in SEEDS]
    untrained = [coins(ppo_base, seed)["coins"] for seed in SEEDS]
    random = [coins("random", seed)["coins"] for seed in SEEDS]
    print(f"coins per 30 s episode over 20 seeds: PPO {np.mean(trained):.2f}, untrained {np.mean(untrained):.2f}, "
          f"random {np.mean(random):.2f}")
    assert np.mean(trained) > np.mean(random) + 0.4
    assert np.mean(trained) > np.mean(untrained) + 0.3


def test_the_policy_plays_under_the_wall_clock(policy):
    summary = coins(f"sb3:{policy}", 0, clock="wall", max_steps=8)
    assert summary["decisions"] >= 4 and summary["applied_decisions"] >= 4 and summary["failed_decisions"] == 0


def test_bad_policy_files_are_one_line_errors(tmp_path):
    from rtarena.errors import UserError

    with pytest.raises(UserError, match="no such policy file"):
        build_agent(f"sb3:{tmp_path / 'missing.zip'}", "arena")
    (tmp_path / "x.zip").write_text("not a zip")
    with pytest.raises(UserError, match="not a saved"):
        build_agent(f"sb3:{tmp_path / 'x.zip'}", "arena")


@pytest.mark.parametrize(("env_id", "out", "message"), [
    ("arena/coop-v0", "p.zip", "one-player"),
    ("arena/basic-v0", "p.pt", "--out"),
    ("classic/cartpole-v0", "p.zip", "arena levels"),
])
def test_train_mistakes_are_one_line_and_write_nothing(tmp_path, env_id, out, message):
    from rtarena.errors import UserError
    from rtarena.train.sb3 import train_sb3

    with pytest.raises(UserError, match=message) as error:
        train_sb3(env_id, 10, tmp_path / out, log=lambda line: None)
    assert "\n" not in str(error.value) and not list(tmp_path.iterdir())


def test_a_pixel_policy_trains_on_frames_and_plays_them(tmp_path):
    """`--obs pixels`: a CnnPolicy on the 84x84 RGB vector env (one rollout of 2 x 128 frames and its update),
    played as `sb3:PATH` on rgb frames. In this process: the CLI as a subprocess is the state policy's test."""
    path = tmp_path / "pixels.zip"
    code, output = run_main(["train", "sb3", "arena/basic-v0", "--obs", "pixels", "--steps", "256", "--envs", "2",
                             "--out", str(path)])
    assert code == 0 and "saved" in output, output
    agent = build_agent(f"sb3:{path}", "arena")
    assert agent.modality == "rgb" and agent.model.policy.__class__.__name__ == "ActorCriticCnnPolicy"
    env = rtarena.make("arena/basic-v0", obs=("rgb",), resolution=84, **LEVEL)
    result = run_match(env, [agent], clock="paused", seed=0, max_steps=12)
    assert result.agents["p0"]["decisions"] == 12 and result.agents["p0"]["failed_decisions"] == 0
    wrong = rtarena.make("arena/basic-v0", obs=("state",), **LEVEL)
    with pytest.raises(UserError, match="acts on the `rgb` observation"):
        run_match(wrong, [build_agent(f"sb3:{path}", "arena")], clock="paused", seed=0, max_steps=2)
