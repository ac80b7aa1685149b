"""Monsters' rules and variants."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rtarena.envs.games.base import DEFAULT_SIZE

from .helpers import game, hold, types

STILL = {"monsters": {"speed_m_s": 0.0}}  # monsters that hold still, for shooting tests


def only_monster(env, offset, yaw=0.0):
    """One live monster at `offset` from the player (who faces `yaw`), no spawns."""
    env.alive[:] = False
    env.alive[0] = True
    env.mhealth[0] = env.rules.monsters.health
    env.mpos[0] = env.pos["p0"] + np.asarray(offset, dtype=float)
    env.yaw["p0"] = yaw
    env.next_spawn_s = 1e9
    env.pillars = np.zeros((0, 4))


def test_a_monster_that_touches_the_player_explodes_and_damages_it():
    env = game("games/monsters-v0")
    only_monster(env, (2.0, 0.0))
    (_, _, _, info), events = hold(env, steps=20)
    assert "explode" in types(events) and not env.alive[0]
    assert env.health["p0"] == env.rules.player.health - env.rules.monsters.explode_damage
    assert info["score"] == 0.0  # an explosion scores nothing


def test_a_shot_in_the_crosshair_damages_and_each_press_fires_once():
    env = game("games/monsters-v0", overrides=STILL)
    only_monster(env, (6.0, 0.0))
    _, events = hold(env, ["LMB"], steps=5)  # held: one shot
    shots = [e for e in events if e["type"] == "shot"]
    assert len(shots) == 1 and shots[0]["hit"] == 0 and shots[0]["damage"] == env.rules.player.shot_damage
    assert env.scores["p0"] == pytest.approx(25 / 500)
    hold(env)
    _, events = hold(env, ["LMB"])
    assert [e["type"] for e in events] == ["shot"] and not env.alive[0]  # second hit kills (50 health)


def test_the_cooldown_limits_the_rate_of_fire():
    env = game("games/monsters-v0", overrides=STILL)
    only_monster(env, (6.0, 0.0))
    hold(env, ["LMB"])
    hold(env)
    _, events = hold(env, ["LMB"])  # 0.2 s after the first shot: still cooling
    assert "shot" not in types(events)


def test_pillars_stop_shots_and_a_miss_hits_nothing():
    env = game("games/monsters-v0", overrides=STILL)
    only_monster(env, (6.0, 0.0))
    x, y = env.pos["p0"]
    env.pillars = np.array([[x + 2.0, y - 1.0, x + 3.0, y + 1.0]])
    _, events = hold(env, ["LMB"])
    assert events == [{"type": "shot", "hit": None}] and env.mhealth[0] == 50
    env.pillars = np.zeros((0, 4))
    hold(env, steps=3)
    _, events = hold(env, ["LMB"], dx=60.0)  # turned away first: a miss
    assert events == [{"type": "shot", "hit": None}]


def test_mouse_dx_turns_right_and_w_walks_forward():
    env = game("games/monsters-v0")
    only_monster(env, (8.0, 8.0))
    env.yaw["p0"] = 0.0
    hold(env, dx=90.0)
    assert env.yaw["p0"] == pytest.approx(-math.pi / 2)  # facing south now
    start = env.pos["p0"].copy()
    hold(env, ["W"], steps=3)
    assert env.pos["p0"][1] < start[1] - 0.8 and abs(env.pos["p0"][0] - start[0]) < 1e-6


def test_monsters_arrive_in_waves_and_death_ends_the_run():
    env = game("games/monsters-v0")
    m = env.rules.monsters
    assert env.spawned == m.first_wave
    hold(env, steps=round(m.spawn_every_s / env.dt))
    assert env.spawned == m.first_wave + 1
    env.health["p0"] = m.explode_damage
    only_monster(env, (0.9, 0.0))
    (_, done, _, _), _ = hold(env)
    assert done and env.health["p0"] == 0 and not env.agents


def test_var1_is_a_larger_hall_with_more_pillars():
    base, hall = game("games/monsters-v0"), game("games/monsters-var1-v0")
    assert hall.rules.arena.size_m == 28.0 and len(hall.pillars) > len(base.pillars)


def test_var2_monsters_move_only_when_unseen():
    env = game("games/monsters-var2-v0")
    assert env.spawned == 10
    env.pillars = np.zeros((0, 4))
    seen = [i for i in range(10) if env.sees("p0", env.mpos[i])]
    unseen = [i for i in range(10) if i not in seen]
    before = env.mpos.copy()
    hold(env)
    assert seen and unseen
    assert all(np.array_equal(before[i], env.mpos[i]) for i in seen)
    assert all(not np.array_equal(before[i], env.mpos[i]) for i in unseen)


def test_var3_is_faster():
    env = game("games/monsters-var3-v0")
    assert (env.rules.monsters.speed_m_s, env.rules.monsters.spawn_every_s, env.rules.player.cooldown_s) == \
        (2.4, 2.0, 0.5)


def test_the_view_is_first_person_and_layouts_come_from_the_seed():
    env = game("games/monsters-v0")
    frame = env._frame("p0")
    assert frame.shape == (DEFAULT_SIZE, DEFAULT_SIZE, 3) and frame.std() > 10
    a, b = game("games/monsters-v0", seed=1), game("games/monsters-v0", seed=2)
    assert not np.array_equal(a.pillars, b.pillars)
