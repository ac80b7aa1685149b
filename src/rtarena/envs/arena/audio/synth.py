"""The sounds themselves: short mono waveforms made from noise and tones, one per kind, per sample rate.

They are synthesised (no sound files) with a fixed seed, so every run hears the same gunshot. Each is
normalised to a peak of 1; the mixer scales it by the source's loudness and distance.
"""

from __future__ import annotations

import functools

import numpy as np

from rtarena.envs.arena.audio.sources import SOUND_KINDS


def _env(n: int, sr: int, attack_s: float, decay_s: float) -> np.ndarray:
    t = np.arange(n) / sr
    attack = np.clip(t / max(attack_s, 1e-6), 0.0, 1.0)
    return attack * np.exp(-t / decay_s)


def _lowpass(x: np.ndarray, sr: int, cutoff_hz: float) -> np.ndarray:
    a = np.exp(-2 * np.pi * cutoff_hz / sr)
    y = np.empty_like(x)
    acc = 0.0
    for k in range(len(x)):  # one-pole filter; templates are built once
        acc = (1 - a) * x[k] + a * acc
        y[k] = acc
    return y


def _tone(freq_hz, n: int, sr: int) -> np.ndarray:
    t = np.arange(n) / sr
    return np.sin(2 * np.pi * np.cumsum(np.broadcast_to(freq_hz, t.shape)) / sr)


def _make(kind: str, sr: int, rng: np.random.Generator) -> np.ndarray:
    def noise(seconds: float) -> np.ndarray:
        return rng.standard_normal(int(seconds * sr))

    if kind == "gunshot":
        n = int(0.35 * sr)
        crack = noise(0.35) * _env(n, sr, 0.0005, 0.03)
        body = _lowpass(noise(0.35), sr, 900) * _env(n, sr, 0.001, 0.09) * 4
        thump = _tone(np.linspace(160, 60, n), n, sr) * _env(n, sr, 0.001, 0.06)
        wave = crack + body + thump
    elif kind == "turret_fire":
        n = int(0.45 * sr)
        wave = _lowpass(noise(0.45), sr, 500) * _env(n, sr, 0.002, 0.12) * 5 + _tone(
            np.linspace(110, 45, n), n, sr) * _env(n, sr, 0.002, 0.1)
    elif kind == "explosion":
        n = int(0.9 * sr)
        wave = _lowpass(noise(0.9), sr, 350) * _env(n, sr, 0.005, 0.3) * 6
    elif kind == "dry_fire":
        n = int(0.04 * sr)
        wave = noise(0.04) * _env(n, sr, 0.0002, 0.004)
    elif kind == "footstep":
        n = int(0.08 * sr)
        wave = _lowpass(noise(0.08), sr, 700) * _env(n, sr, 0.002, 0.02)
    elif kind == "coin":
        n = int(0.3 * sr)
        half = n // 3
        freq = np.where(np.arange(n) < half, 988.0, 1319.0)
        wave = _tone(freq, n, sr) * _env(n, sr, 0.002, 0.12)
    elif kind == "ammo":
        n = int(0.25 * sr)
        wave = np.zeros(n)
        for start in (0.0, 0.09):
            k = int(start * sr)
            m = int(0.05 * sr)
            wave[k:k + m] += (_tone(2400.0, m, sr) + 0.5 * noise(0.05)[:m]) * _env(m, sr, 0.0003, 0.012)
    elif kind == "turret_lock":
        n = int(0.36 * sr)
        t = np.arange(n) / sr
        gate = ((t % 0.12) < 0.06).astype(float)
        wave = np.sign(_tone(1800.0, n, sr)) * 0.6 * gate
    elif kind == "hit":
        n = int(0.15 * sr)
        wave = _lowpass(noise(0.15), sr, 400) * _env(n, sr, 0.001, 0.04) * 3 + _tone(
            np.linspace(220, 120, n), n, sr) * _env(n, sr, 0.001, 0.05)
    elif kind == "hit_metal":
        n = int(0.4 * sr)
        wave = sum(_tone(f, n, sr) * _env(n, sr, 0.0005, d) for f, d in ((523.0, 0.15), (1377.0, 0.08),
                                                                         (2291.0, 0.05)))
    elif kind in ("chicken", "squawk"):
        dur = 0.3 if kind == "chicken" else 0.5
        n = int(dur * sr)
        t = np.arange(n) / sr
        base = 620.0 if kind == "chicken" else 900.0
        freq = base * (1 + 0.25 * np.sin(2 * np.pi * 9 * t)) + 300 * (t < 0.05)
        pulses = ((t % 0.1) < 0.06).astype(float) if kind == "chicken" else np.ones(n)
        raw = _tone(freq, n, sr)
        wave = (np.sign(raw) * 0.35 + raw) * pulses * _env(n, sr, 0.004, dur * 0.6)
    else:
        raise KeyError(kind)
    wave = np.asarray(wave, dtype=np.float64)
    peak = np.max(np.abs(wave))
    return (wave / peak if peak > 0 else wave).astype(np.float32)


@functools.lru_cache(maxsize=4)
def sound_bank(sample_rate: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All templates at one rate, packed: (samples float32, start offsets, lengths), indexed like
    `SOUND_KINDS`."""
    rng = np.random.default_rng(4242)
    waves = [_make(kind, int(sample_rate), rng) for kind in SOUND_KINDS]
    lengths = np.array([len(w) for w in waves], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    return np.concatenate(waves).astype(np.float32), starts, lengths
