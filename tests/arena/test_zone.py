"""The toxic zone shrinks on its schedule and hurts only players outside it."""

from __future__ import annotations

import pytest
from tests.arena.helpers import arena, of, run

from rtarena.envs.arena.rules import load_rules
from rtarena.envs.arena.zone import ZoneSchedule


def test_zone_hurts_only_outside():
    env, _ = arena("coop", spawns=[(50, 55), (95, 95)], disable=(),
                   overrides={"toxic_zone.start_radius_m": 30.0, "toxic_zone.damage_per_s": 4.0})
    events = run(env, 8)  # 2 s
    p = env.world.players
    assert p.health[0] == p.max_health
    assert p.health[1] == pytest.approx(p.max_health - 8.0)
    assert of(events, "zone_damage", agent="p1") and not of(events, "zone_damage", agent="p0")
    assert "OUTSIDE" in env._observations(["p1"])["p1"]["text"]


def test_zone_can_kill():
    env, _ = arena("coop", spawns=[(50, 55), (95, 95)], disable=(),
                   overrides={"toxic_zone.start_radius_m": 30.0, "toxic_zone.damage_per_s": 50.0})
    events = run(env, 12)
    assert of(events, "death", agent="p1", cause="zone")
    assert "p1" not in env.agents and "p0" in env.agents


def test_zone_schedule_shrinks_in_stages():
    z = ZoneSchedule(load_rules("coop.toml"))
    assert z.radius(0) == z.radius(59.9) == 72.0
    assert z.radius(60 + 15) == pytest.approx(57.0)
    assert z.radius(60 + 7.5) == pytest.approx(64.5)
    assert z.radius(1000) == pytest.approx(12.0)
    assert z.next_shrink(10) == (60.0, pytest.approx(57.0))
    assert z.next_shrink(100)[0] == 120.0


def test_the_zone_shrinks_in_an_episode():
    env, _ = arena("coop", spawns=[(50, 55), (52, 55)], disable=(),
                   overrides={"toxic_zone.first_shrink_s": 1.0, "toxic_zone.shrink_duration_s": 1.0})
    start = env.world.zone.radius_m
    run(env, 12)
    assert env.world.zone.radius_m < start
