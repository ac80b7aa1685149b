"""The senses through the env: observation selection, spaces, render modes, determinism."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import rtarena
from rtarena.envs.arena.levels import BasicLevel, CoopLevel
from rtarena.envs.arena.render.hud import minimap_layout
from rtarena.errors import UserError

MODALITIES = ("rgb", "depth", "text", "state", "audio")
COMBOS = [c for k in range(1, 6) for c in itertools.combinations(MODALITIES, k)]


def forward_and_fire(env, minimap=False):
    return {a: np.array([0, 2, 1, 0, 1, 0, int(minimap)]) for a in env.agents}


@pytest.mark.parametrize("obs", COMBOS, ids=["+".join(c) for c in COMBOS])
def test_any_combination_of_modalities_matches_its_space(obs):
    env = CoopLevel(num_agents=2, obs=obs, resolution=96)
    observations, _ = env.reset(seed=3)
    for _ in range(2):
        for agent, o in observations.items():
            space = env.observation_space(agent)
            assert set(o) == set(obs) == set(space.spaces)
            assert space.contains(o), (agent, obs)
        observations, *_ = env.step(forward_and_fire(env))


def test_pixels_only_and_resolution():
    env = CoopLevel(num_agents=3, obs="rgb", resolution=(320, 240))
    obs, _ = env.reset(seed=0)
    assert obs["p0"]["rgb"].shape == (240, 320, 3) and obs["p0"]["rgb"].dtype == np.uint8
    assert env.observation_space("p0")["rgb"].shape == (240, 320, 3)
    with pytest.raises(UserError, match="resolution"):
        CoopLevel(obs=("rgb",), resolution=64)


def test_depth_is_aligned_with_rgb_and_in_metres():
    env = CoopLevel(num_agents=2, obs=("rgb", "depth"), resolution=128, hud=False)
    obs, _ = env.reset(seed=5)
    depth = obs["p0"]["depth"]
    assert depth.shape == obs["p0"]["rgb"].shape[:2] and depth.dtype == np.float32
    assert depth.min() > 0 and depth.max() <= env.observation_space("p0")["depth"].high.max()
    # the bottom row is open floor: eye height 1.6 m, focal length 64 px, the row's centre 63.5 px below the
    # horizon, so its planar depth is 1.6 * 64 / 63.5 m in every column
    assert np.allclose(depth[-1], 1.6 * 64 / 63.5, atol=1e-4)


def test_rgb_without_depth_is_the_same_picture_and_keeps_no_depth():
    """Without the depth modality the renderer draws into a scratch depth buffer (issue 19)."""
    alone = CoopLevel(num_agents=3, obs=("rgb",), resolution=96)
    both = CoopLevel(num_agents=3, obs=("rgb", "depth"), resolution=96)
    a, _ = alone.reset(seed=4)
    b, _ = both.reset(seed=4)
    for _ in range(3):
        assert all(np.array_equal(a[k]["rgb"], b[k]["rgb"]) for k in a)
        a, *_ = alone.step(forward_and_fire(alone))
        b, *_ = both.step(forward_and_fire(both))
    assert alone.__dict__["_senses"].depth is None and both.__dict__["_senses"].depth is not None


def test_minimap_action_shows_the_inset_in_rgb_and_the_minimap_observation():
    env = CoopLevel(num_agents=2, obs=("rgb", "minimap"), resolution=128, hud=False)
    env.reset(seed=1)
    closed, *_ = env.step({a: np.zeros(7, dtype=np.int64) for a in env.agents})
    env.reset(seed=1)
    opened, *_ = env.step({a: np.array([0, 0, 0, 0, 0, 0, 1]) for a in env.agents})
    x0, y0, size = minimap_layout(128, 128)
    inset_closed = closed["p0"]["rgb"][y0:y0 + size, x0:x0 + size]
    inset_opened = opened["p0"]["rgb"][y0:y0 + size, x0:x0 + size]
    assert np.any(inset_closed != inset_opened, axis=-1).mean() > 0.5
    assert not closed["p0"]["minimap"].any() and opened["p0"]["minimap"].any()


def test_audio_in_the_env_and_heard_in_the_text():
    env = CoopLevel(num_agents=4, obs=("audio", "text"))
    obs, _ = env.reset(seed=2)
    assert obs["p0"]["audio"].shape == (4000, 2) and not obs["p0"]["audio"].any()
    loud = []
    for _ in range(4):
        obs, *_ = env.step(forward_and_fire(env))
        loud.append(float(np.abs(obs["p0"]["audio"]).max()))
    assert max(loud) > 0.3  # p0's own gunshots at least
    assert "\nHeard: " in obs["p0"]["text"]
    env2 = CoopLevel(num_agents=4, obs=("audio",), sample_rate=8000, dt=0.5)
    o2, _ = env2.reset(seed=2)
    assert o2["p0"]["audio"].shape == (4000, 2)
    with pytest.raises(UserError, match="sample_rate"):
        CoopLevel(obs=("audio",), sample_rate=100)


def test_same_seed_same_senses():
    def run():
        env = CoopLevel(num_agents=3, obs=("rgb", "depth", "audio"), resolution=84)
        env.reset(seed=11)
        for _ in range(5):
            obs, *_ = env.step(forward_and_fire(env))
        return obs

    a, b = run(), run()
    for agent in a:
        for key in ("rgb", "depth", "audio"):
            assert np.array_equal(a[agent][key], b[agent][key])


def test_render_rgb_array_shows_the_spectator_beside_every_view():
    env = CoopLevel(num_agents=4, obs=("state",), render_mode="rgb_array", resolution=128)
    assert "rgb_array" in env.metadata["render_modes"]
    env.reset(seed=0)
    env.step(forward_and_fire(env))
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    spectator = frame.shape[0]
    assert frame.shape[1] >= spectator + 2 * 128  # 4 views in a 2 x 2 grid beside the map
    views = env.__dict__["_senses"].rgb
    assert np.array_equal(frame[:128, spectator + 4:spectator + 4 + 128], views[0])
    env.close()


def test_render_human_opens_a_window(monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    env = CoopLevel(num_agents=2, obs=("text",), render_mode="human", resolution=96)
    env.reset(seed=0)
    assert env.render() is None
    env.step(forward_and_fire(env))
    assert env.render() is None
    window = env.renderer.window
    assert window is not None and window.screen is not None and window.screen.get_width() >= 800
    env.close()
    assert window.closed


def test_bad_render_mode():
    with pytest.raises(UserError, match="render_mode"):
        BasicLevel(render_mode="ascii")


def test_registered_level_with_pixels():
    env = rtarena.make("arena/basic-v0", obs=("rgb", "depth"), resolution=84)
    obs, _ = env.reset(seed=0)
    agent = env.agents[0]
    assert obs[agent]["rgb"].shape == (84, 84, 3)


def test_ecosystem_checks_pass_with_senses():
    import gymnasium
    from gymnasium.utils.env_checker import check_env
    from pettingzoo.test import parallel_api_test

    single = gymnasium.make("arena/basic-v0", obs=("rgb", "depth", "audio", "state"), resolution=96,
                            render_mode="rgb_array")
    check_env(single.unwrapped, skip_render_check=False)
    parallel_api_test(rtarena.make("arena/coop-v0", obs=("rgb", "depth", "audio", "text"), resolution=84),
                      num_cycles=30)
