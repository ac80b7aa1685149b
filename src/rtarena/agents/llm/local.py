"""A model on this machine, loaded with `transformers`: the `vlm:` agent and the model `rtarena train vlm`
trains (one home for loading, prompting and generating, so the trained policy and the evaluated agent
see the same prompt).

```
vlm:PATH[,adapter=DIR][,device=cpu|cuda][,KEY=VALUE]...
```

`PATH` is a local model folder (`config.json` and weights, as `save_pretrained` writes them). A folder whose
config has a `vision_config` is loaded as a vision-language model (`AutoProcessor` +
`AutoModelForImageTextToText`) and sees images; any other as a causal LM (`AutoTokenizer` +
`AutoModelForCausalLM`), which sees only text. `adapter=DIR` loads LoRA adapters (PEFT, as
`rtarena train vlm` writes them to `OUT/adapter`). The other keys are the `llm:` agent's (options.py):
`temperature` (0: greedy), `max_tokens` (default `MAX_NEW_TOKENS`), `modalities`, `history`, `timeout`...

The `vlm:` agent is the `llm:` agent with this client in place of the HTTP one: the same system prompt,
retained history and reply parser. A VLM whose spec names no modalities is sent the env's `rgb` frame
when the env makes one (the screenshot: what ROAR's VLM sees), else the default view. Under `token` the
clock charges the tokens the model really generated; under `wall` the real time of the generation.
"""

from __future__ import annotations

import base64
import io
import threading
import time
from pathlib import Path
from typing import Any

from rtarena.agents.llm.agent import LLMAgent
from rtarena.agents.llm.client import Completion, ModelClient
from rtarena.agents.llm.options import LLMOptions, parse_llm_options
from rtarena.contract import AgentContext, Observes
from rtarena.errors import UserError

MAX_NEW_TOKENS = 64  # a reply's cap when the spec sets no `max_tokens`: an ACTION line and a short reason
LOCAL_KEYS = ("adapter", "device")


def is_vision_model(path: str | Path, where: str = "--agent vlm") -> bool:
    """Whether the local model folder holds a vision-language model (its config has a `vision_config`), read
    from its config alone; a one-line `UserError` when the folder is not a model."""
    import transformers

    if not (Path(path) / "config.json").is_file():
        raise UserError(f"not a local model folder (no config.json): {path}", field=where)
    try:
        return getattr(transformers.AutoConfig.from_pretrained(path), "vision_config", None) is not None
    except (OSError, ValueError, KeyError) as error:
        raise UserError(f"cannot read the model config in {path}: {str(error).splitlines()[0]}", field=where) from None


def load_local_model(path: str | Path, adapter: str | Path | None = None, device: str | None = None,
                     where: str = "--agent vlm") -> tuple[Any, Any, bool]:
    """(model, processor or tokenizer, is_vision) from a local folder; a one-line `UserError` when the folder
    is not a model, or the adapter does not fit it."""
    import torch
    import transformers

    folder = Path(path)
    vision = is_vision_model(folder, where)
    transformers.utils.logging.disable_progress_bar()  # a command's output stays its own lines
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    if device not in ("cpu", "cuda") or (device == "cuda" and not torch.cuda.is_available()):
        raise UserError(f"device must be cpu or cuda (with a GPU present), got {device!r}", field=where)
    dtype = torch.bfloat16 if device == "cuda" else torch.float32
    try:
        if vision:
            processor = transformers.AutoProcessor.from_pretrained(folder)
            model = transformers.AutoModelForImageTextToText.from_pretrained(folder, dtype=dtype)
        else:
            processor = transformers.AutoTokenizer.from_pretrained(folder)
            model = transformers.AutoModelForCausalLM.from_pretrained(folder, dtype=dtype)
    except (OSError, ValueError, KeyError) as error:
        raise UserError(f"cannot load the model in {path}: {str(error).splitlines()[0]}", field=where) from None
    if adapter is not None:
        if not (Path(adapter) / "adapter_config.json").is_file():
            raise UserError(f"not a LoRA adapter folder (no adapter_config.json): {adapter}", field=where)
        from peft import PeftModel

        try:
            model = PeftModel.from_pretrained(model, str(adapter))
        except (RuntimeError, ValueError, KeyError) as error:
            raise UserError(f"the adapter in {adapter} does not fit the model in {path}: "
                            f"{str(error).splitlines()[0]}", field=where) from None
    model.to(device).eval()
    return model, processor, vision


def tokenizer_of(processor: Any) -> Any:
    return getattr(processor, "tokenizer", processor)


def image_token(processor: Any) -> str | None:
    return getattr(processor, "image_token", None) or getattr(tokenizer_of(processor), "image_token", None)


def render_chat(processor: Any, messages: list[dict[str, Any]], vision: bool) -> tuple[str, list[Any]]:
    """The prompt text and its images from OpenAI-style chat messages: the model's chat template where it
    has one, else `role: text` lines; each image part becomes the processor's image token (text models
    drop images, as they cannot see them)."""
    from PIL import Image

    images, plain, templated = [], [], []
    token = image_token(processor) if vision else None
    for message in messages:
        content = message.get("content") or ""
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
        texts, hf_parts = [], []
        for part in parts:
            if part.get("type") == "text":
                texts.append(part["text"])
                hf_parts.append({"type": "text", "text": part["text"]})
            elif part.get("type") == "image_url" and token:
                data = part["image_url"]["url"].split(",", 1)[1]
                images.append(Image.open(io.BytesIO(base64.b64decode(data))).convert("RGB"))
                texts.append(token)
                hf_parts.append({"type": "image"})
        plain.append(f"{message['role']}: " + "\n".join(texts))
        templated.append({"role": message["role"], "content": hf_parts})
    template = getattr(processor, "chat_template", None)
    if template:
        return processor.apply_chat_template(templated, add_generation_prompt=True, tokenize=False), images
    return "\n".join(plain) + "\nassistant:", images


