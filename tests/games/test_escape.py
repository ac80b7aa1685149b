"""Escape's rules and variants."""

from __future__ import annotations

import numpy as np

from rtarena.envs.games.rooms import door_centre, room_of

from .helpers import game, hold, types


def beside(env, name: str, distance: float):
    env.pos["p0"] = env.objects[name] + np.array([distance, 0.0])


def others_away(env, keep: str):
    """Move every other object far away, so only `keep` is near the player."""
    for i, name in enumerate(env.objects):
        if name != keep:
            env.objects[name] = env.objects[keep] + np.array([100.0 + i, 0.0])


def press_f(env):
    _, events = hold(env, ["F"])
    hold(env)
    return types(events)


def test_the_interact_prompt_appears_only_within_reach():
    env = game("games/escape-v0")
    task = env.task
    others_away(env, task)
    reach = env.rules.player.reach_m
    beside(env, task, reach - 0.05)
    assert env.prompt("p0") == f"Press F to use the {task}" and f"Press F to use the {task}" in env.text("p0")
    beside(env, task, reach + 0.05)
    assert env.prompt("p0") is None and "Press F" not in env.text("p0")
    assert press_f(env) == [] and env.done == 0  # F out of reach does nothing


def test_f_at_the_current_object_completes_the_task_and_the_next_appears():
    env = game("games/escape-v0")
    first, second = env.tasks[0], env.tasks[1]
    assert f"find the {first}" in env.text("p0")
    others_away(env, second)
    env.objects[second] = env.objects[first] + np.array([5.0, 0.0])
    beside(env, second, 0.1)
    env.objects[first] = env.pos["p0"] + np.array([5.0, 0.0])
    assert press_f(env) == ["not_now"] and env.done == 0  # the wrong object: no progress
    beside(env, first, 0.1)
    assert press_f(env) == ["task_done"] and env.done == 1 and env.task == second
    assert f"find the {second}" in env.text("p0") and env.scores["p0"] == 0.1


def test_finishing_every_task_ends_with_score_one():
    env = game("games/escape-v0")
    for _ in range(len(env.tasks)):
        task = env.task
        others_away(env, task)
        beside(env, task, 0.0)
        press_f(env)
    assert env.task is None and env.scores["p0"] == 1.0 and not env.agents


def test_walls_block_and_doorways_let_through():
    env = game("games/escape-v0")
    size = env.rules.rooms.size_m
    (a, b) = next((a, b) for a, b in sorted(env.doors) if a[1] == b[1])  # a door in a wall of constant x
    door = door_centre(a, b, size)
    env.pos["p0"] = door - np.array([1.0, 0.0])
    hold(env, ["D"], steps=10)
    assert room_of(env.pos["p0"], size) == b
    walls = [(c, r) for c in range(env.rules.rooms.columns - 1) for r in range(env.rules.rooms.rows)
             if ((c, r), (c + 1, r)) not in env.doors]
    if walls:
        c, r = walls[0]
        env.pos["p0"] = np.array([(c + 1) * size - 1.0, (r + 0.5) * size])
        hold(env, ["D"], steps=10)
        assert room_of(env.pos["p0"], size) == (c, r)


def test_the_text_shows_only_the_current_room():
    env = game("games/escape-v0")
    size = env.rules.rooms.size_m
    here = room_of(env.pos["p0"], size)
    report = env.text("p0")
    for name, pos in env.objects.items():
        assert (name in report.split("In this room:")[1]) == (room_of(pos, size) == here)


def test_var1_is_a_long_block_of_small_rooms():
    env = game("games/escape-var1-v0")
    assert (env.rules.rooms.columns, env.rules.rooms.rows, env.rules.rooms.size_m) == (5, 2, 4.0)
    rooms = {room_of(p, 4.0) for p in env.objects.values()}
    assert all(0 <= c < 5 and 0 <= r < 2 for c, r in rooms)


def test_var2_objects_move_after_each_task():
    moved = game("games/escape-var2-v0")
    before = {k: v.copy() for k, v in moved.objects.items()}
    task = moved.task
    beside(moved, task, 0.0)
    others_away(moved, task)
    before = {k: v.copy() for k, v in moved.objects.items() if k != task}
    assert press_f(moved) == ["task_done", "objects_moved"]
    assert any(not np.array_equal(before[k], moved.objects[k]) for k in before)
    still = game("games/escape-v0")
    task = still.task
    others_away(still, task)
    beside(still, task, 0.0)
    before = {k: v.copy() for k, v in still.objects.items() if k != task}
    assert press_f(still) == ["task_done"]
    assert all(np.array_equal(before[k], still.objects[k]) for k in before)


def test_var3_is_shorter_with_a_smaller_reach():
    env = game("games/escape-var3-v0")
    assert env.time_limit_s == 50.0 and env.rules.player.reach_m == 0.6


def test_layouts_come_from_the_seed():
    a, b = game("games/escape-v0", seed=1), game("games/escape-v0", seed=2)
    assert a.doors != b.doors or a.tasks != b.tasks
    assert a.doors == game("games/escape-v0", seed=1).doors
