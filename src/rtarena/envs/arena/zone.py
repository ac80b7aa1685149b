"""The toxic zone: a circle around the arena's centre that shrinks in stages and hurts whoever is outside.

Stage s (0 .. stages-1) starts at `first_shrink_s + s * shrink_every_s` and shrinks the radius linearly over
`shrink_duration_s`, from `start + (end - start) * s / stages` to `start + (end - start) * (s + 1) / stages`.
A living player whose distance from the centre (in the floor plane) exceeds the radius loses
`damage_per_s` hit points per second.
"""

from __future__ import annotations

import numpy as np

from rtarena.envs.arena.combat import damage_player
from rtarena.envs.arena.events import CAUSE_ZONE
from rtarena.envs.arena.kernel_cache import kernel
from rtarena.envs.arena.rules import Rules
from rtarena.envs.arena.world import World


class ZoneSchedule:
    """The zone radius as a function of sim time, and the next shrink."""

    def __init__(self, rules: Rules) -> None:
        z = rules.toxic_zone
        self.start, self.end = float(z.start_radius_m), float(z.end_radius_m)
        self.first, self.every = float(z.first_shrink_s), float(z.shrink_every_s)
        self.duration, self.stages = float(z.shrink_duration_s), max(1, int(z.stages))
        self.damage_per_s = float(z.damage_per_s)

    def stage_radius(self, s: int) -> float:
        return self.start + (self.end - self.start) * min(s, self.stages) / self.stages

    def radius(self, t: float) -> float:
        if t < self.first:
            return self.start
        s = min(int((t - self.first) // self.every), self.stages - 1)
        into = t - (self.first + s * self.every)
        frac = min(1.0, into / self.duration) if self.duration > 0 else 1.0
        return self.stage_radius(s) + (self.stage_radius(s + 1) - self.stage_radius(s)) * frac

    def next_shrink(self, t: float) -> tuple[float, float]:
        """(start time, final radius) of the shrink in progress or the next one; (inf, end) when done."""
        for s in range(self.stages):
            begins = self.first + s * self.every
            if t < begins + self.duration:
                return begins, self.stage_radius(s + 1)
        return float("inf"), self.end

    def update(self, world: World, t: float | None = None) -> None:
        """The zone as it is at sim time `t` (default: the world's)."""
        t = world.time_s if t is None else t
        zone = world.zone
        zone.radius_m = self.radius(t)
        zone.next_shrink_s, zone.target_radius_m = self.next_shrink(t)

@kernel
def zone_substep(pos, alive, health, death_time, vel_z, center, radius_sq, damage, now, sub, taken, ev, evx, evn):
    """Damage everyone outside the zone by `damage` (per sub-step); `taken` accumulates each player's zone
    damage (the step's `zone_damage` events are made from it)."""
    outside = np.zeros(pos.shape[0], dtype=np.bool_)
    for i in range(pos.shape[0]):
        dx, dy = pos[i, 0] - center[0], pos[i, 1] - center[1]
        outside[i] = alive[i] and dx * dx + dy * dy > radius_sq
    for i in np.flatnonzero(outside):
        amount = min(damage, health[i])
        taken[i] += amount
        damage_player(health, alive, death_time, vel_z, i, amount, CAUSE_ZONE, -1, now, sub, ev, evx, evn)


def outside(world: World, xy: np.ndarray) -> np.ndarray:
    return np.hypot(*(np.atleast_2d(xy) - world.zone.center).T) > world.zone.radius_m
