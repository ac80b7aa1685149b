"""Turrets: lock on in range, turn at a finite rate, fire once aimed; a mover makes them miss."""

from __future__ import annotations

import numpy as np
from tests.arena.helpers import action, arena, of, run

from rtarena.envs.arena.turret import health_colour

TURRET = (50, 50)


def test_turret_hits_a_player_who_stands_still():
    env, _ = arena(spawns=[(50, 62)], turrets=[TURRET])
    events = run(env, 24)  # 6 s standing
    assert of(events, "turret_lock", target="p0")
    assert len(of(events, "turret_fire")) >= 3
    assert len(of(events, "turret_shell_hit", target="p0")) >= 3
    assert env.world.players.health[0] < env.world.players.max_health


def test_turret_misses_a_player_who_keeps_moving():
    # Shell flight alone (every aimed shot fired): the mover is elsewhere when each shell arrives.
    env, _ = arena(spawns=[(50, 62)], turrets=[TURRET], overrides={"turret.range_m": 40.0,
                                                                     "turret.moving_fire_chance": 1.0})
    events = run(env, 20, action(move_x=1))  # strafe across the line of fire for 5 s
    assert len(of(events, "turret_fire")) >= 3
    assert not of(events, "turret_shell_hit")
    assert env.world.players.health[0] == env.world.players.max_health


def test_turret_may_hold_fire_at_a_player_who_keeps_moving():
    """`turret.moving_fire_chance`: a mover is fired at less often than a player who stands still."""
    def fired(chance: float, act) -> tuple[int, int]:
        total = holds = 0
        for seed in range(4):
            env, _ = arena(spawns=[(50, 62)], turrets=[TURRET], seed=seed,
                           overrides={"turret.range_m": 40.0, "turret.moving_fire_chance": chance})
            events = run(env, 20, act)
            total, holds = total + len(of(events, "turret_fire")), holds + len(of(events, "turret_hold", target="p0"))
        return total, holds

    always, no_holds = fired(1.0, action(move_x=1))
    sometimes, holds = fired(0.5, action(move_x=1))
    still, still_holds = fired(0.5, None)
    assert no_holds == 0 and still_holds == 0  # the old rule, and a player standing still, never see a hold
    assert holds > 0 and sometimes < always
    assert sometimes + holds == always  # each hold replaces one shot and waits one interval
    assert still >= always


def test_turret_drops_its_lock_when_the_player_leaves_range():
    env, _ = arena(spawns=[(50, 62)], turrets=[TURRET], overrides={"turret.range_m": 15.0})
    run(env, 2)
    assert env.world.turrets.target[0] == 0
    events = run(env, 12, action(move_y=1))  # walk backward, away from the turret
    assert of(events, "turret_unlock", target="p0")
    assert env.world.turrets.target[0] == -1


def test_turret_turns_at_a_finite_rate():
    env, _ = arena(spawns=[(50, 62)], turrets=[TURRET], overrides={"turret.turn_deg_s": 40.0})
    want = np.arctan2(62 - 50, 0)
    env.world.turrets.barrel_yaw[0] = want + np.pi  # pointing the other way
    run(env, 1)  # 0.25 s at 40 deg/s turns 10 degrees at most
    error = abs((env.world.turrets.barrel_yaw[0] - want + np.pi) % (2 * np.pi) - np.pi)
    assert np.degrees(error) > 165


def test_turret_is_destructible_and_never_respawns():
    env, _ = arena(spawns=[(50, 58)], turrets=[TURRET], overrides={"turret.damage": 0.0})
    events = run(env, 60, action(fire=1))
    assert of(events, "turret_destroyed", shooter="p0")
    assert not env.world.turrets.alive[0]
    assert env.points[0] == env.rules.points.turret
    fired = len(of(events, "turret_fire"))
    events = run(env, 40)
    assert not env.world.turrets.alive[0] and not of(events, "turret_fire")
    assert fired > 0


def test_health_colours():
    assert [health_colour(f) for f in (1.0, 0.7, 0.5, 0.34, 0.2, 0.0)] == ["green", "green", "yellow", "yellow",
                                                                          "red", "red"]


def test_being_hit_shows_in_text_and_state():
    from rtarena.envs.arena.observations.state import state_index

    env, _ = arena(spawns=[(50, 62)], turrets=[TURRET])
    for _ in range(40):
        obs, _, _, _, infos = env.step({"p0": np.zeros(7, dtype=np.int64)})
        if of(infos["p0"]["events"], "turret_shell_hit"):
            break
    assert "hit by turret 0" in obs["p0"]["text"]
    assert obs["p0"]["state"][state_index("events", "hit_by_turret")] == 1.0
