"""Workshop's rules and variants."""

from __future__ import annotations

import numpy as np
import pytest

from .helpers import game, hold, types


def at(env, station: str, offset=(0.0, 0.0)):
    env.pos["p0"] = env.stations[station] + np.array(offset)


def press(env, key="E"):
    _, events = hold(env, [key])
    hold(env)  # release, so the next press is a new one
    return types(events)


def test_the_interact_prompt_appears_only_within_reach():
    env = game("games/workshop-v0")
    reach = env.rules.player.reach_m
    bin_pos = env.stations["gear bin"]
    env.pos["p0"] = bin_pos + np.array([0.0, 0.0])
    assert env.prompt("p0") == "Press E to take a gear" and "Press E to take a gear" in env.text("p0")
    direction = (np.array([5.0, 3.5]) - bin_pos) / np.linalg.norm(np.array([5.0, 3.5]) - bin_pos)
    env.pos["p0"] = bin_pos + direction * (reach + 0.2)
    assert env.prompt("p0") is None and "Press E" not in env.text("p0")
    assert "pickup" not in press(env)  # out of reach, E does nothing


def test_a_carried_item_is_dropped_before_another_is_picked_up():
    env = game("games/workshop-v0")
    at(env, "gear bin")
    assert "pickup" in press(env) and env.hands["p0"].item == "gear"
    at(env, "spring bin")
    assert press(env) == ["hands_full"] and env.hands["p0"].item == "gear"
    assert env.prompt("p0").startswith("Hands full")
    assert "drop" in press(env, "Space") and env.hands["p0"].item is None
    assert [item for item, _ in env.floor] == ["gear"]
    env.pos["p0"] = env.stations["spring bin"] + np.array([0.0, 0.0])
    env.floor[0] = ("gear", env.stations["spring bin"] + np.array([3.0, 0.0]))  # leave the dropped gear away
    assert "pickup" in press(env) and env.hands["p0"].item == "spring"


def test_the_bench_upgrades_after_its_time_and_an_early_take_stays_plain():
    env = game("games/workshop-v0")
    at(env, "gear bin")
    press(env)
    at(env, "bench")
    assert "bench_put" in press(env)
    assert "bench_take" in press(env) and env.hands["p0"].item == "gear"  # taken early: plain
    press(env)
    hold(env, steps=round(env.rules.bench.upgrade_s / env.dt))
    press(env)
    assert env.hands["p0"].item == "gear+"


def test_delivering_fills_the_matching_order_and_a_wrong_part_is_refused():
    env = game("games/workshop-v0")
    env.orders = [{"item": "spring", "expires_s": 99.0, "points": 1}]
    env.next_order_s = 1e9
    at(env, "gear bin")
    press(env)
    at(env, "counter")
    assert press(env) == ["refused"] and env.hands["p0"].item == "gear"
    at(env, "trash")
    assert press(env) == ["discard"] and env.hands["p0"].item is None
    at(env, "spring bin")
    press(env)
    at(env, "counter")
    _, events = hold(env, ["E"])
    assert types(events) == ["deliver"] and env.points == 1 and not env.orders
    assert env.scores["p0"] == pytest.approx(1 / env.rules.orders.target_points)


def test_orders_arrive_on_their_interval_and_expire():
    env = game("games/workshop-v0")
    o = env.rules.orders
    _, events = hold(env, steps=1)
    assert types(events) == ["order"]
    _, events = hold(env, steps=round(o.interval_s / env.dt))
    assert types(events) == ["order"] and len(env.orders) == 2
    first_expiry = env.orders[0]["expires_s"]
    _, events = hold(env, steps=round((first_expiry - env.t) / env.dt) + 1)
    assert all(order["expires_s"] > env.t for order in env.orders)
    assert "expired" in types(events)  # the order that ran out is an event


def test_var1_two_rooms_parts_west_counter_east():
    env = game("games/workshop-var1-v0")
    middle = env.rules.room.width_m / 2
    assert env.door is not None and len(env.walls) == 6
    assert all(env.stations[f"{k} bin"][0] < middle for k in env.rules.parts.kinds)
    assert env.stations["counter"][0] > middle and env.stations["trash"][0] > middle
    env.pos["p0"] = np.array([middle - 1.0, env.door[1] + 2.5])  # beside the wall, away from the door
    hold(env, ["D"], steps=10)
    assert env.pos["p0"][0] < middle  # the wall holds


def test_var2_bench_works_only_while_held():
    env = game("games/workshop-var2-v0")
    at(env, "gear bin")
    press(env)
    at(env, "bench")
    press(env)
    hold(env, steps=40)
    assert env.bench_left_s == pytest.approx(env.rules.bench.upgrade_s)  # left alone: no work
    hold(env, ["E"], steps=round(env.rules.bench.upgrade_s / env.dt) + 1)
    assert env.bench_left_s == 0.0 and env.bench_item == "gear"  # holding E works it, never takes it
    hold(env)
    press(env)
    assert env.hands["p0"].item == "gear+"


def test_var3_timings():
    base, hard = game("games/workshop-v0"), game("games/workshop-var3-v0")
    assert (hard.rules.orders.expire_s, hard.rules.orders.interval_s, hard.rules.bench.upgrade_s) == (15.0, 5.0, 6.0)
    assert base.rules.orders.expire_s == 40.0


def test_layouts_come_from_the_seed():
    a, b = game("games/workshop-v0", seed=1), game("games/workshop-v0", seed=2)
    assert any(not np.array_equal(a.stations[k], b.stations[k]) for k in a.stations)
