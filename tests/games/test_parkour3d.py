"""Parkour 3D's rules and variants."""

from __future__ import annotations

import math

import numpy as np
import pytest

from .helpers import game, hold, types


def stand_on(env, index: int, dx: float = 0.0, dy: float = 0.0):
    b = env.body["p0"]
    cx, cy, _, _, top = env.plat[index]
    b["pos"] = np.array([cx + dx, cy + dy, top])
    b["ground"], b["vz"] = index, 0.0


def face(env, index: int):
    b = env.body["p0"]
    cx, cy = env.plat[index, :2]
    env.yaw["p0"] = math.atan2(cy - b["pos"][1], cx - b["pos"][0])


def test_falling_returns_to_the_last_checkpoint():
    env = game("games/parkour3d-v0")
    stand_on(env, 4)
    hold(env)
    assert env.body["p0"]["checkpoint"] == 4
    stand_on(env, 5)
    env.yaw["p0"] = math.atan2(env.plat[5, 1] - env.plat[6, 1], env.plat[5, 0] - env.plat[6, 0])  # face back
    _, events = hold(env, ["W", "A"], steps=100)
    assert "fall" in types(events)
    b = env.body["p0"]
    assert b["falls"] >= 1 and b["best"] == 5
    fall = next(e for e in events if e["type"] == "fall")
    assert fall["to_checkpoint"] == 4


def test_the_respawn_is_on_the_checkpoint_top():
    env = game("games/parkour3d-v0")
    stand_on(env, 4)
    hold(env)
    env.body["p0"]["pos"] = np.array([0.5, 0.5, 0.02])
    env.body["p0"]["ground"], env.body["p0"]["vz"] = None, -1.0
    _, events = hold(env)
    assert types(events)[-1] == "fall"
    assert env.body["p0"]["pos"] == pytest.approx([*env.plat[4, :2], env.plat[4, 4]])


def test_space_jumps_once_per_press_and_lands():
    env = game("games/parkour3d-v0")
    stand_on(env, 0)
    _, events = hold(env, ["Space"], steps=30)
    assert types(events).count("jump") == 1 and "land" in types(events)
    assert env.body["p0"]["ground"] == 0


def test_a_tall_side_blocks_and_a_low_ledge_is_walked_up():
    env = game("games/parkour3d-v0", overrides={"course": {"gap_m": [0.0, 0.0], "rise_m": [1.0, 1.0]}})
    stand_on(env, 0)
    face(env, 1)
    hold(env, ["W"], steps=40)
    assert env.body["p0"]["ground"] == 0  # a 1 m side: blocked
    low = game("games/parkour3d-v0", overrides={"course": {"gap_m": [0.0, 0.0], "rise_m": [0.2, 0.2]}})
    stand_on(low, 0)
    face(low, 1)
    _, events = hold(low, ["W"], steps=40)
    assert low.body["p0"]["best"] >= 1 and "jump" not in types(events)


def test_the_goal_scores_one_and_ends_the_run():
    env = game("games/parkour3d-v0")
    last = len(env.plat) - 1
    stand_on(env, last)
    (_, done, _, info), events = hold(env)
    assert done and info["score"] == 1.0 and "checkpoint" in types(events)


def test_var1_zigzags():
    env = game("games/parkour3d-var1-v0", seed=3)
    steps = np.diff(env.base[:, :2], axis=0)
    angles = np.degrees(np.arctan2(steps[:, 1], steps[:, 0]))
    assert np.ptp(angles) > 60  # the course turns
    straight = game("games/parkour3d-v0", seed=3)
    s = np.diff(straight.base[:, :2], axis=0)
    assert np.ptp(np.degrees(np.arctan2(s[:, 1], s[:, 0]))) < 60


def test_var2_platforms_slide_and_carry_the_player():
    env = game("games/parkour3d-var2-v0")
    assert env.swaying[1] and not env.swaying[0]
    stand_on(env, 1)
    start = env.body["p0"]["pos"].copy()
    plat_start = env.plat[1, :2].copy()
    hold(env, steps=10)
    moved = env.plat[1, :2] - plat_start
    assert np.hypot(*moved) > 0.3
    assert env.body["p0"]["pos"][:2] - start[:2] == pytest.approx(moved, abs=1e-6)
    base = game("games/parkour3d-v0")
    before = base.plat.copy()
    hold(base, steps=10)
    assert np.array_equal(before, base.plat)


def test_var3_is_tighter():
    env = game("games/parkour3d-var3-v0")
    sizes = 2 * env.plat[1:, 2:4]
    gaps_ok = env.rules.course.gap_m == (1.4, 2.4)
    assert env.time_limit_s == 35.0 and sizes.max() <= 2.0 + 1e-9 and gaps_ok


def test_courses_come_from_the_seed():
    a, b = game("games/parkour3d-v0", seed=1), game("games/parkour3d-v0", seed=2)
    assert not np.array_equal(a.plat, b.plat)
