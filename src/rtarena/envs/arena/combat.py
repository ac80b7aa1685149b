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

from rtarena.envs.arena.events import (
    CAUSE_PLAYER,
    CHICKEN_SHOT,
    DEATH,
    DRY_FIRE,
    HIT,
    KILL,
    SHOT,
    TURRET_DESTROYED,
    TURRET_HIT,
    put,
)
from rtarena.envs.arena.kernel_cache import kernel
from rtarena.envs.arena.rules import Rules
from rtarena.envs.arena.visibility import first_obstacle_t

PLAYER, TURRET, CHICKEN = 0, 1, 2
BODY_CENTRE_FRACTION = 0.5


@kernel
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


@kernel
def damage_player(health, alive, death_time, vel_z, index, amount, cause, by, now, sub, ev, evx, evn):
    """Take `amount` hit points from player `index`; at zero it dies (a `death` event, and a `kill`
    event when another player did it). `by` is the shooter or turret index (-1 for the zone)."""
    if not alive[index] or amount <= 0:
        return
    health[index] = max(0.0, health[index] - amount)
    if health[index] <= 0:
        alive[index] = False
        death_time[index] = now
        vel_z[index] = 0.0
        put(ev, evx, evn, DEATH, sub, index, cause, by, 0.0)
        if cause == CAUSE_PLAYER:
            put(ev, evx, evn, KILL, sub, by, index, -1, 0.0)


@kernel
def fire(wants, pos, yaw, pitch, team, health, alive, ammo, cooldown, death_time, vel_z, dry, t_pos, t_health,
         t_alive, t_target, c_pos, c_alive, c_respawn, boxes, kinds, rng, radius, height, eye_height,
         turret_radius, turret_height, chicken_radius, gun, now, sub, ev, evx, evn):
    """Every living player in `wants` that is off cooldown pulls the trigger, in index order. `gun` holds
    the weapon's rules (`Guns.values`); `dry[i]` remembers that a dry-fire event was logged this step."""
    interval, damage, max_range, spread, hit_cone, aim_window, friendly_fire, chicken_respawn = gun
    n, t_count, c_count = pos.shape[0], t_pos.shape[0], c_pos.shape[0]
    shooters = np.flatnonzero(wants & alive & (cooldown <= 1e-9))
    if len(shooters) == 0:
        return
    # candidate points: player body centres, turret barrels, chickens (things move, so per sub-step)
    m = n + t_count + c_count
    points = np.empty((m, 3))
    radii = np.empty(m)
    ok_all = np.empty(m, dtype=np.bool_)
    kind = np.empty(m, dtype=np.int64)
    for k in range(m):
        src, r, live, what, j = pos, radius, alive, PLAYER, k
        if k >= n + t_count:
            src, r, live, what, j = c_pos, chicken_radius, c_alive, CHICKEN, k - n - t_count
        elif k >= n:
            src, r, live, what, j = t_pos, turret_radius, t_alive, TURRET, k - n
        points[k, 0], points[k, 1] = src[j, 0], src[j, 1]
        lift = height * BODY_CENTRE_FRACTION if what == PLAYER else (turret_height * 0.7 if what == TURRET else r)
        points[k, 2] = src[j, 2] + lift
        radii[k], ok_all[k], kind[k] = r, live[j], what
    is_player = kind == PLAYER
    eyes = pos.copy()
    eyes[:, 2] += eye_height
    for i in shooters:
        if ammo[i] <= 0:
            if not dry[i]:
                put(ev, evx, evn, DRY_FIRE, sub, i, -1, -1, 0.0)
                dry[i] = True
            continue
        ammo[i] -= 1
        cooldown[i] = interval
        ok = ok_all.copy()
        ok[i] = False
        if not friendly_fire:
            for j in range(n):
                ok[j] = ok[j] and team[j] != team[i]
        shot_yaw = yaw[i] + rng.normal(0.0, spread)
        shot_pitch = pitch[i] + rng.normal(0.0, spread)
        hit, aimed = resolve_shot(eyes[i], shot_yaw, shot_pitch, yaw[i], pitch[i], points, radii, ok, is_player,
                                  hit_cone, aim_window, max_range, boxes, kinds)
        if hit >= 0 and kind[hit] == PLAYER:
            aimed = hit  # a player who is hit was, by definition, shot at
        put(ev, evx, evn, SHOT, sub, i, aimed, kind[hit] if hit >= 0 else -1, 0.0)
        if hit < 0:
            continue
        if kind[hit] == PLAYER:
            put(ev, evx, evn, HIT, sub, i, hit, -1, damage)
            damage_player(health, alive, death_time, vel_z, hit, damage, CAUSE_PLAYER, i, now, sub, ev, evx, evn)
            ok_all[hit] = alive[hit]
        elif kind[hit] == TURRET:
            t = hit - n
            t_health[t] = max(0.0, t_health[t] - damage)
            put(ev, evx, evn, TURRET_HIT, sub, i, t, -1, damage)
            if t_health[t] <= 0:
                t_alive[t] = False
                t_target[t] = -1
                ok_all[hit] = False
                put(ev, evx, evn, TURRET_DESTROYED, sub, i, t, -1, 0.0)
        else:
            c = hit - n - t_count
            c_alive[c] = False
            c_respawn[c] = chicken_respawn
            ok_all[hit] = False
            put(ev, evx, evn, CHICKEN_SHOT, sub, i, c, -1, 0.0)


class Guns:
    """The weapon's rules as the compiled `fire` takes them."""

    def __init__(self, rules: Rules) -> None:
        w = rules.weapon
        self.values = (float(w.fire_interval_s), float(w.damage), float(w.range_m), math.radians(float(w.spread_deg)),
                       math.radians(float(w.hit_cone_deg)), math.radians(float(w.aim_window_deg)),
                       bool(w.friendly_fire), float(rules.chickens.respawn_s))
