"""A browser task applies an action at its commit time, to the page millisecond (issue 24: "the environment
advances from t_i to t_i^act before the action is applied"), not at the next step's start."""

from __future__ import annotations

import pytest

import rtarena
from rtarena.agents.gui_oracle import GuiOracleAgent

KEY_TIME = "(() => { window.__keyAt = null; addEventListener('keydown', () => { __keyAt ??= RT.now(); }, true); " \
           "return RT.now(); })()"


def test_the_page_runs_to_the_action_time_then_acts_then_finishes_the_step(gui_env):
    env = gui_env("gui-games/g2048-v0", obs=("time",))
    env.reset(seed=0)
    start = env.page_eval(KEY_TIME)
    env.set_action_times({"user": 0.3125})  # 20 tokens at 64 tokens/s: rounded up to the page's millisecond
    env.step({"user": 'key("ArrowLeft")'})
    assert env.page_eval("__keyAt") - start == pytest.approx(0.313)
    assert env.page_eval("RT.now()") - start == pytest.approx(env.dt)  # and the step is still exactly dt long
    env.step({"user": 'key("ArrowLeft")'})  # the time is used once: the next step acts at its start
    assert env.elapsed_s == 2 * env.dt


@pytest.mark.parametrize(("env_id", "tokens"), [("web/auction-v0", 33), ("gui-games/g2048-v0", 100)])
def test_under_token_every_applied_decision_applies_at_its_commit_time(gui_env, env_id, tokens):
    env = gui_env(env_id)
    result = rtarena.run_match(env, GuiOracleAgent(tokens_out=tokens), clock="token", seed=0, max_steps=8)
    applied = [d for d in result.decisions if d.applied_sim_s is not None]
    assert applied and all(abs(d.applied_sim_s - d.committed_sim_s) < 1e-3 for d in applied)
    assert any(d.applied_sim_s % env.dt > 1e-3 for d in applied)  # inside a step, not at its boundary
    again = rtarena.run_match(env, GuiOracleAgent(tokens_out=tokens), clock="token", seed=0, max_steps=8)
    assert again.records_json() == result.records_json()  # and as deterministic as before
