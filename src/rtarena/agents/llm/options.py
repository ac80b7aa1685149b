"""The settings of a model agent, and the grammar of its spec string.

```
llm:MODEL[@BASE_URL][,KEY=VALUE]...
team:llm:MODEL[@BASE_URL][,KEY=VALUE]...
agentic:MODEL[@BASE_URL][,KEY=VALUE]...
```

- `MODEL` is everything before the first `@` (it may contain `:` and `/`, as in `llama3.1:8b` or
  `Qwen/Qwen3-8B`); `BASE_URL` runs from that `@` to the first `,` (an OpenAI-compatible root such as
  `http://127.0.0.1:8000/v1`). Without `@BASE_URL` the SDK's default (`OPENAI_BASE_URL` or OpenAI) is used.
  `BASE_URL` may be a pool, `URL1|URL2|...`: replicas serving the same model, each request sent to the
  least-loaded one, a failing one drained (`limiter.py`).
- Then comma-separated `KEY=VALUE` settings, each at most once; values contain no commas.

| key | value | default | meaning |
|---|---|---|---|
| `temperature` | float >= 0 | 0.0 | sampling temperature |
| `max_tokens` | int > 0 | none | cap on generated tokens per call (reasoning included); none: the server's own |
| `seed` | int | none | sampling seed sent to the server |
| `reasoning_effort` | none/minimal/low/medium/high | none | sent only when given |
| `endpoint` | auto/classic/reasoning | auto | request style, see below |
| `early_commit` | true/false | false | stop a streamed reply once its `ACTION:` line is complete |
| `modalities` | `+`-joined of text, hud, state, rgb, depth, audio, som, marks | see below | what each message carries |
| `image_size` | int > 0 | see below | longest side of images sent, in pixels |
| `image_format` | png/jpeg | png | how images are encoded in their data URLs |
| `history` | int >= 0 | 50 | past turns kept as messages (0: none) |
| `fold` | int > 0 | 10 | turns folded at once into the action ledger |
| `images` | int >= 0 | 21 | retained screenshots at which the oldest `image_fold` become placeholders |
| `image_fold` | int > 0 | 10 | oldest images replaced by a placeholder at once |
| `skill` | file path | none | a text file appended to the system prompt |
| `api_key_env` | env var name | OPENAI_API_KEY | where the key is read from (never logged) |
| `timeout` | seconds > 0 | by clock: `wall` the episode, others 300 | wall budget of one decision, retries included |
| `retries` | int >= 0 | 2 | retries after a 429, 5xx or connection failure, if time allows |
| `stream` | true/false | true | stream the reply (time to first token is measured only then) |
| `max_connections` | int > 0 | none | requests in flight at once per base URL, shared by every worker of the run |
| `adaptive` | true/false | false | `max_connections` (default 10) a ceiling: halve on 429, grow on success |
| `rpm`, `tpm` | number > 0 | none | requests / tokens (in + out) started per minute on the endpoint, whole run |
| `price_in`, `price_out`, `price_cached` | USD per Mtok | price table | `cost_usd` per decision (cached: default in) |
| `prices` | TOML file path | none | price rows over the shipped `prices.toml`, see below |
| `rounds` | int >= 1 | 3 | agentic only: reasoning rounds allowed per step |

Prices: `"MODEL" = { input = 0.15, output = 0.6, cached = 0.075 }` rows, USD per million tokens; a user's
table (`prices=PATH`) is read before the shipped `prices.toml`, and `price_*=` settings win over both.

Default view (`gui_view.default_view`): a browser task gets `som+marks` (the Set-of-Marks screenshot at its
own size, up to 1280 pixels, then goal, clock and the marks list); a suite game (and the identification
probe) `rgb+hud`, the frame at its native size and the short HUD line a player reads (`modalities=text` is
the text ablation); an arena level that makes `rgb` (a bare `rtarena run arena/...` asks for it, the declared
view of docs/conditions.md) `rgb+text`; every other env `text` at 256 pixels.

`endpoint=reasoning` sends `max_completion_tokens` and no `temperature`, as OpenAI's reasoning models
require; `auto` does so for o1/o3/o4/gpt-5 model names and after a 400 that rejects either parameter.
Tokens written after the `ACTION:` line are recorded but not charged to the decision; `early_commit`
closes the stream there, so they are not generated at all.

Every value is checked by the typed schema `LLMOptions` (`rtarena.schema`): a mistake is one line,
`--agent llm: temperature: must be >= 0, got -1`. Booleans are `true` or `false`, as everywhere.

Example: `llm:scripted-heuristic@http://127.0.0.1:8000/v1,temperature=0.2,max_tokens=256,modalities=text+rgb`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, field_validator, model_validator

from rtarena.agents.llm.gui_view import default_view
from rtarena.agents.llm.limiter import EndpointLimits
from rtarena.envs.modalities import MODEL_MODALITIES, Modality
from rtarena.errors import UserError
from rtarena.schema import (
    Count,
    Flag,
    Int,
    NonNegFloat,
    NonNegInt,
    PosCount,
    PosFloat,
    Section,
    at_most,
    read_toml,
    validate,
)

MODALITIES = MODEL_MODALITIES
EFFORTS = ("none", "minimal", "low", "medium", "high")
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class LLMOptions(Section):
    """What a model agent needs to know; built from a spec string by `parse_llm_options`."""

    model_config = ConfigDict(frozen=True)

    model: str = Field(min_length=1, description="model name sent to the server")
    base_url: str | None = Field(None, pattern=r"^https?://[^\s/]+", description="OpenAI-compatible root URL")
    temperature: NonNegFloat = Field(0.0, description="sampling temperature")
    max_tokens: PosCount | None = Field(None, description="cap on generated tokens per call, reasoning included; "
                                      "None: not sent (the server's own), so reasoning is never cut by a default")
    seed: Annotated[Int, at_most("run.seed")] | None = Field(None, description="sampling seed sent to the server")
    reasoning_effort: Literal["none", "minimal", "low", "medium", "high"] | None = None
    endpoint: Literal["auto", "classic", "reasoning"] = Field("auto", description="request style: reasoning "
                                                              "sends max_completion_tokens, no temperature")
    early_commit: Flag = Field(False, description="close a streamed reply once its ACTION: line is complete")
    modalities: tuple[Modality, ...] = Field((), description="what each message carries; empty: the env's "
                                             "default view (`gui_view.default_view`)")
    image_size: Annotated[NonNegInt, at_most("image.px")] = Field(
        0, description="longest side of images sent, in pixels; 0: the default view's")
    image_format: Literal["png", "jpeg"] = "png"
    history: Count = Field(50, description="past turns kept as messages")
    fold: PosCount = Field(10, description="turns folded at once into the action ledger")
    images: Count = Field(21, description="retained images at which the oldest image_fold are replaced")
    image_fold: PosCount = Field(10, description="oldest images replaced by a placeholder at once")
    skill: str | None = Field(None, description="text file appended to the system prompt")
    api_key_env: str = Field("OPENAI_API_KEY", pattern=ENV_NAME.pattern, description="env var with the key")
    timeout: Annotated[PosFloat, at_most("wait.s")] | None = Field(
        None, description="wall budget of one decision in seconds, retries "
                                     "included; None: the clock's default (`Clock.model_budget_s`)")
    retries: Count = Field(2, description="retries after a 429, 5xx or connection failure")
    stream: Flag = Field(True, description="stream the reply (time to first token measured only then)")
    max_connections: PosCount | None = Field(None, description="requests in flight at once per base URL, whole run")
    adaptive: Flag = Field(False, description="max_connections is a ceiling: back off on 429, grow on success")
    rpm: PosFloat | None = Field(None, description="requests started per minute on the endpoint, whole run")
    tpm: PosFloat | None = Field(None, description="tokens (in + out) per minute on the endpoint, whole run")
    price_in: NonNegFloat | None = Field(None, description="USD per million input tokens")
    price_out: NonNegFloat | None = Field(None, description="USD per million output tokens")
    price_cached: NonNegFloat | None = Field(None, description="USD per million cached input tokens")
    prices: str | None = Field(None, description="TOML price table path (rows over the shipped table)")
    rounds: PosCount = Field(3, description="agentic only: reasoning rounds allowed per step")

    @field_validator("modalities", mode="before")
    @classmethod
    def _joined(cls, value: Any) -> Any:
        """`text+rgb` -> ("text", "rgb"), repeats dropped."""
        if isinstance(value, str):
            value = tuple(p for p in value.split("+") if p)
        return tuple(dict.fromkeys(value)) if isinstance(value, (list, tuple)) else value

    @model_validator(mode="before")
    @classmethod
    def _fold_defaults(cls, data: Any) -> Any:
        """Without an explicit fold size, a short history folds all of itself at once."""
        if not isinstance(data, dict):
            return data
        data = dict(data)
        for count, fold in (("history", "fold"), ("images", "image_fold")):
            if fold not in data and count in data:
                try:
                    given = int(str(data[count]))
                except ValueError:
                    continue  # the field itself reports the mistake
                if given > 0:
                    data[fold] = min(cls.model_fields[fold].default, given)
        return data

    @model_validator(mode="after")
    def _folds_fit(self) -> LLMOptions:
        if self.history and self.fold > self.history:
            raise ValueError(f"fold ({self.fold}) must not exceed history ({self.history})")
        if self.images and self.image_fold > self.images:
            raise ValueError(f"image_fold ({self.image_fold}) must not exceed images ({self.images})")
        return self

    def for_observation(self, space: Any) -> LLMOptions:
        """These options with the defaults of the view filled in for an observation space: a browser task
        gets its Set-of-Marks screenshot at its own size plus the marks list, a suite game its frame and HUD
        line; other envs get text."""
        modalities, size = default_view(space)
        return self.model_copy(update={"modalities": self.modalities or modalities,
                                       "image_size": self.image_size or size})

    @property
    def base_urls(self) -> tuple[str, ...]:
        """The endpoint's base URLs: one, or a pool's replicas (`URL1|URL2`); empty for the SDK's default."""
        return tuple(u for u in (self.base_url or "").split("|") if u)

    def endpoint_limits(self) -> EndpointLimits:
        """What the spec asks of the run's limiter for its endpoint."""
        given = {k: getattr(self, k) for k in ("max_connections", "rpm", "tpm") if getattr(self, k) is not None}
        return EndpointLimits(**given, **({"adaptive": True} if self.adaptive else {}))

    def skill_text(self) -> str | None:
        if self.skill is None:
            return None
        from rtarena.limits import read_text_capped

        try:
            return read_text_capped(self.skill, "skill file")
        except UserError as error:  # the same line, with the field that named the file
            raise UserError(str(error), field="skill") from None


