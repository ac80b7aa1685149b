"""The env protocol: seeds, scaling, settings, observation modalities, metrics (the PettingZoo API and seed
tests of each level: tests/test_registry.py)."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import rtarena
from rtarena.envs.arena import ArenaEnv, register_modality
from rtarena.envs.arena.observations import MODALITIES
from rtarena.envs.arena.observations.state import STATE_SIZE, block, state_index
from rtarena.errors import UserError


def test_basic_passes_gymnasium_check_env():
    import gymnasium

    env = gymnasium.make("arena/basic-v0")
    check_env(env.unwrapped)
    obs, _ = env.reset(seed=3)
    assert set(obs) == {"text", "state"} and obs["state"].shape == (STATE_SIZE,)


def _rollout(seed: int, steps: int = 80):
    env = rtarena.make("arena/competitive-v0")
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(7)
    texts = [obs["p0"]["text"]]
    for _ in range(steps):
        if not env.agents:
            break
        obs, *_ = env.step({a: rng.integers(0, [3, 3, 3, 3, 2, 2, 2]) for a in env.agents})
        texts.append(obs.get("p0", {}).get("text"))
    return env, texts


def test_same_seed_same_world_and_episode():
    a, ta = _rollout(5)
    b, tb = _rollout(5)
    c, _ = _rollout(6)
    assert ta == tb
    np.testing.assert_array_equal(a.world.players.pos, b.world.players.pos)
    assert a.log.all == b.log.all
    assert not np.array_equal(a.layout.obstacles, c.layout.obstacles)


def test_reset_with_the_same_seed_rebuilds_the_same_world():
    env = rtarena.make("arena/coop-v0")
    env.reset(seed=11)
    first = (env.layout.obstacles.copy(), env.world.coins.pos.copy(), env.world.players.pos.copy())
    env.step({a: np.ones(7, dtype=int) for a in env.agents})
    env.reset(seed=11)
    for x, y in zip(first, (env.layout.obstacles, env.world.coins.pos, env.world.players.pos), strict=True):
        np.testing.assert_array_equal(x, y)


def test_64_agents_spawn_spread_over_the_map():
    env = rtarena.make("arena/coop-v0", num_agents=64)
    obs, _ = env.reset(seed=0)
    assert len(obs) == 64 and len(env.agents) == 64
    pos = env.world.players.pos[:, :2]
    d = np.hypot(pos[:, None, 0] - pos[None, :, 0], pos[:, None, 1] - pos[None, :, 1])
    np.fill_diagonal(d, np.inf)
    assert d.min() > 4.0  # nobody spawns on top of anybody
    assert pos.min(axis=0).max() < 20 and pos.max(axis=0).min() > 80  # corners to corners
    env.step({a: np.array([0, 2, 1, 0, 1, 0, 0]) for a in env.agents})


def test_mixed_teams_are_two_pairs_and_competitive_is_each_for_itself():
    mixed = rtarena.make("arena/mixed-v0")
    mixed.reset(seed=0)
    assert list(mixed.world.players.team) == [0, 0, 1, 1]
    comp = rtarena.make("arena/competitive-v0")
    comp.reset(seed=0)
    assert list(comp.world.players.team) == [0, 1, 2, 3]


def test_overrides_and_disable():
    env = rtarena.make("arena/coop-v0", overrides={"turret.range_m": 30, "coins.count": 5},
                       disable=("chickens", "toxic_zone"))
    env.reset(seed=0)
    assert env.rules.turret.range_m == 30.0 and isinstance(env.rules.turret.range_m, float)
    assert len(env.world.coins.pos) == 5 and len(env.world.chickens.pos) == 0 and not env.world.zone.enabled
    with pytest.raises(UserError, match=r"turret\.rang"):
        rtarena.make("arena/coop-v0", overrides={"turret.rang": 3})
    with pytest.raises(UserError, match="cannot disable"):
        rtarena.make("arena/coop-v0", disable=("dragons",))
    with pytest.raises(UserError, match=r"turret\.range_m"):
        rtarena.make("arena/coop-v0", overrides={"turret.range_m": "far"})


def test_time_limit_truncates():
    env = rtarena.make("arena/coop-v0", overrides={"arena.time_limit_s": 2.0}, dt=0.5)
    env.reset(seed=0)
    for _ in range(3):
        env.step({a: np.zeros(7, dtype=int) for a in env.agents})
    _, _, term, trunc, _ = env.step({a: np.zeros(7, dtype=int) for a in env.agents})
    assert all(trunc.values()) and not any(term.values()) and not env.agents


def test_text_reports_the_essentials():
    env = rtarena.make("arena/coop-v0")
    obs, _ = env.reset(seed=0)
    text = obs["p0"]["text"]
    for phrase in ("s left", "Health 100/100", "Ammo 15/30", "Score", "heading", "In view:", "Toxic zone: inside",
                   "next shrink in 60 s", "Minimap: closed", "Just now:"):
        assert phrase in text
    assert text.isascii()


def test_state_layout_is_documented_and_consistent():
    env = rtarena.make("arena/basic-v0")
    obs, _ = env.reset(seed=0)
    state = obs["p0"]["state"]
    assert state.shape == (STATE_SIZE,) and state.dtype == np.float32
    assert state[state_index("self", "health")] == 1.0
    assert state[state_index("self", "ammo")] == pytest.approx(15 / 30)
    assert block(state, "players").shape == (8, 8)


def test_a_new_modality_plugs_in_without_touching_the_step_logic():
    from gymnasium import spaces

    class Heading:
        def __init__(self, env):
            self.env = env
            self.space = spaces.Box(-4, 4, shape=(1,), dtype=np.float32)

        def prepare(self):
            self.prepared = True

        def build(self, i):
            return np.array([self.env.world.players.yaw[i]], dtype=np.float32)

    register_modality("heading_test", Heading)
    try:
        env = rtarena.make("arena/basic-v0", obs=("state", "heading_test"))
        obs, _ = env.reset(seed=0)
        assert set(obs["p0"]) == {"state", "heading_test"}
        assert env.observation_space("p0").contains(obs["p0"])
    finally:
        MODALITIES.pop("heading_test")
    with pytest.raises(UserError, match="unknown observation"):
        rtarena.make("arena/basic-v0", obs=("smell",))


def test_episode_metrics_have_every_documented_field():
    env = rtarena.make("arena/competitive-v0")
    env.reset(seed=0)
    env.step({a: np.array([0, 2, 1, 0, 1, 0, 1]) for a in env.agents})
    m = env.episode_metrics()["p0"]
    for key in ("score", "points", "outcome", "coins", "kills", "deaths", "turrets_destroyed", "chickens", "shots",
                "hits", "accuracy", "incoming_shots", "incoming_hits", "incoming_hit_rate", "damage_taken",
                "survival", "alive_at_end"):
        assert key in m
    assert isinstance(env, ArenaEnv)


def test_survival_counts_the_time_limit_when_everyone_died():
    from tests.arena.helpers import arena, run

    env, _ = arena(spawns=[(50, 62)], turrets=[(50, 50)], overrides={"turret.damage": 50.0})
    run(env, 40)
    m = env.episode_metrics()["p0"]
    assert m["deaths"] == 1 and not m["alive_at_end"]
    assert m["survival"] == env.world.players.death_time_s[0] / env.rules.arena.time_limit_s < 0.05
