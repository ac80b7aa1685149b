"""Clock protocols: how long a decision takes in simulated time (DESIGN.md, "The time model").

| protocol | the env while the controller thinks | decision delay in sim time |
|----------|-------------------------------------|----------------------------|
| wall     | keeps stepping every `dt` of real time | measured wall latency     |
| paused   | waits for every controller            | 0                          |
| token    | advanced by a discrete-event scheduler | overhead + tokens_out / kappa |
| measured | frozen while the agent thinks          | measured wall latency      |

Every protocol adds the injected delay `delay_s`. A clock is one small frozen class that declares its
settings once, as typed fields with units and ranges (a pydantic model that forbids unknown keys); the
Python API (`make_clock`, `run_match(**settings)`), the CLI flags and experiment files all build clocks
through `make_clock`, so the same mistake gives the same one-line `UserError` everywhere. The runner asks a
clock how to run it (`concurrent`), never its name. Adding a clock is one class here and one row in
`CLOCKS`.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from rtarena.contract import Decision
from rtarena.errors import UserError

DEFAULT_KAPPA = 100.0  # tokens per simulated second when neither kappa nor B and f are given


class Clock(BaseModel):
    """Base of the clock protocols. `concurrent` clocks run the env in real time in its own loop."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: ClassVar[str] = ""
    concurrent: ClassVar[bool] = False
    deterministic: ClassVar[bool] = True
    delay_s: float = Field(0.0, ge=0, allow_inf_nan=False, description="seconds")
    obs_every: int = Field(1, ge=1, description="steps")  # steps between published observations

    @field_validator("*", mode="before")
    @classmethod
    def _numbers_only(cls, value: Any) -> Any:
        # pydantic's lax mode would read True as 1 and "50" as 50: a setting is a number or nothing
        if isinstance(value, bool | str):
            raise ValueError("number_type")
        return value

    def thinking_s(self, decision: Decision, wall_latency_s: float) -> float:
        """Simulated seconds the decision itself took, before the injected delay."""
        raise NotImplementedError

    def decision_delay_s(self, decision: Decision, wall_latency_s: float) -> float:
        return self.thinking_s(decision, wall_latency_s) + self.delay_s

    def _delay_sentence(self) -> str:
        return f" Each action takes effect a further {self.delay_s:g} s after you decide." if self.delay_s else ""

    def settings(self) -> dict[str, Any]:
        return {"clock": self.name, **self.model_dump()}

    def describe(self) -> str:
        """One sentence for prompts: what thinking costs under this clock."""
        raise NotImplementedError

    @classmethod
    def setting_names(cls) -> tuple[str, ...]:
        return tuple(cls.model_fields)


class PausedClock(Clock):
    """Turn-based: the world waits for every controller, then steps once."""

    name: ClassVar[str] = "paused"

    def thinking_s(self, decision: Decision, wall_latency_s: float) -> float:
        return 0.0

    def describe(self) -> str:
        return "The game is paused while you think: thinking costs no game time." + self._delay_sentence()


class TokenClock(Clock):
    """Simulated thinking time charged per generated token: `overhead_s + tokens_out / kappa`.

    `kappa` is in tokens per simulated second; give it directly or as `tokens_per_interval` (B) times the
    observation rate `obs_rate_hz` (f).
    """

    name: ClassVar[str] = "token"
    kappa: float | None = Field(None, gt=0, allow_inf_nan=False, description="tokens per simulated second")
    overhead_s: float = Field(0.0, ge=0, allow_inf_nan=False, description="seconds")
    tokens_per_interval: float | None = Field(None, gt=0, allow_inf_nan=False,
                                              description="tokens per interval")  # B
    obs_rate_hz: float | None = Field(None, gt=0, allow_inf_nan=False, description="observations per second")  # f

    @model_validator(mode="after")
    def _kappa(self) -> TokenClock:
        if self.kappa is None:
            b, f = self.tokens_per_interval, self.obs_rate_hz
            kappa = float(b) * float(f) if b is not None and f is not None else DEFAULT_KAPPA
            object.__setattr__(self, "kappa", kappa)
        else:
            object.__setattr__(self, "kappa", float(self.kappa))
        return self

    def thinking_s(self, decision: Decision, wall_latency_s: float) -> float:
        return self.overhead_s + decision.tokens_out / self.kappa

    def describe(self) -> str:
        per_second = f"every {self.kappa:g} tokens you generate cost 1 s of game time"
        over = f", plus {self.overhead_s:g} s per decision" if self.overhead_s else ""
        extra = f", plus an injected delay of {self.delay_s:g} s" if self.delay_s else ""
        return f"The game keeps running while you think: {per_second}{over}{extra}."


