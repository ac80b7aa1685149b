"""Map format, validation, procedural generation and per-run customisation of arena levels."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from tests.helpers import run_main

import rtarena
from rtarena.envs.arena.maps import generate_map, read_map_file, validate_map, write_map_file
from rtarena.envs.arena.maps.grid import blocked_grid
from rtarena.errors import UserError
from rtarena.eval.customize import arena_kwargs

BAD = Path(__file__).with_name("bad")
# sample file -> (extra CLI options, text the one problem line must contain)
MALFORMED = {
    "unknown_key.toml": ([], "colors: unknown key"),
    "out_of_bounds.toml": ([], "coins[0]: [45, 5] is outside the 30 m arena"),
    "overlapping_obstacles.toml": ([], "obstacles[1]: [12, 8, 13, 16] overlaps obstacles[0]"),
    "coin_in_wall.toml": ([], "coins[0]: [12, 10.5] overlaps obstacles[0]"),
    "unreachable_coin.toml": ([], "coins[0]: [23, 23] cannot be reached from the spawns"),
    "unreachable_spawn.json": ([], "spawns[1]: [23, 23] cannot be reached from the other spawns"),
    "missing_spawns.toml": (["--players", "4"], "spawns: 2 spawns for the level's 4 players"),
    "bad_kind.toml": ([], "obstacles[0]: kind must be \"wall\" or \"crate\", got 'lava'"),
    "zone_unknown_key.toml": ([], "toxic_zone.radius: unknown key"),
}


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rtarena.cli", *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_each_malformed_map_gives_one_line_naming_file_field_value(name):
    extra, expected = MALFORMED[name]
    problems = validate_map(read_map_file(BAD / name), str(BAD / name), players=int(extra[1]) if extra else None)
    assert len(problems) == 1, [p.line() for p in problems]
    line = problems[0].line()
    assert line.startswith(str(BAD / name) + ": ") and expected in line, line


def test_malformed_maps_through_the_cli_exit_non_zero_with_one_line_each():
    files = [str(BAD / name) for name in sorted(MALFORMED) if not MALFORMED[name][0]]
    code, output = run_main(["map", "validate", *files])  # in this process; the next test's CLI is a real one
    assert code == 1
    lines = output.strip().splitlines()
    assert len(lines) == len(files)
    for path, line in zip(files, lines, strict=True):
        assert line.startswith(path + ": ") and MALFORMED[Path(path).name][1] in line
    code, output = run_main(["map", "validate", str(BAD / "missing_spawns.toml"), "--players", "4"])
    assert code == 1 and "2 spawns for the level's 4 players" in output


def test_a_level_refuses_a_malformed_map_with_its_first_problem():
    with pytest.raises(UserError, match=r"coin_in_wall.toml: coins\[0\]: .* overlaps obstacles\[0\]"):
        rtarena.make("arena/basic-v0", map=str(BAD / "coin_in_wall.toml"))
    done = cli("run", "arena/basic-v0", "--agent", "random", "--map", str(BAD / "unreachable_coin.toml"),
               "--max-steps", "2", "--out", "/tmp/rtarena-test-unused")
    assert done.returncode == 2 and "cannot be reached" in done.stdout and "Traceback" not in done.stderr


def test_jumpable_crates_do_not_wall_a_coin_in_but_tall_ones_do():
    ring = [[18.0, 18.0, 28.0, 19.0], [18.0, 27.0, 28.0, 28.0], [18.0, 19.0, 19.0, 27.0], [27.0, 19.0, 28.0, 27.0]]
    table = {"size_m": 30.0, "spawns": [[5.0, 5.0]], "coins": [[23.0, 23.0]]}
    low = {**table, "obstacles": [[*box, 0.9, "crate"] for box in ring]}
    high = {**table, "obstacles": [[*box, 2.0, "crate"] for box in ring]}
    assert validate_map(low) == []
    assert [p.field for p in validate_map(high)] == ["coins[0]"]


STYLES = ("open", "rooms", "maze")


def _mirror_equal(table, fold):
    """The map's floor plan and every kind of thing equal their mirror images."""
    size = table["size_m"]
    grid = blocked_grid(size, table["obstacles"], 0.5)
    assert np.array_equal(grid, grid[::-1, :])
    if fold == 4:
        assert np.array_equal(grid, grid[:, ::-1])
    for key in ("spawns", "coins", "turrets", "ammo", "chickens"):
        pts = {(round(p[0], 2), round(p[1], 2)) for p in table[key]}
        assert pts == {(round(size - x, 2), y) for x, y in pts}, key
        if fold == 4:
            assert pts == {(x, round(size - y, 2)) for x, y in pts}, key


