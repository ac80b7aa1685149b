"""HUD and minimap: they show when asked, show what they should, and never show other players."""

from __future__ import annotations

import numpy as np
from tests.arena_senses.scenes import make_world

from rtarena.envs.arena.render import ArenaRenderer
from rtarena.envs.arena.render.hud import H_MINIMAP, minimap_layout


def scene(p1=(30.0, 40.0, 0.0), p0=(10.0, 25.0, 0.0)):
    return make_world(players=[p0, p1], walls=[(20.0, 5.0, 21.0, 20.0)], crates=[(30.0, 30.0, 32.0, 31.0)],
                      coins=[(15.0, 40.0)], ammo=[(40.0, 10.0)], turrets=[(35.0, 20.0, 0.0)],
                      zone=(25.0, 25.0, 22.0))


def view(world, minimap: bool, show_hud: bool = False, index: int = 0):
    renderer = ArenaRenderer(world, 128, 128, threads=1)
    world.players.minimap_open[:] = False
    world.players.minimap_open[index] = minimap
    hud = renderer.hud_table(world, [index], show=show_hud)
    rgb, depth = renderer.render(world, [index], hud=hud)
    return rgb[0], depth[0], renderer


def inset(rgb):
    x0, y0, size = minimap_layout(128, 128)
    return rgb[y0:y0 + size, x0:x0 + size]


def test_minimap_appears_only_when_asked():
    world = scene()
    plain, depth_plain, _ = view(world, minimap=False)
    bare = ArenaRenderer(world, 128, 128, threads=1).render(world, [0])[0][0]
    assert np.array_equal(plain, bare)  # the action off: the view is untouched
    with_map, depth_map, _ = view(world, minimap=True)
    differs = np.any(plain != with_map, axis=-1)
    x0, y0, size = minimap_layout(128, 128)
    assert differs[y0:y0 + size, x0:x0 + size].mean() > 0.5  # the inset is there
    outside = differs.copy()
    outside[y0 - 8:y0 + size + 8, x0 - 8:x0 + size + 8] = False
    assert not outside.any()  # and nowhere else
    assert np.array_equal(depth_plain, depth_map)  # depth stays geometry


def test_minimap_never_shows_other_players():
    a = scene(p1=(30.0, 40.0, 0.0))
    b = scene(p1=(42.0, 8.0, 90.0))
    renderer_a = ArenaRenderer(a, 128, 128, threads=1)
    renderer_b = ArenaRenderer(b, 128, 128, threads=1)
    assert np.array_equal(renderer_a.minimap_view(a, 0), renderer_b.minimap_view(b, 0))
    # the control: the spectator's map does show where p1 is
    assert not np.array_equal(renderer_a.spectator(a, 128), renderer_b.spectator(b, 128))
    # and the minimap does show the viewer's own position
    c = scene(p0=(12.0, 30.0, 45.0))
    assert not np.array_equal(renderer_a.minimap_view(a, 0), ArenaRenderer(c, 128, 128).minimap_view(c, 0))


def test_minimap_shows_coins_ammo_turrets_and_zone():
    world = scene()
    renderer = ArenaRenderer(world, 128, 128, threads=1)
    base = renderer.maps.minimap(world, 100)
    k = 100 / 50.0

    def pixel(x, y):
        return base[int((50.0 - y) * k), int(x * k)].astype(int)

    coin, ammo, turret = pixel(15.0, 40.0), pixel(40.0, 10.0), pixel(35.0, 20.0)
    assert coin[0] > 200 and coin[1] > 150 and coin[2] < 100  # yellow
    assert ammo[1] > 150 and ammo[1] > ammo[0] + 50  # green
    assert turret[0] > 150 and turret[1] < 100  # red
    wall = pixel(20.5, 12.0)
    assert wall.min() > 180  # light grey wall
    corner, centre = pixel(1.0, 1.0), pixel(25.0, 25.0)  # outside the zone (radius 22): purple tint
    assert corner[2] > corner[1] + 30 and abs(int(centre[2]) - int(centre[1])) < 20


def test_hud_draws_and_switches_off():
    world = scene()
    off, _, _ = view(world, minimap=False, show_hud=False)
    on, _, renderer = view(world, minimap=False, show_hud=True)
    differs = np.any(off != on, axis=-1)
    assert differs.any()
    assert not differs[64, 64]  # the crosshair leaves the centre pixel alone
    assert differs[64, 64 + 3] and differs[64 - 3, 64]  # its arms
    # bottom-left health bar: green at full health, shorter and red when low
    world.players.health[0] = 20.0
    hud = renderer.hud_table(world, [0], show=True)
    low = renderer.render(world, [0], hud=hud)[0][0]
    bar_row = 128 - 2 - 5 + 2
    full_green = (on[bar_row, 8:30, 1].astype(int) - on[bar_row, 8:30, 0].astype(int) > 60).mean()
    low_red = (low[bar_row, 8:13, 0].astype(int) - low[bar_row, 8:13, 1].astype(int) > 60).mean()
    assert full_green > 0.9 and low_red > 0.9


def test_hit_marker_and_hurt_border():
    world = scene()
    renderer = ArenaRenderer(world, 128, 128, threads=1)
    calm = renderer.render(world, [0], hud=renderer.hud_table(world, [0], flags=[{}]))[0][0]
    hit = renderer.render(world, [0], hud=renderer.hud_table(world, [0], flags=[{"hit": True}]))[0][0]
    hurt = renderer.render(world, [0], hud=renderer.hud_table(world, [0], flags=[{"hurt": True}]))[0][0]
    marker = np.any(calm != hit, axis=-1)
    ys, xs = np.nonzero(marker)
    assert marker.sum() > 8 and abs(ys.mean() - 64) < 2 and abs(xs.mean() - 64) < 2  # around the crosshair
    border = hurt[40:90, 0].astype(int)
    assert (border[:, 0] > border[:, 1] + 80).all()  # a red edge


def test_minimap_hud_column_is_per_agent():
    world = scene()
    renderer = ArenaRenderer(world, 128, 128, threads=1)
    world.players.minimap_open[:] = [True, False]
    hud = renderer.hud_table(world, [0, 1], show=False)
    assert hud[:, H_MINIMAP].tolist() == [1.0, 0.0]
    rgb, _ = renderer.render(world, [0, 1], hud=hud)
    plain, _ = renderer.render(world, [0, 1])
    assert not np.array_equal(rgb[0], plain[0]) and np.array_equal(rgb[1], plain[1])
