"""Wall-clock records are honest: times never run backwards, and unanswered calls are recorded."""

from __future__ import annotations

import rtarena
from helpers import CounterEnv, ScriptedTokens


def test_no_decision_starts_or_commits_before_the_observation_it_used():
    dt = 0.02
    agents = {"a0": ScriptedTokens(0), "a1": ScriptedTokens(0, sleep_s=0.013), "a2": ScriptedTokens(0, sleep_s=0.05)}
    result = rtarena.run_match(CounterEnv(3, dt=dt), agents, clock="wall", max_steps=60)
    assert len(result.decisions) > 60
    for d in result.decisions:
        assert d.obs_sim_s <= d.start_sim_s
        if d.committed_sim_s is not None:
            assert d.start_sim_s <= d.committed_sim_s
        if d.applied_sim_s is not None:
            assert d.committed_sim_s <= d.applied_sim_s


def test_a_call_still_running_at_the_end_is_recorded_as_abandoned():
    silent_model = ScriptedTokens(0, sleep_s=1.5)  # never answers within the 0.2 s episode
    result = rtarena.run_match(CounterEnv(2, dt=0.02), {"a0": silent_model, "a1": ScriptedTokens(0)}, clock="wall",
                               max_steps=10)
    silent = [d for d in result.decisions if d.controller == "a0"]
    assert len(silent) == 1
    (d,) = silent
    assert d.error.startswith("abandoned: ") and not d.valid
    assert d.committed_sim_s is None and d.applied_step is None
    assert 0 <= d.wall_start_s < d.wall_end_s and d.wall_latency_s > 0
    assert result.agents["a0"]["failures"] == {"abandoned": 1}
    assert result.agents["a0"]["failed_decisions"] == result.agents["a0"]["decisions"] == 1
    assert result.agents["a1"]["failures"] == {}