@pytest.mark.parametrize("style", STYLES)
def test_generator_over_many_seeds_valid_reachable_symmetric_and_repeatable(style):
    from rtarena.envs.arena.maps import MapSettings

    team_levels = {"coop": MapSettings(style=style), "competitive": MapSettings(style=style, teams="each",
                   symmetric=True), "mixed": MapSettings(style=style, teams=2, symmetric=True)}
    for seed in range(4):  # x 3 team settings x 3 styles: 36 maps, each checked whole
        for name, settings in team_levels.items():
            table = generate_map(seed, settings)
            assert validate_map(table, players=4) == []  # valid; every coin, spawn and ammo box reachable
            assert len(table["coins"]) == 24 and len(table["spawns"]) == 4 and len(table["turrets"]) == 6
            if name != "coop":
                _mirror_equal(table, fold=4)
            if name == "mixed":  # west half team 0, east half team 1: a fair split
                assert {row[2] for row in table["spawns"] if row[0] < 50} == {0}
                assert {row[2] for row in table["spawns"] if row[0] > 50} == {1}
        assert generate_map(seed, style=style) == generate_map(seed, style=style)
    assert generate_map(1, style=style) != generate_map(2, style=style)


@pytest.mark.parametrize("level", ["arena/coop-v0", "arena/competitive-v0", "arena/mixed-v0", "arena/basic-v0"])
def test_every_level_runs_on_a_procedural_map(level):
    for seed, style in ((0, "open"), (1, "rooms"), (2, "maze")):
        env = rtarena.make(level, map=f"procedural:{seed}:{style}")
        env.reset(seed=seed)
        expected = generate_map(seed, **_settings(env.rules, style))
        assert np.allclose(env.world.coins.pos[:, :2], expected["coins"])  # the level plays exactly that map
        if level == "arena/mixed-v0":
            west = env.world.players.pos[:, 0] < 50
            assert set(env.world.players.team[west]) == {0} and set(env.world.players.team[~west]) == {1}
        for _ in range(3):
            env.step({a: env.action_space(a).sample() for a in env.agents})


def _settings(rules, style):
    from dataclasses import asdict

    from rtarena.envs.arena.maps import settings_for_level

    return asdict(settings_for_level(rules, None, style))


def test_two_fold_symmetry_for_two_players_and_small_arenas():
    table = generate_map(5, style="rooms", players=2, teams="each", symmetric=True, size_m=60.0, coins=7)
    assert validate_map(table, players=2) == [] and len(table["coins"]) == 7
    _mirror_equal(table, fold=2)


def test_map_file_round_trip_and_a_level_loads_it(tmp_path):
    table = generate_map(3, style="maze", players=1, size_m=50.0, coins=10, turrets=2, ammo=3, chickens=2)
    table["toxic_zone"] = {"center": [20.0, 30.0], "start_radius_m": 30.0, "end_radius_m": 5.0}
    for suffix in (".toml", ".json"):
        path = write_map_file(table, tmp_path / f"m{suffix}")
        again = read_map_file(path)
        assert {k: again[k] for k in ("obstacles", "coins", "spawns", "ammo_areas", "toxic_zone")} == \
            {k: table[k] for k in ("obstacles", "coins", "spawns", "ammo_areas", "toxic_zone")}
        env = rtarena.make("arena/basic-v0", map=str(path))
        env.reset(seed=0)
        world = env.world
        assert len(world.obstacles.boxes) == len(table["obstacles"]) + 4  # plus the boundary walls
        assert np.allclose(world.coins.pos[:, :2], table["coins"])
        assert np.allclose(world.zone.center, [20.0, 30.0]) and env.rules.toxic_zone.start_radius_m == 30.0
        # ammo boxes stand in their areas
        for box, area in zip(world.ammo.pos, world.ammo_areas, strict=True):
            assert area[0] <= box[0] <= area[2] and area[1] <= box[1] <= area[3]


def test_spawn_teams_from_the_map(tmp_path):
    table = {"size_m": 40.0, "spawns": [[5, 5, 1], [35, 35, 0], [5, 35, 1], [35, 5, 0]]}
    env = rtarena.make("arena/mixed-v0", map=table)
    env.reset(seed=0)
    assert env.world.players.team.tolist() == [1, 0, 1, 0]


def test_set_and_disable_are_checked_against_the_level_file():
    kwargs = arena_kwargs("arena/coop-v0", "procedural:3:maze", ["turret.range_m=30"], ["chickens,toxic_zone", "hud"])
    env = rtarena.make("arena/coop-v0", **kwargs)
    env.reset(seed=0)
    assert env.rules.turret.range_m == 30.0
    assert not env.rules.enabled("chickens") and not env.rules.enabled("hud") and len(env.world.chickens.pos) == 0
    with pytest.raises(UserError, match=r"unknown rule 'turret\.rang'"):
        arena_kwargs("arena/coop-v0", sets=["turret.rang=3"])
    with pytest.raises(UserError, match="cannot disable 'chikens'"):
        arena_kwargs("arena/coop-v0", disable=["chikens"])
    with pytest.raises(UserError, match="applies to arena levels"):
        arena_kwargs("classic/cartpole-v0", sets=["turret.range_m=3"])
    with pytest.raises(UserError, match="procedural:SEED"):
        arena_kwargs("arena/coop-v0", map="procedural:x")


