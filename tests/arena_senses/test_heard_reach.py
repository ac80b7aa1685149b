"""Who hears what: the compiled `Hearing.heard` (issue 19) says exactly what the Python loop said, also
for sources right at the edge of hearing, on top of each other, or repeated by one emitter."""

from __future__ import annotations

import math

import numpy as np

from rtarena.envs.arena.audio.sources import AUDIBLE_GAIN, LOUDNESS, Hearing, SoundSource
from rtarena.envs.arena.levels import CoopLevel


def _heard_in_python(hearing: Hearing, world, i: int) -> list[tuple[str, float, float]]:
    """`heard` as it was in Python before issue 19, the reference the compiled one must match exactly."""
    p = world.players
    x, y, yaw = float(p.pos[i, 0]), float(p.pos[i, 1]), float(p.yaw[i])
    best = {}
    for k, src in enumerate(hearing.sources):
        d = math.hypot(src.x - x, src.y - y)
        loud = src.loudness / max(d, 1.0)
        if src.emitter != i and loud >= AUDIBLE_GAIN:
            turn = (math.atan2(src.y - y, src.x - x) - yaw + math.pi) % (2 * math.pi) - math.pi
            key = (src.kind, src.emitter, k if src.emitter < 0 else -1)
            if key not in best or loud > best[key][0]:
                best[key] = (loud, src.kind, turn, d)
    return [(kind, turn, d) for _loud, kind, turn, d in sorted(best.values(), key=lambda v: -v[0])]


def _heard_as_in_python(seed: int, make_sources) -> list[list[tuple[str, float, float]]]:
    """What 12 players of a level hear from `make_sources(rng, world)`; asserts it is the Python loop's."""
    env = CoopLevel(num_agents=12, obs=("state",))
    env.reset(seed=seed)
    hearing = Hearing()
    hearing.update(env.world, [], env.possible_agents)
    hearing.sources = make_sources(np.random.default_rng(seed), env.world)
    hearing._heard = None
    heard = [hearing.heard(env.world, i) for i in range(12)]
    assert heard == [_heard_in_python(hearing, env.world, i) for i in range(12)]
    return heard


def test_sources_at_the_edge_of_hearing_are_heard_as_in_python():
    def around_player_0(rng, world):
        x0, y0 = world.players.pos[0, :2]
        out = []
        for kind, loud in LOUDNESS.items():
            edge = loud / AUDIBLE_GAIN  # audible up to here
            for d in (0.0, 0.5, 1.0, edge * (1 - 1e-15), edge, edge * (1 + 1e-15), edge + 1e-9, edge * 1.01, 150.0):
                a = rng.uniform(-math.pi, math.pi)
                out.append(SoundSource(kind, x0 + d * math.cos(a), y0 + d * math.sin(a), 1.0, 0.0,
                                       int(rng.integers(-1, 12))))
        return out

    heard = _heard_as_in_python(2, around_player_0)
    assert 0 < len(heard[0]) < 9 * len(LOUDNESS)  # some heard, some too far


def test_a_crowded_firefight_is_heard_as_in_python():
    def crowd(rng, world):
        kinds = list(LOUDNESS)
        spots = rng.uniform(0, 100, (40, 2))  # shared spots: equal distances, so ties in loudness
        return [SoundSource(kinds[int(rng.integers(len(kinds)))], *spots[int(rng.integers(40))], 1.0, 0.0,
                            int(rng.integers(-1, 12))) for _ in range(400)]

    heard = _heard_as_in_python(3, crowd)
    assert min(len(h) for h in heard) > 10
