"""Turrets and their shells.

A turret sees all around, up to `turret.range_m`, where its line of sight is clear. While it has no lock
its barrel turns at a random rate. When a player is in range and in sight it locks on (the nearest one)
and turns toward that player at `turret.turn_deg_s`; once the barrel is within `turret.aim_tolerance_deg`
of the player it fires a shell at the player's position at that moment, then waits
`turret.fire_interval_s`. Shells fly straight at `turret.shell_speed_m_s`: a player who keeps moving is
somewhere else when the shell arrives, a player who stands still is hit. The lock drops when the player
leaves range or sight, or dies. A turret has `turret.health` hit points and, destroyed, never returns.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from rtarena.envs.arena.combat import damage_player
from rtarena.envs.arena.events import EventLog
from rtarena.envs.arena.rules import Rules
from rtarena.envs.arena.visibility import first_obstacle_t, sight
from rtarena.envs.arena.world import Projectiles, World

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

    def step(self, world: World, log: EventLog, rng: np.random.Generator, h: float) -> None:
        turrets, players = world.turrets, world.players
        if len(turrets.alive) == 0:
            return
        muzzles = turrets.pos.copy()
        muzzles[:, 2] += turrets.barrel_height_m
        centres = players.pos.copy()
        centres[:, 2] += players.height_m * 0.5
        heads = players.eye
        owners = np.full(len(players), -1, dtype=np.int64)
        both = np.vstack([centres, heads])
        seen = sight(muzzles, turrets.barrel_yaw, turrets.alive, both, np.concatenate([players.alive, players.alive]),
                     np.concatenate([owners, owners]), math.pi, self.range_m, world.obstacles.boxes,
                     world.obstacles.kind)
        n = len(players)
        seen = seen[:, :n] | seen[:, n:]
        turrets.cooldown_s -= h
        for t in np.flatnonzero(turrets.alive):
            target = turrets.target[t]
            if target >= 0 and not seen[t, target]:
                log.emit("turret_unlock", turret=int(t), target=log.name(target))
                turrets.target[t] = target = -1
            if target < 0 and seen[t].any():
                candidates = np.flatnonzero(seen[t])
                d = np.hypot(*(players.pos[candidates, :2] - turrets.pos[t, :2]).T)
                target = int(candidates[np.argmin(d)])
                turrets.target[t] = target
                log.emit("turret_lock", turret=int(t), target=log.name(target))
            if target < 0:
                turrets.wander_in_s[t] -= h
                if turrets.wander_in_s[t] <= 0:
                    turrets.wander_rate[t] = rng.uniform(-self.idle_turn, self.idle_turn)
                    turrets.wander_in_s[t] = rng.uniform(1.0, 3.0)
                turrets.barrel_yaw[t] = _wrap(turrets.barrel_yaw[t] + turrets.wander_rate[t] * h)
                continue
            delta = centres[target] - muzzles[t]
            error = _wrap(math.atan2(delta[1], delta[0]) - turrets.barrel_yaw[t])
            turn = max(-self.turn * h, min(self.turn * h, error))
            turrets.barrel_yaw[t] = _wrap(turrets.barrel_yaw[t] + turn)
            if abs(error - turn) <= self.tolerance and turrets.cooldown_s[t] <= 0:
                turrets.cooldown_s[t] = self.interval_s
                self._launch(world, t, target, muzzles[t], delta)
                log.emit("turret_fire", turret=int(t), target=log.name(target))
        self._shells(world, log, h)

    def _launch(self, world: World, t: int, target: int, muzzle: np.ndarray, delta: np.ndarray) -> None:
        # The shell flies along the barrel (yaw) and toward the target's height (pitch).
        flat = math.hypot(delta[0], delta[1])
        yaw = world.turrets.barrel_yaw[t]
        direction = np.array([math.cos(yaw) * flat, math.sin(yaw) * flat, delta[2]]) / max(1e-9, math.hypot(flat, delta[2]))
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
