"""The renderer and the mixer are byte-identical to the reference: a refactoring that changes one pixel or
one audio sample of these short scripted episodes fails here. The hashes were taken before the
one-home-per-concept refactoring (issue 12) and must only change with a deliberate change of the picture
or the sound, together with this file. The episodes play under the rules in force when the hashes were
taken (turrets always fire at a moving player, ammo boxes never move: issue 18 made both rules), so that
this test pins the picture and the sound, not the level rules."""

from __future__ import annotations

import hashlib

import numpy as np

import rtarena

PIXELS = "a42fa9bde34c0f2c0a62515be565491df1a1318b1fe0325a74e01fb2f8f04a9e"
SOUND = "f44291f7fc2c0ec8ba4360494e7b76110eb48b75c1b616b3f954d9fa48765bc3"
RULES_OF_THE_REFERENCE = {"turret.moving_fire_chance": 1.0, "ammo.relocate_every_s": 0.0}


def stream_hash(level: str, obs: tuple[str, ...], steps: int = 8, seed: int = 5) -> str:
    """SHA-256 of every agent's observations and the spectator frame over a fixed action sequence."""
    env = rtarena.make(level, obs=obs, resolution=(160, 120), render_mode="rgb_array",
                       overrides=RULES_OF_THE_REFERENCE)
    env.reset(seed=seed)
    h = hashlib.sha256()
    for k in range(steps):
        observations, *_ = env.step({a: np.array([k % 3, 2, 1, 0, 1, 0, k % 2]) for a in env.agents})
        for a in sorted(observations):
            for m in sorted(observations[a]):
                h.update(np.ascontiguousarray(observations[a][m]).tobytes())
        h.update(env.render().tobytes())
    env.close()
    return h.hexdigest()


def test_pixels_minimap_and_spectator_are_byte_identical():
    assert stream_hash("arena/mixed-v0", ("rgb", "depth", "minimap")) == PIXELS


def test_sound_is_byte_identical():
    assert stream_hash("arena/coop-v0", ("audio",)) == SOUND
