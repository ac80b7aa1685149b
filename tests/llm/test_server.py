"""The scripted policy server speaks the OpenAI chat API like a model server, and says it is scripted."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request

import openai

from rtarena.agents.llm.client import ChatClient
from rtarena.agents.llm.options import parse_llm_options
from rtarena.agents.llm.tokens import count_tokens
from rtarena.policy_server.policies import answer

CARTPOLE = [
    {"role": "system", "content": "The action space is Discrete(2): one integer from 0 to 1."},
    {"role": "user", "content": "Turn 1. Observation:\nstate: [0.0, 0.1, 0.05, 0.2]"},
]


def sdk(url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=url, api_key="unused", max_retries=0, timeout=10)


def test_stream_reports_usage_in_the_final_chunk_with_reasoning_tokens(server):
    stream = sdk(server.url(filler_tokens=40)).chat.completions.create(
        model="scripted-heuristic", messages=CARTPOLE, stream=True, stream_options={"include_usage": True})
    chunks = list(stream)
    content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    reasoning = "".join(getattr(c.choices[0].delta, "reasoning_content", None) or "" for c in chunks if c.choices)
    assert content.endswith("ACTION: 1")  # the balancer's law pushes right for a pole falling right
    assert count_tokens(reasoning) == 40
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert [c.usage for c in chunks[:-1]] == [None] * (len(chunks) - 1)
    usage = chunks[-1].usage
    assert usage.completion_tokens == 40 + count_tokens(content)
    assert usage.completion_tokens_details.reasoning_tokens == 40
    assert usage.prompt_tokens > 10 and chunks[0].model == "scripted-heuristic"


def test_without_include_usage_no_usage_chunk_and_non_streaming_has_usage(server):
    chunks = list(sdk(server.base_url).chat.completions.create(model="m", messages=CARTPOLE, stream=True))
    assert all(c.usage is None for c in chunks)
    reply = sdk(server.url(filler_tokens=5, reasoning="think")).chat.completions.create(model="m", messages=CARTPOLE)
    assert reply.choices[0].message.content.startswith("<think>think think")
    assert reply.usage.completion_tokens_details.reasoning_tokens == 5


def test_models_endpoint_names_a_scripted_policy(server):
    models = sdk(server.base_url).models.list()
    assert [m.id for m in models.data] == ["scripted-heuristic"]
    assert [m.id for m in sdk(server.url(policy="random")).models.list().data] == ["scripted-random"]


def test_time_to_first_token_and_filler_rate_shape_the_latency(server):
    client = ChatClient(parse_llm_options(f"m@{server.url(ttft_s=0.2, filler_tokens=100, filler_rate=500)}"))
    done = client.complete(CARTPOLE)
    assert done.ok and done.tokens_source == "server" and done.reasoning_tokens == 100
    # at least 0.2 s to the first token + 100 tokens at 500 per second (upper bounds only catch a hang;
    # the figures themselves: bench/llm_filler_tokens.py)
    assert 0.2 <= done.ttft_s < 10.0
    assert 0.4 <= done.latency_s < 20.0


def test_a_server_without_usage_gets_counted_tokens_flagged(server):
    done = ChatClient(parse_llm_options(f"m@{server.url(usage=False, filler_tokens=7)}")).complete(CARTPOLE)
    assert done.ok and done.tokens_source == "counted" and done.reasoning_tokens is None
    assert done.tokens_out == 7 + count_tokens(done.text)


def test_max_tokens_cuts_thinking_before_the_answer(server):
    done = ChatClient(parse_llm_options(f"m@{server.url(filler_tokens=300)},max_tokens=100")).complete(CARTPOLE)
    assert done.finish_reason == "length" and done.tokens_out == 100 and "empty" in done.error


def test_random_policy_is_seeded_by_the_request():
    system = {"role": "system", "content": "The action space is MultiDiscrete([3, 3, 3, 3, 2, 2, 2]): 7 integers"}
    first = answer([system, {"role": "user", "content": "a"}], "random")
    assert first == answer([system, {"role": "user", "content": "a"}], "random")
    replies = {answer([system, {"role": "user", "content": str(k)}], "random") for k in range(20)}
    assert len(replies) > 10 and all(r.split("ACTION: ")[1].count(",") == 6 for r in replies)


def test_serve_policy_command_runs_as_a_subprocess():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "rtarena.cli", "serve-policy", "--port", str(port),
                             "--filler-tokens", "3"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60  # a readiness wait: a loaded machine starts Python slowly
        while True:
            try:
                with urllib.request.urlopen(f"{url}/health", timeout=1) as reply:
                    assert json.load(reply) == {"status": "ok"}
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, "the server did not come up"
                time.sleep(0.05)
        done = ChatClient(parse_llm_options(f"m@{url}/v1")).complete(CARTPOLE)
        assert done.ok and done.reasoning_tokens == 3
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=10)
    assert "scripted policy server (not a model)" in out


def test_a_request_with_a_screenshot_history_is_accepted(server):
    """Twenty retained screenshots as data URLs weigh megabytes: more than the local apps' 1 MB body limit."""
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64," + "A" * 200_000}}
    messages = [{"role": "user", "content": [{"type": "text", "text": f"turn {k}"}, image]} for k in range(21)]
    body = json.dumps({"model": "m", "messages": messages}).encode()
    assert len(body) > 4_000_000
    request = urllib.request.Request(server.base_url + "/chat/completions", data=body,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as reply:
        assert reply.status == 200 and "ACTION:" in json.load(reply)["choices"][0]["message"]["content"]
