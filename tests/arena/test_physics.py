"""Movement, jumping, collisions, and independence from dt."""

from __future__ import annotations

import numpy as np
import pytest
from tests.arena.helpers import action, arena, run

from rtarena.errors import UserError

CRATE = (49, 44, 51, 46, 0.9, "crate")
WALL = (45, 44, 55, 45, 3.0, "wall")
FORWARD = action(move_y=2)


def _north(env):
    env.world.players.yaw[0] = np.pi / 2


def test_walking_speed_is_in_metres_per_second():
    env, _ = arena(spawns=[(50, 20)])
    _north(env)
    run(env, 4, FORWARD)  # 1 s
    assert env.world.players.pos[0, 1] == pytest.approx(20 + env.rules.players.move_speed_m_s)


def test_turn_rate_is_in_degrees_per_second():
    env, _ = arena(spawns=[(50, 20)])
    _north(env)
    run(env, 2, action(yaw=1))  # 0.5 s turning left
    assert np.degrees(env.world.players.yaw[0]) == pytest.approx(90 + env.rules.players.turn_deg_s * 0.5)


def test_walls_block_walking():
    env, _ = arena(spawns=[(50, 40)], obstacles=[WALL])
    _north(env)
    run(env, 12, FORWARD)
    assert env.world.players.pos[0, 1] <= 44 - env.rules.players.radius_m + 1e-6


def test_crates_block_walking_but_can_be_jumped_over():
    env, _ = arena(spawns=[(50, 40)], obstacles=[CRATE])
    _north(env)
    run(env, 12, FORWARD)
    assert env.world.players.pos[0, 1] < 44  # stuck in front of the crate
    env, _ = arena(spawns=[(50, 40)], obstacles=[CRATE])
    _north(env)
    run(env, 12, action(move_y=2, jump=1))
    run(env, 4, FORWARD)
    assert env.world.players.pos[0, 1] > 47  # over the crate and beyond
    assert env.world.players.pos[0, 2] == pytest.approx(0.0)


def test_a_jump_cannot_clear_a_wall():
    env, _ = arena(spawns=[(50, 40)], obstacles=[WALL])
    _north(env)
    run(env, 12, action(move_y=2, jump=1))
    assert env.world.players.pos[0, 1] < 44


def test_gravity_brings_a_jumper_back_down():
    env, _ = arena(spawns=[(50, 40)])
    run(env, 1, action(jump=1))
    assert env.world.players.pos[0, 2] > 0.5 and not env.world.players.on_ground[0]
    run(env, 4)
    assert env.world.players.pos[0, 2] == 0.0 and env.world.players.on_ground[0]


def test_players_collide_with_each_other():
    env, _ = arena("coop", spawns=[(50, 40), (50, 43)])
    _north(env)
    run(env, 8, {"p0": FORWARD})
    d = np.hypot(*(env.world.players.pos[0, :2] - env.world.players.pos[1, :2]))
    assert d >= 2 * env.rules.players.radius_m - 1e-6


def test_boundary_walls_keep_players_in():
    env, _ = arena(spawns=[(50, 95)])
    _north(env)
    run(env, 8, FORWARD)
    assert env.world.players.pos[0, 1] <= 100 - env.rules.players.radius_m + 1e-6


@pytest.mark.parametrize("dt", [0.05, 0.5, 1.0])
def test_physics_does_not_depend_on_dt(dt):
    """The same held actions over the same simulated time give the same world, whatever dt."""
    def play(step_dt):
        env, _ = arena(spawns=[(50, 40)], obstacles=[CRATE], turrets=[(60, 60)], overrides={})
        env.dt, env.substeps = step_dt, round(step_dt / env.substep_s)
        _north(env)
        run(env, round(2.0 / step_dt), action(move_y=2, yaw=1, jump=1))
        return env.world.players.pos.copy(), env.world.players.yaw.copy(), env.world.turrets.barrel_yaw.copy()

    a, b = play(0.25), play(dt)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_allclose(x, y, atol=1e-9)


@pytest.mark.parametrize("level", ["basic", "coop", "competitive", "mixed"])
def test_every_level_runs_at_40_ms_steps(level):
    """dt = 0.04 s (the paper's 25 Hz) needs no --set: one 0.04 s sub-step per step."""
    import rtarena

    env = rtarena.make(f"arena/{level}-v0", dt=0.04)
    assert (env.substeps, env.substep_s) == (1, 0.04)
    env.reset(seed=0)
    for _ in range(25):
        env.step({a: env.action_space(a).sample() for a in env.agents})
    assert env.world.time_s == pytest.approx(1.0)


def test_dt_is_cut_into_equal_substeps_no_longer_than_the_rule():
    import rtarena

    assert rtarena.make("arena/basic-v0", dt=0.1).substeps == 2
    odd = rtarena.make("arena/basic-v0", dt=0.123)
    assert odd.substeps == 3 and odd.substep_s == pytest.approx(0.041)
    with pytest.raises(UserError, match="dt"):
        rtarena.make("arena/basic-v0", dt=0.0)


def test_the_documented_example_action_moves_left_and_fires():
    env, _ = arena(spawns=[(50, 40)])
    _north(env)  # facing +y, so left is -x
    *_, infos = env.step({"p0": np.array([1, 0, 0, 0, 1, 0, 0])})
    assert env.world.players.pos[0, 0] < 50 and env.world.players.pos[0, 1] == pytest.approx(40)
    assert [e for e in infos["p0"]["events"] if e["type"] == "shot"]
