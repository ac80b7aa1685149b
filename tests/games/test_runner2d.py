"""Runner 2D's rules and variants."""

from __future__ import annotations

import numpy as np
import pytest

from .helpers import game, hold, types


def test_space_jumps_once_per_press_and_only_when_standing():
    env = game("games/runner2d-v0")
    _, events = hold(env, ["Space"], steps=30)  # held: one jump, then back on the ground
    assert types(events).count("jump") == 1 and "land" in types(events)
    _, events = hold(env, steps=1)
    _, events = hold(env, ["Space"], steps=1)
    assert types(events) == ["jump"]
    _, events = hold(env, steps=1)
    _, events = hold(env, ["Space"], steps=1)  # pressed again in the air: nothing
    assert "jump" not in types(events)


def test_running_off_the_first_platform_falls_and_ends_the_run():
    env = game("games/runner2d-v0")
    (_, done, _, info), events = hold(env, ["D"], steps=100)
    assert done and "fall" in types(events) and "flag" not in types(events)
    first_end = env.platforms[0, 1]
    assert info["score"] == pytest.approx(min(env.body["p0"]["best"], 1e9) / env.flag_x)
    assert env.body["p0"]["best"] < first_end + 3.0


def test_reaching_the_flag_scores_one():
    env = game("games/runner2d-v0")
    last = env.platforms[-1]
    env.body["p0"].update(x=last[0] + 0.1, y=last[2], ground=len(env.platforms) - 1)
    (_, done, _, info), events = hold(env, ["D"], steps=20)
    assert done and "flag" in types(events) and info["score"] == 1.0


def test_a_platform_side_blocks_the_runner():
    env = game("games/runner2d-v0", overrides={"course": {"rise_m": [1.0, 1.0], "gap_m": [1.0, 1.0]}})
    p0, p1 = env.platforms[0], env.platforms[1]
    assert p1[2] == pytest.approx(1.0)
    env.body["p0"].update(x=p0[1] + 0.2, y=0.0, ground=None, vy=0.0)  # in the gap, below the next top
    env.platforms[0] = (p0[0], p0[1] + 0.8, p0[2])  # the runner stands on an extended first platform
    env.body["p0"]["ground"] = 0
    hold(env, ["D"], steps=8)
    assert env.body["p0"]["x"] <= p1[0] - env.rules.player.half_width_m + 1e-6


def test_var2_platforms_crumble_after_landing():
    env = game("games/runner2d-var2-v0")
    env.body["p0"].update(x=env.platforms[1, 0] + 0.5, y=env.platforms[1, 2] + 0.5, ground=None, vy=0.0)
    _, events = hold(env, steps=int(0.6 / env.dt) + 40)
    assert "land" in types(events) and "crumble" in types(events) and not env.present[1]
    assert "fall" in types(events)  # standing still on a crumbling platform drops you
    base = game("games/runner2d-v0")
    base.body["p0"].update(x=base.platforms[1, 0] + 0.5, y=base.platforms[1, 2] + 0.5, ground=None, vy=0.0)
    _, events = hold(base, steps=30)
    assert "crumble" not in types(events) and base.present.all()


def test_var1_is_stairs_of_short_steps_and_var3_is_faster_with_a_shorter_countdown():
    base, stairs, fast = (game(f"games/runner2d{v}-v0", seed=4) for v in ("", "-var1", "-var3"))
    lengths = stairs.platforms[1:, 1] - stairs.platforms[1:, 0]
    assert len(stairs.platforms) == 22 and lengths.max() <= 2.4
    rises = np.sign(np.diff(stairs.platforms[:, 2]))
    assert (rises[:-1] == rises[1:]).mean() > 0.6  # long runs up or down
    assert fast.time_limit_s == 15.0 and fast.rules.player.run_m_s == 8.0
    gaps = fast.platforms[1:, 0] - fast.platforms[:-1, 1]
    assert gaps.min() >= 1.8 and base.time_limit_s == 25.0


def test_courses_come_from_the_seed():
    a, b = game("games/runner2d-v0", seed=1), game("games/runner2d-v0", seed=2)
    assert not np.array_equal(a.platforms, b.platforms)
    assert np.array_equal(a.platforms, game("games/runner2d-v0", seed=1).platforms)
