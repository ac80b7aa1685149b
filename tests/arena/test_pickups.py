"""Coins never come back; ammo boxes refill to the maximum and come back somewhere."""

from __future__ import annotations

import numpy as np
import pytest
from tests.arena.helpers import action, arena, of, run


def test_coins_are_collected_once_and_never_respawn():
    env, _ = arena(spawns=[(50, 40)], coins=[(50, 44), (50, 47)], overrides={"arena.time_limit_s": 600.0})
    env.world.players.yaw[0] = np.pi / 2
    events = run(env, 6, action(move_y=2))
    assert len(of(events, "coin", agent="p0")) == 2
    assert not env.world.coins.active.any()
    assert env.points[0] == 2 and env.score(0) == 1.0


def test_level_ends_when_every_coin_is_collected():
    env, _ = arena(spawns=[(50, 40)], coins=[(50, 44)])
    env.world.players.yaw[0] = np.pi / 2
    run(env, 4, action(move_y=2))
    assert not env.agents
    assert env.episode_metrics()["p0"]["outcome"] == "win"


def test_coins_stay_gone_for_the_whole_episode():
    env, _ = arena(spawns=[(50, 40), (20, 20)], coins=[(50, 44), (80, 80)], level="coop")
    env.world.players.yaw[0] = np.pi / 2
    run(env, 4, {"p0": action(move_y=2)})
    events = run(env, 200)
    assert not of(events, "coin")
    assert list(env.world.coins.active) == [False, True]


def test_ammo_box_refills_to_the_maximum_and_respawns_elsewhere():
    env, _ = arena(spawns=[(50, 40)], ammo=[(50, 44)], overrides={"players.ammo_start": 2, "ammo.respawn_s": 5.0})
    env.world.players.yaw[0] = np.pi / 2
    events = run(env, 4, action(move_y=2))
    pickup = of(events, "ammo_pickup", agent="p0")
    assert pickup and pickup[0]["amount"] == env.rules.players.ammo_max - 2
    assert env.world.players.ammo[0] == env.rules.players.ammo_max
    assert not env.world.ammo.active[0]
    events = run(env, 24)
    assert of(events, "ammo_respawn")
    assert env.world.ammo.active[0]
    assert np.hypot(*(env.world.ammo.pos[0, :2] - [50, 44])) > 0.1


def test_a_full_player_leaves_the_ammo_box():
    env, _ = arena(spawns=[(50, 40)], ammo=[(50, 44)])
    env.world.players.ammo[0] = env.rules.players.ammo_max
    env.world.players.yaw[0] = np.pi / 2
    events = run(env, 4, action(move_y=2))
    assert not of(events, "ammo_pickup") and env.world.ammo.active[0]


def test_ammo_boxes_on_the_floor_respawn_periodically_at_random_places():
    """`ammo.relocate_every_s`: untouched boxes move at each period; 0 keeps them where they are."""
    boxes = [(20, 20), (80, 80)]
    env, _ = arena(spawns=[(50, 40)], ammo=boxes, overrides={"ammo.relocate_every_s": 5.0})
    events = run(env, 19)  # 4.75 s: not yet
    assert not of(events, "ammo_respawn")
    events = run(env, 1)
    moved = of(events, "ammo_respawn", moved=True)
    assert sorted(e["box"] for e in moved) == [0, 1] and moved[0]["t_s"] == pytest.approx(4.95)
    assert env.world.ammo.active.all()
    assert (np.hypot(*(env.world.ammo.pos[:, :2] - boxes).T) > 0.1).all()
    first = env.world.ammo.pos.copy()
    run(env, 20)
    assert (np.hypot(*(env.world.ammo.pos[:, :2] - first[:, :2]).T) > 0.1).all()

    still, _ = arena(spawns=[(50, 40)], ammo=boxes, overrides={"ammo.relocate_every_s": 0.0})
    assert not of(run(still, 60), "ammo_respawn")
    np.testing.assert_array_equal(still.world.ammo.pos[:, :2], boxes)
