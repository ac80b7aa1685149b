"""Spatial audio: direction, distance, delay, carry-over, and the same sounds in words."""

from __future__ import annotations

import math

import numpy as np
import pytest
from tests.arena_senses.scenes import make_world

from rtarena.envs.arena.audio import Hearing, SoundSource, SpatialMixer
from rtarena.envs.arena.audio.sources import source_table

RATE = 16000
STEP = 4000  # 0.25 s


def listen(sources, listener=(25.0, 25.0, 1.6, 0.0), me=0, steps=1, rate=RATE, step=STEP):
    mixer = SpatialMixer(1, rate, step)
    table = source_table(sources)
    listeners = np.array([[*listener, me]], dtype=np.float64)
    out = [mixer.step(table, listeners, 0.0)[0]]
    for k in range(1, steps):
        out.append(mixer.step(source_table([]), listeners, k * step / rate)[0])
    return np.concatenate(out)


def onset(channel: np.ndarray, threshold: float = 1e-3) -> int:
    return int(np.flatnonzero(np.abs(channel) > threshold)[0])


def test_a_gunshot_on_the_left_is_louder_left_and_reaches_the_right_ear_later():
    # the listener faces +x (east); +y (north) is on its left
    wave = listen([SoundSource("gunshot", 25.0, 35.0, 1.6, 0.0, emitter=1)])
    left, right = wave[:, 0], wave[:, 1]
    assert np.sqrt(np.mean(left ** 2)) > 3 * np.sqrt(np.mean(right ** 2))
    lag = onset(right, 1e-4) - onset(left, 1e-4)
    itd = 0.0875 / 343 * (math.pi / 2 + 1) * RATE  # Woodworth, 90 degrees: about 10.5 samples
    assert lag == pytest.approx(itd, abs=1.5)
    # it left the gun at t = 0 and travelled 10 m
    assert onset(left, 1e-4) == pytest.approx(10.0 / 343 * RATE, abs=2)


def test_mirror_image_on_the_right():
    wave = listen([SoundSource("gunshot", 25.0, 15.0, 1.6, 0.0, emitter=1)])
    assert np.sqrt(np.mean(wave[:, 1] ** 2)) > 3 * np.sqrt(np.mean(wave[:, 0] ** 2))
    assert onset(wave[:, 0], 1e-4) > onset(wave[:, 1], 1e-4)


def test_ahead_is_centred_and_turning_moves_the_sound():
    ahead = listen([SoundSource("gunshot", 35.0, 25.0, 1.6, 0.0, emitter=1)])
    assert np.allclose(ahead[:, 0], ahead[:, 1], atol=1e-6)
    turned = listen([SoundSource("gunshot", 35.0, 25.0, 1.6, 0.0, emitter=1)], listener=(25.0, 25.0, 1.6,
                                                                                           math.radians(60)))
    # the listener turned left: the shot is now on its right
    assert np.abs(turned[:, 1]).sum() > 2 * np.abs(turned[:, 0]).sum()


def test_farther_is_quieter_and_later():
    near = listen([SoundSource("gunshot", 30.0, 25.0, 1.6, 0.0, emitter=1)])
    far = listen([SoundSource("gunshot", 45.0, 25.0, 1.6, 0.0, emitter=1)])
    assert np.abs(near).max() == pytest.approx(4 * np.abs(far).max(), rel=0.1)  # 5 m vs 20 m
    assert onset(far[:, 0], 1e-4) - onset(near[:, 0], 1e-4) == pytest.approx(15 / 343 * RATE, abs=2)


def test_sounds_carry_over_step_boundaries():
    late = 0.24  # a shot 10 ms before the step ends, 30 m away: it arrives during the next step
    wave = listen([SoundSource("gunshot", 55.0, 25.0, 1.6, late, emitter=1)], steps=3)
    first, second = wave[:STEP], wave[STEP:2 * STEP]
    assert np.abs(first).max() == 0.0
    assert np.abs(second).max() > 0.01
    arrival = onset(wave[:, 0], 1e-4)
    assert arrival == pytest.approx((late + 30 / 343) * RATE, abs=2)


def test_own_gunshot_is_loud_and_centred():
    wave = listen([SoundSource("gunshot", 25.0, 25.0, 1.6, 0.0, emitter=0)], me=0)
    assert np.abs(wave).max() > 0.5
    assert np.allclose(wave[:, 0], wave[:, 1])


def test_sample_rate_sets_the_length_and_the_delay():
    wave = listen([SoundSource("gunshot", 25.0, 35.0, 1.6, 0.0, emitter=1)], rate=48000, step=12000)
    assert wave.shape == (12000, 2)
    assert onset(wave[:, 0], 1e-4) == pytest.approx(10.0 / 343 * 48000, abs=3)


def test_hearing_turns_events_and_motion_into_sources_and_words():
    world = make_world(players=[(25.0, 25.0, 0.0), (25.0, 37.0, 0.0), (27.0, 25.0, 0.0)],
                       chickens=[(20.0, 20.0)])
    names = ["p0", "p1", "p2"]
    hearing = Hearing()
    hearing.update(world, [], names)  # first sight of this world: silence
    world.time_s = 0.25
    world.players.pos[2, 0] += 2.0  # p2 walks 2 m: at least one footstep
    events = [{"type": "shot", "t_s": 0.1, "shooter": "p1", "aimed_at": None, "hit": None}]
    sources = hearing.update(world, events, names)
    kinds = [s.kind for s in sources]
    assert "gunshot" in kinds and "footstep" in kinds
    gun = next(s for s in sources if s.kind == "gunshot")
    assert (gun.x, gun.y, gun.t_s, gun.emitter) == (25.0, 37.0, 0.1, 1)
    line = hearing.describe(world, 0)
    assert line.startswith("Heard: gunshot, 90 deg left, about 12 m")
    assert "footstep" in line
    # nobody hears their own shot in words
    assert "gunshot" not in hearing.describe(world, 1)
    # chickens cluck on their own rhythm: within 3 s of steps there is a cluck
    clucks = 0
    for k in range(12):
        world.time_s = 0.25 * (k + 2)
        clucks += sum(s.kind == "chicken" for s in hearing.update(world, [], names))
    assert clucks >= 1


def test_carried_sound_is_the_same_as_one_long_mix_sample_for_sample():
    # many steps of sources near and far: the per-step mixer's rings wrap several times, and every
    # step's output must equal the matching slice of one mix of the whole timeline (same sums, same order)
    rng = np.random.default_rng(4)
    steps, kinds = 24, ["gunshot", "footstep", "hit", "explosion", "chicken"]
    listeners = np.array([[25.0, 25.0, 1.6, 0.3, 0], [60.0, 40.0, 1.6, -2.0, 1]], dtype=np.float64)
    per_step = [[SoundSource(kinds[int(rng.integers(len(kinds)))], *rng.uniform(0, 100, 2), 1.0,
                             (k + rng.uniform(0, 1)) * STEP / RATE, int(rng.integers(-1, 3))) for _ in range(6)]
                for k in range(steps)]
    ring = SpatialMixer(2, RATE, STEP)
    chunks = [ring.step(source_table(per_step[k]), listeners, k * STEP / RATE) for k in range(steps)]
    whole = SpatialMixer(2, RATE, STEP * steps).step(source_table([s for step in per_step for s in step]),
                                                     listeners, 0.0)
    assert ring.buffers.shape[2] < STEP * steps  # the ring did wrap
    assert np.abs(whole).max() > 0.01
    assert np.array_equal(np.concatenate(chunks, axis=1), whole)
