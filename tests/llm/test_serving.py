"""A serving stack the project did not write: `transformers serve` (the `serving` extra), one server on
127.0.0.1 for three tiny models built here from configs (random or hand-set weights; nothing is downloaded),
each named by its folder in the request:

- `text`: a one-layer GPT-2 over a byte-level tokenizer, random weights. Its replies are noise, so its
  decisions do not parse; what is checked is the protocol: `llm:`, `agentic:` and `team:` episodes complete,
  token counts come from the server's usage, and an error event inside a stream (a prompt longer than the
  model's positions) is recorded with the server's message.
- `tools`: a GPT-2 whose weights are set by hand so that every turn it answers one tool call,
  `get_previous_skill`, in the `<tool_call>` markup its tokenizer's `response_template` declares: the server
  parses it into OpenAI `tool_calls` (as it does for the Qwen and Gemma 4 families), and the reflector's
  tool loop runs on it. The server ignores `tool_choice`, so the reflector's forced last turn gets the
  model's own call, not `submit_skill`.
- `vision`: a LLaVA (one-layer CLIP tower over 32-pixel images in 8-pixel patches, one-layer Llama), random
  weights: an image in a decision's message costs exactly its 16 patch tokens in the server's count.

Marked `serving` (the server and the models cost about 30 CPU-seconds to start): `make test` leaves it out,
`make test-serving` (run by `.ci/run`) runs it.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from rtarena.agents.llm.client import ChatClient
from rtarena.agents.llm.options import parse_llm_options
from rtarena.envs.registry import make
from rtarena.runtime import run_match

pytestmark = pytest.mark.serving
POSITIONS = 8192  # longer than any prompt of the episodes below, shorter than the overflow test's
CALL = '{"name": "get_previous_skill", "arguments": {}}'  # the tool model's one answer
IMAGE_TOKENS = 16  # (32 / 8) ** 2 patches; the CLS token is dropped (`vision_feature_select_strategy`)


def byte_tokenizer(extra: tuple[str, ...] = ()):
    """A byte-level tokenizer (every byte one token, no merges) with `<s>`, `</s>` and `extra` tokens."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {ch: i for i, ch in enumerate(sorted(pre_tokenizers.ByteLevel.alphabet()))}
    for special in ("<s>", "</s>"):
        vocab[special] = len(vocab)
    tokenizer = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, bos_token="<s>", eos_token="</s>")
    fast.add_tokens(list(extra))
    return fast


def text_model(folder: Path) -> None:
    """A one-layer GPT-2 with random weights over the byte tokenizer, saved to `folder`."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    fast = byte_tokenizer()
    fast.chat_template = ("{% for m in messages %}{{ m['role'] }}: {{ m['content'] if m['content'] is string "
                          "else '' }}\n{% endfor %}{% if add_generation_prompt %}assistant: {% endif %}")
    fast.save_pretrained(folder)
    torch.manual_seed(0)
    config = GPT2Config(vocab_size=len(fast), n_positions=POSITIONS, n_embd=16, n_layer=1, n_head=2,
                        bos_token_id=fast.bos_token_id, eos_token_id=fast.eos_token_id)
    GPT2LMHeadModel(config).save_pretrained(folder)


def tool_model(folder: Path) -> None:
    """A GPT-2 whose next token depends on the last one only, by hand: attention and MLP write nothing,
    each token's embedding is its own axis, and the head maps `<|assistant|>` (where the chat template ends)
    to `<tool_call>`, then `CALL`, `</tool_call>`, `</s>`; every other token to `</s>`."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    chain = ["<|assistant|>", "<tool_call>", CALL, "</tool_call>"]
    fast = byte_tokenizer(tuple(chain))
    fast.chat_template = (
        "{% for m in messages %}{{ m['role'] }}: {{ m['content'] if m['content'] is string else '' }}"
        "{% for c in m.get('tool_calls') or [] %}<tool_call>{{ c['function'] | tojson }}</tool_call>{% endfor %}"
        "\n{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}")
    fast.response_template = {  # what the server parses the reply by (its Qwen 2 fallback, on these markers)
        "defaults": {"role": "assistant"}, "start_anchor": "<|assistant|>",
        "fields": {"tool_calls": {"open_pattern": r"\s*<tool_call>", "close": "</tool_call>", "repeats": True,
                                  "content": "json", "transform": {"type": "function", "function": "{content}"}},
                   "content": {"close_pattern": r"\s*</s>", "content": "text"}}}
    fast.save_pretrained(folder)
    n, eos = len(fast), fast.eos_token_id
    config = GPT2Config(vocab_size=n, n_positions=POSITIONS, n_embd=n, n_layer=1, n_head=1,
                        tie_word_embeddings=False, bos_token_id=fast.bos_token_id, eos_token_id=eos)
    model = GPT2LMHeadModel(config)
    ids = [*fast.convert_tokens_to_ids(chain), eos]
    following = torch.full((n,), eos)
    following[ids[:-1]] = torch.tensor(ids[1:])
    with torch.no_grad():
        for weight in model.parameters():
            weight.zero_()
        model.transformer.wte.weight.copy_(torch.eye(n))
        model.transformer.ln_f.weight.fill_(1.0)
        model.lm_head.weight[following, torch.arange(n)] = 100.0
    model.save_pretrained(folder)