class MeasuredClock(Clock):
    """Latency-controlled: the world is frozen while the agent thinks, then advanced by its wall latency."""

    name: ClassVar[str] = "measured"
    deterministic: ClassVar[bool] = False

    def thinking_s(self, decision: Decision, wall_latency_s: float) -> float:
        return wall_latency_s

    def describe(self) -> str:
        return ("The game keeps running while you think: every second you take is a second of game time."
                + self._delay_sentence())


class WallClock(Clock):
    """Real time: the env steps every `dt` of wall time whatever the controllers are doing."""

    name: ClassVar[str] = "wall"
    concurrent: ClassVar[bool] = True
    deterministic: ClassVar[bool] = False

    def thinking_s(self, decision: Decision, wall_latency_s: float) -> float:
        return wall_latency_s

    def describe(self) -> str:
        return "The game runs in real time and does not wait for you: act quickly." + self._delay_sentence()


CLOCKS: dict[str, type[Clock]] = {cls.name: cls for cls in (WallClock, PausedClock, TokenClock, MeasuredClock)}


def clock_class(name: str, *, source: str | None = None, field: str = "clock") -> type[Clock]:
    """The clock class of a protocol name, or a one-line error listing the names."""
    cls = CLOCKS.get(name) if isinstance(name, str) else None
    if cls is None:
        raise UserError(f"unknown clock {name!r}; choose one of {', '.join(CLOCKS)}", source=source, field=field)
    return cls


def make_clock(clock: str | Clock = "token", **settings: Any) -> Clock:
    """A clock from its name (or a clock to change) and its settings; settings given as None are left out.
    A setting the protocol does not declare, or a value out of its range, is a one-line `UserError`."""
    return build_clock(clock, settings)


def build_clock(clock: str | Clock, settings: dict[str, Any], source: str | None = None,
                field: str | None = None) -> Clock:
    """`make_clock` for any entry point: `source` and `field` (an experiment file and its `clocks[0]`)
    prefix the error, so the CLI, the Python API and files refuse the same mistake with the same words."""
    settings = {k: v for k, v in settings.items() if v is not None}
    if "overhead" in settings:  # the CLI flag's name
        settings["overhead_s"] = settings.pop("overhead")
    if isinstance(clock, Clock):
        cls, settings = type(clock), {**clock.model_dump(exclude_unset=True), **settings}
    else:
        cls = clock_class(clock, source=source, field=f"{field}.clock" if field else "clock")
    try:
        return cls(**settings)
    except ValidationError as error:
        first = error.errors()[0]
        key = str(first["loc"][0]) if first["loc"] else "clock"
        raise UserError(_message(cls, key, first), source=source, field=f"{field}.{key}" if field else key) from None


def _message(cls: type[Clock], key: str, error: dict[str, Any]) -> str:
    """One line for a pydantic error on one clock setting, in the project's format (the field names it)."""
    value = error.get("input")
    if error["type"] == "extra_forbidden":
        return f"not a setting of clock {cls.name!r} (it takes {', '.join(cls.setting_names())})"
    info = cls.model_fields.get(key)
    unit = f" {info.description}" if info is not None and info.description else ""
    ctx = error.get("ctx") or {}
    if "gt" in ctx:
        return f"must be > {ctx['gt']:g}{unit}, got {value!r}"
    if "ge" in ctx:
        return f"must be >= {ctx['ge']:g}{unit}, got {value!r}"
    if error["type"] == "finite_number":
        return f"must be a finite number of{unit}, got {value!r}"
    if error["type"].startswith("int_"):
        return f"must be a whole number of{unit}, got {value!r}"
    return f"must be a number of{unit}, got {value!r}"
