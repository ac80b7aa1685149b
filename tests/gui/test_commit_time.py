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


def test_a_model_on_a_browser_task_is_told_the_commit_time_rule(gui_env):
    """The prompt says what the runtime does: here, the action takes effect at its commit time."""
    from rtarena.agents.llm import LLMAgent
    from rtarena.agents.llm.prompts import WHEN

    agent = LLMAgent("m@http://127.0.0.1:9/v1,timeout=0.5,retries=0")
    rtarena.run_match(gui_env("web/auction-v0"), agent, clock="paused", seed=0, max_steps=1)
    assert WHEN[True] in agent.system and WHEN[False] not in agent.system
