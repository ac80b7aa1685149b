"""Every registered env passes the ecosystem's own checks. A new env is tested by being registered.

The PettingZoo/Gymnasium harness (API, seeding, same trajectory, single-agent view, render modes) runs once per
env class (`CLASSES`: the first row of each entry point and family); rows that share a class differ only in
their configuration (a game's variant, a browser task file), and each of those gets the cheap check of
`test_contract`: built, registered, reset twice to the same observations, its spaces and infos well formed.
"""

from __future__ import annotations

import re

import gymnasium
import numpy as np
import pettingzoo
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.env_registry import registration
from pettingzoo.test import parallel_api_test, parallel_seed_test
from tests.helpers import CounterEnv

import rtarena
from rtarena.contract import EnvCapabilities
from rtarena.envs.registry import ENV_TABLE, EnvSpec, env_spec

IDS = rtarena.registry_ids()


def first_row_of_each_class() -> list[str]:
    """One id per env class (browser tasks: one web task and one canvas game, the two kinds of page)."""
    rows: dict[tuple[str, str], str] = {}
    for spec in ENV_TABLE:
        rows.setdefault((spec.entry_point, spec.family), spec.id)
    return list(rows.values())


CLASSES = first_row_of_each_class()
# Browser rows step a real Chromium (a page second per step): the API checks need only a few steps there.
BROWSER = {spec.id for spec in ENV_TABLE if spec.family in ("web", "gui-games")}


def cycles(env_id: str, default: int) -> int:
    return 4 if env_id in BROWSER else default


def light(env_id: str) -> dict:
    """Browser rows without the screenshot for the API checks that only compare observations: the pixels
    of every row are checked by the contract test (two resets, same screenshot), those of a class by the
    render and same-trajectory tests."""
    return {"obs": ("marks", "goal", "time", "text")} if env_id in BROWSER else {}
SINGLE_AGENT = [spec.id for spec in ENV_TABLE if spec.single_agent and spec.id in CLASSES]


def test_ids_are_unique_and_well_formed():
    assert len(IDS) == len(set(IDS))
    for spec in ENV_TABLE:  # `family/name-vN`, lower case, the prefix the row's family
        assert re.fullmatch(r"[a-z][a-z0-9-]*/[a-z0-9]+(?:-[a-z0-9]+)*-v[0-9]+", spec.id), spec.id
        assert spec.id.partition("/")[0] == spec.family, spec.id


@pytest.mark.parametrize("env_id", IDS)
def test_contract(env_id):
    env = rtarena.make(env_id)
    try:
        assert env.dt > 0
        for agent in env.possible_agents:
            assert env.observation_space(agent) is env.observation_space(agent)
            assert env.action_space(agent).contains(env.default_action(agent))
        assert env_id in registration.parallel_registry
        assert (env_id in gymnasium.registry) == env_spec(env_id).single_agent
        first, infos = env.reset(seed=0)
        assert all(isinstance(infos[a]["events"], list) for a in env.agents)
        assert_same(env.reset(seed=0)[0], first)  # a seed fixes the start of every configuration
        doc = type(env).__doc__ or ""
        if spec_is_class(env_id):
            for section in ("## Description", "## Observation", "## Action Space", "## Rewards and Score",
                            "## Termination", "## Registered Configurations"):
                assert section in doc, f"{env_id}: docstring lacks {section}"
    finally:
        env.close()


def spec_is_class(env_id: str) -> bool:
    return isinstance(env_spec(env_id).load(), type)


@pytest.mark.parametrize("env_id", CLASSES)
def test_pettingzoo_parallel_api(env_id):
    env = rtarena.make(env_id)
    try:
        parallel_api_test(env, num_cycles=cycles(env_id, 50))
    finally:
        env.close()


@pytest.mark.parametrize("env_id", CLASSES)
def test_pettingzoo_seed(env_id):
    parallel_seed_test(lambda: rtarena.make(env_id, **light(env_id)), num_cycles=cycles(env_id, 20))


