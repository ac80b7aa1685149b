"""The settings of a model agent, and the grammar of its spec string.

```
llm:MODEL[@BASE_URL][,KEY=VALUE]...
team:llm:MODEL[@BASE_URL][,KEY=VALUE]...
agentic:MODEL[@BASE_URL][,KEY=VALUE]...
```

- `MODEL` is everything before the first `@` (it may contain `:` and `/`, as in `llama3.1:8b` or
  `Qwen/Qwen3-8B`); `BASE_URL` runs from that `@` to the first `,` (an OpenAI-compatible root such as
  `http://127.0.0.1:8000/v1`). Without `@BASE_URL` the SDK's default (`OPENAI_BASE_URL` or OpenAI) is used.
- Then comma-separated `KEY=VALUE` settings, each at most once; values contain no commas.

| key | value | default | meaning |
|---|---|---|---|
| `temperature` | float >= 0 | 0.0 | sampling temperature |
| `max_tokens` | int > 0 | 512 | cap on generated tokens per call |
| `seed` | int | none | sampling seed sent to the server |
| `reasoning_effort` | none/minimal/low/medium/high | none | sent only when given |
| `modalities` | `+`-joined of text, state, rgb, depth, audio, som, marks | see below | what each message carries |
| `image_size` | int > 0 | see below | longest side of images sent, in pixels |
| `image_format` | png/jpeg | png | how images are encoded in their data URLs |
| `history` | int >= 0 | 50 | past turns kept as messages (0: none) |
| `fold` | int > 0 | 10 | turns folded at once into the action ledger |
| `images` | int >= 0 | 21 | past images kept |
| `image_fold` | int > 0 | 10 | oldest images replaced by a placeholder at once |
| `skill` | file path | none | a text file appended to the system prompt |
| `api_key_env` | env var name | OPENAI_API_KEY | where the key is read from (never logged) |
| `timeout` | seconds > 0 | by clock: `wall` 10, others 120 | wall budget of one decision, retries included |
| `retries` | int >= 0 | 2 | retries after a 429, 5xx or connection failure, if time allows |
| `stream` | true/false | true | stream the reply (time to first token is measured only then) |
| `price_in`, `price_out` | USD per million tokens | none | to report a cost per decision |
| `prices` | TOML file path | none | price table, `"MODEL" = { input = 0.15, output = 0.6 }` (USD per Mtok) |
| `rounds` | int >= 1 | 3 | agentic only: reasoning rounds allowed per step |

Default view (`gui_view.default_view`): a browser task gets `som+marks` (the Set-of-Marks screenshot at its
own size, up to 1280 pixels, then goal, clock and the marks list), every other env `text` at 256 pixels.

Example: `llm:scripted-heuristic@http://127.0.0.1:8000/v1,temperature=0.2,max_tokens=256,modalities=text+rgb`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from rtarena.agents.llm.gui_view import default_view
from rtarena.errors import UserError

MODALITIES = ("text", "state", "rgb", "depth", "audio", "som", "marks")
EFFORTS = ("none", "minimal", "low", "medium", "high")
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class LLMOptions:
    """What a model agent needs to know; built from a spec string by `parse_llm_options`."""

    model: str
    base_url: str | None = None
    temperature: float = 0.0
    max_tokens: int = 512
    seed: int | None = None
    reasoning_effort: str | None = None
    modalities: tuple[str, ...] = ()  # () : the env's default view (`gui_view.default_view`)
    image_size: int = 0  # 0: the default view's size
    image_format: str = "png"
    history: int = 50
    fold: int = 10
    images: int = 21
    image_fold: int = 10
    skill: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float | None = None  # None: the clock's default (`client.CLOCK_TIMEOUT_S`)
    retries: int = 2
    stream: bool = True
    price_in: float | None = None
    price_out: float | None = None
    prices: str | None = None
    rounds: int = 3

    def for_observation(self, space: Any) -> LLMOptions:
        """These options with the defaults of the view filled in for an observation space: a browser task
        gets its Set-of-Marks screenshot at its own size plus the marks list; other envs get text."""
        modalities, size = default_view(space)
        return replace(self, modalities=self.modalities or modalities, image_size=self.image_size or size)

    def skill_text(self) -> str | None:
        if self.skill is None:
            return None
        try:
            return Path(self.skill).read_text(encoding="utf-8")
        except OSError as error:
            raise UserError(f"cannot read skill file: {error.strerror}", source=self.skill, field="skill") from None


def _number(kind: type, low: float | None = None, strict: bool = False):
    def convert(key: str, value: str):
        try:
            number = kind(value)
        except ValueError:
            raise UserError(f"{key} must be a {kind.__name__}, got {value!r}", field=f"--agent {key}") from None
        if low is not None and (number <= low if strict else number < low):
            bound = f"> {low:g}" if strict else f">= {low:g}"
            raise UserError(f"{key} must be {bound}, got {value!r}", field=f"--agent {key}")
        return number
    return convert


def _choice(options: tuple[str, ...]):
    def convert(key: str, value: str):
        if value not in options:
            raise UserError(f"{key} must be one of {', '.join(options)}, got {value!r}", field=f"--agent {key}")
        return value
    return convert


def _modalities(key: str, value: str) -> tuple[str, ...]:
    parts = tuple(p for p in value.split("+") if p)
    bad = [p for p in parts if p not in MODALITIES]
    if bad or not parts:
        raise UserError(f"modalities are +-joined names among {', '.join(MODALITIES)}, got {value!r}",
                        field=f"--agent {key}")
    return tuple(dict.fromkeys(parts))


def _bool(key: str, value: str) -> bool:
    lowered = value.lower()
    if lowered in ("true", "1", "yes", "on"):
        return True
    if lowered in ("false", "0", "no", "off"):
        return False
    raise UserError(f"{key} must be true or false, got {value!r}", field=f"--agent {key}")


def _env_name(key: str, value: str) -> str:
    if not ENV_NAME.match(value):
        raise UserError(f"{key} must name an environment variable, got {value!r}", field=f"--agent {key}")
    return value


def _text(key: str, value: str) -> str:
    return value


CONVERTERS = {
    "temperature": _number(float, 0.0),
    "max_tokens": _number(int, 0, strict=True),
    "seed": _number(int),
    "reasoning_effort": _choice(EFFORTS),
    "modalities": _modalities,
    "image_size": _number(int, 0, strict=True),
    "image_format": _choice(("png", "jpeg")),
    "history": _number(int, 0),
    "fold": _number(int, 0, strict=True),
    "images": _number(int, 0),
    "image_fold": _number(int, 0, strict=True),
    "skill": _text,
    "api_key_env": _env_name,
    "timeout": _number(float, 0.0, strict=True),
    "retries": _number(int, 0),
    "stream": _bool,
    "price_in": _number(float, 0.0),
    "price_out": _number(float, 0.0),
    "prices": _text,
    "rounds": _number(int, 1),
}
assert set(CONVERTERS) == {f.name for f in fields(LLMOptions)} - {"model", "base_url"}


def parse_llm_options(option: str | None, kind: str = "llm") -> LLMOptions:
    """`MODEL[@BASE_URL][,KEY=VALUE]...` as `LLMOptions`; a one-line `UserError` on any mistake."""
    where = f"--agent {kind}"
    if not option:
        raise UserError(f"needs a model: {kind}:MODEL@BASE_URL[,key=value...]", field=where)
    head, *pairs = option.split(",")
    model, at, base_url = head.partition("@")
    model = model.strip()
    if not model:
        raise UserError(f"empty model name in {option!r}", field=where)
    if at and not re.match(r"^https?://[^\s/]+", base_url):
        raise UserError(f"base URL must start with http:// or https://, got {base_url!r}", field=where)
    settings: dict[str, object] = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        key = key.strip()
        if not eq:
            raise UserError(f"expected key=value, got {pair!r}", field=where)
        if key not in CONVERTERS:
            raise UserError(f"unknown setting {key!r}; known: {', '.join(CONVERTERS)}", field=where)
        if key in settings:
            raise UserError(f"setting {key!r} given twice", field=where)
        settings[key] = CONVERTERS[key](key, value.strip())
    # Without an explicit fold size, a short history folds all of itself at once.
    if "fold" not in settings and settings.get("history"):
        settings["fold"] = min(LLMOptions.fold, settings["history"])
    if "image_fold" not in settings and settings.get("images"):
        settings["image_fold"] = min(LLMOptions.image_fold, settings["images"])
    if "prices" in settings:
        settings.update(price_table(str(settings["prices"]), model, settings))
    options = LLMOptions(model=model, base_url=base_url.rstrip("/") if at else None, **settings)
    if options.fold > max(options.history, 1) and options.history:
        raise UserError(f"fold ({options.fold}) must not exceed history ({options.history})", field=where)
    if options.images and options.image_fold > options.images:
        raise UserError(f"image_fold ({options.image_fold}) must not exceed images ({options.images})", field=where)
    return options


def price_table(path: str, model: str, settings: dict[str, object]) -> dict[str, float]:
    """The model's `price_in`/`price_out` from a TOML price table (explicit `price_in=`/`price_out=` win)."""
    import tomllib

    try:
        table = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise UserError(f"cannot read price table: {error.strerror}", source=path, field="prices") from None
    except tomllib.TOMLDecodeError as error:
        raise UserError(f"not valid TOML: {error}", source=path, field="prices") from None
    row = table.get(model)
    if not isinstance(row, dict) or not {"input", "output"} <= set(row):
        raise UserError(f"no `input` and `output` prices for model {model!r}", source=path, field="prices")
    out = {}
    for key, name in (("price_in", "input"), ("price_out", "output")):
        if key not in settings:
            out[key] = _number(float, 0.0)(f"{model}.{name}", str(row[name]))
    return out
