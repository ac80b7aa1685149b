"""The world simulation of one env step in one compiled call: every sub-step of movement, shots, turrets and
their shells, chickens, pickups and the toxic zone (issue 19: the Python loop around twenty small calls per
sub-step cost more than the renderer).

The rules stay where they were: each subsystem's module holds its compiled sub-step (`physics.move_players`,
`combat.fire`, `turret.turret_substep`, `chickens.flock_substep`, `pickups.pickup_substep`,
`zone.zone_substep`) and a small class turning its table of the level's rules into the numbers the kernel
takes. `simulate` runs them in the order the env always did. Randomness comes from the env's own numpy
`Generator`, drawn inside the kernel in the same order and by the same algorithms as before, and events
come back as rows that `events.decode` turns into the same records, so a seed gives byte-identical
matches (`tests/arena_perf/test_golden_records.py`). What is cheaper in Python stays there: the sub-step
clock (`round(t + h, 9)`), the zone radius schedule and the relocation times, worked out per step.
"""

from __future__ import annotations

import numpy as np
from numba.core import types
from numba.core.extending import overload
from numba.experimental import structref

from rtarena.envs.arena.chickens import DRAW_BLOCK as CHICKEN_BLOCK
from rtarena.envs.arena.chickens import Flock, flock_substep
from rtarena.envs.arena.combat import Guns, fire
from rtarena.envs.arena.events import EventLog, decode
from rtarena.envs.arena.kernel_cache import kernel
from rtarena.envs.arena.physics import commands, move_players
from rtarena.envs.arena.pickups import Pickups, pickup_substep
from rtarena.envs.arena.random_state import Handle, generator
from rtarena.envs.arena.rules import Rules
from rtarena.envs.arena.turret import DRAW_BLOCK as TURRET_BLOCK
from rtarena.envs.arena.turret import TurretSystem, turret_substep
from rtarena.envs.arena.world import Projectiles, World
from rtarena.envs.arena.zone import ZoneSchedule, zone_substep

ACTION_TOP = np.array([2, 2, 2, 2, 1, 1, 1])  # the largest value of each action (`env.ACTION_NVEC` - 1)
FIRE, MINIMAP = 4, 6  # indices in `env.ACTION_NAMES`
PLANS_KEPT = 10_000  # sub-step schedules remembered (one per distinct step start time; about 1 KB each)


@kernel
def read_actions(acts, alive, minimap_open):
    """Clip each action to its range (`ACTION_TOP`), zero the dead players' and note who opens the minimap."""
    for i in range(acts.shape[0]):
        for k in range(acts.shape[1]):
            acts[i, k] = min(max(acts[i, k], 0), ACTION_TOP[k]) if alive[i] else 0
        minimap_open[i] = acts[i, MINIMAP] == 1 and alive[i]


@structref.register
class HeldType(types.StructRef):
    """numba's type of a `Held`: one field, `values`, typed as the tuple it holds."""

    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(typ)) for name, typ in fields)


class Held(structref.StructRefProxy):
    """A tuple of arrays held by one compiled object: a kernel takes it in one unboxing instead of one per
    array (the fifty-odd arrays of a world cost 3 us a call as tuples, 0.7 us held; issue 19). The arrays
    are the originals, not copies, so changes made in place on either side are seen on the other."""


structref.define_boxing(HeldType, Held)


def _hold(values):
    pass


@overload(_hold)
def _hold_impl(values):
    held = HeldType([("values", values)])

    def impl(values):
        out = structref.new(held)
        out.values = values
        return out
    return impl


@kernel
def hold(values):
    """`values` (a tuple) as a `Held`."""
    return _hold(values)


