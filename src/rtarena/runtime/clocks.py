"""Clock protocols: how long a decision takes in simulated time (DESIGN.md, "The time model").

| protocol | the env while the controller thinks | decision delay in sim time |
|----------|-------------------------------------|----------------------------|
| wall     | keeps stepping every `dt` of real time | measured wall latency     |
| paused   | waits for every controller            | 0                          |
| token    | advanced by a discrete-event scheduler | overhead + tokens_out / kappa |
| measured | frozen while the agent thinks          | measured wall latency      |

Every protocol adds the injected delay `delay_s`. A clock is a small frozen object; `make_clock` builds
one from a name and keyword settings, validating them with one-line errors.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, ClassVar

from rtarena.contract import Decision
from rtarena.errors import UserError


@dataclass(frozen=True)
class Clock:
    """Base of the clock protocols. `concurrent` clocks run the env in real time in its own loop."""

    name: ClassVar[str] = ""
    concurrent: ClassVar[bool] = False
    deterministic: ClassVar[bool] = True
    delay_s: float = 0.0
    obs_every: int = 1

    def __post_init__(self) -> None:
        if not (math.isfinite(self.delay_s) and self.delay_s >= 0):
            raise UserError(f"delay_s must be >= 0 seconds, got {self.delay_s!r}", field="delay_s")
        if int(self.obs_every) != self.obs_every or self.obs_every < 1:
            raise UserError(f"obs_every must be a whole number >= 1, got {self.obs_every!r}", field="obs_every")

    def thinking_s(self, decision: Decision, wall_latency_s: float) -> float:
        """Simulated seconds the decision itself took, before the injected delay."""
        raise NotImplementedError

    def decision_delay_s(self, decision: Decision, wall_latency_s: float) -> float:
        return self.thinking_s(decision, wall_latency_s) + self.delay_s

    def _delay_sentence(self) -> str:
        return f" Each action takes effect a further {self.delay_s:g} s after you decide." if self.delay_s else ""

    def settings(self) -> dict[str, Any]:
        return {"clock": self.name, **asdict(self)}

    def describe(self) -> str:
        """One sentence for prompts: what thinking costs under this clock."""
        raise NotImplementedError


@dataclass(frozen=True)
class PausedClock(Clock):
    """Turn-based: the world waits for every controller, then steps once."""

    name: ClassVar[str] = "paused"

    def thinking_s(self, decision: Decision, wall_latency_s: float) -> float:
        return 0.0

    def describe(self) -> str:
        return "The game is paused while you think: thinking costs no game time." + self._delay_sentence()


@dataclass(frozen=True)
class TokenClock(Clock):
    """Simulated thinking time charged per generated token: `overhead_s + tokens_out / kappa`.

    `kappa` is in tokens per simulated second; give it directly or as `tokens_per_interval` (B) times the
    observation rate `obs_rate_hz` (f).
    """

    name: ClassVar[str] = "token"
    kappa: float | None = None
    overhead_s: float = 0.0
    tokens_per_interval: float | None = None
    obs_rate_hz: float | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        kappa = self.kappa
        if kappa is None and self.tokens_per_interval is not None and self.obs_rate_hz is not None:
            kappa = float(self.tokens_per_interval) * float(self.obs_rate_hz)
        if kappa is None:
            kappa = 100.0
        if not (isinstance(kappa, (int, float)) and math.isfinite(kappa) and kappa > 0):
            raise UserError(f"kappa must be a positive number of tokens per second, got {kappa!r}", field="kappa")
        if not (math.isfinite(self.overhead_s) and self.overhead_s >= 0):
            raise UserError(f"overhead_s must be >= 0 seconds, got {self.overhead_s!r}", field="overhead_s")
        object.__setattr__(self, "kappa", float(kappa))

    def thinking_s(self, decision: Decision, wall_latency_s: float) -> float:
        return self.overhead_s + decision.tokens_out / self.kappa

    def describe(self) -> str:
        per_second = f"every {self.kappa:g} tokens you generate cost 1 s of game time"
        over = f", plus {self.overhead_s:g} s per decision" if self.overhead_s else ""
        extra = f", plus an injected delay of {self.delay_s:g} s" if self.delay_s else ""
        return f"The game keeps running while you think: {per_second}{over}{extra}."


@dataclass(frozen=True)
class MeasuredClock(Clock):
    """Latency-controlled: the world is frozen while the agent thinks, then advanced by its wall latency."""

    name: ClassVar[str] = "measured"
    deterministic: ClassVar[bool] = False

    def thinking_s(self, decision: Decision, wall_latency_s: float) -> float:
        return wall_latency_s

    def describe(self) -> str:
        return ("The game keeps running while you think: every second you take is a second of game time."
                + self._delay_sentence())


@dataclass(frozen=True)
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


def make_clock(clock: str | Clock = "token", **settings: Any) -> Clock:
    """A clock from its name and settings; settings that the protocol does not use are ignored if None.

    Accepts `kappa`, `overhead` (or `overhead_s`), `delay_s`, `obs_every`, `tokens_per_interval`,
    `obs_rate_hz`.
    """
    if "overhead" in settings:
        settings["overhead_s"] = settings.pop("overhead")
    settings = {k: v for k, v in settings.items() if v is not None}
    if isinstance(clock, Clock):
        if settings:
            from dataclasses import replace

            known = {k: v for k, v in settings.items() if k in clock.__dataclass_fields__}
            return replace(clock, **known)
        return clock
    cls = CLOCKS.get(clock)
    if cls is None:
        raise UserError(f"unknown clock {clock!r}; choose one of {', '.join(CLOCKS)}", field="clock")
    fields = cls.__dataclass_fields__
    unknown = [k for k in settings if k not in fields]
    for key in unknown:
        # kappa or overhead given to a clock that does not charge tokens: only an error if meaningful
        if key in ("kappa", "overhead_s", "tokens_per_interval", "obs_rate_hz"):
            settings.pop(key)
        else:
            raise UserError(f"unknown clock setting {key!r}", field=key)
    try:
        return cls(**settings)
    except TypeError as error:
        raise UserError(str(error), field="clock") from None
