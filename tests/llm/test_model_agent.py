"""`llm:`, `team:llm:` and `agentic:` are one base class (`ModelAgent`) with hooks: the shared parts behave
the same in all three (failed calls play the default action and are tallied; good answers from the
scripted policy server are parsed, tallied and remembered in the history)."""

from __future__ import annotations

import logging

import pytest

from rtarena.agents.llm import ModelAgent
from rtarena.agents.specs import build_agent
from rtarena.envs.registry import make
from rtarena.policy_server import closed_port_url
from rtarena.runtime import run_match

KINDS = ["llm:", "team:llm:", "agentic:"]


def play(kind: str, url: str, steps: int = 3):
    env = make("arena/basic-v0")
    agent = build_agent(f"{kind}scripted-heuristic@{url},timeout=3,retries=0", family="arena")
    key = ("p0",) if kind.startswith("team") else "p0"
    return agent, run_match(env, {key: agent}, clock="paused", seed=0, max_steps=steps)


@pytest.mark.parametrize("kind", KINDS)
def test_every_variant_tallies_failures_and_plays_the_default(kind, caplog):
    agent, result = play(kind, closed_port_url())
    assert isinstance(agent, ModelAgent)
    assert len(result.decisions) == 3 and agent.tally.decisions == 3
    assert agent.tally.kinds == {"connection": 3}
    for d in result.decisions:
        assert not d.valid and d.error.startswith("connection:")
        action = d.action["p0"] if isinstance(d.action, dict) else d.action
        assert action == [0, 0, 0, 0, 0, 0, 0]
    with caplog.at_level(logging.WARNING):
        agent.close()
    assert "3 of 3 decisions failed" in caplog.text


@pytest.mark.parametrize("kind", KINDS)
def test_every_variant_parses_counts_and_remembers(kind, server):
    agent, result = play(kind, server.base_url)
    assert all(d.valid and d.tokens_source == "server" and d.tokens_out > 0 for d in result.decisions)
    assert agent.tally.decisions == len(result.decisions) and not agent.tally.kinds
    assert agent.turn == len(result.decisions)
    remembered = agent.history.messages("system", "now")
    assert len(remembered) > 2  # earlier turns are kept in the history the base class owns
    agent.close()
