"""Reasoning models: a local endpoint that refuses `max_tokens` and `temperature` (the scripted policy
server in reasoning mode, a real HTTP server) still gets decisions; effort sets the reasoning length;
tokens written after the action are recorded but not charged."""

from __future__ import annotations

from tests.helpers import clock_needs

from rtarena.agents.llm import LLMAgent
from rtarena.agents.llm.client import ChatClient
from rtarena.agents.llm.commit import commit_point
from rtarena.agents.llm.options import LLMOptions, parse_llm_options
from rtarena.agents.llm.tokens import count_tokens
from rtarena.envs.registry import make
from rtarena.policy_server.reasoning import EFFORT_TOKENS
from rtarena.runtime import run_match
from rtarena.runtime.clocks import CLOCKS, make_clock

CARTPOLE = [
    {"role": "system", "content": "The action space is Discrete(2): one integer from 0 to 1."},
    {"role": "user", "content": "Turn 1. Observation:\nstate: [0.0, 0.1, 0.05, 0.2]"},
]


def client(url: str, **options) -> ChatClient:
    extra = "".join(f",{k}={v}" for k, v in options.items())
    return ChatClient(parse_llm_options(f"scripted-heuristic@{url}{extra}"))


def test_classic_requests_are_refused_with_http_400(server):
    done = client(server.url(reasoning_model=True), endpoint="classic", retries=0).complete(CARTPOLE)
    assert not done.ok and done.error.startswith("http_400") and "'temperature'" in done.error
    done = client(server.url(reasoning_model=True), endpoint="classic", max_tokens=50).complete(CARTPOLE)
    assert not done.ok and done.error.startswith("http_400") and "'max_tokens'" in done.error


def test_auto_switches_to_the_reasoning_style_after_the_refusal_and_keeps_it(server):
    chat = client(server.url(reasoning_model=True), reasoning_effort="high")
    first = chat.complete(CARTPOLE)
    assert first.ok and first.text.endswith("ACTION: 1")
    assert first.failed_attempts == ["http_400"] and first.attempts == 2
    assert first.reasoning_tokens == EFFORT_TOKENS["high"]
    second = chat.complete(CARTPOLE)  # the style is remembered: no refusal any more
    assert second.ok and second.attempts == 1 and second.failed_attempts == []


def test_reasoning_model_names_use_the_reasoning_style_from_the_start(server):
    chat = ChatClient(parse_llm_options(f"o3-mini@{server.url(reasoning_model=True)},reasoning_effort=low"))
    done = chat.complete(CARTPOLE)
    assert done.ok and done.attempts == 1 and done.reasoning_tokens == EFFORT_TOKENS["low"]


def test_max_tokens_travels_as_max_completion_tokens(server):
    done = client(server.url(reasoning_model=True), endpoint="reasoning", max_tokens=100,
                  reasoning_effort="high").complete(CARTPOLE)
    assert done.finish_reason == "length"  # thinking ate the budget: cut, not refused
    assert done.failed_attempts == [] and done.reasoning_tokens == 100


def test_defaults_do_not_cut_off_high_effort_replies():
    options = LLMOptions(model="m")
    assert options.max_tokens is None and options.endpoint == "auto"
    assert options.timeout is None
    clocks = {name: make_clock(name, **clock_needs(name)) for name in CLOCKS}
    assert all(c.model_budget_s(90.0) >= 90.0 for c in clocks.values())  # wall: the episode's length
    assert min(c.model_budget_s() for name, c in clocks.items() if name != "wall") >= 300


def test_effort_sets_the_reasoning_length_and_decisions_succeed_in_a_match(server):
    env = make("classic/cartpole-v0")
    spec = f"scripted-heuristic@{server.url(reasoning_model=True)},reasoning_effort=medium"
    agents = {a: LLMAgent(spec) for a in env.possible_agents}
    result = run_match(env, agents, clock="token", kappa=1000.0, seed=0, max_steps=5)
    assert result.decisions
    for d in result.decisions:
        assert d.valid and d.error is None and d.extra["reasoning_tokens"] == EFFORT_TOKENS["medium"]
        assert d.tokens_out > EFFORT_TOKENS["medium"]
        assert d.delay_sim_s == round(d.tokens_out / 1000.0, 9)  # the token clock charges what was generated


def test_tokens_after_the_action_are_recorded_not_charged(server):
    url = server.url(filler_tokens=10, after_tokens=25)
    env = make("classic/cartpole-v0")
    agents = {a: LLMAgent(f"scripted-heuristic@{url}") for a in env.possible_agents}
    result = run_match(env, agents, clock="token", kappa=100.0, seed=0, max_steps=3)
    for d in result.decisions:
        assert d.extra["tokens_after_commit"] == 25
        answer = d.text[:commit_point(d.text)]
        assert d.tokens_source == "server" and d.tokens_out == 10 + count_tokens(answer)
        assert d.delay_sim_s == round(d.tokens_out / 100.0, 9)
        assert d.text.rstrip().endswith("because")  # the whole reply is kept in the record


def test_early_commit_stops_the_stream_at_the_action_line(server):
    done = client(server.url(filler_tokens=10, after_tokens=25), early_commit="true").complete(CARTPOLE)
    assert done.ok and done.early_commit and done.finish_reason == "commit"
    assert done.text.endswith("ACTION: 1") and "because" not in done.text and done.tokens_after_commit == 0
    assert done.tokens_source == "counted" and done.tokens_out == 10 + count_tokens(done.text)  # usage never came


def test_commit_point_ignores_actions_inside_thinking():
    assert commit_point("<think>ACTION: 1\n</think>ok") is None
    assert commit_point("<think>x</think>ACTION: 1\nmore") == len("<think>x</think>ACTION: 1")
    assert commit_point("ACTION: 1") is None and commit_point("ACTION: 1", final=True) == len("ACTION: 1")
    assert commit_point("no action yet\n") is None
