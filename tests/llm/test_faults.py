"""Every way a server can fail leaves the match running to the end with default actions, counted by kind."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from rtarena.agents.llm import LLMAgent, failure_line
from rtarena.agents.llm.client import ChatClient
from rtarena.agents.llm.options import parse_llm_options
from rtarena.envs.registry import make
from rtarena.policy_server import closed_port_url
from rtarena.runtime import run_match

FAULTS = [  # server setting -> the failure kind recorded
    ({"fault": "garbage"}, "unparsed"),
    ({"fault": "empty"}, "empty"),
    ({"fault": "html"}, "garbage"),  # an HTML page where a reply was due: not a cut stream
    ({"fault": "cut"}, "stream_cut"),
    ({"fault": "http_500"}, "http_500"),
    ({"fault": "http_429"}, "http_429"),
    ({"fault": "slow", "slow_s": 1.5}, "timeout"),
    (None, "connection"),  # nothing listens at all
]


@pytest.mark.parametrize("fault, kind", FAULTS, ids=[k for _, k in FAULTS])
def test_a_failing_server_never_stops_the_match(server, spec, fault, kind):
    url = server.url(**fault) if fault else closed_port_url()
    env = make("arena/coop-v0")
    timeout = 0.4 if kind == "timeout" else 3  # room for the one retry, whatever the machine's load
    agents = {a: LLMAgent(spec(url, timeout=timeout, retries=1)) for a in env.possible_agents}
    result = run_match(env, agents, clock="token", seed=0, max_steps=6, kappa=100)
    assert len(result.steps) == 6  # ran to the end
    assert len(result.decisions) >= 4 * 6
    for d in result.decisions:
        assert not d.valid and d.error.startswith(kind + ":")
        assert d.action == [0, 0, 0, 0, 0, 0, 0]  # the default action
    for agent, metrics in result.agents.items():
        assert metrics["failures"] == {kind: metrics["decisions"]}, agent
        assert metrics["failed_decisions"] == metrics["decisions"] == metrics["invalid_decisions"]
    assert kind + "=" in failure_line(result) and "played the default action" in failure_line(result)
    if kind == "unparsed":
        assert "Lorem ipsum" in result.decisions[0].text  # the raw reply is kept
    if kind in ("http_500", "http_429", "connection"):
        assert all(d.extra["attempts"] == 2 for d in result.decisions)  # one bounded retry, in time


def test_a_retry_recovers_a_flaky_server(server, spec):
    env = make("classic/cartpole-v0")
    agent = LLMAgent(spec(server.url(fault="http_500", fault_every=2), retries=2, timeout=5))
    result = run_match(env, agent, clock="paused", seed=0, max_steps=10)
    assert all(d.valid for d in result.decisions)
    assert any(d.extra.get("failed_attempts") == ["http_500"] for d in result.decisions)
    assert result.agents["agent_0"]["failures"] == {}


def test_a_retry_that_cannot_finish_in_time_is_not_made(server):
    options = parse_llm_options(f"m@{server.url(fault='http_429', retry_after_s=5)},timeout=1,retries=3")
    started = time.monotonic()
    done = ChatClient(options).complete([{"role": "user", "content": "hi"}])
    assert done.error.startswith("http_429") and done.attempts == 1
    assert time.monotonic() - started < 4.0  # a retry would have waited the 5 s the server asked for


def test_an_abandoned_stream_stops_at_once(server):
    client = ChatClient(parse_llm_options(f"m@{server.url(filler_tokens=2000, filler_rate=200)},timeout=30"))
    threading.Timer(0.3, client.abandon).start()
    started = time.monotonic()
    done = client.complete([{"role": "user", "content": "hi"}])
    assert done.error.startswith("abandoned") and time.monotonic() - started < 5.0  # the stream needs 10 s
    assert 0 < done.tokens_out < 2000 and done.tokens_source == "counted"  # what arrived before the stop


def test_the_api_key_is_never_kept_or_recorded(server, spec, monkeypatch):
    monkeypatch.setenv("RTARENA_TEST_KEY", "sk-secret-123")
    agent = LLMAgent(spec(server.base_url, api_key_env="RTARENA_TEST_KEY"))
    assert "sk-secret-123" not in repr(vars(agent)) + repr(vars(agent.client)) + repr(agent.options)
    result = run_match(make("classic/cartpole-v0"), agent, clock="paused", seed=0, max_steps=3)
    assert "sk-secret-123" not in repr(result)
    assert np.all([d.valid for d in result.decisions])


def test_closing_an_agent_logs_one_summary_line(server, spec, caplog):
    agent = LLMAgent(spec(server.url(fault="garbage")))
    run_match(make("classic/cartpole-v0"), agent, clock="paused", seed=0, max_steps=4)
    with caplog.at_level("WARNING"):
        agent.close()
    assert [r.getMessage() for r in caplog.records] == [
        "llm: 4 of 4 decisions failed and played the default action (unparsed=4)"]
