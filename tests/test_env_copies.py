"""Every env class copies: `copy.deepcopy` and `pickle` give an env that plays on exactly as the original
(Minigrid's pickling test), once per env class. The play check's foresight copies games mid-episode. Browser
tasks are left out: each holds a live Chromium page, which no copy can share.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from tests.test_registry import BROWSER, CLASSES

import rtarena

COPYABLE = [env_id for env_id in CLASSES if env_id not in BROWSER]


def same(a, b) -> bool:
    """Deep equality of step results: dicts, sequences, arrays and scalars."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(np.asarray(a), np.asarray(b))
    return a == b


def play(env, actions: list[dict]) -> list:
    return [env.step(joint)[:4] for joint in actions if env.agents]


def copies(env) -> list:
    return [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]


@pytest.mark.parametrize("env_id", COPYABLE)
def test_a_copy_plays_on_as_the_original(env_id):
    env = rtarena.make(env_id)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    for agent in env.possible_agents:
        env.action_space(agent).seed(int(rng.integers(2**31)))
    moves = [{a: env.action_space(a).sample() for a in env.possible_agents} for _ in range(4)]
    at_reset = copies(env)
    first = env.step(moves[0])[:4]
    mid_episode = copies(env) if env.agents else []  # the copy must carry the world, not just the settings
    original = play(env, moves[1:])
    for clone in at_reset + mid_episode:
        assert clone.capabilities == env.capabilities and clone.spec_id == env.spec_id
    assert all(same(play(clone, moves), [first, *original]) for clone in at_reset)
    assert all(same(play(clone, moves[1:]), original) for clone in mid_episode)
    assert len(mid_episode) == 2 or env_id == "probe/identify-v0"  # the probe's episode is one question
    env.close()


def test_the_comparison_sees_a_different_world():
    """The negative control: a copy that took a different action first no longer plays as the original."""
    env = rtarena.make("games/tilefall-v0")
    env.reset(seed=3)
    clone = copy.deepcopy(env)
    space = env.action_space("p0")
    space.seed(1)
    moves = [{"p0": space.sample()} for _ in range(6)]
    clone.step({"p0": space.sample()})
    assert not same(play(clone, moves), play(env, moves))
