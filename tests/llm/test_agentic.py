"""The agentic framework: several reasoning rounds per step, each charged by the clock, with a cap."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rtarena.agents.llm.agentic import AgenticAgent
from rtarena.agents.llm.client import Completion
from rtarena.envs.registry import make
from rtarena.runtime import run_match


class ScriptedClient:
    """Stands in for the chat client: replies from a list, records every prompt it was sent."""

    def __init__(self, replies):
        self.replies = list(replies)
        self.prompts = []
        self.abandoned = type("E", (), {"clear": lambda self: None})()
        self.timeout_s = 30.0

    def fit_clock(self, clock, horizon_s=None):
        pass

    def complete(self, messages, timeout_s=None):
        self.prompts.append(json.loads(json.dumps(messages)))
        text = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
        return Completion(text=text, tokens_in=100, tokens_out=20, tokens_source="server", latency_s=0.01,
                          attempts=1, finish_reason="stop")

    def close(self):
        pass


def agentic(replies, rounds=3):
    agent = AgenticAgent(f"m@http://127.0.0.1:9/v1,rounds={rounds}")
    agent.client = agent.planner.client = ScriptedClient(replies)
    return agent


def test_rounds_look_then_act_and_every_round_is_charged():
    agent = agentic(["I need the numbers.\nLOOK: state", "NOTE: coins ahead\nACTION: [0,2,0,0,0,0,0]"])
    result = run_match(make("arena/basic-v0"), agent, clock="token", seed=0, max_steps=1, kappa=100)
    d = result.decisions[0]
    assert d.valid and d.action == [0, 2, 0, 0, 0, 0, 0]
    assert d.tokens_out == 40 and d.tokens_in == 200  # two rounds
    assert d.delay_sim_s == pytest.approx(40 / 100)
    assert d.extra["rounds"] == 2 and d.extra["looks"] == ["state"]
    second_prompt = agent.client.prompts[1]
    assert second_prompt[-2] == {"role": "assistant", "content": "I need the numbers.\nLOOK: state"}
    shown = second_prompt[-1]["content"]
    assert shown[0]["text"] == "LOOK state:" and shown[1]["text"].startswith("state: [")
    assert "LOOK: " in second_prompt[0]["content"] and "state" in second_prompt[0]["content"]
    assert agent.memory.notes == ["coins ahead"]


def test_round_cap_and_feedback():
    agent = agentic(["LOOK: state"], rounds=2)
    result = run_match(make("arena/basic-v0"), agent, clock="paused", seed=0, max_steps=2)
    first, second = result.decisions[:2]
    assert first.extra["rounds"] == 2 and not first.valid and first.error.startswith("unparsed")
    assert "No more looks this step" in json.dumps(agent.client.prompts[1][-1])
    assert first.action == [0] * 7
    # the feedback says what the env did: the default action played, and the game's own report since
    told = json.dumps(agent.client.prompts[2][-1])
    assert "Your previous decision: your reply failed" in told and "the game reports: nothing happened" in told
    assert second.tokens_out == 40


def test_an_unknown_view_is_answered_not_fatal():
    agent = agentic(["LOOK: xray", "ACTION: [0,0,2,0,0,0,0]"])
    result = run_match(make("arena/basic-v0"), agent, clock="paused", seed=0, max_steps=1)
    assert result.decisions[0].valid
    assert "There is no view called `xray`" in json.dumps(agent.client.prompts[1][-1])


def test_crosshair_depth_view():
    agent = AgenticAgent("m@http://127.0.0.1:9/v1,modalities=text+rgb")
    depth = np.full((8, 8), 30.0)
    depth[4, 4] = 7.25
    assert agent.perception.view({"depth": depth}, "crosshair_depth")[0]["text"] == "crosshair depth: 7.2 m"
    assert agent.perception.view_names(["text", "rgb", "depth", "minimap"]) == ["depth", "minimap",
                                                                                 "crosshair_depth"]


def test_agentic_against_the_scripted_server(server):
    agent = AgenticAgent(f"scripted-heuristic@{server.base_url},rounds=2")
    result = run_match(make("arena/basic-v0"), agent, clock="token", seed=0, max_steps=6, kappa=100)
    assert all(d.valid and d.extra["rounds"] == 1 for d in result.decisions)


def test_feedback_says_what_the_env_did_not_whether_the_reply_parsed():
    from rtarena.agents.llm.agentic.feedback import Feedback
    from rtarena.contract import Decision

    feedback = Feedback()
    feedback.after(Decision(action=[1]), "move forward", {"state": np.zeros(3)})
    feedback.seen({"state": np.zeros(3)})  # a parsed action the env showed no effect of
    assert feedback.previous == "move forward; nothing you can see changed since"
    feedback.seen({"state": np.ones(3)})
    assert feedback.previous == "move forward; the view has changed since"
    feedback.seen({"text": "Time 1.0 s.\nJust now: your shot hit p1."})
    assert feedback.previous == "move forward; the game reports: your shot hit p1"
