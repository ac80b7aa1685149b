"""Billboard sprites, compiled: each kind is a small procedural picture in metric coordinates.

`sprite_pixel` is asked, for one pixel of a sprite's screen rectangle, whether the sprite covers it and
in what colour. `mu` runs from the sprite's left edge to its right edge in metres (0 at the centre),
`mv` is the height above the sprite's bottom in metres. Players wear their team colour on body and cap;
turrets show their health ring (green, yellow, red), a lock lamp and a barrel whose screen direction
follows where it points; coins spin; chickens face where they walk and move their legs.
"""

from __future__ import annotations

import math

from numba import njit

from rtarena.envs.arena.render.scene import AMMO, CHICKEN, COIN, FLASH, PLAYER, SHELL, TURRET


@njit(cache=True, nogil=True, inline="always", fastmath=True, error_model="numpy")
def _in_circle(x, y, cx, cy, r):
    return (x - cx) * (x - cx) + (y - cy) * (y - cy) < r * r


@njit(cache=True, nogil=True, inline="always", fastmath=True, error_model="numpy")
def _player_pixel(mu, mv, h, cr, cg, cb, p1):
    """A player: cap and body in the team colour, face, legs that swing with `p1`."""
    top = h
    if _in_circle(mu, mv, 0.0, top - 0.15, 0.15):
        if mv > top - 0.11:  # a cap in the team colour
            return True, cr * 0.85, cg * 0.85, cb * 0.85, False
        return True, 222.0, 182.0, 148.0, False
    if 0.85 <= mv < top - 0.3:
        a = abs(mu)
        if a < 0.24:
            k = 1.0 - 0.35 * (mu / 0.24) * (mu / 0.24)
            return True, cr * k, cg * k, cb * k, False
        if a < 0.33 and mv > 0.95:
            return True, cr * 0.62, cg * 0.62, cb * 0.62, False
    if mv < 0.85:
        swing = 0.05 * math.sin(p1)
        if 0.03 < mu + swing < 0.2 or 0.03 < -mu + swing < 0.2:
            return True, 48.0, 48.0, 58.0, False
    return False, 0.0, 0.0, 0.0, False


@njit(cache=True, nogil=True, inline="always", fastmath=True, error_model="numpy")
def _coin_pixel(mu, mv, w, h, p0):
    """A gold coin seen at spin angle `p0`."""
    squeeze = max(abs(math.cos(p0)), 0.15)
    x = mu / (0.5 * w * squeeze)
    y = (mv - 0.5 * h) / (0.5 * h)
    r2 = x * x + y * y
    if r2 >= 1.0:
        return False, 0.0, 0.0, 0.0, False
    if r2 > 0.62:
        return True, 205.0, 150.0, 25.0, False
    if abs(x) < 0.22 and abs(y) < 0.55:
        return True, 255.0, 238.0, 130.0, False
    return True, 250.0, 200.0, 40.0, False


@njit(cache=True, nogil=True, inline="always", fastmath=True, error_model="numpy")
def _ammo_pixel(mu, mv, w, h):
    """An ammo box: olive with a yellow band."""
    edge = min(min(mu + 0.5 * w, 0.5 * w - mu), min(mv, h - mv))
    if edge < 0.0:
        return False, 0.0, 0.0, 0.0, False
    if edge < 0.04:
        return True, 48.0, 60.0, 26.0, False
    if 0.17 < mv < 0.27:
        return True, 235.0, 200.0, 40.0, False
    return True, 88.0, 110.0, 48.0, False


@njit(cache=True, nogil=True, inline="always", fastmath=True, error_model="numpy")
def _chicken_pixel(mu, mv, p1, view_lat):
    """A chicken facing the side of the screen it walks to, legs swinging with `p1`."""
    s = 1.0 if view_lat >= 0.0 else -1.0  # the side of the screen its head is on
    x = mu * s
    if mv < 0.13:
        swing = 0.045 * math.sin(p1)
        if abs(x - 0.02 - swing) < 0.018 or abs(x + 0.08 + swing) < 0.018:
            return True, 235.0, 145.0, 30.0, False
        return False, 0.0, 0.0, 0.0, False
    if _in_circle(x, mv, 0.17, 0.5, 0.045):
        return True, 215.0, 30.0, 30.0, False
    if 0.2 < x < 0.28 and 0.4 < mv < 0.445:
        return True, 240.0, 150.0, 30.0, False
    if _in_circle(x, mv, 0.15, 0.43, 0.075):
        if _in_circle(x, mv, 0.175, 0.445, 0.015):
            return True, 20.0, 20.0, 20.0, False
        return True, 242.0, 240.0, 228.0, False
    ex = x / 0.21
    ey = (mv - 0.26) / 0.14
    if ex * ex + ey * ey < 1.0:
        k = 1.0 - 0.15 * ey
        return True, 238.0 * k, 236.0 * k, 222.0 * k, False
    if -0.28 < x < -0.15 and 0.28 < mv < 0.42 - 0.6 * (-0.15 - x):
        return True, 225.0, 222.0, 205.0, False
    return False, 0.0, 0.0, 0.0, False


