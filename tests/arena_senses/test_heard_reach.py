"""Who hears what: skipping far sources (`Hearing._within_reach`, issue 19) changes no word of the text,
also for sources right at the edge of hearing."""

from __future__ import annotations

import math

import numpy as np

from rtarena.envs.arena.audio.sources import AUDIBLE_GAIN, LOUDNESS, Hearing, SoundSource
from rtarena.envs.arena.levels import CoopLevel


def _heard_by_every_source(hearing: Hearing, world, i: int) -> list[tuple[str, float, float]]:
    """`heard` as before issue 19: the exact test run on every source but the listener's own."""
    every = Hearing()
    every.sources = hearing.sources
    every._within_reach = lambda x, y, me: [k for k, s in enumerate(every.sources) if s.emitter != me]
    return every.heard(world, i)


def test_far_sources_are_skipped_without_changing_what_is_heard():
    env = CoopLevel(num_agents=12, obs=("state",))
    env.reset(seed=2)
    world = env.world
    hearing = Hearing()
    hearing.update(world, [], env.possible_agents)
    rng = np.random.default_rng(2)
    x0, y0 = world.players.pos[0, :2]
    sources = []
    for kind, loud in LOUDNESS.items():
        edge = loud / AUDIBLE_GAIN  # audible up to here
        for d in (0.0, 0.5, 1.0, edge * (1 - 1e-15), edge, edge * (1 + 1e-15), edge + 1e-9, edge * 1.01, 150.0):
            a = rng.uniform(-math.pi, math.pi)
            sources.append(SoundSource(kind, x0 + d * math.cos(a), y0 + d * math.sin(a), 1.0, 0.0,
                                       int(rng.integers(-1, 12))))
    hearing.sources = sources
    hearing._reach = None
    heard = [hearing.heard(world, i) for i in range(12)]
    assert heard == [_heard_by_every_source(hearing, world, i) for i in range(12)]
    assert 0 < len(heard[0]) < len(sources)  # some heard, some too far
