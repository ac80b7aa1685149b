"""First-person pixels and depth: geometry checks that fail if projection, occlusion or depth break."""

from __future__ import annotations

import math

import numpy as np
import pytest
from tests.arena_senses.scenes import make_world

from rtarena.envs.arena.render import ArenaRenderer, parse_resolution
from rtarena.errors import UserError

EYE = 1.6


def render(world, width=128, height=128, hud=None, threads=1, index=0):
    renderer = ArenaRenderer(world, width, height, threads=threads)
    rgb, depth = renderer.render(world, [index], hud=hud)
    return rgb[0], depth[0], renderer


def focal(width: int) -> float:
    return 0.5 * width / math.tan(math.radians(45))


def changed(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.any(a != b, axis=-1)


@pytest.mark.parametrize("size", [84, 128, (320, 240), (640, 480)])
def test_object_in_front_is_at_screen_centre_and_depth_is_its_distance(size):
    w, h = (size, size) if isinstance(size, int) else size
    empty = make_world(players=[(10.0, 25.0, 0.0)])
    world = make_world(players=[(10.0, 25.0, 0.0)], coins=[(14.0, 25.0)])
    world.coins.pos[0, 2] = EYE  # a coin floating at eye height, 4 m straight ahead
    rgb0, _, _ = render(empty, w, h)
    rgb1, depth, _ = render(world, w, h)
    mask = changed(rgb0, rgb1)
    assert mask.sum() > 4
    ys, xs = np.nonzero(mask)
    assert abs(xs.mean() + 0.5 - w / 2) <= 0.75
    assert abs(ys.mean() + 0.5 - h / 2) <= 0.75
    assert depth[h // 2, w // 2] == pytest.approx(4.0, abs=0.02)
    assert depth.dtype == np.float32 and depth.shape == (h, w)


def test_depth_of_a_wall_is_its_distance_in_every_pixel_of_the_wall():
    world = make_world(players=[(10.0, 25.0, 0.0)], walls=[(17.0, 15.0, 18.0, 35.0)])
    _rgb, depth, _ = render(world)
    column = depth[:, 64]
    wall_rows = np.abs(column - 7.0) < 0.01
    # a 3 m wall at 7 m spans from y(3 m) to y(0 m) around the horizon
    f = focal(128)
    top, bottom = 64 + f * (EYE - 3.0) / 7.0, 64 + f * EYE / 7.0
    expected = np.arange(128)[(np.arange(128) + 0.5 >= top) & (np.arange(128) + 0.5 < bottom)]
    assert np.array_equal(np.flatnonzero(wall_rows), expected)
    # off-centre columns see the same plane: planar depth stays 7 m across the wall
    assert np.allclose(depth[64, 20:108], 7.0, atol=0.01)


def test_turning_left_moves_an_object_right_by_the_projected_angle():
    for turn_deg in (0.0, 10.0, 25.0):
        world = make_world(players=[(10.0, 25.0, turn_deg)], coins=[(20.0, 25.0)])
        world.coins.pos[0, 2] = EYE
        empty = make_world(players=[(10.0, 25.0, turn_deg)])
        mask = changed(render(empty)[0], render(world)[0])
        xs = np.nonzero(mask)[1]
        expected = 64 + focal(128) * math.tan(math.radians(turn_deg))
        assert abs(xs.mean() + 0.5 - expected) <= 1.0, turn_deg
        if turn_deg > 0:
            assert xs.mean() > 64


def test_pitching_up_moves_the_horizon_down():
    def sky_rows(pitch_deg: float) -> int:
        world = make_world(players=[(25.0, 25.0, 0.0, pitch_deg)])
        _, depth, renderer = render(world)
        return int((depth[:, 64] >= renderer.far_m).sum())

    level, up, down = sky_rows(0.0), sky_rows(10.0), sky_rows(-10.0)
    shift = focal(128) * math.tan(math.radians(10.0))
    assert up - level == pytest.approx(shift, abs=1.5)
    assert level - down == pytest.approx(shift, abs=1.5)


def test_a_low_crate_hides_the_floor_behind_it_but_not_the_wall_above_it():
    # camera at x=10 looking +x; crate 4..5 m ahead (0.9 m tall); a 3 m wall 10 m ahead
    crate = (14.0, 23.0, 15.0, 27.0)
    wall = (20.0, 15.0, 21.0, 35.0)
    with_crate = make_world(players=[(10.0, 25.0, 0.0)], crates=[crate], walls=[wall])
    without = make_world(players=[(10.0, 25.0, 0.0)], walls=[wall])
    _, d_with, _ = render(with_crate)
    _, d_without, _ = render(without)
    col_with, col_without = d_with[:, 64], d_without[:, 64]
    floor_between = (col_without > 5.1) & (col_without < 9.9)
    assert floor_between.sum() >= 3  # the control: the floor between crate and wall shows without the crate
    assert not ((col_with > 5.1) & (col_with < 9.9)).any()  # with it, hidden
    crate_rows = np.flatnonzero((col_with >= 3.99) & (col_with <= 5.01))
    wall_rows = np.flatnonzero(np.abs(col_with - 10.0) < 0.01)
    assert len(crate_rows) >= 3 and len(wall_rows) >= 3
    assert wall_rows.max() < crate_rows.min()  # the wall shows above the crate's top
    f = focal(128)
    assert wall_rows.min() == pytest.approx(64 + f * (EYE - 3.0) / 10.0, abs=1.0)


def test_a_player_behind_a_crate_shows_above_it():
    crate = (14.0, 23.0, 15.0, 27.0)
    world = make_world(players=[(10.0, 25.0, 0.0), (17.0, 25.0, 180.0)], crates=[crate])
    alone = make_world(players=[(10.0, 25.0, 0.0)], crates=[crate])
    rgb1, d1, _ = render(world)
    rgb0, _, _ = render(alone)
    ys, xs = np.nonzero(changed(rgb0, rgb1))
    assert len(ys) > 10
    f = focal(128)
    crate_top_row = 64 + f * (EYE - 0.9) / 4.0
    assert ys.max() < crate_top_row + 0.5  # nothing of the player below the crate's top edge
    assert np.allclose(d1[ys, xs], 7.0, atol=0.01)


def test_own_body_is_not_drawn_but_others_are():
    world = make_world(players=[(10.0, 25.0, 0.0), (13.0, 25.0, 180.0)])
    renderer = ArenaRenderer(world, 128, 128, threads=1)
    _rgb, depth = renderer.render(world, [0, 1])
    assert depth[0, 64, 64] == pytest.approx(3.0, abs=0.01)  # p0 sees p1 three metres ahead
    assert depth[1, 64, 64] == pytest.approx(3.0, abs=0.01)  # and p1 sees p0, not itself


def test_batch_in_threads_equals_one_by_one():
    world = make_world(players=[(5.0 + 4 * i, 10.0 + 3 * i, 37.0 * i, (-1) ** i * 8.0) for i in range(9)],
                       crates=[(20.0, 20.0, 22.0, 21.0)], walls=[(30.0, 5.0, 31.0, 40.0)],
                       coins=[(25.0, 25.0)], chickens=[(15.0, 30.0)], turrets=[(35.0, 35.0, 90.0)],
                       zone=(25.0, 25.0, 20.0))
    one = ArenaRenderer(world, 96, 72, threads=1)
    many = ArenaRenderer(world, 96, 72, threads=3)
    rgb_a, depth_a = one.render(world)
    rgb_b, depth_b = many.render(world)
    for k in range(9):
        rgb_k, depth_k = one.render(world, [k])
        assert np.array_equal(rgb_k[0], rgb_a[k]) and np.array_equal(depth_k[0], depth_a[k])
    assert np.array_equal(rgb_a, rgb_b) and np.array_equal(depth_a, depth_b)
    # without depth (a scratch buffer reused camera after camera) the pictures are the same
    for renderer in (one, many):
        rgb_c, depth_c = renderer.render(world, depth=False)
        assert depth_c is None and np.array_equal(rgb_c, rgb_a)
    many.close()


def test_toxic_zone_boundary_is_purple_and_does_not_change_depth():
    world = make_world(players=[(25.0, 25.0, 0.0)], zone=(25.0, 25.0, 10.0))
    clear = make_world(players=[(25.0, 25.0, 0.0)])
    rgb1, d1, _ = render(world)
    rgb0, d0, _ = render(clear)
    assert np.array_equal(d0, d1)
    band = rgb1[60:66, 40:88].reshape(-1, 3).astype(int)
    before = rgb0[60:66, 40:88].reshape(-1, 3).astype(int)
    # purple: more red and blue than green, and more so than without the zone
    assert ((band[:, 0] - band[:, 1]) - (before[:, 0] - before[:, 1])).mean() > 20
    assert (band[:, 2] > band[:, 1]).mean() > 0.9


def test_turret_health_ring_colour_follows_health():
    colours = {}
    for health in (100.0, 50.0, 10.0):
        world = make_world(players=[(10.0, 25.0, 0.0)], turrets=[(14.0, 25.0, 90.0)])
        world.turrets.health[0] = health
        rgb, _depth, _ = render(world, 320, 240)
        # the ring is at 1.43..1.56 m: just above eye level at 4 m
        f = focal(320)
        row = int(120 + f * (EYE - 1.5) / 4.0)
        colours[health] = rgb[row, 158:162].astype(int).mean(axis=0)
    g, y, r = colours[100.0], colours[50.0], colours[10.0]
    assert g[1] > g[0] + 80 and g[1] > g[2] + 80  # green
    assert y[0] > y[2] + 80 and y[1] > y[2] + 80  # yellow
    assert r[0] > r[1] + 80 and r[0] > r[2] + 80  # red


def test_turret_barrel_points_where_it_aims():
    def barrel_side(barrel_deg: float) -> float:
        world = make_world(players=[(10.0, 25.0, 0.0)], turrets=[(16.0, 25.0, barrel_deg)])
        rgb, _, _ = render(world, 320, 240)
        f = focal(320)
        row = int(120 + f * (EYE - 1.15) / 6.0)
        dark = rgb[row].astype(int).sum(axis=1) < 250  # the barrel (grey-black, a little fogged)
        cols = np.flatnonzero(dark) + 0.5 - 160
        return float(cols.mean()) if len(cols) else 0.0

    # barrel pointing north (+y, the viewer's left) shows on the left; south on the right
    assert barrel_side(90.0) < -5
    assert barrel_side(-90.0) > 5


@pytest.mark.parametrize("bad", [83, 641, (1000, 100), (320, 20), "big", (128,), True])
def test_resolution_is_checked(bad):
    with pytest.raises(UserError, match="resolution"):
        parse_resolution(bad)


def test_resolutions_accepted():
    assert parse_resolution(128) == (128, 128)
    assert parse_resolution((320, 240)) == (320, 240)
    assert parse_resolution([84, 84]) == (84, 84)


def test_rendering_releases_the_gil():
    import threading

    world = make_world(players=[(5.0 + i, 10.0 + i, 10.0 * i) for i in range(32)],
                       walls=[(30.0, 5.0, 31.0, 40.0)], crates=[(20.0, 20.0, 22.0, 21.0)])
    renderer = ArenaRenderer(world, 320, 240, threads=1)
    cams = renderer.camera_table(world, range(32))
    sprites = renderer.sprite_table(world)
    renderer.render_cameras(world, cams, sprites)  # compiled already; time one batch
    done = threading.Event()
    inside = threading.Event()

    def work():
        inside.set()
        renderer.render_cameras(world, cams, sprites)
        done.set()

    thread = threading.Thread(target=work)
    thread.start()
    inside.wait()
    count = 0
    while not done.is_set():  # this thread keeps running Python while the other one renders
        count += 1
    thread.join()
    assert count > 100  # holding the GIL would leave this loop a turn or two; the speed: bench/arena_render.py


@pytest.mark.parametrize("yaw", [0.0, 90.0, 180.0, 270.0, 45.0])
def test_cameras_on_cell_edges_next_to_walls_render(yaw):
    # eyes exactly on grid lines (and on box faces) are the degenerate cases of a grid walk
    world = make_world(players=[(20.0, 25.0, yaw), (21.0, 24.0, yaw), (19.0, 26.0, yaw)],
                       walls=[(21.0, 20.0, 22.0, 30.0)], crates=[(18.0, 26.0, 19.0, 27.0)])
    renderer = ArenaRenderer(world, 96, 96, threads=1)
    _rgb, depth = renderer.render(world)
    assert np.isfinite(depth).all() and (depth > 0).all()


def test_jumping_raises_the_eye_and_reveals_the_floor_behind_a_crate():
    crate = (13.5, 23.0, 14.5, 27.0)  # 3.5..4.5 m ahead, 0.9 m tall: from 1.6 m it hides the floor to 10 m
    wall = (20.0, 15.0, 21.0, 35.0)
    world = make_world(players=[(10.0, 25.0, 0.0)], crates=[crate], walls=[wall])

    def floor_behind(jump_m: float) -> int:
        world.players.pos[0, 2] = jump_m
        _, depth, _ = render(world)
        column = depth[:, 64]
        return int(((column > 4.6) & (column < 9.9)).sum())  # floor between the crate and the wall

    assert floor_behind(0.0) == 0
    assert floor_behind(1.0) >= 3