def vision_model(folder: Path) -> None:
    """A LLaVA with random weights (a one-layer CLIP tower, a one-layer Llama) and its processor: an image is
    resized to 32 x 32 pixels and stands in the prompt as `IMAGE_TOKENS` `<image>` tokens."""
    import torch
    from transformers import (
        CLIPImageProcessor,
        CLIPVisionConfig,
        LlamaConfig,
        LlavaConfig,
        LlavaForConditionalGeneration,
        LlavaProcessor,
    )

    fast = byte_tokenizer()
    fast.add_special_tokens({"additional_special_tokens": ["<image>"]})
    template = ("{% for m in messages %}{{ m['role'] }}: {% if m['content'] is string %}{{ m['content'] }}"
                "{% else %}{% for c in m['content'] %}{% if c['type'] == 'text' %}{{ c['text'] }}{% else %}<image>"
                "{% endif %}{% endfor %}{% endif %}\n{% endfor %}{% if add_generation_prompt %}assistant: {% endif %}")
    images = CLIPImageProcessor(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32})
    LlavaProcessor(image_processor=images, tokenizer=fast, patch_size=8, vision_feature_select_strategy="default",
                   image_token="<image>", chat_template=template, num_additional_image_tokens=1).save_pretrained(folder)
    torch.manual_seed(0)
    config = LlavaConfig(
        vision_config=CLIPVisionConfig(hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                                       num_attention_heads=2, image_size=32, patch_size=8),
        text_config=LlamaConfig(vocab_size=len(fast), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                                num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=POSITIONS,
                                bos_token_id=fast.bos_token_id, eos_token_id=fast.eos_token_id),
        image_token_index=fast.convert_tokens_to_ids("<image>"), vision_feature_layer=-1,
        vision_feature_select_strategy="default")
    LlavaForConditionalGeneration(config).save_pretrained(folder)