SETTINGS = tuple(name for name in LLMOptions.model_fields if name not in ("model", "base_url"))


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
    for url in base_url.split("|") if at else ():
        if not re.match(r"^https?://[^\s/]+", url):
            raise UserError(f"base URL must start with http:// or https://, got {url!r}", field=where)
    settings: dict[str, Any] = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        key = key.strip()
        if not eq:
            raise UserError(f"expected key=value, got {pair!r}", field=where)
        if key not in SETTINGS:
            raise UserError(f"unknown setting {key!r}; known: {', '.join(SETTINGS)}", field=where)
        if key in settings:
            raise UserError(f"setting {key!r} given twice", field=where)
        settings[key] = value.strip()
    base = "|".join(u.rstrip("/") for u in base_url.split("|")) if at else None
    data = {"model": model, "base_url": base, **settings}
    options = validate(LLMOptions, data, source=where)
    prices = price_row(model, options.prices)
    if prices:
        options = validate(LLMOptions, {**data, **{k: v for k, v in prices.items() if k not in settings}},
                           source=where)
    return options


SHIPPED_PRICES = Path(__file__).with_name("prices.toml")
PRICE_KEYS = (("price_in", "input"), ("price_out", "output"), ("price_cached", "cached"))


def price_row(model: str, path: str | None = None) -> dict[str, float]:
    """The model's prices (`price_in`, `price_out`, `price_cached`, USD per Mtok): from the user's table
    (`prices=PATH`) if it has the model, else from the shipped `prices.toml`; empty when neither has it.
    The model is looked up as written, then without its provider prefix (`openai/gpt-4o` -> `gpt-4o`)."""
    for source in ((path, "prices"), (str(SHIPPED_PRICES), "price table")):
        if source[0] is None:
            continue
        row = _row(source[0], model, user=source[1] == "prices")
        if row is not None:
            return row
    if path is not None:
        raise UserError(f"no `input` and `output` prices for model {model!r}", source=path, field="prices")
    return {}


def _row(path: str, model: str, user: bool) -> dict[str, float] | None:
    try:
        table = read_toml(path, "price table")
    except UserError as error:
        raise UserError(f"cannot read price table: {error}", field="prices") from None
    row = table.get(model, table.get(model.rsplit("/", 1)[-1]))
    if row is None:
        return None
    if not isinstance(row, dict) or not {"input", "output"} <= set(row):
        raise UserError(f"no `input` and `output` prices for model {model!r}", source=path, field="prices")
    out = {key: row[name] for key, name in PRICE_KEYS if name in row}
    for key, value in out.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < float("inf"):
            raise UserError(f"{model}.{key}: must be a number >= 0, got {value!r}", source=path, field="prices")
    return out
