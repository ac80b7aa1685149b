"""Players shooting: ammunition, the fire interval, where a shot goes and what it hits; damage and death.

A shot leaves the shooter's eye along its yaw and pitch plus a random deviation (`weapon.spread_deg`). It
hits the nearest target (an opponent, a turret or a chicken) whose angular distance from the shot's
direction is within `weapon.hit_cone_deg` plus the target's own angular radius, within range and in line of
sight. Teammates are not targets unless `weapon.friendly_fire` is on: with it off a shot passes through
them and does nothing. The shot counts as *aimed at* the opponent nearest the crosshair within
`weapon.aim_window_deg` (the basis of the incoming-shot metrics).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from rtarena.envs.arena.events import EventLog
from rtarena.envs.arena.rules import Rules
from rtarena.envs.arena.visibility import first_obstacle_t
from rtarena.envs.arena.world import World

PLAYER, TURRET, CHICKEN = 0, 1, 2
TARGET_KINDS = ("player", "turret", "chicken")
BODY_CENTRE_FRACTION = 0.5


@njit(cache=True)
def resolve_shot(eye, yaw, pitch, aim_yaw, aim_pitch, points, radii, ok, is_player, hit_cone, aim_window,
                 max_range, boxes, kinds):
    """(index hit or -1, index of the player aimed at or -1) for one shot among candidate points."""
    hit, hit_d = -1, 1e18
    aimed, aimed_err = -1, 1e18
    for k in range(points.shape[0]):
        if not ok[k]:
            continue
        dx, dy, dz = points[k, 0] - eye[0], points[k, 1] - eye[1], points[k, 2] - eye[2]
        flat = math.sqrt(dx * dx + dy * dy)
        d = math.sqrt(flat * flat + dz * dz)
        if d > max_range or d < 1e-9:
            continue
        target_yaw, target_pitch = math.atan2(dy, dx), math.atan2(dz, flat)
        size = math.atan2(radii[k], d)
        e_yaw = (target_yaw - yaw + math.pi) % (2 * math.pi) - math.pi
        err = math.sqrt(e_yaw * e_yaw + (target_pitch - pitch) ** 2)
        a_yaw = (target_yaw - aim_yaw + math.pi) % (2 * math.pi) - math.pi
        aim_err = math.sqrt(a_yaw * a_yaw + (target_pitch - aim_pitch) ** 2)
        could_hit = err <= hit_cone + size and d < hit_d
        could_aim = is_player[k] and aim_err <= aim_window + size and aim_err < aimed_err
        if not (could_hit or could_aim):
            continue
        if first_obstacle_t(eye, points[k], boxes, kinds) <= 1.0:
            continue
        if could_hit:
            hit, hit_d = k, d
        if could_aim:
            aimed, aimed_err = k, aim_err
    return hit, aimed


def damage_player(world: World, log: EventLog, index: int, amount: float, cause: str, by: str | int | None) -> None:
    """Take `amount` hit points from player `index`; at zero it dies (a `death` event, and a `kill`
    event when another player did it)."""
    players = world.players
    if not players.alive[index] or amount <= 0:
        return
    players.health[index] = max(0.0, players.health[index] - amount)
    if players.health[index] <= 0:
        players.alive[index] = False
        players.death_time_s[index] = world.time_s
        players.vel_z[index] = 0.0
        log.emit("death", agent=log.name(index), cause=cause, by=by)
        if cause == "player":
            log.emit("kill", shooter=by, target=log.name(index))


class Guns:
    """Resolves the shots of one sub-step. Candidate arrays are rebuilt per sub-step (things move)."""

    def __init__(self, rules: Rules) -> None:
        w = rules.weapon
        self.interval_s = float(w.fire_interval_s)
        self.damage = float(w.damage)
        self.range_m = float(w.range_m)
        self.spread = math.radians(float(w.spread_deg))
        self.hit_cone = math.radians(float(w.hit_cone_deg))
        self.aim_window = math.radians(float(w.aim_window_deg))
        self.friendly_fire = bool(w.friendly_fire)
        self.chicken_respawn_s = float(rules.chickens.respawn_s)

    def candidates(self, world: World) -> tuple[np.ndarray, ...]:
        p, t, c = world.players, world.turrets, world.chickens
        centre = p.pos.copy()
        centre[:, 2] += p.height_m * BODY_CENTRE_FRACTION
        turret_points = t.pos.copy()
        turret_points[:, 2] += t.barrel_height_m * 0.7
        chicken_points = c.pos.copy()
        chicken_points[:, 2] += c.radius_m
        points = np.vstack([centre, turret_points, chicken_points])
        radii = np.concatenate([np.full(len(p), p.radius_m), np.full(len(t.alive), t.radius_m),
                                np.full(len(c.alive), c.radius_m)])
        alive = np.concatenate([p.alive, t.alive, c.alive])
        kind = np.concatenate([np.full(len(p), PLAYER), np.full(len(t.alive), TURRET), np.full(len(c.alive), CHICKEN)])
        return points, radii, alive, kind

    def fire(self, world: World, log: EventLog, shooters: np.ndarray, rng: np.random.Generator,
             dry: np.ndarray) -> None:
        """Every player in `shooters` (indices, already checked alive and off cooldown) pulls the trigger.
        `dry[i]` remembers that a dry-fire event was already logged this step."""
        players = world.players
        points, radii, alive, kind = self.candidates(world)
        n = len(players)
        is_player = kind == PLAYER
        eyes = players.eye
        for i in shooters:
            if players.ammo[i] <= 0:
                if not dry[i]:
                    log.emit("dry_fire", agent=log.name(i))
                    dry[i] = True
                continue
            players.ammo[i] -= 1
            players.fire_cooldown_s[i] = self.interval_s
            ok = alive.copy()
            ok[i] = False
            if not self.friendly_fire:
                ok[:n] &= players.team != players.team[i]
            yaw = players.yaw[i] + rng.normal(0.0, self.spread)
            pitch = players.pitch[i] + rng.normal(0.0, self.spread)
            hit, aimed = resolve_shot(eyes[i], yaw, pitch, players.yaw[i], players.pitch[i], points, radii, ok,
                                      is_player, self.hit_cone, self.aim_window, self.range_m,
                                      world.obstacles.boxes, world.obstacles.kind)
            if hit >= 0 and kind[hit] == PLAYER:
                aimed = hit  # a player who is hit was, by definition, shot at
            shooter = log.name(i)
            log.emit("shot", shooter=shooter, aimed_at=log.name(aimed) if aimed >= 0 else None,
                     hit=TARGET_KINDS[kind[hit]] if hit >= 0 else None)
            if hit < 0:
                continue
            if kind[hit] == PLAYER:
                log.emit("hit", shooter=shooter, target=log.name(hit), damage=self.damage)
                damage_player(world, log, hit, self.damage, "player", shooter)
                alive[hit] = players.alive[hit]
            elif kind[hit] == TURRET:
                t = hit - n
                turrets = world.turrets
                turrets.health[t] = max(0.0, turrets.health[t] - self.damage)
                log.emit("turret_hit", shooter=shooter, turret=int(t), damage=self.damage)
                if turrets.health[t] <= 0:
                    turrets.alive[t] = False
                    turrets.target[t] = -1
                    alive[hit] = False
                    log.emit("turret_destroyed", shooter=shooter, turret=int(t))
            else:
                c = hit - n - len(world.turrets.alive)
                world.chickens.alive[c] = False
                world.chickens.respawn_in_s[c] = self.chicken_respawn_s
                alive[hit] = False
                log.emit("chicken_shot", shooter=shooter, chicken=int(c))
