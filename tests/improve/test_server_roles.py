"""The scripted roles of `rtarena serve-policy`: tool calling (streamed and not), the skill player, the judge."""

from __future__ import annotations

import json

import openai
import pytest

from rtarena.improve.chat import role_client
from rtarena.improve.judge import Judge
from rtarena.policy_server.skill_player import answer as play

TOOLS = [{"type": "function", "function": {"name": name, "description": "", "parameters": {"type": "object",
                                                                                           "properties": {}}}}
         for name in ("list_dir", "submit_skill")]
OPENING = [{"role": "system", "content": "You are the reflector."}, {"role": "user", "content": "Round 0 is over."}]


def client(server) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.url(policy="reflector"), api_key="none")


def test_tool_calls_non_streamed(server):
    reply = client(server).chat.completions.create(model="scripted-reflector", messages=OPENING, tools=TOOLS)
    choice = reply.choices[0]
    assert choice.finish_reason == "tool_calls" and choice.message.content is None
    (call,) = choice.message.tool_calls
    assert call.function.name == "list_dir" and json.loads(call.function.arguments) == {"path": "evidence"}
    assert reply.usage.completion_tokens > 0


def test_tool_calls_streamed_arrive_in_pieces_and_add_up_to_the_same_call(server):
    stream = client(server).chat.completions.create(model="scripted-reflector", messages=OPENING, tools=TOOLS,
                                                    stream=True, stream_options={"include_usage": True})
    pieces, finish, usage = [], None, None
    for chunk in stream:
        usage = chunk.usage or usage
        for choice in chunk.choices:
            finish = choice.finish_reason or finish
            pieces += choice.delta.tool_calls or []
    assert finish == "tool_calls" and usage is not None
    assert pieces[0].id and pieces[0].function.name == "list_dir"
    assert json.loads("".join(p.function.arguments or "" for p in pieces)) == {"path": "evidence"}


@pytest.mark.parametrize("stream", ["true", "false"])
def test_the_runner_client_reads_both_forms_and_a_forced_choice_is_honoured(server, stream):
    chat = role_client(f"scripted-reflector@{server.url(policy='reflector')},stream={stream}", role="reflector")
    free = chat.complete(OPENING, tools=TOOLS)
    forced = chat.complete(OPENING, tools=TOOLS, tool_choice={"type": "function", "function": {"name": "submit_skill"}})
    chat.close()
    assert [c["name"] for c in free.calls] == ["list_dir"] and free.error is None
    assert [c["name"] for c in forced.calls] == ["submit_skill"]


def test_the_improve_roles_use_the_one_model_client_with_its_endpoint_rules(server):
    """The reflector and the judge call through agents/llm/client.py: a reasoning endpoint that refuses
    `temperature` gets the reasoning style after one refusal, with tool calls and a verdict as before."""
    chat = role_client(f"scripted-reflector@{server.url(policy='reflector', reasoning_model=True)}", "reflector")
    done = chat.complete(OPENING, tools=TOOLS)
    again = chat.complete(OPENING, tools=TOOLS)
    chat.close()
    assert done.ok and [c["name"] for c in done.calls] == ["list_dir"] and not done.text
    assert done.failed_attempts == ["http_400"] and done.attempts == 2  # refused once, then the reasoning style
    assert again.attempts == 1 and done.tokens_source == "server" and done.message()["tool_calls"]
    judge = Judge(f"scripted-judge@{server.url(policy='judge', reasoning_model=True)}")
    verdict = judge.verdict("- Keep the pole up.", {"failure_modes": ["fell"]}, "", [])
    judge.close()
    assert verdict["verdict"] in ("pass", "needs_revision"), verdict


LEAN = "Push the cart toward the side the pole leans: a pole leaning right needs a push right."
SWING = "When the pole swings fast, push the cart against the swing to brake it."


def system(*bullets: str) -> str:
    notes = "\n## Skill notes\nThe following notes were written from earlier games; use them.\n\n" if bullets else ""
    return "The action space is Discrete(2): one integer from 0 to 1." + notes + "\n".join(f"- {b}" for b in bullets)


@pytest.mark.parametrize(("bullets", "state", "action"), [
    ((), [0, 0, 0.05, 0], "0"),  # no skill: the default action, whatever the pole does
    ((LEAN,), [0, 0, 0.05, 0], "1"),  # leaning right: push right
    ((LEAN,), [0, 0, -0.05, 0], "0"),
    ((LEAN, SWING), [0, 0, 0.05, 0.6], "0"),  # swinging right fast: "against the swing" pushes left
    (("Push toward the pole",), [0, 0, 0.05, 0], "0"),  # a rule it does not recognise changes nothing
])
def test_the_skill_player_follows_only_the_rules_in_its_skill_notes(bullets, state, action):
    reply = play(system(*bullets), f"Observation\nstate: {json.dumps(state)}", lambda: "0")
    assert reply.rsplit("ACTION: ", 1)[1] == action
