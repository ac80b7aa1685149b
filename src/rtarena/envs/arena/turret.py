"""Turrets and their shells.

A turret sees all around, up to `turret.range_m`, where its line of sight is clear. While it has no lock its
barrel turns at a random rate. When a player is in range and in sight it locks on (the nearest one) and
turns toward that player at `turret.turn_deg_s`; once the barrel is within `turret.aim_tolerance_deg` of the
player it fires a shell at the player's position at that moment, then waits `turret.fire_interval_s`. A
player who keeps moving is hard to track: when the locked player moved during the sub-step (faster than
`MOVING_M_S`), a ready, aimed turret fires only with probability `turret.moving_fire_chance` and otherwise
holds fire for a whole interval (a `turret_hold` event); `moving_fire_chance = 1.0` is the older rule
(always fire). Shells fly straight at `turret.shell_speed_m_s`: a player who keeps moving is somewhere else
when the shell arrives, a player who stands still is hit. The lock drops when the player leaves range or
sight, or dies. A turret has `turret.health` hit points and, destroyed, never returns.
"""

from __future__ import annotations

import math

import numpy as np

from rtarena.envs.arena.combat import damage_player
from rtarena.envs.arena.events import (
    CAUSE_TURRET,
    TURRET_FIRE,
    TURRET_HOLD,
    TURRET_LOCK,
    TURRET_SHELL_HIT,
    TURRET_UNLOCK,
    put,
)
from rtarena.envs.arena.kernel_cache import kernel
from rtarena.envs.arena.pymath import py_hypot
from rtarena.envs.arena.rules import Rules
from rtarena.envs.arena.visibility import blocked, first_obstacle_t

DRAW_BLOCK = 20  # sub-steps of random numbers drawn at once
MOVING_M_S = 0.5  # a player whose feet moved faster than this during the sub-step counts as moving
HEALTH_BANDS = ((2 / 3, "green"), (1 / 3, "yellow"), (0.0, "red"))


def health_colour(fraction: float) -> str:
    """How a turret shows its health: green above 2/3, yellow above 1/3, red below."""
    for threshold, colour in HEALTH_BANDS:
        if fraction > threshold:
            return colour
    return "red"


@kernel
def advance_shells(pos, vel, h, boxes, kinds, ppos, palive, radius, height):
    """Move shells by `h`; returns per shell the player hit (-1 none) and whether it stopped."""
    p = pos.shape[0]
    hit = np.full(p, -1, dtype=np.int64)
    stopped = np.zeros(p, dtype=np.bool_)
    end = np.empty(3)
    for s in range(p):
        for c in range(3):
            end[c] = pos[s, c] + vel[s, c] * h
        best = first_obstacle_t(pos[s], end, boxes, kinds)
        if best <= 1.0:
            stopped[s] = True
        dx, dy = end[0] - pos[s, 0], end[1] - pos[s, 1]
        seg2 = dx * dx + dy * dy
        for i in range(ppos.shape[0]):
            if not palive[i]:
                continue
            # Closest approach of the segment to the player's vertical axis, in the floor plane.
            t = 0.0
            if seg2 > 1e-12:
                t = ((ppos[i, 0] - pos[s, 0]) * dx + (ppos[i, 1] - pos[s, 1]) * dy) / seg2
                t = min(max(t, 0.0), 1.0)
            qx, qy = pos[s, 0] + t * dx - ppos[i, 0], pos[s, 1] + t * dy - ppos[i, 1]
            qz = pos[s, 2] + t * (end[2] - pos[s, 2])
            if qx * qx + qy * qy <= radius * radius and ppos[i, 2] <= qz <= ppos[i, 2] + height and t < best:
                best = t
                hit[s] = i
                stopped[s] = True
        for c in range(3):
            pos[s, c] = end[c]
    return hit, stopped


