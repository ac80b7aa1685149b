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
from rtarena.contract import same_action

COPYABLE = [env_id for env_id in CLASSES if env_id not in BROWSER]


def play(env, actions: list[dict]) -> list:
    return [env.step(joint)[:4] for joint in actions if env.agents]


@pytest.mark.parametrize("env_id", COPYABLE)
def test_a_copy_plays_on_as_the_original(env_id):
    env = rtarena.make(env_id)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    for agent in env.possible_agents:
        env.action_space(agent).seed(int(rng.integers(2**31)))
    first = {a: env.action_space(a).sample() for a in env.agents}
    env.step(first)  # mid-episode: the copy must carry the world, not just the settings
    actions = [{a: env.action_space(a).sample() for a in env.possible_agents} for _ in range(3)]
    copies = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    original = play(env, actions)
    assert original, f"{env_id} ended before the copies could be compared"
    for clone in copies:
        assert clone.capabilities == env.capabilities and clone.spec_id == env.spec_id
        assert same_action(play(clone, actions), original)
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
    assert not same_action(play(clone, moves), play(env, moves))