def encode(processor: Any, text: str, images: list[Any], device: Any) -> dict[str, Any]:
    """Model inputs (`input_ids`, `attention_mask`, `pixel_values` with images) on `device`."""
    if images:
        inputs = processor(images=images, text=text, return_tensors="pt")
    else:
        inputs = tokenizer_of(processor)(text, return_tensors="pt")
    return {k: v.to(device) for k, v in inputs.items()}


class _FirstToken:
    """A `generate` streamer that notes when the first generated token exists (the first `put` is the prompt)."""

    def __init__(self) -> None:
        self.puts, self.first_at = 0, None

    def put(self, value: Any) -> None:
        self.puts += 1
        if self.puts == 2:
            self.first_at = time.monotonic()

    def end(self) -> None:
        pass


class LocalClient(ModelClient):
    """A model client (`complete`) over a local model. `last` keeps the latest call's model inputs and
    generated ids (the trainer scores them)."""

    def __init__(self, options: LLMOptions, model: Any, processor: Any, vision: bool) -> None:
        super().__init__(options)
        self.model, self.processor, self.vision = model, processor, vision
        self.last: tuple[dict[str, Any], Any] | None = None
        self.lock = threading.Lock()  # one generation at a time: the weights are shared

    def complete(self, messages: list[dict[str, Any]], timeout_s: float | None = None) -> Completion:
        import torch

        start = time.monotonic()
        if self.abandoned.is_set():
            return Completion(error="abandoned: the runtime no longer needed this decision", attempts=1)
        text, images = render_chat(self.processor, messages, self.vision)
        inputs = encode(self.processor, text, images, self.model.device)
        tokenizer = tokenizer_of(self.processor)
        pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
        token = image_token(self.processor)
        banned = [[tokenizer.convert_tokens_to_ids(token)]] if self.vision and token else None
        limit = self.options.max_tokens or MAX_NEW_TOKENS
        temperature = self.options.temperature
        streamer = _FirstToken()
        with self.lock, torch.no_grad():
            out = self.model.generate(**inputs, max_new_tokens=limit, do_sample=temperature > 0,
                                      temperature=temperature if temperature > 0 else None, pad_token_id=pad,
                                      bad_words_ids=banned, max_time=timeout_s or self.timeout_s,
                                      streamer=streamer)
        generated = out[0, inputs["input_ids"].shape[1]:]
        self.last = (inputs, generated)
        reply = tokenizer.decode(generated, skip_special_tokens=True)
        finished = len(generated) > 0 and int(generated[-1]) == tokenizer.eos_token_id
        error = None if reply.strip() else "empty: the reply had no content"
        return Completion(text=reply, tokens_in=int(inputs["input_ids"].shape[1]), tokens_out=len(generated),
                          tokens_source="server",  # the model's own tokenizer: exact counts, as a server reports
                          ttft_s=None if streamer.first_at is None else streamer.first_at - start,
                          latency_s=time.monotonic() - start, attempts=1,
                          finish_reason="stop" if finished else "length", error=error)


def split_local_options(option: str | None) -> tuple[str, dict[str, str]]:
    """`PATH[,adapter=DIR][,device=D][,k=v]...` -> (the `llm:` option string without the local keys, them)."""
    if not option:
        raise UserError("needs a model folder: vlm:PATH[,adapter=DIR][,key=value...]", field="--agent vlm")
    head, *pairs = option.split(",")
    local = {}
    rest = [head]
    for pair in pairs:
        key, _, value = pair.partition("=")
        if key.strip() in LOCAL_KEYS:
            local[key.strip()] = value.strip()
        else:
            rest.append(pair)
    return ",".join(rest), local


class VLMAgent(LLMAgent):
    """A local model (with or without trained adapters) through the `llm:` agent's prompt and parser."""

    name = "vlm"
    kind = "vlm"

    def __init__(self, option: str | None = None, loaded: tuple[Any, Any, bool] | None = None) -> None:
        """`loaded`: (model, processor, is_vision) already in memory (the trainer's policy), else loaded from
        the spec's folder."""
        rest, local = split_local_options(option)
        self.local, self.loaded = local, loaded
        super().__init__(parse_llm_options(rest, self.kind))
        if self.client.vision and not self.asked.modalities:  # a VLM reads the screen: the env must make it
            self.observes = Observes(("rgb",))

    def make_client(self) -> LocalClient:
        local = self.local
        loaded = self.loaded or load_local_model(self.options.model, local.get("adapter"), local.get("device"))
        return LocalClient(self.options, *loaded)

    def reset(self, context: AgentContext) -> None:
        super().reset(context)
        spaces = getattr(context.observation_spaces[context.agent], "spaces", {})
        if self.client.vision and not self.asked.modalities and "rgb" in spaces:
            self.options = self.options.model_copy(update={"modalities": ("rgb",),
                                                           "image_size": max(spaces["rgb"].shape[:2])})
