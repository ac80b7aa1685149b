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
MIX_GAIN_FLOOR = 0.01  # sources quieter than this at the listener are not mixed (-40 dB, as in the text)
TAIL_FLOOR = 5e-4  # the part of a sound quieter than this at the listener is not mixed (-66 dB)


@njit(cache=True, nogil=True, fastmath=True, error_model="numpy")
def _add_scaled(out, at, sound, start, n, gain):
    """out[at:at + n] += gain * sound[start:start + n], as a loop the compiler vectorises: indexing two
    slices by the loop counter (never negative) spares the per-index wraparound checks that kept
    `out[at + k]` scalar (5x slower, issue 19)."""
    if n <= 0:
        return
    o = out[at:at + n]
    s = sound[start:start + n]
    for k in range(n):
        o[k] += gain * s[k]


@njit(cache=True, nogil=True, fastmath=True, error_model="numpy")
def _add_ring(out, head, at, sound, start, n, gain):
    """`_add_scaled` at ring position `head + at` (wrapping at the end of `out`): the same sums, sample
    for sample, so the sound is byte-identical to shifting the buffer."""
    if n <= 0:
        return
    size = out.shape[0]
    first = (head + at) % size
    part = min(n, size - first)
    _add_scaled(out, first, sound, start, part, gain)
    _add_scaled(out, 0, sound, start + part, n - part, gain)


@njit(cache=True, nogil=True, fastmath=True, error_model="numpy")
def mix_range(bank, tail, starts, lengths, sources, listeners, buffers, head, t0_s, sample_rate, start, stop):
    """Add every source into the buffers of listeners `start..stop`.

    `sources` rows: kind, x, y, z, emission time (s), loudness, emitter; `listeners` rows: x, y, z, yaw,
    own player index; `buffers` (N, 2, L) float32 rings whose sample 0 (sim time `t0_s`) is at index
    `head`; `tail[k]` the loudest sample from k to the end of its sound (a far, quiet sound is cut where
    its rest is inaudible)."""
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
            # cut the sound where the rest of it stays below the floor at this gain (binary search)
            lo = 0
            hi = n
            while lo < hi:
                mid = (lo + hi) // 2
                if tail[st + mid] * gain < TAIL_FLOOR:
                    hi = mid
                else:
                    lo = mid + 1
            n = lo
            gl = np.float32(g_left)
            gr = np.float32(g_right)
            # clip the lengths to the buffer first
            n_left = min(n, L - off_left)
            n_right = min(n, L - off_right)
            _add_ring(buffers[i, 0], head, off_left, bank, st, n_left, gl)
            _add_ring(buffers[i, 1], head, off_right, bank, st, n_right, gr)


@njit(cache=True, nogil=True, error_model="numpy")
def _take_step(buffers, head, out):
    """Move the step's `out.shape[1]` samples out of the rings from `head` into `out` (N, m, 2), clipped
    to [-1, 1] and interleaved, leaving silence behind. One pass: `np.clip` over the transposed view
    was a third of the audio step at 64 listeners (issue 19); NaN passes through as it does there."""
    size = buffers.shape[2]
    m = out.shape[1]
    first = min(m, size - head)  # the samples before the ring wraps
    for i in range(buffers.shape[0]):
        for ch in range(2):
            _clip_into(buffers[i, ch, head:head + first], out[i, :first, ch])
            _clip_into(buffers[i, ch, :m - first], out[i, first:, ch])


@njit(cache=True, nogil=True, inline="always", error_model="numpy")
def _clip_into(src, dst):
    """dst[k] = src[k] clipped to [-1, 1], then src[k] = 0: slices indexed by the loop counter, so the
    compiler vectorises the loop (as in `_add_scaled`)."""
    for k in range(src.shape[0]):
        x = src[k]
        if x > 1.0:
            x = np.float32(1.0)
        elif x < -1.0:
            x = np.float32(-1.0)
        dst[k] = x
        src[k] = 0.0


class SpatialMixer:
    """Per-listener stereo buffers that carry sounds over step boundaries: rings whose start moves on by a
    step each step, so what still sounds is never copied (it was about 2 MB per step at 64 listeners)."""

    def __init__(self, listeners: int, sample_rate: int, step_samples: int, tail_s: float = 1.5) -> None:
        from rtarena.envs.arena.audio.synth import sound_bank

        self.sample_rate = int(sample_rate)
        self.step_samples = int(step_samples)
        self.bank, self.starts, self.lengths = sound_bank(self.sample_rate)
        self.tail = np.empty_like(self.bank)  # per sound: the loudest |sample| from here to its end
        for st, n in zip(self.starts, self.lengths, strict=True):
            self.tail[st:st + n] = np.maximum.accumulate(np.abs(self.bank[st:st + n])[::-1])[::-1]
        length = self.step_samples + math.ceil(tail_s * self.sample_rate) + int(self.lengths.max())
        self.buffers = np.zeros((listeners, 2, length), dtype=np.float32)
        self.head = 0  # the ring index of the step's first sample

    def step(self, sources: np.ndarray, listeners: np.ndarray, t0_s: float, pool=None,
             threads: int = 1) -> np.ndarray:
        """Mix one step and return it as (N, step_samples, 2) float32 in [-1, 1]; the rest carries on."""
        n = len(listeners)
        sources = np.ascontiguousarray(sources, dtype=np.float64)
        listeners = np.ascontiguousarray(listeners, dtype=np.float64)
        if len(sources):
            if pool is None or n < 2 * threads:
                mix_range(self.bank, self.tail, self.starts, self.lengths, sources, listeners, self.buffers,
                          self.head, t0_s, self.sample_rate, 0, n)
            else:
                bounds = np.linspace(0, n, threads + 1).astype(int)
                futures = [pool.submit(mix_range, self.bank, self.tail, self.starts, self.lengths, sources, listeners,
                                       self.buffers, self.head, t0_s, self.sample_rate, int(a), int(b))
                           for a, b in itertools.pairwise(bounds) if b > a]
                for future in futures:
                    future.result()
        out = np.empty((self.buffers.shape[0], self.step_samples, 2), dtype=np.float32)
        # the step's samples leave the ring and their place becomes silence at its far end
        _take_step(self.buffers, self.head, out)
        self.head = (self.head + self.step_samples) % self.buffers.shape[2]
        return out

    def clear(self) -> None:
        self.buffers[:] = 0.0
        self.head = 0
