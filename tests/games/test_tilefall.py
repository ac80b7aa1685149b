"""Tilefall's rules, variants and level file."""

from __future__ import annotations

import numpy as np
import pytest

from rtarena.envs.games.tilefall import connected
from rtarena.errors import UserError

from .helpers import game, hold, types


def player_tile(env):
    return env.tile_of(env.pos["p0"])


def test_a_warned_tile_drops_after_its_warning_time_and_the_player_on_it_falls():
    env = game("games/tilefall-v0")
    env.next_warning_s = 1e9  # no other warnings
    tile = player_tile(env)
    env.warn_left[tile] = env.rules.drops.warning_s
    steps = round(env.rules.drops.warning_s / env.dt)
    (_, fell, _, _), events = hold(env, steps=steps - 1)
    assert not fell and not env.gone[tile]
    (_, fell, _, info), events = hold(env, steps=1)
    assert env.gone[tile] and fell and "fall" in types(events)
    assert info["score"] == pytest.approx(steps * env.dt / env.time_limit_s)
    assert not env.agents


def test_stepping_off_a_warned_tile_in_time_survives():
    env = game("games/tilefall-v0")
    env.next_warning_s = 1e9
    tile = player_tile(env)
    env.warn_left[tile] = env.rules.drops.warning_s
    hold(env, ["D"], steps=4)  # 1.2 m east in 0.4 s
    hold(env, steps=10)
    assert env.gone[tile] and env.agents == ["p0"] and player_tile(env) != tile


def test_walking_off_the_floor_falls():
    env = game("games/tilefall-v0")
    (_, fell, _, _), events = hold(env, ["A"], steps=40)
    assert fell and events[-1] == {"type": "fall", "tile": None}


def test_score_is_time_survived_over_the_limit_and_the_limit_truncates():
    env = game("games/tilefall-v0", overrides={"game": {"time_limit_s": 2.0}, "drops": {"interval_start_s": 50,
                                                                                    "interval_end_s": 50}})
    (_, fell, truncated, info), _ = hold(env, steps=20)
    assert not fell and truncated and info["score"] == pytest.approx(1.0)


def test_warnings_speed_up_toward_the_time_limit():
    env = game("games/tilefall-v0")
    drops = env.rules.drops
    _, events = hold(env, steps=round(drops.interval_start_s / env.dt) - 1)
    assert "warn" not in types(events)
    _, events = hold(env, steps=1)
    assert types(events) == ["warn"]  # the first warning comes after interval_start_s
    env.t = env.time_limit_s
    assert env._interval() == pytest.approx(drops.interval_end_s)
    env.t = env.time_limit_s / 2
    assert env._interval() == pytest.approx((drops.interval_start_s + drops.interval_end_s) / 2)


def warnings_of(env_id: str, seed: int = 0):
    env = game(env_id, seed)
    env.pos["p0"] = env.pos["p0"].copy()
    batches = []
    for _ in range(60):
        before = np.isfinite(env.warn_left).copy()
        hold(env, steps=1)
        if not env.agents:
            break
        new = np.argwhere(np.isfinite(env.warn_left) & ~before)
        if len(new):
            batches.append((player_tile(env), [tuple(t) for t in new]))
    return env, batches


def test_base_drops_one_tile_at_a_time():
    _, batches = warnings_of("games/tilefall-v0")
    assert batches and all(len(tiles) == 1 for _, tiles in batches)


def test_var1_is_a_ten_tile_floor_with_seeded_connected_holes():
    a, b = game("games/tilefall-var1-v0", seed=1), game("games/tilefall-var1-v0", seed=2)
    assert a.gone.shape == (10, 10) and a.gone.sum() == 22 and connected(~a.gone)
    assert not np.array_equal(a.gone, b.gone)
    assert game("games/tilefall-v0").gone.sum() == 0


def test_var2_drops_connected_clusters_of_four():
    _, batches = warnings_of("games/tilefall-var2-v0")
    assert batches
    for _, tiles in batches:
        mask = np.zeros((8, 8), dtype=bool)
        for t in tiles:
            mask[t] = True
        assert len(tiles) == 4 and connected(mask)


def test_var3_drops_track_the_player():
    env, batches = warnings_of("games/tilefall-var3-v0")
    assert env.rules.drops.warning_s == pytest.approx(0.8)
    assert batches and all(tiles == [here] for here, tiles in batches[:3])


def test_layouts_come_from_the_seed():
    starts = {tuple(game("games/tilefall-v0", seed=s).pos["p0"]) for s in range(8)}
    assert len(starts) > 1
    assert tuple(game("games/tilefall-v0", seed=3).pos["p0"]) == tuple(game("games/tilefall-v0", seed=3).pos["p0"])


def test_level_mistakes_are_one_line_errors():
    with pytest.raises(UserError, match=r"tilefall.toml: drops.warning_s: .*-1"):
        game("games/tilefall-v0", overrides={"drops": {"warning_s": -1}})
    with pytest.raises(UserError, match=r"drops.speed"):
        game("games/tilefall-v0", overrides={"drops": {"speed": 2}})
    with pytest.raises(UserError, match=r"unknown variant 'var9'"):
        game("games/tilefall-v0", variant="var9")


def test_text_and_state_show_the_map():
    env = game("games/tilefall-v0")
    env.next_warning_s = 1e9
    c, r = player_tile(env)
    env.warn_left[(c + 1) % 8, r] = 1.0
    hold(env, steps=1)
    observation = env._observe("p0")
    assert "[Tilefall] time left" in observation["text"] and "!" in observation["text"]
    assert observation["state"].shape == (3 + 64,) and 0 < observation["state"][3 + ((c + 1) % 8) * 8 + r] < 1


def test_with_two_players_a_fall_ends_only_that_players_run():
    env = game("games/tilefall-v0", num_agents=2)
    env.next_warning_s = 1e9
    space = env.action_space("p0")
    for _ in range(30):
        _, _, terms, _, infos = env.step({"p0": space.action(["A"]), "p1": space.action([])})
        if terms["p0"]:
            break
    assert env.agents == ["p1"] and "fall" in types(infos["p0"]["events"])
    hold_p1 = env.step({"p1": space.action([])})
    assert hold_p1[2] == {"p1": False}
