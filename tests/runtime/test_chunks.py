"""Action chunks: a decision carrying per-step actions, replacement by newer decisions, settle time,
records of every step's action and source, under every clock."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

import rtarena
from helpers import CounterEnv
from rtarena.agents.base import Agent, Decision
from rtarena.errors import UserError


class ChunkAgent(Agent):
    """Answers every observation with the same chunk, declaring `tokens_out` tokens."""

    def __init__(self, chunk: list[int], tokens_out: int = 0) -> None:
        self.chunk = tuple(chunk)
        self.tokens_out = tokens_out
        self.seen: list[float] = []

    def act(self, observation: Any) -> Decision:
        self.seen.append(float(np.asarray(observation).ravel()[0]))
        return Decision(action=self.chunk[0], chunk=self.chunk, tokens_out=self.tokens_out,
                        tokens_source="scripted")


def play(chunk, clock="paused", steps=12, dt=0.1, tokens_out=0, **settings):
    agent = ChunkAgent(chunk, tokens_out)
    result = rtarena.run_match(CounterEnv(1, dt=dt), [agent], clock=clock, max_steps=steps, **settings)
    return result, agent


def played(result) -> list[int]:
    return [s.actions["a0"] for s in result.steps]


def test_paused_chunk_plays_then_the_next_observation_is_taken():
    result, agent = play([1, 0, 1, 1], settle_s=0.0)
    assert played(result) == [1, 0, 1, 1] * 3
    assert agent.seen == [0.0, 4.0, 8.0]  # paused-decision protocol: decide, play the chunk, observe
    assert [s.sources["a0"] for s in result.steps[:5]] == [
        {"decision": 0, "chunk_step": 0}, {"decision": 0, "chunk_step": 1}, {"decision": 0, "chunk_step": 2},
        {"decision": 0, "chunk_step": 3}, {"decision": 1, "chunk_step": 0}]
    d = result.decisions[0]
    assert (d.chunk, d.chunk_steps, d.applied_steps, d.applied_step) == ([1, 0, 1, 1], 4, 4, 0)


def test_settle_time_runs_the_world_on_default_actions_before_observing():
    result, agent = play([1, 1, 1], settle_s=0.2, steps=10)
    assert played(result) == [1, 1, 1, 0, 0] * 2
    assert agent.seen == [0.0, 5.0]
    assert "a0" not in result.steps[3].sources and "a0" not in result.steps[4].sources


def test_a_newer_decision_replaces_the_rest_of_a_chunk():
    # without settle_s the controller decides on every new observation: each chunk keeps one step
    result, agent = play([1, 0, 0, 0], steps=6)
    assert played(result) == [1] * 6
    assert agent.seen == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert all(d.chunk_steps == 4 and d.applied_steps == 1 for d in result.decisions)


def test_token_clock_chunk_replaced_after_the_next_commit():
    # 30 tokens at kappa 100 = 0.3 s = 3 steps of thinking per decision
    result, _agent = play([1, 1, 1, 1, 1], clock="token", kappa=100, tokens_out=30, steps=12)
    d0, d1 = result.decisions[:2]
    assert d0.applied_step == 3 and d1.applied_step == 6
    assert d0.applied_steps == 3  # steps 3, 4, 5; d1 replaced steps 6 and 7
    assert [result.steps[k].sources["a0"]["decision"] for k in range(3, 9)] == [0, 0, 0, 1, 1, 1]
    assert played(result)[:3] == [0, 0, 0]


def test_effective_action_frequency_counts_chunk_steps():
    result, _ = play([1, 1, 1, 1], settle_s=0.0, steps=12)
    metrics = result.agents["a0"]
    assert metrics["decisions"] == 3
    assert metrics["fresh_action_steps"] == 12
    assert metrics["effective_action_frequency"] == pytest.approx(1.0)


@pytest.mark.parametrize("clock, settings", [("paused", {}), ("token", {"kappa": 100})])
def test_chunk_records_are_deterministic(clock, settings):
    first = play([1, 0, 1], clock=clock, settle_s=0.1, tokens_out=20, **settings)[0].records_json()
    second = play([1, 0, 1], clock=clock, settle_s=0.1, tokens_out=20, **settings)[0].records_json()
    assert first == second and '"sources"' in first


def consecutive_chunks(result) -> None:
    """Each decision's applied steps are consecutive and count up through its chunk."""
    by_decision: dict[int, list[tuple[int, int]]] = {}
    for step in result.steps:
        if "a0" in step.sources:
            src = step.sources["a0"]
            by_decision.setdefault(src["decision"], []).append((step.step, src["chunk_step"]))
    assert by_decision
    for index, applied in by_decision.items():
        first_step = applied[0][0]
        assert applied == [(first_step + j, j) for j in range(len(applied))]
        assert len(applied) == result.decisions[index].applied_steps


def test_measured_clock_chunks_and_settle():
    result, _agent = play([1, 1, 1], clock="measured", settle_s=0.0, steps=20)
    consecutive_chunks(result)
    for before, after in zip(result.decisions, result.decisions[1:], strict=False):
        assert before.applied_steps == 3
        assert after.obs_sim_s >= (before.applied_step + 3) * 0.1 - 1e-9  # observed after the chunk


def test_wall_clock_chunks_and_settle():
    result, _ = play([1, 1, 1], clock="wall", dt=0.02, settle_s=0.04, steps=60)
    consecutive_chunks(result)
    applied = [d for d in result.decisions if d.applied_step is not None]
    assert len(applied) >= 2
    for before, after in itertools.pairwise(applied):
        last = before.applied_step + before.applied_steps - 1
        assert after.obs_sim_s > last * 0.02  # the next observation comes after the chunk has played


def test_settle_must_not_be_negative():
    with pytest.raises(UserError, match="settle_s"):
        play([1], settle_s=-1.0)


@pytest.mark.parametrize("clock", ["paused", "token", "measured", "wall"])
def test_the_prompt_sentence_says_when_the_world_settles(clock):
    settled = rtarena.make_clock(clock, settle_s=0.2).describe()
    assert "run 0.2 s more" in settled.replace("runs", "run")
    assert "several steps" not in rtarena.make_clock(clock).describe()
