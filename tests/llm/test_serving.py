"""A serving stack the project did not write: `transformers serve` (the `serving` extra) with a tiny model
built here from a config (a one-layer GPT-2 over a byte-level tokenizer, random weights; nothing is
downloaded). Its replies are noise, so its decisions do not parse; what is checked is the protocol: an
episode completes, token counts come from the server's usage, and an error event inside a stream (a
prompt longer than the model's positions) is recorded with the server's message.

Marked `serving` (starting the server costs about 20 CPU-seconds): `make test` leaves it out, `make
test-serving` (run by `.ci/run`) runs it.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from rtarena.agents.llm.client import ChatClient
from rtarena.agents.llm.options import parse_llm_options
from rtarena.envs.registry import make
from rtarena.runtime import run_match

pytestmark = pytest.mark.serving
POSITIONS = 8192  # longer than any prompt of the episodes below, shorter than the overflow test's


def tiny_model(folder: Path) -> None:
    """A byte-level tokenizer (every byte one token, no merges) and a one-layer GPT-2, saved to `folder`."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    vocab = {ch: i for i, ch in enumerate(sorted(pre_tokenizers.ByteLevel.alphabet()))}
    for special in ("<s>", "</s>"):
        vocab[special] = len(vocab)
    tokenizer = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, bos_token="<s>", eos_token="</s>")
    fast.chat_template = ("{% for m in messages %}{{ m['role'] }}: {{ m['content'] if m['content'] is string "
                          "else '' }}\n{% endfor %}{% if add_generation_prompt %}assistant: {% endif %}")
    fast.save_pretrained(folder)
    torch.manual_seed(0)
    config = GPT2Config(vocab_size=len(vocab), n_positions=POSITIONS, n_embd=16, n_layer=1, n_head=2,
                        bos_token_id=vocab["<s>"], eos_token_id=vocab["</s>"])
    GPT2LMHeadModel(config).save_pretrained(folder)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """`transformers serve` pinned to the tiny model on a free port of 127.0.0.1; yields (model, base URL)."""
    folder = tmp_path_factory.mktemp("tiny-gpt2")
    tiny_model(folder)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    cli = Path(sys.executable).with_name("transformers")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    process = subprocess.Popen([str(cli), "serve", str(folder), "--device", "cpu", "--host", "127.0.0.1",
                                "--port", str(port)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 180
        while True:
            assert process.poll() is None, process.stderr.read().decode()[-2000:]
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2):
                    break
            except OSError:
                assert time.monotonic() < deadline, "transformers serve did not start within 180 s"
                time.sleep(0.5)
        yield str(folder), f"http://127.0.0.1:{port}/v1"
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_an_llm_episode_completes_with_the_servers_token_counts(served):
    model, url = served
    from rtarena.agents.llm import LLMAgent

    result = run_match(make("classic/cartpole-v0"), LLMAgent(f"{model}@{url},max_tokens=8,timeout=120"),
                       clock="paused", seed=0, max_steps=3)
    assert len(result.steps) == 3 and len(result.decisions) == 3
    for d in result.decisions:
        assert d.error is None or d.error.startswith(("unparsed", "empty"))  # noise answered: no protocol failure
        assert d.tokens_source == "server" and d.tokens_out == 8 and d.tokens_in > 100  # the server's usage


def test_an_agentic_episode_completes(served):
    model, url = served
    from rtarena.agents.llm.agentic.agent import AgenticAgent

    result = run_match(make("classic/cartpole-v0"), AgenticAgent(f"{model}@{url},max_tokens=8,rounds=2,timeout=120"),
                       clock="paused", seed=0, max_steps=2)
    assert len(result.steps) == 2
    assert all(d.tokens_source == "server" and d.tokens_in > 0 for d in result.decisions)


def test_an_error_event_in_the_stream_is_recorded_with_the_servers_message(served):
    model, url = served
    client = ChatClient(parse_llm_options(f"{model}@{url},max_tokens=4,retries=0,timeout=120"))
    done = client.complete([{"role": "user", "content": "x" * (POSITIONS + 100)}])  # past the model's positions
    assert done.error is not None and done.error.startswith("stream_cut:")
    assert "index out of range" in done.error  # the server's own words, not the SDK's class name alone