@kernel
def turret_sight(muzzles, alive, ppos, palive, centre_h, eye_h, max_range, boxes, kinds):
    """`(T, N)`: turret t sees player i (in range, and its body centre or head in line of sight)."""
    out = np.zeros((muzzles.shape[0], ppos.shape[0]), dtype=np.bool_)
    point = np.empty(3)
    for t in range(muzzles.shape[0]):
        if not alive[t]:
            continue
        for i in range(ppos.shape[0]):
            if not palive[i]:
                continue
            if (ppos[i, 0] - muzzles[t, 0]) ** 2 + (ppos[i, 1] - muzzles[t, 1]) ** 2 > max_range * max_range:
                continue
            for height in (centre_h, eye_h):
                point[0], point[1], point[2] = ppos[i, 0], ppos[i, 1], ppos[i, 2] + height
                if not blocked(muzzles[t], point, boxes, kinds):
                    out[t, i] = True
                    break
    return out


@kernel
def think(pos, muzzles, barrel_yaw, alive, target, cooldown, wander_rate, wander_in, seen, ppos, centres,
          rates, waits, max_turn, tolerance, interval, h):
    """One sub-step of every turret's lock, barrel and trigger; returns per turret the player it
    unlocked from and locked on (-1 none) and whether it fired (at `target[t]`)."""
    t_count = pos.shape[0]
    unlocked = np.full(t_count, -1, dtype=np.int64)
    locked = np.full(t_count, -1, dtype=np.int64)
    fired = np.zeros(t_count, dtype=np.bool_)
    for t in range(t_count):
        if not alive[t]:
            continue
        if target[t] >= 0 and not seen[t, target[t]]:
            unlocked[t] = target[t]
            target[t] = -1
        if target[t] < 0:
            best, best_d = -1, 1e18
            for i in range(seen.shape[1]):
                if seen[t, i]:
                    d = (ppos[i, 0] - pos[t, 0]) ** 2 + (ppos[i, 1] - pos[t, 1]) ** 2
                    if d < best_d:
                        best, best_d = i, d
            if best >= 0:
                target[t] = best
                locked[t] = best
        if target[t] < 0:
            wander_in[t] -= h
            if wander_in[t] <= 0:
                wander_rate[t] = rates[t]
                wander_in[t] = waits[t]
            barrel_yaw[t] = (barrel_yaw[t] + wander_rate[t] * h + math.pi) % (2 * math.pi) - math.pi
            continue
        k = target[t]
        want = math.atan2(centres[k, 1] - muzzles[t, 1], centres[k, 0] - muzzles[t, 0])
        error = (want - barrel_yaw[t] + math.pi) % (2 * math.pi) - math.pi
        turn = max(-max_turn, min(max_turn, error))
        barrel_yaw[t] = (barrel_yaw[t] + turn + math.pi) % (2 * math.pi) - math.pi
        if abs(error - turn) <= tolerance and cooldown[t] <= 0:
            cooldown[t] = interval
            fired[t] = True
    return unlocked, locked, fired


