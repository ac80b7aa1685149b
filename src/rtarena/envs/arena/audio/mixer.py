"""The spatial mixer: every listener's stereo waveform from the step's sound sources, compiled.

For each listener and source: the distance gives the gain (`loudness / max(d, 1 m)`) and the
propagation delay (`d / 343 m/s`); the direction relative to the listener's heading gives the pan
(constant power, a source on the left is louder in the left ear), a little head shadow for sources
behind, and the interaural time difference (Woodworth's formula, up to about 0.66 ms: a source on the
left reaches the right ear later). Each listener owns a buffer longer than a step, so a sound that
starts near the end of a step, or arrives late from far away, carries into the next steps.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from numba import njit

HEAD_RADIUS_M = 0.0875
SPEED_OF_SOUND_M_S = 343.0
PAN_WIDTH = 0.8
MIX_GAIN_FLOOR = 0.004  # sources quieter than this at the listener are not mixed (-48 dB)


@njit(cache=True, nogil=True)
def mix_range(bank, starts, lengths, sources, listeners, buffers, t0_s, sample_rate, start, stop):
    """Add every source into the buffers of listeners `start..stop`.

    `sources` rows: kind, x, y, z, emission time (s), loudness, emitter; `listeners` rows: x, y, z, yaw,
    own player index; `buffers` (N, 2, L) float32, sample 0 at sim time `t0_s`."""
    L = buffers.shape[2]
    for i in range(start, stop):
        lx = listeners[i, 0]
        ly = listeners[i, 1]
        lz = listeners[i, 2]
        yaw = listeners[i, 3]
        me = int(listeners[i, 4])
        for s in range(sources.shape[0]):
            kind = int(sources[s, 0])
            dx = sources[s, 1] - lx
            dy = sources[s, 2] - ly
            dz = sources[s, 3] - lz
            own = int(sources[s, 6]) == me and me >= 0
            if own:
                d = 0.0
                az = 0.0
            else:
                d = math.sqrt(dx * dx + dy * dy + dz * dz)
                az = math.atan2(dy, dx) - yaw  # positive: to the left
            gain = sources[s, 5] / max(d, 1.0)
            if gain < MIX_GAIN_FLOOR:
                continue
            lateral = math.asin(math.sin(az))  # -pi/2 (right) .. pi/2 (left)
            itd = HEAD_RADIUS_M / SPEED_OF_SOUND_M_S * (lateral + math.sin(lateral))
            # -0.8 (fully left) .. 0.8: the far ear still hears a source at 90 degrees, 16 dB quieter
            pan = -PAN_WIDTH * math.sin(az)
            shadow = 0.85 + 0.15 * math.cos(az)
            g_left = gain * shadow * math.cos((pan + 1.0) * math.pi / 4.0)
            g_right = gain * shadow * math.sin((pan + 1.0) * math.pi / 4.0)
            delay = (sources[s, 4] - t0_s) + d / SPEED_OF_SOUND_M_S
            base = round(max(delay, 0.0) * sample_rate)
            off_left = base + (round(-itd * sample_rate) if itd < 0 else 0)
            off_right = base + (round(itd * sample_rate) if itd > 0 else 0)
            st = starts[kind]
            n = lengths[kind]
            for k in range(n):
                v = bank[st + k]
                a = off_left + k
                if a < L:
                    buffers[i, 0, a] += g_left * v
                b = off_right + k
                if b < L:
                    buffers[i, 1, b] += g_right * v


class SpatialMixer:
    """Per-listener stereo buffers that carry sounds over step boundaries."""

    def __init__(self, listeners: int, sample_rate: int, step_samples: int, tail_s: float = 1.5) -> None:
        from rtarena.envs.arena.audio.synth import sound_bank

        self.sample_rate = int(sample_rate)
        self.step_samples = int(step_samples)
        self.bank, self.starts, self.lengths = sound_bank(self.sample_rate)
        length = self.step_samples + math.ceil(tail_s * self.sample_rate) + int(self.lengths.max())
        self.buffers = np.zeros((listeners, 2, length), dtype=np.float32)

    def step(self, sources: np.ndarray, listeners: np.ndarray, t0_s: float, pool=None,
             threads: int = 1) -> np.ndarray:
        """Mix one step and return it as (N, step_samples, 2) float32 in [-1, 1]; the rest carries on."""
        n = len(listeners)
        sources = np.ascontiguousarray(sources, dtype=np.float64)
        listeners = np.ascontiguousarray(listeners, dtype=np.float64)
        if len(sources):
            if pool is None or n < 2 * threads:
                mix_range(self.bank, self.starts, self.lengths, sources, listeners, self.buffers, t0_s,
                          self.sample_rate, 0, n)
            else:
                bounds = np.linspace(0, n, threads + 1).astype(int)
                futures = [pool.submit(mix_range, self.bank, self.starts, self.lengths, sources, listeners,
                                       self.buffers, t0_s, self.sample_rate, int(a), int(b))
                           for a, b in itertools.pairwise(bounds) if b > a]
                for future in futures:
                    future.result()
        m = self.step_samples
        out = np.clip(self.buffers[:, :, :m], -1.0, 1.0).transpose(0, 2, 1).copy()
        self.buffers[:, :, :-m] = self.buffers[:, :, m:]
        self.buffers[:, :, -m:] = 0.0
        return out

    def clear(self) -> None:
        self.buffers[:] = 0.0
