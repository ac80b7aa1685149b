"""Every registered web task and game: solved by its oracle under paused and token, played in real time
under wall; lost by noop; the same records twice under paused with the same seed. (Whether the oracle
also solves every task under wall depends on the machine's load: `bench/gui_oracle_wall.py` prints it.)"""

from __future__ import annotations

import pytest
from tests.gui.helpers import FAST_OBS, GUI_IDS

import rtarena
from rtarena.agents.base import NoopAgent
from rtarena.agents.gui_oracle import GuiOracleAgent


def outcome(result):
    user = result.agents["user"]
    ends = [e for e in result.events if e["type"] == "task_end"]
    assert len(ends) == 1, "every episode ends with exactly one task_end event"
    return user["success"], user["progress"], ends[0]["why"]


def test_sixteen_tasks_registered():
    assert len([i for i in GUI_IDS if i.startswith("web/")]) >= 12
    assert {"gui-games/snake-v0", "gui-games/tetris-v0", "gui-games/crossing-v0",
            "gui-games/breakout-v0"} <= set(GUI_IDS)


@pytest.mark.parametrize("env_id", GUI_IDS)
def test_oracle_paused_solves_and_repeats(env_id, gui_env):
    # (the screenshots of every task are checked for determinism by tests/test_registry.py)
    env = gui_env(env_id, obs=FAST_OBS)
    first = rtarena.run_match(env, GuiOracleAgent(), clock="paused", seed=0, max_steps=400)
    second = rtarena.run_match(env, GuiOracleAgent(), clock="paused", seed=0, max_steps=400)
    success, progress, why = outcome(first)
    assert success == 1.0 and progress == 1.0, why
    assert first.records_json() == second.records_json()
    assert first.events == second.events
    assert first.agents["user"]["malformed_actions"] == 0 and first.agents["user"]["failed_actions"] == 0


@pytest.mark.parametrize("env_id", GUI_IDS)
def test_oracle_token_solves(env_id, gui_env):
    env = gui_env(env_id, obs=FAST_OBS)
    # Thinking costs page time: 30 tokens at 100 tokens/s land a web action 0.3 s (two steps) after the
    # observation it answers; the games, at five snake ticks a second, get a quicker thinker (one step late).
    tokens = 30 if env_id.startswith("web/") else 5
    result = rtarena.run_match(env, GuiOracleAgent(tokens_out=tokens), clock="token", kappa=100, seed=1,
                               max_steps=400)
    success, _, why = outcome(result)
    assert success == 1.0, why
    assert all(d.delay_sim_s == pytest.approx(tokens / 100) for d in result.decisions)
    assert all(d.applied_step is None or d.applied_sim_s > d.obs_sim_s for d in result.decisions)


@pytest.mark.parametrize("env_id", GUI_IDS)
def test_oracle_wall_acts_in_real_time(env_id, gui_env):
    env = gui_env(env_id, obs=FAST_OBS)
    result = rtarena.run_match(env, GuiOracleAgent(), clock="wall", seed=2, max_steps=400)
    outcome(result)  # the episode ended with its one task_end event
    acted = [d for d in result.decisions if d.applied_step is not None and d.action != "wait()"]
    assert acted and all(d.valid for d in acted)  # the oracle's actions reached the live page
    # page time followed real time: the episode took about as long on the wall as in the page
    assert result.wall_seconds >= result.sim_seconds - 2 * env.dt


@pytest.mark.parametrize("env_id", GUI_IDS)
def test_noop_fails(env_id, gui_env):
    env = gui_env(env_id, obs=FAST_OBS)
    result = rtarena.run_match(env, NoopAgent(), clock="paused", seed=0, max_steps=400)
    success, progress, why = outcome(result)
    assert success == 0.0 and progress < 1.0, why
    assert result.sim_seconds <= env.time_limit_s + 1e-9