@dataclass(frozen=True)
class Served:
    url: str
    text: str
    tools: str
    vision: str


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """`transformers serve` on a free port of 127.0.0.1, pinned to no model (each request names its
    folder), while the three models are built here."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    cli = Path(sys.executable).with_name("transformers")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    process = subprocess.Popen([str(cli), "serve", "--device", "cpu", "--host", "127.0.0.1", "--port", str(port)],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        folders = {}
        for name, build in (("text", text_model), ("tools", tool_model), ("vision", vision_model)):
            folders[name] = tmp_path_factory.mktemp(f"tiny-{name}")
            build(folders[name])
        deadline = time.monotonic() + 180
        while True:
            assert process.poll() is None, process.stderr.read().decode()[-2000:]
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2):
                    break
            except OSError:
                assert time.monotonic() < deadline, "transformers serve did not start within 180 s"
                time.sleep(0.5)
        yield Served(f"http://127.0.0.1:{port}/v1", **{k: str(v) for k, v in folders.items()})
    finally:
        process.terminate()
        process.wait(timeout=30)


def noise_only(decisions) -> bool:
    """Every decision got a reply from the server: noise that does not parse is fine, a protocol failure not."""
    return all(d.error is None or d.error.startswith(("unparsed", "empty")) for d in decisions)


def test_an_llm_episode_completes_with_the_servers_token_counts(served):
    from rtarena.agents.llm import LLMAgent

    result = run_match(make("classic/cartpole-v0"), LLMAgent(f"{served.text}@{served.url},max_tokens=8,timeout=120"),
                       clock="paused", seed=0, max_steps=3)
    assert len(result.steps) == 3 and len(result.decisions) == 3 and noise_only(result.decisions)
    for d in result.decisions:
        assert d.tokens_source == "server" and d.tokens_out == 8 and d.tokens_in > 100  # the server's usage


def test_an_agentic_episode_completes(served):
    from rtarena.agents.llm.agentic.agent import AgenticAgent

    agent = AgenticAgent(f"{served.text}@{served.url},max_tokens=8,rounds=2,timeout=120")
    result = run_match(make("classic/cartpole-v0"), agent, clock="paused", seed=0, max_steps=2)
    assert len(result.steps) == 2
    assert all(d.tokens_source == "server" and d.tokens_in > 0 for d in result.decisions)


def test_a_team_episode_completes_one_call_for_four_bodies(served):
    from rtarena.agents.specs import parse_spec
    from rtarena.eval.episodes import controllers_for

    env = make("arena/coop-v0")  # history=0: four bodies' observations fill most of the model's positions
    spec = parse_spec(f"team:llm:{served.text}@{served.url},max_tokens=8,history=0,timeout=120")
    controllers = controllers_for(env, [spec], "arena")
    result = run_match(env, controllers, clock="paused", seed=0, max_steps=2)
    assert len(result.steps) == 2 and len(result.decisions) == 2 and noise_only(result.decisions)
    for d in result.decisions:  # unparsed noise: every body plays its default action
        assert d.controller == "team(p0,p1,p2,p3)" and set(d.action) == {"p0", "p1", "p2", "p3"}
        assert d.tokens_source == "server" and d.tokens_out > 0 and d.tokens_in > 1000


def test_images_reach_the_vlm_as_its_patch_tokens_and_a_text_model_drops_them(served):
    """The same arena frames with and without `rgb` in the message: the VLM's prompt is longer by exactly the
    image's patch tokens; the text model's is not (the server drops images sent to a text-only model)."""
    from rtarena.agents.llm import LLMAgent

    tokens = {}
    for model in (served.vision, served.text):
        for modalities in ("text+rgb", "text"):
            agent = LLMAgent(f"{model}@{served.url},max_tokens=8,history=0,timeout=120,modalities={modalities},"
                             "image_size=64")
            result = run_match(make("arena/basic-v0", obs=("text", "rgb")), agent, clock="paused", seed=0,
                               max_steps=2)
            assert len(result.decisions) == 2 and noise_only(result.decisions)
            assert all(d.tokens_source == "server" for d in result.decisions)
            tokens[model, modalities] = [d.tokens_in for d in result.decisions]
    with_image, without = tokens[served.vision, "text+rgb"], tokens[served.vision, "text"]
    assert [a - b for a, b in zip(with_image, without, strict=True)] == [IMAGE_TOKENS] * 2
    assert tokens[served.text, "text+rgb"] == tokens[served.text, "text"]


def reflection(spec: str, folder: Path):
    """One reflection of at most two turns by the model of `spec`: its transcript rows and its outcome."""
    from rtarena.improve.chat import role_client
    from rtarena.improve.judge import Judge
    from rtarena.improve.reflector import reflect
    from rtarena.improve.settings import ImproveSettings
    from rtarena.improve.submit import RoundState

    chat, judge = role_client(spec, "reflector"), Judge(spec)
    folder.mkdir(exist_ok=True)
    try:
        outcome = reflect(chat, judge, folder, RoundState(0, "- keep calm", "old notes", False, []),
                          ImproveSettings(max_turns=2), "classic/cartpole-v0", "return", "Round 0 is over.")
    finally:
        chat.close()
        judge.close()
    return [json.loads(x) for x in (folder / "transcript.jsonl").read_text().splitlines()], outcome


def test_the_reflectors_tool_calls_run_and_tool_choice_is_ignored(served, tmp_path):
    for stream in ("true", "false"):
        rows, outcome = reflection(f"{served.tools}@{served.url},max_tokens=16,stream={stream},timeout=120",
                                   tmp_path / stream)
        # the server parsed the model's markup into a call, the tool ran, its result went back as a tool message
        assert [(r["kind"], r["tool"], r["ok"]) for r in rows] == [("tool", "get_previous_skill", True)] * 2
        assert rows[0]["result"]["skill"] == "- keep calm" and rows[0]["arguments"] == "{}"
        assert all(r["tokens_source"] == "server" and r["tokens_out"] == 4 for r in rows)
        assert rows[1]["tokens_in"] > rows[0]["tokens_in"]  # the call and its result are in the second prompt
        # the last turn forced `submit_skill` by `tool_choice`; transformers serve ignores it (a logged warning)
        assert rows[1]["forced"] is True and not outcome.accepted and outcome.reason == "turn cap (2) reached"


def test_without_a_response_template_the_reply_is_text_and_the_reflection_ends(served, tmp_path):
    """A model whose tokenizer declares no `response_template` (and whose family has no fallback in the
    server) gets no tool-call parsing: the reflector reads a text reply and stops without a skill."""
    rows, outcome = reflection(f"{served.text}@{served.url},max_tokens=8,timeout=120", tmp_path)
    assert [r["kind"] for r in rows] == ["text"] and rows[0]["tokens_source"] == "server"
    assert not outcome.accepted and outcome.reason == "the reflector stopped without a skill"


def prompt_overhead(folder: str) -> int:
    """The chat template's tokens around a one-character message (the byte tokenizer: one per character)."""
    from transformers import AutoTokenizer

    ids = AutoTokenizer.from_pretrained(folder).apply_chat_template(
        [{"role": "user", "content": "x"}], add_generation_prompt=True, tokenize=True, return_dict=True)["input_ids"]
    return len(ids) - 1


def test_an_error_event_in_the_stream_is_recorded_with_the_servers_message(served):
    """A prompt two tokens short of the model's positions is taken; the answer runs past them mid-stream."""
    client = ChatClient(parse_llm_options(f"{served.text}@{served.url},max_tokens=8,retries=0,timeout=120"))
    done = client.complete([{"role": "user", "content": "x" * (POSITIONS - 2 - prompt_overhead(served.text))}])
    assert done.error is not None and done.error.startswith("stream_cut:")
    assert "index out of range" in done.error  # the server's own words, not the SDK's class name alone


def test_a_prompt_past_the_models_context_is_refused_in_the_servers_words(served):
    """Since 5.25 the server checks a prompt's length before it generates: a 400 whose words are in FastAPI's
    `detail`, which the OpenAI SDK leaves out of its message."""
    client = ChatClient(parse_llm_options(f"{served.text}@{served.url},max_tokens=4,retries=0,timeout=120"))
    done = client.complete([{"role": "user", "content": "x" * (POSITIONS + 100)}])
    assert done.error is not None and done.error.startswith("http_400:")
    assert f"but the model takes at most {POSITIONS}" in done.error
