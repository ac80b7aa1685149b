"""Errands' rules and variants."""

from __future__ import annotations

import numpy as np

from rtarena.envs.games.walker import blocked

from .helpers import game, hold, types


def next_to(env, name: str, distance: float = 0.0):
    env.pos["p0"] = env.people[name] + np.array([distance, 0.0])


def press(env, key="F"):
    _, events = hold(env, [key])
    hold(env)
    return events


def giver_of(env, item: str) -> str:
    return next(n for n, g in env.gives.items() if g == item)


def test_the_interact_prompt_appears_only_within_reach():
    env = game("games/errands-v0")
    name = env.rules.people.names[0]
    env.people[name] = np.array([10.0, 10.0])
    for i, other in enumerate(env.rules.people.names[1:]):
        env.people[other] = np.array([1.0 + i, 1.0])
    reach = env.rules.player.reach_m
    next_to(env, name, reach - 0.05)
    assert env.prompt("p0") == f"Press F to talk to the {name}" and "Press F" in env.text("p0")
    next_to(env, name, reach + 0.1)
    assert env.prompt("p0") is None and "Press F" not in env.text("p0")
    assert press(env) == [] and env.bags["p0"] == []


def test_an_errand_is_fetching_the_item_and_giving_it():
    env = game("games/errands-v0")
    who, item = env.errand
    assert f"the {who} wants {item}" in env.text("p0")
    next_to(env, giver_of(env, item))
    assert press(env) == [{"type": "receive", "from": giver_of(env, item), "item": item}]
    assert env.bags["p0"] == [item] and f"inventory (1/2): {item}" in env.text("p0")
    next_to(env, who)
    assert env.prompt("p0") == f"Press F to give the {item} to the {who}"
    events = press(env)
    assert types(events) == ["exchange"] and env.done == 1 and env.bags["p0"] == []
    assert env.scores["p0"] == 0.1 and env.errand == env.errands[1]


def test_the_inventory_limit_and_dropping_the_oldest():
    env = game("games/errands-v0")
    names = [n for n in env.rules.people.names if n != env.errand[0]][:3]
    for name in names[:2]:
        next_to(env, name)
        assert types(press(env)) == ["receive"]
    next_to(env, names[2])
    assert types(press(env)) == ["bag_full"] and len(env.bags["p0"]) == 2
    oldest = env.bags["p0"][0]
    assert press(env, "Space") == [{"type": "drop", "item": oldest}]
    assert types(press(env)) == ["receive"] and env.bags["p0"][-1] == env.gives[names[2]]


def test_the_text_names_only_characters_in_view():
    env = game("games/errands-v0")
    view = env.rules.area.view_m
    report = env.text("p0").split("Within")[1]
    for name, spot in env.people.items():
        assert (f"the {name} " in report) == bool(np.abs(spot - env.pos["p0"]).max() <= view)


def test_the_last_exchange_ends_the_game():
    env = game("games/errands-v0")
    while env.errand:
        who, item = env.errand
        env.bags["p0"] = [item]
        next_to(env, who)
        press(env)
    assert env.scores["p0"] == 1.0 and not env.agents


def test_var1_village_houses_block_the_way():
    env = game("games/errands-var1-v0")
    assert len(env.walls) == 4 + 7
    assert not any(blocked(p, 0.5, env.walls) for p in env.people.values())
    x0, y0, _x1, y1 = env.walls[4]
    env.pos["p0"] = np.array([x0 - 0.6, (y0 + y1) / 2])
    hold(env, ["D"], steps=10)
    assert env.pos["p0"][0] < x0


def test_var2_characters_stroll_and_base_ones_stand():
    strolling, standing = game("games/errands-var2-v0"), game("games/errands-v0")
    before = {n: p.copy() for n, p in strolling.people.items()}
    still = {n: p.copy() for n, p in standing.people.items()}
    hold(strolling, steps=20)
    hold(standing, steps=20)
    assert all(not np.array_equal(before[n], strolling.people[n]) for n in before)
    assert all(np.array_equal(still[n], standing.people[n]) for n in still)


def test_var3_one_item_and_less_time():
    env = game("games/errands-var3-v0")
    assert env.rules.errands.inventory == 1 and env.time_limit_s == 60.0


def test_layouts_come_from_the_seed():
    a, b = game("games/errands-v0", seed=1), game("games/errands-v0", seed=2)
    assert any(not np.array_equal(a.people[n], b.people[n]) for n in a.people)
