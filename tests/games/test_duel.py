"""Duel's rules and variants; its scripted player against random."""

from __future__ import annotations

import numpy as np
import pytest

from .helpers import game
from .versus import bot_vs_random, step

SHORT = {"game": {"time_limit_s": 20.0}}


def face_off(env, gap: float):
    centre = np.full(2, env.side_m / 2)
    env.pos["p0"], env.pos["p1"] = centre.copy(), centre + np.array([gap, 0.0])


def test_a_hit_costs_ten_health_and_knocks_back_out_of_reach_misses():
    env = game("games/duel-v0")
    face_off(env, 1.0)
    events = step(env, {"p0": ["Space"]})
    assert {"who": "p0", "type": "hit", "damage": 10} in events and env.health["p1"] == 90
    assert env.vel["p1"][0] > 0 and env.pos["p1"][0] > env.side_m / 2 + 1.0  # pushed away from p0
    step(env, steps=10)
    assert env.pos["p1"][0] > env.side_m / 2 + 2.0
    face_off(env, env.rules.fighter.reach_m + 0.3)
    step(env, steps=10)
    assert [e["type"] for e in step(env, {"p0": ["Space"]})] == ["miss"] and env.health["p1"] == 90


def test_a_strike_waits_for_its_cooldown():
    env = game("games/duel-v0")
    face_off(env, 0.5)
    step(env, {"p0": ["Space"]})
    env.vel["p1"][:] = 0
    face_off(env, 0.5)
    step(env)
    assert [e["type"] for e in step(env, {"p0": ["Space"]}) if e["who"] == "p0"] == []  # still cooling
    assert env.health["p1"] == 90


def test_falling_off_loses_at_once():
    env = game("games/duel-v0")
    env.pos["p1"] = np.array([0.2, env.side_m / 2])
    step(env, {"p1": ["A"]}, steps=3)
    assert not env.agents and env.scores == {"p0": 1.0, "p1": 0.0}


def test_at_the_time_limit_more_health_wins_and_equal_health_draws():
    env = game("games/duel-v0", overrides={"game": {"time_limit_s": 1.0}})
    step(env, steps=10)
    assert env.scores == {"p0": 0.5, "p1": 0.5}
    env = game("games/duel-v0", overrides={"game": {"time_limit_s": 1.0}})
    env.health["p1"] = 50.0
    step(env, steps=10)
    assert env.scores == {"p0": 1.0, "p1": 0.0}


def test_var1_holes_swallow_a_fighter():
    env = game("games/duel-var1-v0")
    assert len(env.holes) == 3 and len(game("games/duel-v0").holes) == 0
    x0, y0, x1, y1 = env.holes[0]
    env.pos["p0"] = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
    step(env)
    assert env.scores["p0"] == 0.0 and env.scores["p1"] == 1.0 and not env.agents


def test_var2_the_platform_shrinks():
    env, base = game("games/duel-var2-v0"), game("games/duel-v0")
    step(env, steps=50)
    step(base, steps=50)
    assert env.inset() == pytest.approx(0.5) and base.inset() == 0.0
    assert not env.on_platform(np.array([0.3, env.side_m / 2]))


def test_var3_timings():
    f = game("games/duel-var3-v0").rules.fighter
    assert (f.speed_m_s, f.cooldown_s, f.knockback_m_s) == (3.5, 0.3, 7.0)


def test_layouts_come_from_the_seed():
    a, b = game("games/duel-var1-v0", seed=1), game("games/duel-var1-v0", seed=2)
    assert a.side_m != b.side_m and not np.array_equal(a.holes, b.holes)


@pytest.mark.parametrize("variant", ["", "-var1", "-var2", "-var3"])
def test_scripted_player_beats_random_over_20_seeds(variant):
    assert bot_vs_random(f"games/duel{variant}-v0", range(20), overrides=SHORT) >= 0.8
