"""The discrete-event scheduler's rules (paused, token, measured): a newer decision that lands on the same
step replaces the older one, and decisions that start together are computed concurrently."""

from __future__ import annotations

import threading
from typing import Any

from tests.helpers import CounterEnv

import rtarena
from rtarena.contract import Agent, Decision


class Script(Agent):
    """Plays a fixed list of (action, output tokens), then presses nothing for 5 tokens a decision."""

    def __init__(self, moves: list[tuple[int, int]]) -> None:
        self.moves = list(moves)

    def act(self, observation: Any) -> Decision:
        action, tokens = self.moves.pop(0) if self.moves else (0, 5)
        return Decision(action=action, tokens_out=tokens, tokens_source="scripted")


def test_a_newer_decision_landing_on_the_same_step_replaces_the_older():
    # dt = 0.1 s, kappa = 100 tokens/s. A (press, 25 tokens) starts at 0 and commits at 0.25: step 3.
    # Busy until 0.25, the controller starts B (no press, 1 token) at 0.25 on the observation of step 2;
    # B commits at 0.26, also step 3, and replaces A, which is never applied. (The next decision starts at
    # 0.3 and, 5 tokens later, lands on step 4.)
    result = rtarena.run_match(CounterEnv(1, dt=0.1), [Script([(1, 25), (0, 1)])], clock="token", kappa=100.0,
                               max_steps=5)
    a, b = result.decisions[0], result.decisions[1]
    assert (a.start_sim_s, a.committed_sim_s, a.applied_step) == (0.0, 0.25, None)
    assert (b.start_sim_s, b.obs_sim_s, b.committed_sim_s, b.applied_step) == (0.25, 0.2, 0.26, 3)
    assert result.steps[3].fresh_agents == ("a0",) and result.steps[3].fresh_nondefault_agents == ()
    assert not any(e["type"] == "point" for e in result.events)  # A's press never reached the env


class Meeting(Agent):
    """Decides only once every other controller's decision is in progress at the same time."""

    def __init__(self, barrier: threading.Barrier) -> None:
        self.barrier = barrier

    def act(self, observation: Any) -> Decision:
        self.barrier.wait()  # raises BrokenBarrierError (an invalid decision) if the others never come
        return Decision(action=1)


def test_decisions_that_start_together_run_concurrently():
    barrier = threading.Barrier(3, timeout=20)
    agents = [Meeting(barrier) for _ in range(3)]
    result = rtarena.run_match(CounterEnv(3), agents, clock="paused", max_steps=4)
    assert len(result.decisions) == 3 * 4
    assert all(d.valid and d.error is None for d in result.decisions), [d.error for d in result.decisions]
    assert result.agents["a0"]["return"] == 4  # every press applied, one per step
