"""Shooting: hits, kills, ammunition, fire interval, friendly fire, chickens."""

from __future__ import annotations

from tests.arena.helpers import action, arena, face, of, run

FIRE = action(fire=1)


def test_a_shot_at_an_opponent_hits_and_kills():
    env, _ = arena("competitive", spawns=[(40, 50), (52, 50)])
    face(env, 0, (52, 50))
    face(env, 1, (80, 50))  # p1 looks away and does nothing
    events = run(env, 12, {"p0": FIRE})
    assert of(events, "hit", shooter="p0", target="p1")
    assert of(events, "kill", shooter="p0", target="p1")
    assert of(events, "death", agent="p1", cause="player")
    assert not env.world.players.alive[1]
    assert env.points[0] == env.rules.points.kill
    m = env.episode_metrics()
    assert m["p0"]["kills"] == 1 and m["p1"]["deaths"] == 1
    assert m["p1"]["incoming_hits"] == m["p0"]["hits"] and m["p1"]["incoming_shots"] >= m["p1"]["incoming_hits"]
    assert 0 < m["p0"]["accuracy"] <= 1


def test_shots_respect_the_fire_interval():
    env, _ = arena(spawns=[(50, 50)], overrides={"weapon.fire_interval_s": 0.5})
    events = run(env, 8, FIRE)  # 2 s of holding the trigger
    assert len(of(events, "shot")) == 4


def test_ammo_runs_out_and_only_ammo_boxes_refill_it():
    env, _ = arena(spawns=[(50, 50)], overrides={"players.ammo_start": 3, "weapon.fire_interval_s": 0.25})
    events = run(env, 8, FIRE)
    assert len(of(events, "shot")) == 3
    assert of(events, "dry_fire", agent="p0")
    assert env.world.players.ammo[0] == 0
    events = run(env, 20)  # waiting does not bring ammunition back
    assert env.world.players.ammo[0] == 0


def test_friendly_fire_does_nothing():
    env, _ = arena("coop", spawns=[(40, 50), (46, 50)])
    face(env, 0, (46, 50))
    events = run(env, 12, {"p0": FIRE})
    assert of(events, "shot", shooter="p0")
    assert not of(events, "hit")
    assert env.world.players.health[1] == env.world.players.max_health
    assert env.world.players.alive.all()


def test_teammates_in_mixed_are_safe_but_opponents_are_not():
    env, _ = arena("mixed", spawns=[(40, 50), (46, 50), (46, 51.5), (80, 80)])
    face(env, 0, (46, 50.7))
    events = run(env, 4, {"p0": FIRE})
    assert not of(events, "hit", target="p1")
    assert of(events, "hit", target="p2")


def test_a_shot_chicken_gives_points_and_comes_back():
    env, _ = arena(spawns=[(40, 50)], chickens=[(50, 50)], overrides={"chickens.speed_m_s": 0.0,
                                                                       "chickens.respawn_s": 5.0})
    face(env, 0, (50, 50.3))
    env.world.players.pitch[0] = -0.12
    events = run(env, 4, FIRE)
    assert of(events, "chicken_shot", shooter="p0")
    assert env.points[0] == env.rules.points.chicken
    events = run(env, 24)
    assert of(events, "chicken_respawn") and env.world.chickens.alive.all()


def test_chickens_wander():
    env, _ = arena(spawns=[(10, 10)], chickens=[(50, 50), (60, 60)])
    start = env.world.chickens.pos.copy()
    run(env, 20)
    assert (abs(env.world.chickens.pos - start).sum(axis=1) > 1.0).all()