@kernel
def turret_substep(pos, alive, health, death_time, vel_z, height, eye_height, radius, t_pos, muzzles, barrel_yaw,
                   t_alive, target, cooldown, wander_rate, wander_in, last_feet, fresh, draws, shells, rng, boxes,
                   kinds, tv, h, now, sub, ev, evx, evn):
    """One sub-step of every turret (lock, barrel, trigger) and shell. `tv` holds the turret rules
    (`TurretSystem.values`); `fresh[0]` says a new episode starts (the feet are remembered from here),
    `draws = (rates, waits, at)` the idle-turn random numbers, drawn `DRAW_BLOCK` sub-steps at a time,
    `shells = (pos, vel, turret, target, ttl, count)` the buffers of shells in flight."""
    range_m, turn, idle_turn, tolerance, interval, damage, speed, chance = tv
    n, t_count = pos.shape[0], t_pos.shape[0]
    if fresh[0]:
        last_feet[:] = pos
        fresh[0] = False
    moved = np.empty(n, dtype=np.bool_)
    for i in range(n):
        moved[i] = math.hypot(pos[i, 0] - last_feet[i, 0], pos[i, 1] - last_feet[i, 1]) > MOVING_M_S * h
    last_feet[:] = pos
    seen = turret_sight(muzzles, t_alive, pos, alive, height * 0.5, eye_height, range_m, boxes, kinds)
    centres = pos.copy()
    centres[:, 2] += height * 0.5
    cooldown -= h
    rates, waits, at = draws
    if at[0] == DRAW_BLOCK:  # the same numbers, in the same order, as `rng.uniform(lo, hi, size=(20, T))`
        for k in range(DRAW_BLOCK):
            for t in range(t_count):
                rates[k, t] = -idle_turn + (idle_turn - -idle_turn) * rng.random()
        for k in range(DRAW_BLOCK):
            for t in range(t_count):
                waits[k, t] = 1.0 + (3.0 - 1.0) * rng.random()
        at[0] = 0
    unlocked, locked, fired = think(t_pos, muzzles, barrel_yaw, t_alive, target, cooldown, wander_rate, wander_in,
                                    seen, pos, centres, rates[at[0]], waits[at[0]], turn * h, tolerance, interval, h)
    at[0] += 1
    for t in range(t_count):
        if unlocked[t] >= 0:
            put(ev, evx, evn, TURRET_UNLOCK, sub, t, unlocked[t], -1, 0.0)
        if locked[t] >= 0:
            put(ev, evx, evn, TURRET_LOCK, sub, t, locked[t], -1, 0.0)
        if fired[t]:
            k = target[t]
            # Drawn only for a moving target and a chance below 1, so the old rule keeps its stream.
            if moved[k] and chance < 1.0 and rng.random() >= chance:
                put(ev, evx, evn, TURRET_HOLD, sub, t, k, -1, 0.0)
                continue
            launch(shells, t, k, muzzles[t], centres[k] - muzzles[t], barrel_yaw[t], speed, 1.5 * range_m / speed)
            put(ev, evx, evn, TURRET_FIRE, sub, t, k, -1, 0.0)
    fly(shells, pos, alive, health, death_time, vel_z, radius, height, damage, boxes, kinds, h, now, sub,
        ev, evx, evn)


@kernel
def launch(shells, t, target, muzzle, delta, yaw, speed, ttl):
    """Append a shell that flies along the barrel (yaw) and toward the target's height (pitch)."""
    s_pos, s_vel, s_turret, s_target, s_ttl, count = shells
    flat = py_hypot(delta[0], delta[1])
    length = max(1e-9, py_hypot(flat, delta[2]))
    k = count[0]
    s_pos[k] = muzzle
    s_vel[k, 0] = math.cos(yaw) * flat / length * speed
    s_vel[k, 1] = math.sin(yaw) * flat / length * speed
    s_vel[k, 2] = delta[2] / length * speed
    s_turret[k], s_target[k], s_ttl[k] = t, target, ttl
    count[0] = k + 1


@kernel
def fly(shells, pos, alive, health, death_time, vel_z, radius, height, damage, boxes, kinds, h, now, sub,
        ev, evx, evn):
    """Move every shell by `h`; a shell that hits a player damages it and stops, one that hits an obstacle
    or runs out of time vanishes (the survivors keep their order)."""
    s_pos, s_vel, s_turret, s_target, s_ttl, count = shells
    p = count[0]
    if p == 0:
        return
    hit, stopped = advance_shells(s_pos[:p], s_vel[:p], h, boxes, kinds, pos, alive, radius, height)
    for s in range(p):
        if hit[s] >= 0:
            put(ev, evx, evn, TURRET_SHELL_HIT, sub, s_turret[s], hit[s], s_target[s], damage)
            damage_player(health, alive, death_time, vel_z, hit[s], damage, CAUSE_TURRET, s_turret[s], now, sub,
                          ev, evx, evn)
    kept = 0
    for s in range(p):
        s_ttl[s] -= h
        if stopped[s] or not s_ttl[s] > 0:
            continue
        s_pos[kept], s_vel[kept] = s_pos[s], s_vel[s]
        s_turret[kept], s_target[kept], s_ttl[kept] = s_turret[s], s_target[s], s_ttl[s]
        kept += 1
    count[0] = kept


class TurretSystem:
    """The turret rules as the compiled `turret_substep` takes them."""

    def __init__(self, rules: Rules) -> None:
        tu = rules.turret
        self.values = (float(tu.range_m), math.radians(float(tu.turn_deg_s)), math.radians(float(tu.idle_turn_deg_s)),
                       math.radians(float(tu.aim_tolerance_deg)), float(tu.fire_interval_s), float(tu.damage),
                       float(tu.shell_speed_m_s), float(tu.moving_fire_chance))
