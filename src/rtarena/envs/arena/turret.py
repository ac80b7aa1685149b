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
from numba import njit

from rtarena.envs.arena.combat import damage_player
from rtarena.envs.arena.events import EventLog
from rtarena.envs.arena.rules import Rules
from rtarena.envs.arena.visibility import blocked, first_obstacle_t
from rtarena.envs.arena.world import Projectiles, World

DRAW_BLOCK = 20  # sub-steps of random numbers drawn at once
MOVING_M_S = 0.5  # a player whose feet moved faster than this during the sub-step counts as moving
HEALTH_BANDS = ((2 / 3, "green"), (1 / 3, "yellow"), (0.0, "red"))


def health_colour(fraction: float) -> str:
    """How a turret shows its health: green above 2/3, yellow above 1/3, red below."""
    for threshold, colour in HEALTH_BANDS:
        if fraction > threshold:
            return colour
    return "red"


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
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


class TurretSystem:
    """Runs every turret and shell for one sub-step at a time."""

    def __init__(self, rules: Rules) -> None:
        tu = rules.turret
        self.range_m = float(tu.range_m)
        self.turn = math.radians(float(tu.turn_deg_s))
        self.idle_turn = math.radians(float(tu.idle_turn_deg_s))
        self.tolerance = math.radians(float(tu.aim_tolerance_deg))
        self.interval_s = float(tu.fire_interval_s)
        self.damage = float(tu.damage)
        self.speed = float(tu.shell_speed_m_s)
        self.moving_fire_chance = float(tu.moving_fire_chance)
        self._world: World | None = None
        self._draws: tuple[np.ndarray, np.ndarray] | None = None
        self._draw_at = 0

    def step(self, world: World, log: EventLog, rng: np.random.Generator, h: float) -> None:
        turrets, players = world.turrets, world.players
        if len(turrets.alive) == 0:
            return
        if self._world is not world:  # a new episode: turrets do not move, their muzzles are fixed
            self._world, self._draws = world, None
            self._muzzles = turrets.pos.copy()
            self._muzzles[:, 2] += turrets.barrel_height_m
            self._last_feet = players.pos.copy()
        muzzles = self._muzzles
        moved = np.hypot(*(players.pos[:, :2] - self._last_feet[:, :2]).T) > MOVING_M_S * h
        self._last_feet = players.pos.copy()
        seen = turret_sight(muzzles, turrets.alive, players.pos, players.alive, players.height_m * 0.5,
                            players.eye_height_m, self.range_m, world.obstacles.boxes, world.obstacles.kind)
        centres = players.pos.copy()
        centres[:, 2] += players.height_m * 0.5
        turrets.cooldown_s -= h
        # Random numbers come in blocks of sub-steps (not env steps), so the stream is the same whatever dt.
        if self._draws is None or self._draw_at == len(self._draws[0]):
            shape = (DRAW_BLOCK, len(turrets.alive))
            self._draws = (rng.uniform(-self.idle_turn, self.idle_turn, size=shape), rng.uniform(1.0, 3.0, size=shape))
            self._draw_at = 0
        rates, waits = self._draws[0][self._draw_at], self._draws[1][self._draw_at]
        self._draw_at += 1
        unlocked, locked, fired = think(turrets.pos, muzzles, turrets.barrel_yaw, turrets.alive, turrets.target,
                                        turrets.cooldown_s, turrets.wander_rate, turrets.wander_in_s, seen,
                                        players.pos, centres, rates, waits, self.turn * h, self.tolerance,
                                        self.interval_s, h)
        if unlocked.max() < 0 and locked.max() < 0 and not fired.any():
            self._shells(world, log, h)
            return
        for t in np.flatnonzero((unlocked >= 0) | (locked >= 0) | fired):
            if unlocked[t] >= 0:
                log.emit("turret_unlock", turret=int(t), target=log.name(unlocked[t]))
            if locked[t] >= 0:
                log.emit("turret_lock", turret=int(t), target=log.name(locked[t]))
            if fired[t]:
                target = int(turrets.target[t])
                # Drawn only for a moving target and a chance below 1, so the old rule keeps its stream.
                if moved[target] and self.moving_fire_chance < 1.0 and rng.random() >= self.moving_fire_chance:
                    log.emit("turret_hold", turret=int(t), target=log.name(target))
                    continue
                self._launch(world, t, target, muzzles[t], centres[target] - muzzles[t])
                log.emit("turret_fire", turret=int(t), target=log.name(target))
        self._shells(world, log, h)

    def _launch(self, world: World, t: int, target: int, muzzle: np.ndarray, delta: np.ndarray) -> None:
        # The shell flies along the barrel (yaw) and toward the target's height (pitch).
        flat = math.hypot(delta[0], delta[1])
        yaw = world.turrets.barrel_yaw[t]
        length = max(1e-9, math.hypot(flat, delta[2]))
        direction = np.array([math.cos(yaw) * flat, math.sin(yaw) * flat, delta[2]]) / length
        shells = world.projectiles
        shells.pos = np.vstack([shells.pos, muzzle])
        shells.vel = np.vstack([shells.vel, direction * self.speed])
        shells.turret = np.append(shells.turret, t)
        shells.target = np.append(shells.target, target)
        shells.ttl_s = np.append(shells.ttl_s, 1.5 * self.range_m / self.speed)

    def _shells(self, world: World, log: EventLog, h: float) -> None:
        shells, players = world.projectiles, world.players
        if len(shells.ttl_s) == 0:
            return
        hit, stopped = advance_shells(shells.pos, shells.vel, h, world.obstacles.boxes, world.obstacles.kind,
                                      players.pos, players.alive, players.radius_m, players.height_m)
        for s in np.flatnonzero(hit >= 0):
            target = int(hit[s])
            log.emit("turret_shell_hit", turret=int(shells.turret[s]), target=log.name(target), damage=self.damage,
                     intended=log.name(int(shells.target[s])))
            damage_player(world, log, target, self.damage, "turret", int(shells.turret[s]))
        shells.ttl_s -= h
        keep = ~stopped & (shells.ttl_s > 0)
        if not keep.all():
            world.projectiles = Projectiles(shells.pos[keep], shells.vel[keep], shells.turret[keep],
                                            shells.target[keep], shells.ttl_s[keep])


def _wrap(angle: float) -> float:
    return (angle + math.pi) % (2 * math.pi) - math.pi