def test_cli_generate_render_and_run_with_overrides(tmp_path):
    path = tmp_path / "gen.toml"  # the CLI in this process; the refused run at the end is a real one
    code, output = run_main(["map", "generate", str(path), "--seed", "4", "--style", "rooms", "--level",
                             "arena/competitive-v0"])
    assert code == 0, output
    assert run_main(["map", "validate", str(path), "--level", "arena/competitive-v0"])[0] == 0
    png = tmp_path / "gen.png"
    assert run_main(["map", "render", str(path), "--out", str(png)])[0] == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 1000
    code, output = run_main(["run", "arena/competitive-v0", "--map", str(path), "--agent", "heuristic", "--set",
                             "turret.range_m=30", "--disable", "chickens", "--max-steps", "8", "--out",
                             str(tmp_path / "run")])
    assert code == 0, output
    episode = (tmp_path / "run" / "episodes.jsonl").read_text()
    assert "turret.range_m" in episode and str(path) in episode
    bad = cli("run", "arena/coop-v0", "--agent", "random", "--set", "turret.rang=3", "--max-steps", "2",
              "--out", str(tmp_path / "x"))
    assert bad.returncode == 2 and "unknown rule 'turret.rang'" in bad.stdout


# Hostile layouts within the limits (issue 47): the worst cases of the overlap index, each bounded in time.
HOSTILE_SECONDS = 10.0


def _tiny_in_one_cell() -> dict:
    """10,000 disjoint 5 cm obstacles packed into one 10 m cell of the index (the bucket walk's worst case)."""
    rows = [[500 + 0.1 * (i % 100), 500 + 0.1 * (i // 100), 500.05 + 0.1 * (i % 100), 500.05 + 0.1 * (i // 100), 1.0]
            for i in range(10_000)]
    return {"size_m": 1000.0, "spawns": [[100.0, 100.0]], "coins": [[500.02, 500.02]], "obstacles": rows}


def _wide_strips() -> dict:
    """10,000 disjoint strips across the arena: every one too wide for the buckets (the wide list's worst case)."""
    rows = [[1.0, 0.1 * i + 0.01, 999.0, 0.1 * i + 0.06, 1.0] for i in range(10_000)]
    return {"size_m": 1000.0, "spawns": [[0.5, 0.5]], "obstacles": rows}


@pytest.mark.parametrize("build", [_tiny_in_one_cell, _wide_strips], ids=["tiny-in-one-cell", "wide-strips"])
def test_hostile_layouts_validate_in_bounded_time(build):
    import time

    data = build()
    started = time.process_time()
    problems = validate_map(data, "hostile.json", players=1)
    assert time.process_time() - started < HOSTILE_SECONDS
    # what the geometry says, found exactly: the coin stands on an obstacle; the strips leave no floor
    assert [p.field for p in problems] == (["coins[0]"] if "coins" in data else ["obstacles"]), problems


def test_the_overlap_index_finds_what_a_pairwise_check_finds():
    """The index (its bucket walk and its full numpy pass) against the plain pairwise rule, on boxes that
    overlap often: small ones, a crowded corner and wide ones."""
    from rtarena.envs.arena.maps.grid import BoxIndex

    rng = np.random.default_rng(0)
    small = rng.uniform(0, 95, size=(300, 2))
    boxes = np.hstack([small, small + rng.uniform(0.2, 5, size=(300, 2))])
    crowd = rng.uniform(0, 1.5, size=(300, 2))
    boxes = np.vstack([boxes, np.hstack([crowd, crowd + 0.05]), [[0, 40, 100, 41], [40, 0, 41, 100]]])
    index, kept = BoxIndex(100.0, len(boxes)), []
    for i, box in enumerate(boxes):
        want = next((k for k, j in enumerate(kept) if min(boxes[j][2], box[2]) - max(boxes[j][0], box[0]) > 1e-6
                     and min(boxes[j][3], box[3]) - max(boxes[j][1], box[1]) > 1e-6), None)
        assert index.first_touching(box) == want, i
        if want is None:
            kept.append(i)
            index.add(box)
    assert 10 < len(kept) < len(boxes) - 100


def test_a_thousand_coins_lay_out_and_play_quickly():
    """`coins.count = 1000` (the `level.count` limit): the layout's spacing test through the compiled grid."""
    import time

    started = time.process_time()
    env = rtarena.make("arena/basic-v0", overrides={"coins.count": 1000})
    env.reset(seed=0)
    for _ in range(3):
        env.step({a: env.action_space(a).sample() for a in env.agents})
    assert len(env.world.coins.pos) == 1000
    assert time.process_time() - started < HOSTILE_SECONDS
    env.close()