@kernel
def simulate(times, radius_sq, relocate, h, acts, held, motion, size, shells, zone, taken, dry, rng_pointers, ev, evx,
             evn):
    """Every sub-step of one env step (`times[s]` is the sim time sub-step s starts at; `held` holds the world's
    arrays and the rules' numbers, see `Simulation._new_world`; `rng_pointers` are the env's `Generator`, see
    `random_state.py`)."""
    pl, ps, boxes, kinds, tu, t_draws, tv, gun, ch, c_draws, fv, chicken_areas, pk, ammo_areas, pv = held.values
    rng = generator(rng_pointers)
    read_actions(acts, pl[5], pl[11])
    move, turn, tilt, jump = commands(acts)
    wants = acts[:, FIRE] == 1
    any_fire = wants.any()
    pos, vel_z, yaw, pitch, on_ground, alive, team, health, ammo, cooldown, death_time, _ = pl
    radius, height, eye_height, ammo_max, turret_radius, turret_height, chicken_radius = ps
    speed, turn_rate, pitch_rate, pitch_limit, jump_speed, gravity = motion
    t_pos, muzzles, barrel_yaw, t_health, t_alive, target, t_cooldown, wander_rate, wander_in, last_feet, fresh = tu
    c_pos, c_yaw, c_alive, c_respawn, c_turn_in = ch
    coin_pos, coin_active, box_pos, box_active, box_respawn = pk
    zone_on, center, zone_damage = zone
    for sub in range(times.shape[0]):
        now = times[sub]
        move_players(pos, vel_z, yaw, pitch, on_ground, alive, move, turn, tilt, jump, boxes, kinds, radius, height,
                     speed, turn_rate, pitch_rate, pitch_limit, jump_speed, gravity, h)
        if any_fire:
            fire(wants, pos, yaw, pitch, team, health, alive, ammo, cooldown, death_time, vel_z, dry, t_pos, t_health,
                 t_alive, target, c_pos, c_alive, c_respawn, boxes, kinds, rng, radius, height, eye_height,
                 turret_radius, turret_height, chicken_radius, gun, now, sub, ev, evx, evn)
        for i in range(cooldown.shape[0]):
            cooldown[i] = max(cooldown[i] - h, 0.0)
        if t_pos.shape[0]:
            turret_substep(pos, alive, health, death_time, vel_z, height, eye_height, radius, t_pos, muzzles,
                           barrel_yaw, t_alive, target, t_cooldown, wander_rate, wander_in, last_feet, fresh, t_draws,
                           shells, rng, boxes, kinds, tv, h, now, sub, ev, evx, evn)
        if c_pos.shape[0]:
            flock_substep(c_pos, c_yaw, c_alive, c_respawn, c_turn_in, chicken_radius, c_draws, fv, chicken_areas,
                          size, boxes, pos, alive, rng, h, sub, ev, evx, evn)
        pickup_substep(pos, alive, ammo, ammo_max, coin_pos, coin_active, box_pos, box_active, box_respawn,
                       ammo_areas, size, boxes, relocate[sub], rng, pv, h, sub, ev, evx, evn)
        if zone_on:
            zone_substep(pos, alive, health, death_time, vel_z, center, radius_sq[sub], zone_damage, now, sub, taken,
                         ev, evx, evn)


