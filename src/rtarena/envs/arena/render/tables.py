"""The per-step tables the renderer draws from (cameras, HUD rows, sprites), each filled in one compiled pass.

Building them with numpy column assignments cost about thirty small calls a step, more than the HUD drawing
itself (issue 19). Every value is the same IEEE operation numpy did (a float64 sum or quotient, then the
cast to the table's dtype), so the tables are bit-for-bit what they were.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rtarena.envs.arena.render.hud import (
    H_ALIVE,
    H_AMMO,
    H_AMMO_MAX,
    H_FIRED,
    H_HEALTH,
    H_HEALTH_FRAC,
    H_HIT,
    H_HURT,
    H_MINIMAP,
    H_SCORE,
    H_SHOW,
    H_TIME_LEFT,
    H_X,
    H_Y,
    H_YAW,
    HUD_FIELDS,
)
from rtarena.envs.arena.render.scene import (
    AMMO,
    C_FOV,
    C_PITCH,
    C_SELF,
    C_X,
    C_Y,
    C_YAW,
    C_Z,
    CAMERA_FIELDS,
    CHICKEN,
    COIN,
    PLAYER,
    S_B,
    S_G,
    S_H,
    S_KIND,
    S_OWNER,
    S_P0,
    S_P1,
    S_P2,
    S_R,
    S_W,
    S_X,
    S_Y,
    S_Z,
    SHELL,
    SPRITE_FIELDS,
    TURRET,
)


@njit(cache=True)
def camera_rows(pos, yaw, pitch, eye_height_m, fov, idx):
    """The camera table (see `scene.py`) of players `idx`: their eyes, headings and the field of view."""
    out = np.zeros((idx.shape[0], CAMERA_FIELDS), dtype=np.float32)
    for k in range(idx.shape[0]):
        i = idx[k]
        out[k, C_X] = pos[i, 0]
        out[k, C_Y] = pos[i, 1]
        out[k, C_Z] = pos[i, 2] + eye_height_m
        out[k, C_YAW] = yaw[i]
        out[k, C_PITCH] = pitch[i]
        out[k, C_FOV] = fov
        out[k, C_SELF] = i
    return out


@njit(cache=True)
def hud_rows(idx, health, max_health, ammo, ammo_max, scores, time_left_s, minimap_open, pos, yaw, alive, show,
             marks):
    """The HUD table (see `hud.py`) of players `idx`; `marks[k]` holds row k's hit, hurt and fired flags
    (rows past its end have none), `scores` is empty when the HUD shows no score."""
    out = np.zeros((idx.shape[0], HUD_FIELDS), dtype=np.float64)
    for k in range(idx.shape[0]):
        i = idx[k]
        out[k, H_SHOW] = 1.0 if show else 0.0
        out[k, H_HEALTH] = health[i]
        out[k, H_HEALTH_FRAC] = health[i] / max_health
        out[k, H_AMMO] = ammo[i]
        out[k, H_AMMO_MAX] = ammo_max
        out[k, H_SCORE] = scores[i] if scores.shape[0] else 0.0
        out[k, H_TIME_LEFT] = time_left_s
        out[k, H_MINIMAP] = minimap_open[i]
        out[k, H_X] = pos[i, 0]
        out[k, H_Y] = pos[i, 1]
        out[k, H_YAW] = yaw[i]
        out[k, H_ALIVE] = alive[i]
        if k < marks.shape[0]:
            out[k, H_HIT] = marks[k, 0]
            out[k, H_HURT] = marks[k, 1]
            out[k, H_FIRED] = marks[k, 2]
    return out


@njit(cache=True)
def fill_sprites(ppos, palive, pteam, pheight, team_colours, coin_pos, coin_active, ammo_pos, ammo_active,
                 ch_pos, ch_yaw, ch_alive, tu_pos, tu_health, tu_max_health, tu_barrel, tu_alive, tu_target, shells,
                 t_s):
    """The sprite table (see `scene.py` for its columns), filled in one compiled pass."""
    n = (palive.sum() + coin_active.sum() + ammo_active.sum() + ch_alive.sum() + len(tu_alive)
         + shells.shape[0])
    out = np.zeros((n, SPRITE_FIELDS), dtype=np.float32)
    out[:, S_OWNER] = -1.0
    k = 0
    for i in range(len(palive)):
        if palive[i]:
            team = pteam[i] % team_colours.shape[0]
            out[k, S_KIND] = PLAYER
            out[k, S_X], out[k, S_Y], out[k, S_Z] = ppos[i, 0], ppos[i, 1], ppos[i, 2]
            out[k, S_W], out[k, S_H] = 0.8, pheight
            out[k, S_R], out[k, S_G], out[k, S_B] = team_colours[team, 0], team_colours[team, 1], team_colours[team, 2]
            out[k, S_P1] = (ppos[i, 0] + ppos[i, 1]) * 2.2  # leg swing follows the feet
            out[k, S_OWNER] = i
            k += 1
    for j in range(len(coin_active)):
        if coin_active[j]:
            out[k, S_KIND] = COIN
            out[k, S_X], out[k, S_Y], out[k, S_Z] = coin_pos[j, 0], coin_pos[j, 1], coin_pos[j, 2] - 0.225
            out[k, S_W], out[k, S_H] = 0.45, 0.45
            out[k, S_P0] = t_s * 3.0 + j * 0.7  # spin
            k += 1
    for j in range(len(ammo_active)):
        if ammo_active[j]:
            out[k, S_KIND] = AMMO
            out[k, S_X], out[k, S_Y], out[k, S_Z] = ammo_pos[j, 0], ammo_pos[j, 1], ammo_pos[j, 2]
            out[k, S_W], out[k, S_H] = 0.7, 0.45
            k += 1
    for j in range(len(ch_alive)):
        if ch_alive[j]:
            out[k, S_KIND] = CHICKEN
            out[k, S_X], out[k, S_Y], out[k, S_Z] = ch_pos[j, 0], ch_pos[j, 1], ch_pos[j, 2]
            out[k, S_W], out[k, S_H] = 0.6, 0.56
            out[k, S_P0] = ch_yaw[j]
            out[k, S_P1] = t_s * 14.0 + j * 1.3  # legs
            k += 1
    for j in range(len(tu_alive)):
        out[k, S_KIND] = TURRET
        out[k, S_X], out[k, S_Y], out[k, S_Z] = tu_pos[j, 0], tu_pos[j, 1], tu_pos[j, 2]
        out[k, S_W], out[k, S_H] = 1.8, 1.7
        out[k, S_P0] = tu_health[j] / tu_max_health if tu_alive[j] else -1.0  # -1: destroyed
        out[k, S_P1] = tu_barrel[j]
        out[k, S_P2] = 1.0 if (tu_alive[j] and tu_target[j] >= 0) else 0.0
        k += 1
    for j in range(shells.shape[0]):
        out[k, S_KIND] = SHELL
        out[k, S_X], out[k, S_Y], out[k, S_Z] = shells[j, 0], shells[j, 1], shells[j, 2] - 0.15
        out[k, S_W], out[k, S_H] = 0.3, 0.3
        k += 1
    return out
