"""Each text format's reader stands next to its writer, and undoes it: the arena report, the game suite's
HUD and reports, the browser task's observation text, the arena's level rules (issue 30, item 6). The policy
server reads every format through these readers, so a change to a writer that its reader misses fails here."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.arena.helpers import action, face

import rtarena
from rtarena.envs.arena.minimap import minimap_view
from rtarena.envs.arena.observations.report import read_report as read_arena
from rtarena.envs.arena.rules import read_rules_text
from rtarena.envs.games.reports import (
    COMPASS,
    Bearing,
    CrystalReport,
    DuelReport,
    ErrandsReport,
    ErrandsStatus,
    EscapeReport,
    EscapeStatus,
    Hud,
    MonstersReport,
    Order,
    ParkourReport,
    Person,
    Place,
    Platform,
    RunnerReport,
    Sight,
    TilefallReport,
    WorkshopFloor,
    WorkshopStatus,
    read_hud,
    read_runner,
    read_tilefall,
    read_workshop_hud,
)
from rtarena.envs.gui.text import read_text_block, text_block


def written(value: float, digits: int) -> float:
    """A number as the writer prints it (`:.{digits}f`), read back."""
    return float(f"{value:.{digits}f}")


def test_the_arena_report_reads_back_what_the_world_wrote():
    game_map = {"size_m": 100.0, "obstacles": [], "spawns": [[50, 40], [50, 60]], "coins": [[56, 47], [44, 70]],
                "ammo": [[45, 46]], "turrets": [], "chickens": [],
                "toxic_zone": {"center": [15.0, 15.0], "start_radius_m": 10.0, "end_radius_m": 5.0}}  # p0 outside
    env = rtarena.make("arena/competitive-v0", map=game_map, num_agents=2, disable=())
    env.reset(seed=0)
    face(env, 0, (50, 60))
    obs, *_ = env.step({"p0": action(minimap=1), "p1": action()})
    report = read_arena(obs["p0"]["text"])
    world, p, view = env.world, env.world.players, env.view(0)
    assert report is not None and read_arena("Health 100/100. no report") is None
    assert (report.time_s, report.time_left_s) == (written(world.time_s, 1), written(world.time_left_s, 1))
    assert (report.health, report.ammo) == (written(p.health[0], 0), int(p.ammo[0]))
    assert report.position == (written(p.pos[0, 0], 1), written(p.pos[0, 1], 1))
    assert report.heading_deg == written(math.degrees(p.yaw[0]) % 360, 0)
    expected = [("enemy", d) for d in view.players.dist] + [("coin", d) for d in view.coins.dist] + \
               [("ammo box", d) for d in view.ammo.dist]
    assert len(expected) >= 3, "the setup puts an enemy, a coin and an ammo box in view"
    assert [(s.kind, s.dist_m) for s in report.in_view] == [(k, written(d, 1)) for k, d in expected]
    bearings = np.degrees(np.concatenate([view.players.bearing, view.coins.bearing, view.ammo.bearing]))
    for seen, bearing in zip(report.in_view, bearings, strict=True):
        assert seen.bearing_deg == (0.0 if abs(bearing) < 3 else math.copysign(written(abs(bearing), 0), bearing))
    zone = env.zone_report(0)
    assert not zone["inside"] and report.outside_zone_bearing_deg == written_bearing(zone["bearing"])
    mm = minimap_view(world, 0)
    assert report.minimap_open and report.minimap_you == (written(p.pos[0, 0], 0), written(p.pos[0, 1], 0))
    assert report.minimap_coins == tuple((written(x, 0), written(y, 0)) for x, y in mm.coins)
    assert not report.locked_on  # no turret in this level's map
    closed = read_arena(env.step({"p0": action(), "p1": action()})[0]["p0"]["text"])
    assert not closed.minimap_open and closed.minimap_you is None


def test_the_arena_rules_text_reads_back_every_table_as_this_run_uses_it():
    env = rtarena.make("arena/competitive-v0", overrides={"turret.shell_speed_m_s": 33.5}, disable=("chickens",))
    tables = read_rules_text("### Level rules\n" + env.rules_text())
    plain = {table: {k: list(v) if isinstance(v, tuple) else v for k, v in values.items()}
             for table, values in env.rules.as_dict().items() if table != "layout"}
    assert tables == plain
    assert tables["turret"]["shell_speed_m_s"] == 33.5 and tables["chickens"]["enabled"] is False
    assert tables["players"]["teams"] == "each"  # a word, written without quotes


def written_bearing(bearing_rad: float) -> float:
    deg = math.degrees(bearing_rad)
    return 0.0 if abs(deg) < 3 else math.copysign(written(abs(deg), 0), deg)


def test_the_tilefall_hud_and_report_read_back_the_floor():
    env = rtarena.make("games/tilefall-v0", obs=("text",))
    obs, _ = env.reset(seed=4)
    for _ in range(40):  # until some tiles are warned and some gone; standing (a random walk may fall off)
        obs, *_ = env.step({"p0": env.default_action("p0")})
        if env.gone.any() and np.isfinite(env.warn_left).any():
            break
    text = obs["p0"]["text"]
    hud, report = read_hud(text), read_tilefall(text)
    assert hud.title == "Tilefall" and hud.time_left_s == written(env.time_limit_s - env.t, 1)
    assert hud.score == written(env.scores["p0"], 2) and hud.status in ("standing", "fell")
    assert report.pos == (written(env.pos["p0"][0], 1), written(env.pos["p0"][1], 1))
    assert report.here == tuple(int(v) for v in env.tile_of(env.pos["p0"]))
    grid = report.grid.copy()
    grid[report.here] = "." if not np.isfinite(env.warn_left[report.here]) else "!"
    if env.gone[report.here]:
        grid[report.here] = "_"
    assert np.array_equal(grid == "_", env.gone) and np.array_equal(grid == "!", np.isfinite(env.warn_left)
                                                                    & ~env.gone)
    listed = {(int(c), int(r)): written(env.warn_left[c, r], 1) for c, r in np.argwhere(np.isfinite(env.warn_left))[:8]}
    assert report.warned == listed and listed


def test_the_runner_report_reads_back_the_platforms_ahead():
    env = rtarena.make("games/runner2d-v0", obs=("text",))
    obs, _ = env.reset(seed=1)
    for _ in range(6):
        obs, *_ = env.step({"p0": env.default_action("p0")})
    report, body = read_runner(obs["p0"]["text"]), env.body["p0"]
    assert (report.x_m, report.height_m) == (written(body["x"], 1), written(body["y"], 1))
    assert report.standing == (body["ground"] is not None)
    ahead = env._ahead("p0")
    on = [x1 - body["x"] for x0, x1, _ in ahead if x0 <= body["x"]]
    assert report.edge_ahead_m == (written(on[0], 1) if on else None)
    assert report.next_platforms == tuple((written(x0 - body["x"], 1), written(x1 - x0, 1), written(top - body["y"], 1))
                                          for x0, x1, top in ahead if x0 > body["x"])


def test_the_browser_text_block_reads_back_goal_time_marks_and_page():
    marks = [{"id": 1, "role": "textbox", "text": "Game PIN", "box": [20, 40, 200, 30], "actions": ["click", "type"]},
             {"id": 2, "role": "checkbox", "text": 'Say "yes" \\ maybe', "box": [20, 80, 16, 16], "actions": ["click"],
              "checked": True},
             {"id": 3, "role": "radio", "text": "", "box": [0, 0, 1, 1], "actions": ["click"], "checked": False},
             {"id": 14, "role": "canvas", "text": "Page text: not the heading", "box": [5, 6, 7, 8],
              "actions": ["click", "key"]}]
    page = "QuizLive\nQuestion 1 of 3\n35 - 12 = ?"
    block = read_text_block(text_block("Join game 482113\nas nightowl91", 1.5, 58.5, marks, page))
    assert block.goal == "Join game 482113\nas nightowl91" and (block.elapsed_s, block.left_s) == (1.5, 58.5)
    assert list(block.marks) == marks and block.page_text == page
    assert block.mark_texts()[14] == "Page text: not the heading"
    in_a_prompt = read_text_block("Turn 3. Observation:\n" + text_block("g", 0.5, 2.0, marks[:1], "p"))
    assert (in_a_prompt.goal, in_a_prompt.elapsed_s, in_a_prompt.marks, in_a_prompt.page_text) == ("g", 0.5,
                                                                                                   (marks[0],), "p")
    empty = read_text_block(text_block("g", 0.0, 1.0, [], ""))
    assert empty.marks == () and empty.page_text == "" and read_text_block("In view: nothing.") is None


def test_the_set_of_marks_list_reads_back():
    """The default browser view's marks list (`gui_view.marks_part`, after `goal_text`) reads back inside a
    longer prompt: the last list's goal and marks, the quiz lobby's join found from it."""
    import json

    from rtarena.agents.llm.gui_view import goal_text, marks_part, read_marks_view
    from rtarena.policy_server.gui_text import decide

    marks = [{"id": 1, "role": "textbox", "text": "Game PIN", "box": [20, 40, 200, 30]},
             {"id": 2, "role": "textbox", "text": "Nickname", "box": [20, 80, 200, 30]},
             {"id": 3, "role": "checkbox", "text": 'say "hi"', "box": [20, 120, 16, 16], "checked": False},
             {"id": 4, "role": "button", "text": "Join", "box": [20, 160, 80, 30]}]
    observation = {"goal": "Join game with PIN 482113 and the nickname 'nightowl91'.", "time": [1.0, 59.0],
                   "marks": json.dumps(marks)}
    message = "Turn 1. Observation:\nold\n" + goal_text(observation) + "\n" + marks_part(observation)["text"]
    block = read_marks_view(message)
    assert block is not None and block.goal == observation["goal"]
    assert [{k: v for k, v in m.items() if k != "actions"} for m in block.marks] == marks
    assert decide(message) == 'type(1, "482113"); type(2, "nightowl91"); click(4)'


# ---- the game reports the stand-ins read: each `parse` undoes its `format`, which the game writes with ----------

ROUND_TRIP = settings(max_examples=40, deadline=None, derandomize=True, database=None)
tenths = st.integers(0, 9999).map(lambda i: i / 10)  # what a `:.1f` writes, read back exactly
signed_tenths = st.integers(-999, 9999).map(lambda i: i / 10)
word = st.from_regex(r"[a-z]{1,8}", fullmatch=True)
words = st.from_regex(r"[a-z]{1,6}( [a-z]{1,6})?", fullmatch=True)
prompt = st.one_of(st.just(""), st.from_regex(r"Press F to [a-z]{1,8} the [a-z]{1,8}", fullmatch=True))
place = st.one_of(st.just(Place(0.0, "")), st.builds(Place, tenths.filter(bool), st.sampled_from(list(COMPASS))))
bearing = st.builds(Bearing, tenths, st.integers(-180, 180).map(float))
degrees = st.integers(-180, 359).map(float)
sight = st.builds(Sight, bearing, st.booleans())


@st.composite
def tilefall_reports(draw) -> TilefallReport:
    n = draw(st.integers(2, 6))
    grid = np.array(draw(st.lists(st.lists(st.sampled_from(list(".!_")), min_size=n, max_size=n), min_size=n,
                                  max_size=n)))
    tile = draw(st.one_of(st.none(), st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))))
    if tile is not None:
        grid[tile] = "P"
    warned = draw(st.dictionaries(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), tenths, max_size=8))
    return TilefallReport((draw(signed_tenths), draw(signed_tenths)), warned, grid, tile)


part = st.from_regex(r"[a-z]{1,6}\+?", fullmatch=True).filter(lambda w: w not in ("empty", "none", "nothing"))
name = words.filter(lambda w: "here" not in w and w != "nothing")
named = st.tuples(name, place)
window = st.tuples(name, place, st.one_of(st.none(), part))
FORMATS = {
    Hud: st.builds(Hud, st.from_regex(r"[A-Z][a-z]{1,8}", fullmatch=True), tenths,
                   st.integers(0, 100).map(lambda i: i / 100), st.from_regex(r"[a-z0-9 |()/:]{0,30}", fullmatch=True)),
    TilefallReport: tilefall_reports(),
    RunnerReport: st.one_of(
        st.builds(RunnerReport, signed_tenths, signed_tenths, st.just(True), st.one_of(st.none(), signed_tenths),
                  st.lists(st.tuples(signed_tenths, tenths, signed_tenths), max_size=3).map(tuple), st.just(0.0)),
        st.builds(RunnerReport, signed_tenths, signed_tenths, st.just(False), st.one_of(st.none(), signed_tenths),
                  st.lists(st.tuples(signed_tenths, tenths, signed_tenths), max_size=3).map(tuple), signed_tenths)),
    ErrandsReport: st.builds(ErrandsReport, signed_tenths, signed_tenths, st.integers(1, 99).map(float),
                             st.lists(st.builds(Person, word, word, place), max_size=4).map(tuple)),
    ErrandsStatus: st.one_of(
        st.builds(ErrandsStatus, st.integers(1, 20), st.integers(1, 20), word, word,
                  st.lists(word, max_size=3).map(tuple), st.integers(1, 9), prompt),
        st.builds(ErrandsStatus, st.just(0), st.just(0), st.just(""), st.just(""),
                  st.lists(word, max_size=3).map(tuple), st.integers(1, 9), prompt)),
    EscapeReport: st.builds(EscapeReport, st.tuples(st.integers(0, 9), st.integers(0, 9)), tenths, tenths,
                            st.lists(st.sampled_from(["north", "south", "east", "west"]), unique=True).map(tuple),
                            st.lists(st.tuples(words, place), max_size=4).map(tuple)),
    EscapeStatus: st.one_of(st.builds(EscapeStatus, st.integers(1, 20), st.integers(1, 20), words, prompt),
                            st.builds(EscapeStatus, st.just(0), st.just(0), st.just(""), prompt)),
    MonstersReport: st.one_of(
        st.builds(MonstersReport, signed_tenths, signed_tenths, degrees, st.lists(bearing, max_size=4).map(tuple),
                  st.integers(1, 12), bearing),
        st.builds(MonstersReport, signed_tenths, signed_tenths, degrees, st.lists(bearing, max_size=4).map(tuple),
                  st.just(0), st.none())),
    ParkourReport: st.builds(ParkourReport, signed_tenths, degrees, st.lists(st.builds(
        Platform, st.one_of(st.just("the goal"), st.integers(0, 30).map(lambda i: f"platform {i}")), bearing,
        signed_tenths, tenths, tenths, st.booleans()), max_size=3).map(tuple)),
    CrystalReport: st.builds(CrystalReport, sight, sight,
                             st.lists(st.tuples(st.sampled_from(["p1", "p3"]), sight), max_size=2).map(tuple),
                             st.integers(0, 8)),
    WorkshopStatus: st.builds(WorkshopStatus, st.integers(0, 30),
                              st.lists(st.builds(Order, part, st.integers(-5, 60).map(float)), max_size=4).map(tuple),
                              st.one_of(st.none(), part), prompt, st.one_of(st.none(), st.integers(0, 30))),
    WorkshopFloor: st.one_of(
        st.builds(WorkshopFloor, st.lists(named, max_size=4).map(tuple), st.just(None), st.just(0.0),
                  st.lists(named, max_size=3).map(tuple), st.just(""), st.just(()),
                  st.sampled_from(["", "west", "east"])),
        st.builds(WorkshopFloor, st.lists(named, max_size=4).map(tuple), part, tenths,
                  st.lists(named, max_size=3).map(tuple), st.sampled_from(["runner", "maker"]),
                  st.lists(window, max_size=2).map(tuple), st.just(""))),
    DuelReport: st.builds(DuelReport, place, st.sampled_from(["north", "south", "east", "west"]), tenths,
                          st.lists(place, max_size=3).map(tuple)),
}


@pytest.mark.parametrize("report", list(FORMATS), ids=lambda r: r.__name__)
def test_each_game_report_reads_back_what_it_writes(report):
    @ROUND_TRIP
    @given(FORMATS[report])
    def round_trip(value):
        written = value.format()
        assert same(report.parse(written), value)
        if report not in (Hud, ErrandsStatus, EscapeStatus, WorkshopStatus):  # found inside the whole observation
            assert same(report.parse(f"[Game] time left 3.0 s | score 0.00 | x\n{written}"), value)

    round_trip()


def same(read, value) -> bool:
    """Field by field (a Tilefall map is an array)."""
    return read is not None and all(np.array_equal(getattr(read, f.name), getattr(value, f.name))
                                    if isinstance(getattr(value, f.name), np.ndarray)
                                    else getattr(read, f.name) == getattr(value, f.name)
                                    for f in dataclasses.fields(value))


def test_a_report_that_is_not_one_reads_as_none():
    """The negative control: a changed word in a written report is no longer read."""
    errands = ErrandsReport(1.0, 2.0, 6.0, (Person("baker", "bread", Place(2.5, "north")),)).format()
    assert ErrandsReport.parse(errands) is not None and ErrandsReport.parse(errands.replace("Within", "Inside")) is None
    duel = DuelReport(Place(1.0, "east"), "west", 0.5, ()).format()
    assert DuelReport.parse(duel.replace("Nearest edge", "Edge")) is None
    assert all(report.parse("In view: nothing.") is None for report in FORMATS)


WRITERS = {"games/errands-v0": (ErrandsReport, ErrandsStatus), "games/escape-v0": (EscapeReport, EscapeStatus),
           "games/monsters-v0": (MonstersReport, None), "games/parkour3d-v0": (ParkourReport, None),
           "games/crystal-v0": (CrystalReport, None), "games/duel-v0": (DuelReport, None),
           "games/tilefall-v0": (TilefallReport, None), "games/runner2d-v0": (RunnerReport, None),
           **{f"games/{game}-v0": (WorkshopFloor, WorkshopStatus) for game in ("workshop", "kitchen", "handoff",
                                                                                  "midline")}}


@pytest.mark.parametrize("env_id", list(WRITERS))
def test_the_games_write_their_reports_in_the_readers_format(env_id):
    """What each game writes reads back whole: the report is the last lines of the text, the status the HUD's."""
    env = rtarena.make(env_id, obs=("text",))
    report, status = WRITERS[env_id]
    obs, _ = env.reset(seed=2)
    for agent in env.possible_agents:
        env.action_space(agent).seed(2)
    for _ in range(12):
        for agent in env.agents:
            text = obs[agent]["text"]
            read = report.parse(text)
            assert read is not None and text.endswith(read.format()), text
            if status is not None:
                read_status = status.parse(read_hud(text).status)
                assert read_status.format() == read_hud(text).status
            if status is WorkshopStatus:  # the pixel player's read of the HUD words
                assert read_workshop_hud(read_hud(text).status) == (tuple(o.item for o in read_status.orders),
                                                                    read_status.held, read_status.prompt)
        obs, *_ = env.step({a: env.action_space(a).sample() for a in env.agents})
    env.close()
