"""Where sounds come from: each step's sound sources, derived from the world's events and motion.

A `SoundSource` is a kind of sound (`SOUND_KINDS`), where it was emitted and when (sim seconds).
Events give gunshots, dry clicks, hits, pickups, turret locks, fire and destruction, and shot
chickens; motion gives footsteps (one per stride of a player walking on the ground) and chicken clucks
(every chicken clucks now and then, on its own rhythm). `Hearing` keeps what it needs from one step to
the next (where players were, how far they walked), and says in words what each player heard:
"gunshot 35 deg left, about 12 m".
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from rtarena.envs.arena.kernel_cache import kernel
from rtarena.envs.arena.pymath import py_hypot

SOUND_KINDS = ("gunshot", "dry_fire", "footstep", "coin", "ammo", "turret_lock", "turret_fire", "hit",
               "hit_metal", "explosion", "chicken", "squawk")
KIND_INDEX = {name: i for i, name in enumerate(SOUND_KINDS)}
# Loudness at 1 m (linear amplitude); the gain at distance d is loudness / max(d, 1).
LOUDNESS = {"gunshot": 1.0, "dry_fire": 0.25, "footstep": 0.3, "coin": 0.45, "ammo": 0.45, "turret_lock": 0.6,
            "turret_fire": 1.0, "hit": 0.6, "hit_metal": 0.7, "explosion": 1.0, "chicken": 0.35, "squawk": 0.6}
# A sound is heard (and said in the text) when its gain is above this (40 dB below a gunshot at 1 m).
AUDIBLE_GAIN = 0.01
STRIDE_M = 1.5
CLUCK_EVERY_S = 2.7
SPEED_OF_SOUND_M_S = 343.0


@dataclass(frozen=True)
class SoundSource:
    kind: str
    x: float
    y: float
    z: float
    t_s: float  # sim time of emission
    emitter: int = -1  # the player who made it (-1: not a player)

    @property
    def loudness(self) -> float:
        return LOUDNESS[self.kind]


def source_table(sources: Sequence[SoundSource]) -> np.ndarray:
    """(S, 7) float64: kind index, x, y, z, emission time, loudness, emitter (for the compiled mixer)."""
    table = np.zeros((len(sources), 7), dtype=np.float64)
    for k, s in enumerate(sources):
        table[k] = (KIND_INDEX[s.kind], s.x, s.y, s.z, s.t_s, s.loudness, s.emitter)
    return table


class Hearing:
    """Turns each step of a world into sound sources; create one per env and call `update` every step."""

    def __init__(self) -> None:
        # the world it follows: a reference, not an id, so that a copy of the env (deepcopy, pickle) follows
        # its own copy of the world and keeps the sounds still ringing
        self._world: Any = None
        self.sources: list[SoundSource] = []
        self._heard: tuple[np.ndarray, ...] | None = None  # every player's `heard`, worked out on first use
        self.t0_s = 0.0
        self.t1_s = 0.0

    def reset(self, world) -> None:
        self._world = world
        p = world.players
        self._last_pos = p.pos[:, :2].copy()
        self._walked = np.zeros(len(p))
        self._last_t = float(world.time_s)
        self.sources = []
        self._heard = None
        self.t0_s = self.t1_s = float(world.time_s)

    def update(self, world, events: Iterable[dict], names: Sequence[str]) -> list[SoundSource]:
        """The sources emitted since the previous update (the step just simulated)."""
        if self._world is not world or float(world.time_s) < self._last_t:
            self.reset(world)
            return self.sources
        t0, t1 = self._last_t, float(world.time_s)
        index = {name: i for i, name in enumerate(names)}
        out = [*self._from_events(world, events, index), *self._footsteps(world, t0, t1),
               *self._clucks(world, t0, t1)]
        out.sort(key=lambda s: s.t_s)
        self.sources, self.t0_s, self.t1_s, self._last_t = out, t0, t1, t1
        self._heard = None
        return out

    def _from_events(self, world, events, index) -> list[SoundSource]:
        p, tu, ch = world.players, world.turrets, world.chickens
        eye = p.eye_height_m
        out = []

        def at_player(kind: str, name, t: float, dz: float = eye) -> None:
            if name in index:
                i = index[name]
                out.append(SoundSource(kind, float(p.pos[i, 0]), float(p.pos[i, 1]), float(p.pos[i, 2]) + dz, t, i))

        def at_turret(kind: str, j, t: float) -> None:
            j = int(j)
            if 0 <= j < len(tu.pos):
                out.append(SoundSource(kind, float(tu.pos[j, 0]), float(tu.pos[j, 1]), float(tu.barrel_height_m), t))

        for e in events:
            kind, t = e.get("type"), float(e.get("t_s", world.time_s))
            if kind == "shot":
                at_player("gunshot", e.get("shooter"), t)
            elif kind == "dry_fire":
                at_player("dry_fire", e.get("agent"), t)
            elif kind in ("hit", "turret_shell_hit"):
                at_player("hit", e.get("target"), t, 1.2)
            elif kind == "turret_hit":
                at_turret("hit_metal", e.get("turret"), t)
            elif kind == "turret_destroyed":
                at_turret("explosion", e.get("turret"), t)
            elif kind == "turret_lock":
                at_turret("turret_lock", e.get("turret"), t)
            elif kind == "turret_fire":
                at_turret("turret_fire", e.get("turret"), t)
            elif kind == "coin":
                at_player("coin", e.get("agent"), t, 0.5)
            elif kind == "ammo_pickup":
                at_player("ammo", e.get("agent"), t, 0.5)
            elif kind == "chicken_shot":
                j = int(e.get("chicken", -1))
                if 0 <= j < len(ch.pos):
                    out.append(SoundSource("squawk", float(ch.pos[j, 0]), float(ch.pos[j, 1]), 0.4, t))
        return out

    def _footsteps(self, world, t0: float, t1: float) -> list[SoundSource]:
        p = world.players
        pos = p.pos[:, :2]
        moved = np.hypot(*(pos - self._last_pos).T)
        moved[~p.alive | ~p.on_ground | (moved > 5.0 * max(t1 - t0, 1e-9) * 4)] = 0.0  # no teleports
        before = self._walked.copy()
        self._walked += moved
        self._last_pos = pos.copy()
        out = []
        for i in np.flatnonzero(np.floor(self._walked / STRIDE_M) > np.floor(before / STRIDE_M)):
            first = (math.floor(before[i] / STRIDE_M) + 1) * STRIDE_M
            for k in range(int(self._walked[i] // STRIDE_M - before[i] // STRIDE_M)):
                frac = (first + k * STRIDE_M - before[i]) / max(moved[i], 1e-9)
                out.append(SoundSource("footstep", float(pos[i, 0]), float(pos[i, 1]), float(p.pos[i, 2]),
                                       t0 + min(max(frac, 0.0), 1.0) * (t1 - t0), int(i)))
        return out

    def _clucks(self, world, t0: float, t1: float) -> list[SoundSource]:
        ch = world.chickens
        out = []
        for j in np.flatnonzero(ch.alive):
            phase = (j * 0.61803) % 1.0 * CLUCK_EVERY_S
            k0 = math.floor((t0 + phase) / CLUCK_EVERY_S)
            k1 = math.floor((t1 + phase) / CLUCK_EVERY_S)
            for k in range(k0 + 1, k1 + 1):
                out.append(SoundSource("chicken", float(ch.pos[j, 0]), float(ch.pos[j, 1]), 0.4,
                                       k * CLUCK_EVERY_S - phase))
        return out

    # -- words ------------------------------------------------------------------------------------
    def heard(self, world, i: int, limit: int | None = None) -> list[tuple[str, float, float]]:
        """What player i heard this step from others: (kind, bearing in radians, + left; distance m),
        loudest first, one entry per kind and emitter (the first `limit` of them). Worked out for every
        player at once on first use (a Python loop over every source for every listener was most of a
        512-player text step, issue 19)."""
        gain, kind, bearing, dist, count = self._heard_by_all(world)
        c = int(count[i])
        order = np.argsort(-gain[i, :c], kind="stable")[:limit]  # loudest first, ties in order first heard
        return [(SOUND_KINDS[k], b, d) for k, b, d in zip(kind[i, order].tolist(), bearing[i, order].tolist(),
                                                          dist[i, order].tolist(), strict=True)]

    def _heard_by_all(self, world) -> tuple[np.ndarray, ...]:
        if self._heard is None:
            p = world.players
            table = source_table(self.sources)
            emitters = table[:, 6].astype(np.int64)
            players = max(len(p), int(emitters.max(initial=0)) + 1)
            self._heard = _heard_all(table[:, 1].copy(), table[:, 2].copy(), table[:, 0].astype(np.int64),
                                     table[:, 5].copy(), emitters, p.pos[:, 0].copy(), p.pos[:, 1].copy(),
                                     p.yaw.astype(np.float64), len(SOUND_KINDS), players)
        return self._heard

    def describe(self, world, i: int, limit: int = 6) -> str:
        """One line for the text observation, e.g. `Heard: gunshot, 35 deg left, about 12 m.`"""
        heard = self.heard(world, i, limit)
        if not heard:
            return "Heard: nothing."
        parts = [f"{kind.replace('_', ' ')}, {_bearing_words(b)}, about {_round_m(d)} m" for kind, b, d in heard]
        total = int(self._heard_by_all(world)[4][i])
        more = f" (and {total - limit} more)" if total > limit else ""
        return "Heard: " + "; ".join(parts) + more + "."


@kernel
def _heard_all(xs, ys, kinds, loudness, emitters, px, py, yaws, n_kinds, n_emitters):
    """Per listener, what it hears, in order of first hearing: gains, kinds, bearings, distances, and how
    many. The Python rules of `heard` compiled: CPython's own `hypot` (`pymath.py`), the C library's
    `atan2` (which Python's `math.atan2` is), Python's float `%`; one entry per kind and emitter (its
    loudest), every non-player sound on its own."""
    n, m = px.shape[0], xs.shape[0]
    gain = np.zeros((n, m))
    kind = np.zeros((n, m), dtype=np.int64)
    bearing = np.zeros((n, m))
    dist = np.zeros((n, m))
    count = np.zeros(n, dtype=np.int64)
    slot = np.zeros(n_kinds * n_emitters, dtype=np.int64)
    owner = np.full(n_kinds * n_emitters, -1, dtype=np.int64)  # the listener a slot entry belongs to
    for i in range(n):
        x, y, yaw = px[i], py[i], yaws[i]
        c = 0
        for k in range(m):
            e = emitters[k]
            if e == i:
                continue
            d = py_hypot(xs[k] - x, ys[k] - y)
            g = loudness[k] / max(d, 1.0)
            if g < AUDIBLE_GAIN:
                continue
            b = (math.atan2(ys[k] - y, xs[k] - x) - yaw + math.pi) % (2 * math.pi) - math.pi
            at = c
            if e >= 0:
                key = kinds[k] * n_emitters + e
                if owner[key] == i:
                    at = slot[key]
                    if not g > gain[i, at]:
                        continue
                else:
                    owner[key], slot[key] = i, c
            gain[i, at], kind[i, at], bearing[i, at], dist[i, at] = g, kinds[k], b, d
            if at == c:
                c += 1
        count[i] = c
    return gain, kind, bearing, dist, count


def _bearing_words(bearing: float) -> str:
    deg = math.degrees(bearing)
    if abs(deg) < 5:
        return "ahead"
    if abs(deg) > 175:
        return "behind"
    return f"{abs(deg):.0f} deg {'left' if deg > 0 else 'right'}"


def _round_m(d: float) -> int:
    return max(1, round(d)) if d < 20 else 5 * round(d / 5)


def hearing_of(env) -> Hearing:
    """The env's `Hearing`, brought up to date with its latest step (once per step, however often
    asked): the audio and text observations share it."""
    hearing = env.__dict__.get("_hearing")
    if hearing is None:
        hearing = env.__dict__["_hearing"] = Hearing()
    world, now = env.world, float(env.world.time_s)
    if hearing._world is not world or env.__dict__.get("_hearing_t") != now:
        env.__dict__["_hearing_t"] = now
        hearing.update(world, env.log.step, env.possible_agents)
    return hearing


def heard_line(env, i: int) -> str:
    """The text observation's line about sounds for player i."""
    return hearing_of(env).describe(env.world, i)
