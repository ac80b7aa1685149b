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


def _gunshot(sr: int, noise) -> np.ndarray:
    n = int(0.35 * sr)
    crack = noise(0.35) * _env(n, sr, 0.0005, 0.03)
    body = _lowpass(noise(0.35), sr, 900) * _env(n, sr, 0.001, 0.09) * 4
    thump = _tone(np.linspace(160, 60, n), n, sr) * _env(n, sr, 0.001, 0.06)
    return crack + body + thump


def _turret_fire(sr: int, noise) -> np.ndarray:
    n = int(0.45 * sr)
    return _lowpass(noise(0.45), sr, 500) * _env(n, sr, 0.002, 0.12) * 5 + _tone(
        np.linspace(110, 45, n), n, sr) * _env(n, sr, 0.002, 0.1)


def _explosion(sr: int, noise) -> np.ndarray:
    n = int(0.9 * sr)
    return _lowpass(noise(0.9), sr, 350) * _env(n, sr, 0.005, 0.3) * 6


def _dry_fire(sr: int, noise) -> np.ndarray:
    n = int(0.04 * sr)
    return noise(0.04) * _env(n, sr, 0.0002, 0.004)


def _footstep(sr: int, noise) -> np.ndarray:
    n = int(0.08 * sr)
    return _lowpass(noise(0.08), sr, 700) * _env(n, sr, 0.002, 0.02)


def _coin(sr: int, noise) -> np.ndarray:
    n = int(0.3 * sr)
    freq = np.where(np.arange(n) < n // 3, 988.0, 1319.0)
    return _tone(freq, n, sr) * _env(n, sr, 0.002, 0.12)


def _ammo(sr: int, noise) -> np.ndarray:
    wave = np.zeros(int(0.25 * sr))
    for start in (0.0, 0.09):
        k = int(start * sr)
        m = int(0.05 * sr)
        wave[k:k + m] += (_tone(2400.0, m, sr) + 0.5 * noise(0.05)[:m]) * _env(m, sr, 0.0003, 0.012)
    return wave


def _turret_lock(sr: int, noise) -> np.ndarray:
    n = int(0.36 * sr)
    t = np.arange(n) / sr
    gate = ((t % 0.12) < 0.06).astype(float)
    return np.sign(_tone(1800.0, n, sr)) * 0.6 * gate


def _hit(sr: int, noise) -> np.ndarray:
    n = int(0.15 * sr)
    return _lowpass(noise(0.15), sr, 400) * _env(n, sr, 0.001, 0.04) * 3 + _tone(
        np.linspace(220, 120, n), n, sr) * _env(n, sr, 0.001, 0.05)


def _hit_metal(sr: int, noise) -> np.ndarray:
    n = int(0.4 * sr)
    return sum(_tone(f, n, sr) * _env(n, sr, 0.0005, d) for f, d in ((523.0, 0.15), (1377.0, 0.08),
                                                                     (2291.0, 0.05)))


def _bird(duration_s: float, base_hz: float, pulsed: bool):
    """A chicken's cluck (short, pulsed) or squawk (longer, continuous)."""

    def make(sr: int, noise) -> np.ndarray:
        n = int(duration_s * sr)
        t = np.arange(n) / sr
        freq = base_hz * (1 + 0.25 * np.sin(2 * np.pi * 9 * t)) + 300 * (t < 0.05)
        pulses = ((t % 0.1) < 0.06).astype(float) if pulsed else np.ones(n)
        raw = _tone(freq, n, sr)
        return (np.sign(raw) * 0.35 + raw) * pulses * _env(n, sr, 0.004, duration_s * 0.6)

    return make


# One recipe per sound kind: (sample rate, noise source) -> mono waveform.
RECIPES = {
    "gunshot": _gunshot,
    "turret_fire": _turret_fire,
    "explosion": _explosion,
    "dry_fire": _dry_fire,
    "footstep": _footstep,
    "coin": _coin,
    "ammo": _ammo,
    "turret_lock": _turret_lock,
    "hit": _hit,
    "hit_metal": _hit_metal,
    "chicken": _bird(0.3, 620.0, pulsed=True),
    "squawk": _bird(0.5, 900.0, pulsed=False),
}


def _make(kind: str, sr: int, rng: np.random.Generator) -> np.ndarray:
    def noise(seconds: float) -> np.ndarray:
        return rng.standard_normal(int(seconds * sr))

    wave = np.asarray(RECIPES[kind](sr, noise), dtype=np.float64)
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
