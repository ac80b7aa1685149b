"""The arena's sense of hearing: a stereo waveform per agent and step, and the same sounds in words.

Importing this package registers the `audio` observation modality: `obs=("audio", ...)` gives each
agent a `(samples, 2)` float32 array in [-1, 1] (left, right) covering the step just simulated, at
`sample_rate` (16 kHz by default; `samples = round(dt * sample_rate)`). See `sources.py` for what makes
a sound and `mixer.py` for how it is placed in space.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
from gymnasium import spaces

from rtarena.envs.arena.audio.mixer import SpatialMixer
from rtarena.envs.arena.audio.sources import SOUND_KINDS, Hearing, SoundSource, heard_line, hearing_of, source_table
from rtarena.envs.arena.observations import register_modality
from rtarena.envs.arena.render.renderer import default_threads
from rtarena.errors import UserError

DEFAULT_SAMPLE_RATE = 16000


def sample_rate_of(env: Any) -> int:
    rate = env.sense_options["sample_rate"]
    if not isinstance(rate, (int, np.integer)) or not 4000 <= int(rate) <= 96000:
        raise UserError(f"sample_rate must be an integer from 4000 to 96000 Hz, got {rate!r}", field="sample_rate")
    return int(rate)


class AudioObservation:
    """`audio`: the stereo sound each agent heard during the step, `(round(dt * rate), 2)` float32."""

    def __init__(self, env: Any) -> None:
        self.env = env
        self.sample_rate = sample_rate_of(env)
        self.samples = max(1, round(env.dt * self.sample_rate))
        self.space = spaces.Box(-1.0, 1.0, shape=(self.samples, 2), dtype=np.float32)
        self._mixer: SpatialMixer | None = None
        self._world_id: int | None = None
        self._out = np.zeros((0, self.samples, 2), dtype=np.float32)
        threads = env.sense_options["render_threads"]
        self.threads = int(threads) if threads else default_threads()
        self._pool: ThreadPoolExecutor | None = None  # listeners are mixed in parallel (compiled, GIL-free)

    def prepare(self) -> None:
        env, world = self.env, self.env.world
        p = world.players
        hearing = hearing_of(env)
        if self._mixer is None or self._world_id != id(world) or self._mixer.buffers.shape[0] != len(p):
            self._mixer = SpatialMixer(len(p), self.sample_rate, self.samples)
            self._world_id = id(world)
        listeners = np.zeros((len(p), 5))
        listeners[:, :2] = p.pos[:, :2]
        listeners[:, 2] = p.pos[:, 2] + p.eye_height_m
        listeners[:, 3] = p.yaw
        listeners[:, 4] = np.arange(len(p))
        if hearing.t1_s <= hearing.t0_s:  # a reset: silence
            self._mixer.clear()
            self._out = np.zeros((len(p), self.samples, 2), dtype=np.float32)
            return
        if self._pool is None and self.threads > 1 and len(p) >= 8:
            self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="arena-audio")
        self._out = self._mixer.step(source_table(hearing.sources), listeners, hearing.t0_s, self._pool,
                                     self.threads)

    def build(self, i: int) -> np.ndarray:
        return self._out[i]


register_modality("audio", AudioObservation)

__all__ = ["SOUND_KINDS", "AudioObservation", "Hearing", "SoundSource", "SpatialMixer", "heard_line", "hearing_of"]