class Simulation:
    """Runs the world for one env step: the rules as numbers, the state the kernel keeps between steps
    (random-number blocks, remembered feet, shell buffers) and the event buffers."""

    def __init__(self, rules: Rules) -> None:
        self.guns, self.turrets, self.flock = Guns(rules), TurretSystem(rules), Flock(rules)
        self.pickups, self.zone = Pickups(rules), ZoneSchedule(rules)
        self._world: World | None = None
        self._shells_out: Projectiles | None = None
        self._events = (np.zeros((0, 5), np.int64), np.zeros(0))
        self._plans: dict[tuple[float, int, float], tuple] = {}
        self._rng = Handle()  # the env's Generator as the kernel takes it

    def __getstate__(self) -> dict:
        # a `Held` neither pickles nor copies: a copy holds its own world's arrays again on its next step
        return {**self.__dict__, "_held": None}

    def _new_world(self, world: World) -> None:
        """A new episode: the random-number blocks start afresh, turret muzzles are fixed."""
        n, t, k = len(world.players), len(world.turrets.alive), len(world.chickens.alive)
        self._world = world
        self._t_draws = (np.zeros((TURRET_BLOCK, t)), np.zeros((TURRET_BLOCK, t)), np.array([TURRET_BLOCK]))
        self._c_draws = (np.zeros((CHICKEN_BLOCK, k)), np.zeros((CHICKEN_BLOCK, k)), np.array([CHICKEN_BLOCK]))
        self._muzzles = world.turrets.pos.copy()
        self._muzzles[:, 2] += world.turrets.barrel_height_m
        self._last_feet, self._fresh = np.zeros((n, 3)), np.array([True])
        self._shells_out = None
        # The kernel's tuples of the world's arrays, gathered once per world (like the muzzles): its arrays are
        # updated in place, never rebound, and gathering forty-odd attributes every step cost about 2 us.
        p, tu, ch, co, am = world.players, world.turrets, world.chickens, world.coins, world.ammo
        self._pl = (p.pos, p.vel_z, p.yaw, p.pitch, p.on_ground, p.alive, p.team, p.health, p.ammo, p.fire_cooldown_s,
                    p.death_time_s, p.minimap_open)
        self._ps = (p.radius_m, p.height_m, p.eye_height_m, int(p.ammo_max), tu.radius_m, tu.barrel_height_m,
                    ch.radius_m)
        self._tu = (tu.pos, self._muzzles, tu.barrel_yaw, tu.health, tu.alive, tu.target, tu.cooldown_s,
                    tu.wander_rate, tu.wander_in_s, self._last_feet, self._fresh)
        self._ch = (ch.pos, ch.yaw, ch.alive, ch.respawn_in_s, ch.turn_in_s)
        self._pk = (co.pos, co.active, am.pos, am.active, am.respawn_in_s)
        self._held = None  # made on the first step (and again after a copy: see `__getstate__`)
        self._n, self._t_count = n, t
        # event rows a sub-step may raise, beyond two per shell in flight (see `step`)
        self._room_per_sub = 6 * n + 3 * t + k + len(co.active) + 3 * len(am.active)

    def _shell_buffers(self, world: World, room: int) -> tuple[np.ndarray, ...]:
        """Buffers holding the shells in flight, with room for `room` more."""
        s = world.projectiles
        if s is not self._shells_out or len(self._shells[0]) < len(s.ttl_s) + room:
            cap = len(s.ttl_s) + room + 16
            self._shells = (np.zeros((cap, 3)), np.zeros((cap, 3)), np.zeros(cap, np.int64), np.zeros(cap, np.int64),
                            np.zeros(cap), np.array([len(s.ttl_s)]))
            c = len(s.ttl_s)
            for buf, arr in zip(self._shells[:5], (s.pos, s.vel, s.turret, s.target, s.ttl_s), strict=True):
                buf[:c] = arr
        return self._shells

    def step(self, world: World, log: EventLog, rng: np.random.Generator, acts: np.ndarray, substeps: int, h: float,
             motion: tuple) -> np.ndarray:
        """Advance `world` by `substeps` sub-steps of `h` under the `(N, 7)` actions `acts` (clipped and the
        dead players' zeroed in place); events go to `log`. Returns each player's zone damage of the step."""
        if world is not self._world:
            self._new_world(world)
        times, radius_sq, relocate, t_end, zone_now = self._plan(world.time_s, substeps, h)
        shells = self._shell_buffers(world, self._t_count * substeps)
        room = substeps * (self._room_per_sub + 2 * len(shells[4])) + 8
        if len(self._events[1]) < room:
            self._events = (np.zeros((room, 5), np.int64), np.zeros(room))
        ev, evx = self._events
        evn = np.zeros(1, np.int64)
        taken, dry = np.zeros(self._n), np.zeros(self._n, dtype=bool)
        simulate(times, radius_sq, relocate, h, acts, self.held(world), motion, float(world.size_m), shells,
                 self.zone_args(world, h), taken, dry, self._rng.of(rng), ev, evx, evn)
        if evn[0]:
            decode(log, ev[:evn[0]], evx[:evn[0]], times.tolist())
        c = int(shells[5][0])
        if c or len(world.projectiles.ttl_s):
            world.projectiles = Projectiles(*(buf[:c].copy() for buf in shells[:5]))
        self._shells_out = world.projectiles
        world.time_s = t_end
        world.zone.radius_m, world.zone.next_shrink_s, world.zone.target_radius_m = zone_now
        return taken

    def held(self, world: World) -> Held:
        """The `Held` of `world`'s arrays and the rules' numbers that `simulate` takes (made once per world; the
        batched step of `fused.py` keeps one per copy)."""
        if world is not self._world:
            self._new_world(world)
        if self._held is None:
            self._held = hold((self._pl, self._ps, world.obstacles.boxes, world.obstacles.kind, self._tu,
                               self._t_draws, self.turrets.values, self.guns.values, self._ch, self._c_draws,
                               self.flock.values, world.chicken_areas, self._pk, world.ammo_areas, self.pickups.values))
        return self._held

    def zone_args(self, world: World, h: float) -> tuple:
        """`simulate`'s `zone`: whether the toxic zone is on, its centre and its damage per sub-step."""
        zone = world.zone
        return bool(zone.enabled), zone.center, self.zone.damage_per_s * h

    def _plan(self, t: float, substeps: int, h: float) -> tuple:
        """What a step starting at sim time `t` needs that Python computes: the sub-steps' start times
        (`round(t + h, 9)` as the clock always advanced), the zone radius squared at each, whether the ammo
        boxes relocate in each, the end time, and the zone as it stands after the step. Remembered, as
        every episode passes the same times."""
        key = (t, substeps, h)
        plan = self._plans.get(key)
        if plan is None:
            times = []
            for _ in range(substeps):
                times.append(t)
                t = round(t + h, 9)
            z = self.zone
            # before the first shrink the radius is the start radius (most of an episode's first minute)
            radii = [z.start] * substeps if times[-1] < z.first else [z.radius(s) for s in times]
            relocate = [self.pickups.relocates(s, h) for s in times] if self.pickups.relocate_every_s > 0 else []
            plan = (np.array(times), np.array([r ** 2 for r in radii]), np.array(relocate or [False] * substeps), t,
                    (radii[-1], *z.next_shrink(times[-1])))
            if len(self._plans) >= PLANS_KEPT:
                self._plans.clear()
            self._plans[key] = plan
        return plan