@njit(cache=True, nogil=True, inline="always", fastmath=True, error_model="numpy")
def _turret_pixel(mu, mv, p0, p2, view_lat, view_along):
    """A turret: health ring `p0` (< 0: destroyed), lock lamp `p2`, barrel toward `view_lat`/`view_along`."""
    # view_lat: barrel end's screen offset in metres (right positive); view_along > 0: pointing away
    if p0 < 0.0:  # destroyed: a burnt stump
        if mv < 0.7 and abs(mu) < 0.4 - 0.12 * mv:
            return True, 40.0, 38.0, 36.0, False
        return False, 0.0, 0.0, 0.0, False
    towards = view_along < 0.0
    on_barrel = False
    if 1.08 <= mv < 1.22:
        on_barrel = 0.0 <= mu <= view_lat if view_lat >= 0.0 else view_lat <= mu <= 0.0
    muzzle = view_along < -0.55 and _in_circle(mu, mv, view_lat, 1.15, 0.09)
    if muzzle and towards:
        if _in_circle(mu, mv, view_lat, 1.15, 0.05):
            return True, 15.0, 10.0, 10.0, False
        return True, 200.0, 40.0, 30.0, False
    if on_barrel and towards:
        return True, 38.0, 38.0, 44.0, False
    # lock lamp on top: bright red while locked on someone
    if _in_circle(mu, mv, 0.0, 1.63, 0.07):
        if p2 > 0.5:
            return True, 255.0, 45.0, 35.0, True
        return True, 90.0, 40.0, 40.0, False
    # health ring
    if 1.43 <= mv < 1.56 and abs(mu) < 0.36:
        k = 1.0 - 0.3 * (mu / 0.36) * (mu / 0.36)
        if p0 > 0.6:
            return True, 40.0 * k, 205.0 * k, 60.0 * k, False
        if p0 > 0.3:
            return True, 245.0 * k, 212.0 * k, 40.0 * k, False
        return True, 232.0 * k, 42.0 * k, 30.0 * k, False
    ex = mu / 0.4
    ey = (mv - 1.15) / 0.3
    if ex * ex + ey * ey < 1.0:
        k = 1.0 - 0.35 * ex * ex
        return True, 128.0 * k, 132.0 * k, 140.0 * k, False
    if on_barrel:
        return True, 38.0, 38.0, 44.0, False
    if mv < 0.9 and abs(mu) < 0.36 - 0.12 * mv:
        k = 1.0 - 0.3 * (mu / 0.36) * (mu / 0.36)
        return True, 72.0 * k, 76.0 * k, 82.0 * k, False
    return False, 0.0, 0.0, 0.0, False


@njit(cache=True, nogil=True, inline="always", fastmath=True, error_model="numpy")
def _light_pixel(kind, mu, mv, w, h, p0):
    """A muzzle flash (star turned by `p0`) or a shell in flight: both glow."""
    x = mu / (0.5 * w)
    y = (mv - 0.5 * h) / (0.5 * h)
    rr = math.sqrt(x * x + y * y)
    if kind == SHELL:
        if rr < 0.45:
            return True, 255.0, 245.0, 200.0, True
        if rr < 1.0:
            return True, 255.0, 130.0, 35.0, True
        return False, 0.0, 0.0, 0.0, False
    ang = math.atan2(y, x)
    reach = 0.35 + 0.65 * abs(math.cos(2.0 * ang + p0)) ** 3
    if rr < 0.3:
        return True, 255.0, 255.0, 235.0, True
    if rr < reach:
        return True, 255.0, 205.0, 70.0, True
    return False, 0.0, 0.0, 0.0, False


@njit(cache=True, nogil=True, fastmath=True, error_model="numpy")
def sprite_pixel(kind, mu, mv, w, h, cr, cg, cb, p0, p1, p2, view_lat, view_along):
    """Return `(covered, r, g, b, emissive)`.

    `view_lat`/`view_along` carry view-dependent facts computed by the caller: for turrets the barrel's
    direction projected on the camera's right and forward axes; for chickens their walking direction.
    """
    if kind == PLAYER:
        return _player_pixel(mu, mv, h, cr, cg, cb, p1)
    if kind == COIN:
        return _coin_pixel(mu, mv, w, h, p0)
    if kind == AMMO:
        return _ammo_pixel(mu, mv, w, h)
    if kind == CHICKEN:
        return _chicken_pixel(mu, mv, p1, view_lat)
    if kind == TURRET:
        return _turret_pixel(mu, mv, p0, p2, view_lat, view_along)
    if kind in (FLASH, SHELL):
        return _light_pixel(kind, mu, mv, w, h, p0)
    return False, 0.0, 0.0, 0.0, False