@pytest.mark.parametrize("env_id", CLASSES)
def test_same_seed_same_trajectory(env_id):
    def trajectory():
        env = rtarena.make(env_id)
        try:
            observations, _ = env.reset(seed=11)
            rng = np.random.default_rng(0)
            frames = [observations]
            for _ in range(cycles(env_id, 15)):
                if not env.agents:
                    break
                actions = {}
                for agent in env.agents:
                    space = env.action_space(agent)
                    space.seed(int(rng.integers(1 << 30)))
                    actions[agent] = space.sample()
                observations, rewards, *_ = env.step(actions)
                frames.append((observations, rewards))
            return frames
        finally:
            env.close()

    assert_same(trajectory(), trajectory())


def assert_same(a, b):
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for key in a:
            assert_same(a[key], b[key])
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            assert_same(x, y)
    elif isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b)
    else:
        assert a == b


@pytest.mark.parametrize("env_id", SINGLE_AGENT)
def test_gymnasium_single_agent_view(env_id):
    env = gymnasium.make(env_id, **light(env_id))
    try:
        check_env(env.unwrapped, skip_render_check=True)
    finally:
        env.close()


@pytest.mark.parametrize("env_id", CLASSES)
def test_registered_with_pettingzoo(env_id):
    env = pettingzoo.make("parallel", env_id)
    try:
        assert list(env.possible_agents) == list(rtarena.make(env_id).possible_agents)
    finally:
        env.close()


@pytest.mark.parametrize("env_id", CLASSES)
def test_render_modes(env_id):
    """Every render mode an env declares works (`human` needs a display and is tested where it lives)."""
    modes = [m for m in rtarena.make(env_id).metadata.get("render_modes", []) if m != "human"]
    for mode in modes:
        env = rtarena.make(env_id, render_mode=mode)
        try:
            env.reset(seed=0)
            frame = env.render()
            if mode == "rgb_array":
                assert isinstance(frame, np.ndarray) and frame.ndim == 3 and frame.shape[2] == 3
                assert frame.std() > 0  # not a blank picture
        finally:
            env.close()


# -- capabilities: declared once, checked at registration (issue 44, item 1) ----------------------------------
class LooseSubstep(CounterEnv):
    """Says it can stop inside a step, but not in its declaration: the runtime would never read it."""

    substep_s = 0.001

    def set_action_times(self, at_s):
        pass


class ClaimsSubsteps(CounterEnv):
    capabilities = EnvCapabilities(substep_s=0.001)  # without set_action_times


class UndeclaredSnapshot(CounterEnv):
    def privileged_state(self, agent):  # without capabilities.privileged
        return {"t": self.t}


def test_a_misspelt_capability_is_refused():
    with pytest.raises(TypeError, match="substeps_s"):
        EnvCapabilities(substeps_s=0.001)
    with pytest.raises(ValueError, match="obs_every"):
        EnvCapabilities(obs_every=0)


@pytest.mark.parametrize(("cls", "message"), [
    ("LooseSubstep", r"LooseSubstep.substep_s is a loose attribute"),
    ("ClaimsSubsteps", r"declares capabilities.substep_s but does not implement set_action_times"),
    ("UndeclaredSnapshot", r"implements privileged_state\(\) but does not declare capabilities.privileged"),
])
def test_a_capability_not_declared_as_implemented_fails_at_registration(cls, message):
    row = EnvSpec(f"test/{cls.lower()}-v0", f"tests.test_registry:{cls}", "a test row")
    with pytest.raises(TypeError, match=message):
        row.load()


def test_every_registered_class_declares_its_capabilities():
    """The positive control: every row's class loads (its declaration checked); the runtime reads what it says."""
    loaded = {spec.entry_point: spec.load() for spec in ENV_TABLE}
    classes = [c for c in loaded.values() if isinstance(c, type)]
    assert len(classes) >= 10 and all(isinstance(c.capabilities, EnvCapabilities) for c in classes)
    declared = {c.__name__: c.capabilities for c in classes}
    assert declared["BrowserTaskEnv"].substep_s == 0.001 and declared["BrowserTaskEnv"].privileged
    assert declared["BasicLevel"].fused_step and not declared["CompetitiveLevel"].fused_step
