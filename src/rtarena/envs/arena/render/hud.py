"""The head-up display and the minimap inset, drawn over each agent's RGB view (never over depth).

Layout (sizes scale with the view's width): score top left (coin icon), time left top centre (m:ss),
minimap inset top right while the agent holds its minimap action, health bottom left (cross, bar,
number), ammunition bottom right (number / maximum, red when empty), a crosshair that leaves the centre
pixel untouched, hit markers (a white X when the agent's shot hit this step), a red border when the
agent was hurt, and a muzzle flash at the gun when it fired.

The HUD is a table row per agent (`HUD_FIELDS` columns), so a whole batch is drawn in compiled code.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from rtarena.envs.arena.render.draw import COLON, SLASH, blend, disc, glyph, line, number, rect, triangle

(H_SHOW, H_HEALTH_FRAC, H_HEALTH, H_AMMO, H_AMMO_MAX, H_SCORE, H_TIME_LEFT, H_HIT, H_HURT, H_FIRED,
 H_MINIMAP, H_X, H_Y, H_YAW, H_ALIVE) = range(15)
HUD_FIELDS = 16


def hud_scale(width: int) -> int:
    """Pixels per font pixel: 1 up to 223 px wide, 2 at 224..367 (320 x 240), 4 at 640."""
    return max(1, (width + 32) // 144)


def minimap_layout(width: int, height: int) -> tuple[int, int, int]:
    """(x0, y0, size) of the minimap inset in a view of this size."""
    s = hud_scale(width)
    size = int(0.45 * min(width, height))
    return width - size - 2 * s, 8 * s, size


@njit(cache=True, nogil=True)
def _crosshair(img, cx, cy, s, hit):
    for k in range(2 * s, 5 * s + 1):
        for w in range(-(s // 2), s - s // 2):
            blend(img, cy + w, cx + k, 255.0, 255.0, 255.0, 0.9)
            blend(img, cy + w, cx - k, 255.0, 255.0, 255.0, 0.9)
            blend(img, cy + k, cx + w, 255.0, 255.0, 255.0, 0.9)
            blend(img, cy - k, cx + w, 255.0, 255.0, 255.0, 0.9)
    if hit:
        for k in range(3 * s, 7 * s + 1):
            for w in range(s):
                for sx in (-1, 1):
                    for sy in (-1, 1):
                        blend(img, cy + sy * (k + w), cx + sx * k, 255.0, 60.0, 40.0, 1.0)


@njit(cache=True, nogil=True)
def draw_hud(img, row, font):
    """Draw one agent's HUD (a `HUD_FIELDS` row) over its RGB view in place."""
    H = img.shape[0]
    W = img.shape[1]
    s = max(1, (W + 32) // 144)
    pad = 2 * s
    cx = W // 2
    cy = H // 2
    if row[H_ALIVE] < 0.5:
        _panel(img, 0, 0, W, H, 120.0, 0.0, 0.0, 0.45)
    if row[H_HURT] > 0.5:
        t = 2 * s
        _panel(img, 0, 0, W, t, 230.0, 30.0, 20.0, 0.7)
        _panel(img, 0, H - t, W, H, 230.0, 30.0, 20.0, 0.7)
        _panel(img, 0, t, t, H - t, 230.0, 30.0, 20.0, 0.7)
        _panel(img, W - t, t, W, H - t, 230.0, 30.0, 20.0, 0.7)
    # the gun, and its muzzle flash when it fired this step
    gx = cx + W // 8
    gun_top = H - H // 6
    for y in range(gun_top, H):
        half = s + (y - gun_top) * 0.25
        rect(img, int(gx - half), y, int(gx + half) + 1, y + 1, 45.0, 45.0, 52.0, 1.0)
    if row[H_FIRED] > 0.5:
        disc(img, gx + 0.5, gun_top - 2.0 * s, 3.0 * s, 255.0, 205.0, 70.0, 1.0)
        disc(img, gx + 0.5, gun_top - 2.0 * s, 1.5 * s, 255.0, 255.0, 230.0, 1.0)
    _crosshair(img, cx, cy, s, row[H_HIT] > 0.5)
    # score, top left
    _panel(img, 0, 0, pad + 8 * s + 4 * s * 4, pad + 7 * s, 0.0, 0.0, 0.0, 0.35)
    disc(img, pad + 2.5 * s, pad + 2.5 * s, 2.5 * s, 250.0, 200.0, 40.0, 1.0)
    number(img, font, math.floor(row[H_SCORE] + 1e-9), pad + 7 * s, pad, s, 255.0, 245.0, 200.0, False)
    # time left, top centre
    left = max(0, math.ceil(row[H_TIME_LEFT] - 1e-9))
    minutes = left // 60
    seconds = left % 60
    tw = 4 * s * 4 - s
    tx = cx - tw // 2
    _panel(img, tx - s, 0, tx + tw + s, pad + 7 * s, 0.0, 0.0, 0.0, 0.35)
    number(img, font, minutes, tx, pad, s, 255.0, 255.0, 255.0, False)
    glyph(img, font, COLON, tx + 4 * s, pad, s, 255.0, 255.0, 255.0)
    glyph(img, font, seconds // 10, tx + 8 * s, pad, s, 255.0, 255.0, 255.0)
    glyph(img, font, seconds % 10, tx + 12 * s, pad, s, 255.0, 255.0, 255.0)
    # health, bottom left: a cross, a bar, the number
    by = H - pad - 5 * s
    _panel(img, 0, by - s, pad + 6 * s + W // 5 + 14 * s, H, 0.0, 0.0, 0.0, 0.35)
    rect(img, pad + 2 * s, by, pad + 3 * s, by + 5 * s, 230.0, 40.0, 40.0, 1.0)
    rect(img, pad, by + 2 * s, pad + 5 * s, by + 3 * s, 230.0, 40.0, 40.0, 1.0)
    bar_x = pad + 6 * s
    bar_w = W // 5
    frac = min(1.0, max(0.0, row[H_HEALTH_FRAC]))
    if frac > 0.6:
        hr, hg, hb = 60.0, 210.0, 80.0
    elif frac > 0.3:
        hr, hg, hb = 240.0, 210.0, 50.0
    else:
        hr, hg, hb = 235.0, 50.0, 40.0
    _panel(img, bar_x, by + s, bar_x + bar_w, by + 4 * s, 40.0, 40.0, 40.0, 0.8)
    rect(img, bar_x, by + s, bar_x + round(bar_w * frac), by + 4 * s, hr, hg, hb, 1.0)
    number(img, font, math.ceil(row[H_HEALTH] - 1e-9), bar_x + bar_w + 2 * s, by, s, 255.0, 255.0, 255.0,
           False)
    # ammunition, bottom right: "12/30" and a cartridge
    ammo = int(row[H_AMMO])
    ar, ag, ab = (255.0, 255.0, 255.0) if ammo > 0 else (255.0, 70.0, 50.0)
    right = W - pad
    _panel(img, right - 4 * s * 6 - 4 * s, by - s, W, H, 0.0, 0.0, 0.0, 0.35)
    wmax = number(img, font, int(row[H_AMMO_MAX]), right, by, s, 200.0, 200.0, 200.0, True)
    glyph(img, font, SLASH, right - wmax - 4 * s, by, s, 200.0, 200.0, 200.0)
    wa = number(img, font, ammo, right - wmax - 5 * s, by, s, ar, ag, ab, True)
    bx = right - wmax - 5 * s - wa - 3 * s
    rect(img, bx, by + s, bx + 2 * s, by + 5 * s, 210.0, 170.0, 60.0, 1.0)
    rect(img, bx, by, bx + 2 * s, by + s, 190.0, 120.0, 60.0, 1.0)


@njit(cache=True, nogil=True)
def _panel(img, x0, y0, x1, y1, r, g, b, alpha):
    """`rect` with `alpha` < 1 (the HUD's translucent panels) on a C-contiguous view: clipped once, the
    colour's share (`r * alpha`, the same product `blend` takes) laid out once along a row's bytes, then
    each row blended as one flat run the compiler turns into vector code; `rect` blends pixel by pixel
    with its checks inside the loop, 2.4 ns a pixel (issue 19). Same bytes as `rect`."""
    ya, yb = max(y0, 0), min(y1, img.shape[0])
    xa, xb = max(x0, 0), min(x1, img.shape[1])
    if ya >= yb or xa >= xb:
        return
    n = 3 * (xb - xa)
    share = np.empty(n)
    for j in range(0, n, 3):
        share[j] = r * alpha
        share[j + 1] = g * alpha
        share[j + 2] = b * alpha
    k = 1.0 - alpha
    for y in range(ya, yb):
        dst = img[y, xa:xb].reshape(n)
        for j in range(n):
            dst[j] = np.uint8(dst[j] * k + share[j])


@njit(cache=True, nogil=True)
def _blend_block(img, base, y0, x0, alpha):
    """`blend` of every pixel of `base` at (x0, y0), clipped once rather than per pixel: each row is one
    flat run of bytes, a loop the compiler turns into vector code (the per-pixel `blend` calls were 10 us
    of a 160x120 view and 42 us at 320x240, issue 19). Same float expression per byte, same bytes."""
    m_y, m_x = base.shape[0], base.shape[1]
    ya, yb = max(y0, 0), min(y0 + m_y, img.shape[0])
    xa, xb = max(x0, 0), min(x0 + m_x, img.shape[1])
    if ya >= yb or xa >= xb:
        return
    k = 1.0 - alpha
    n = 3 * (xb - xa)
    for y in range(ya, yb):
        dst = img[y, xa:xb].reshape(n)
        src = base[y - y0, xa - x0:xb - x0].reshape(n)
        for j in range(n):
            dst[j] = np.uint8(dst[j] * k + src[j] * alpha)


@njit(cache=True, nogil=True)
def draw_minimap(img, base, x0, y0, px, py, yaw, scale_px_per_m, size_m):
    """Blend the step's minimap picture (`base`, shared by all agents) into the inset at (x0, y0) and
    draw the agent's own position and heading on it (north is up)."""
    m = base.shape[0]
    _blend_block(img, base, y0, x0, 0.88)
    # a frame
    for k in range(m):
        blend(img, y0, x0 + k, 235.0, 235.0, 235.0, 1.0)
        blend(img, y0 + m - 1, x0 + k, 235.0, 235.0, 235.0, 1.0)
        blend(img, y0 + k, x0, 235.0, 235.0, 235.0, 1.0)
        blend(img, y0 + k, x0 + m - 1, 235.0, 235.0, 235.0, 1.0)
    mx = x0 + px * scale_px_per_m
    my = y0 + (size_m - py) * scale_px_per_m
    L = max(3.0, m * 0.07)
    fx = math.cos(yaw)
    fy = -math.sin(yaw)  # image y grows southward
    tipx = mx + fx * L
    tipy = my + fy * L
    lx = mx - fx * L * 0.6 - fy * L * 0.55
    ly = my - fy * L * 0.6 + fx * L * 0.55
    rx = mx - fx * L * 0.6 + fy * L * 0.55
    ry = my - fy * L * 0.6 - fx * L * 0.55
    triangle(img, tipx, tipy, lx, ly, rx, ry, 255.0, 255.0, 255.0, 1.0)
    line(img, mx, my, tipx, tipy, 1.0, 20.0, 20.0, 20.0, 1.0)


@njit(cache=True, nogil=True)
def overlay_range(rgb, hud, font, minimap, mm_x0, mm_y0, mm_scale, size_m, start, stop):
    """HUD and minimap for agents `start..stop` (runs in the same worker thread as their rendering)."""
    for i in range(start, stop):
        row = hud[i]
        if row[H_MINIMAP] > 0.5 and minimap.shape[0] > 0:
            draw_minimap(rgb[i], minimap, mm_x0, mm_y0, row[H_X], row[H_Y], row[H_YAW], mm_scale, size_m)
        if row[H_SHOW] > 0.5:
            draw_hud(rgb[i], row, font)
