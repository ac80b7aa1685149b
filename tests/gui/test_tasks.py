"""Every registered web task and game (one row per task file): solved by its oracle under `token` at the
paper's scale (kappa 64 tokens/s, a 32-token decision lands one observation later) within the deadline, with
no failed action, crossing at least two of a site's pages; its task file tags the capabilities. The oracle
plays the page's `RT.cheat` through the runtime, so this is also the contract's "cheat, then validate says
solved". Setup, lost by waiting and by random clicking, and live with no input are `test_contract.py`'s
checks on one shared Chromium tab per viewport.

tests/test_registry.py checks that a seed fixes every task's start and, once per kind of page, its whole
trajectory; the paused clock never waits on real time, so these episodes run as fast as Chromium steps the
page. Under `wall` a task takes its whole page time in real time (tens of seconds at one observation per
second), so one short task is played here and `bench/gui_oracle_wall.py` prints the rest.
"""

from __future__ import annotations

import pytest
from tests.gui.helpers import FAST_OBS, GUI_IDS

import rtarena
from rtarena.agents.gui_oracle import GuiOracleAgent
from rtarena.envs.gui.spec import CAPABILITIES


def outcome(result):
    user = result.agents["user"]
    ends = [e for e in result.events if e["type"] == "task_end"]
    assert len(ends) == 1, "every episode ends with exactly one task_end event"
    return user["success"], user["progress"], ends[0]["why"]


def test_tasks_registered_from_task_files():
    assert len([i for i in GUI_IDS if i.startswith("web/")]) == 30
    assert len([i for i in GUI_IDS if i.startswith("gui-games/")]) == 20  # Realtime-Bench's 30 + 20
    assert {"gui-games/snake-v0", "gui-games/tetris-v0", "gui-games/crossing-v0", "gui-games/breakout-v0",
            "gui-games/maze-v0", "gui-games/tower-v0"} <= set(GUI_IDS)


@pytest.mark.parametrize("env_id", GUI_IDS)
def test_task_file_at_the_paper_scale(env_id, gui_env):
    env = gui_env(env_id, obs=FAST_OBS)
    assert env.dt * env.obs_every == 1.0  # one observation per second of page time
    assert 20.0 <= env.deadline_s <= env.time_limit_s <= 300.0  # tens of seconds, five minutes at most
    tags = env.spec.capabilities
    assert set(tags) == set(CAPABILITIES) and max(tags.values()) >= 2


@pytest.mark.parametrize("env_id", GUI_IDS)
def test_oracle_solves_token_kappa_64(env_id, gui_env):
    env = gui_env(env_id, obs=FAST_OBS)
    result = rtarena.run_match(env, GuiOracleAgent(tokens_out=32), clock="token", kappa=64, seed=1, max_steps=400)
    success, _, why = outcome(result)
    assert success == 1.0, why
    solved = next(e for e in result.events if e["type"] == "task_success")
    assert solved["sim_s"] <= env.deadline_s + env.dt
    assert result.agents["user"]["failed_actions"] == 0
    if env_id.startswith("web/"):  # a site, not a single widget: the way to the goal crosses its pages
        assert len({e["view"] for e in result.events if e["type"] == "page"}) >= 2
    assert env.oracle_action(0.0, env.dt * env.obs_every) == "wait()"  # nothing left to do once decided
    assert all(d.delay_sim_s == pytest.approx(0.5) for d in result.decisions)
    assert all(d.applied_step is None or d.applied_sim_s > d.obs_sim_s for d in result.decisions)


def test_oracle_wall_acts_in_real_time(gui_env):
    env = gui_env("web/calendar-v0", obs=FAST_OBS)  # solved within a few page seconds
    result = rtarena.run_match(env, GuiOracleAgent(), clock="wall", seed=2, max_steps=12)
    acted = [d for d in result.decisions if d.applied_step is not None and d.action != "wait()"]
    assert acted and all(d.valid for d in acted)  # the oracle's actions reached the live page
    # page time followed real time: the episode took about as long on the wall as in the page
    assert result.wall_seconds >= result.sim_seconds - 2 * env.dt
