"""Clock protocols: how long a decision takes in simulated time (DESIGN.md, "The time model").

| protocol | the env while the controller thinks | decision delay in sim time |
|----------|-------------------------------------|----------------------------|
| wall     | keeps stepping every `dt` of real time | measured wall latency     |
| paused   | waits for every controller            | 0                          |
| paused, `delay_in = "wall"` | waits, the injected delay too | 0 (the delay is held in real time) |
| token    | advanced by a discrete-event scheduler | overhead + tokens_out / kappa |
| measured | frozen while the agent thinks          | measured wall latency      |
| replay   | frozen while the agent thinks          | a latency drawn from a recorded run (seeded) |

Every protocol adds the injected delay `delay_s` in simulated time, except the paused clock given
`delay_in = "wall"`: it holds each decision `delay_s` of real time while the world waits, so the delay
costs no game time (the negative control of the delay curve: preset `delay-injection-world-waits`).

A clock is one small frozen class that declares its settings once, as typed fields with ranges (a
`schema.Section`: unknown keys refused, the project's one-line errors). The Python API (`make_clock`,
`run_match(**settings)`), the CLI flags and experiment files all build clocks through `build_clock`, so the
same mistake gives the same one-line `UserError` everywhere. The runner asks a clock how to run it
(`concurrent`), never its name. Adding a clock is one class here and one row in `CLOCKS`.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import ConfigDict, ValidationError, model_validator

from rtarena.contract import Decision
from rtarena.errors import UserError
from rtarena.runtime.latency_trace import LEAST_LATENCY_S, DrawKey, LatencyModel, load_trace
from rtarena.schema import PosFloat, PosInt, Section, SimSeconds, at_most, error_line

DEFAULT_KAPPA = 100.0  # tokens per simulated second when neither kappa nor B and f are given
# A model call's default wall budget where the world waits for it (paused, token, measured): high reasoning
# effort takes minutes, and the runtime prints a "still waiting" line while it waits.
WAITING_BUDGET_S = 300.0


class Clock(Section):
    """Base of the clock protocols. `concurrent` clocks run the env in real time in its own loop."""

    model_config = ConfigDict(frozen=True)

    name: ClassVar[str] = ""
    concurrent: ClassVar[bool] = False
    deterministic: ClassVar[bool] = True
    delay_s: SimSeconds = 0.0  # injected delay per decision
    obs_every: Annotated[PosInt, at_most("step.every")] = 1  # steps between published observations
    # Action chunks. None: a controller decides again as soon as a newer observation exists (a newer
    # decision replaces the rest of its chunk). A number: it waits until its chunk has played, then
    # `settle_s` more simulated seconds of default actions, before it takes its next observation.
    settle_s: SimSeconds | None = None

    def thinking_s(self, decision: Decision, wall_latency_s: float, key: DrawKey | None = None) -> float:
        """Simulated seconds the decision itself took, before the injected delay. `key` says which decision
        of the episode it is (clocks that draw a latency seed the draw with it)."""
        raise NotImplementedError

    def decision_delay_s(self, decision: Decision, wall_latency_s: float, key: DrawKey | None = None) -> float:
        return self.thinking_s(decision, wall_latency_s, key) + self.delay_s

    def hold_s(self) -> float:
        """Wall seconds each decision is held before it is recorded while the world waits (0: none); only a
        clock whose scheduler waits for every decision can hold one (`PausedClock.delay_in`)."""
        return 0.0

    def planned_delay_s(self, tokens_out: int = 0) -> float:
        """Simulated seconds from deciding to committing for a decision of `tokens_out` generated tokens, as
        far as it is known in advance: exact under `paused` and `token`; under clocks that measure wall
        latency, the least it can be (`LEAST_LATENCY_S`). A scripted agent plans with it."""
        return self.decision_delay_s(Decision(action=None, tokens_out=int(tokens_out)), LEAST_LATENCY_S)

    def model_budget_s(self, horizon_s: float | None = None) -> float | None:
        """The default wall budget of one model call (a user's `timeout=` replaces it): the world waits under
        this clock, so a slow model gets `WAITING_BUDGET_S`."""
        return WAITING_BUDGET_S

    @classmethod
    def env_defaults(cls, env: Any, settings: dict[str, Any]) -> dict[str, Any]:
        """`settings` with the env's own defaults filled in where the user left them unset: its declared
        `capabilities.obs_every` (a browser task observes once per page second)."""
        out = dict(settings)
        if out.get("obs_every") is None and env.capabilities.obs_every:
            out["obs_every"] = env.capabilities.obs_every
        return out

    def _delay_sentence(self) -> str:
        return (f" Each action takes effect a further {self.delay_s:g} s after you decide." if self.delay_s else "") \
            + self._settle_sentence()

    def _settle_sentence(self) -> str:
        if self.settle_s is None:
            return ""
        return (" When your answer holds several steps, they all play before you see the game again"
                + (f", and the game then runs {self.settle_s:g} s more on its own." if self.settle_s else "."))

    def settings(self) -> dict[str, Any]:
        return {"clock": self.name, **self.model_dump()}

    def given(self) -> dict[str, Any]:
        """The settings this clock was given (what a run folder stores to rebuild it: a default the env fills
        in, `obs_every` or a browser task's B, must stay unset)."""
        return self.model_dump(exclude_unset=True)

    def for_env(self, env: Any) -> Clock:
        """This clock with the env's own defaults (`env_defaults`) where its settings leave them unset: the one
        step between the clock a run was given and the clock its episode plays (itself when nothing is unset)."""
        given = self.given()
        filled = type(self).env_defaults(env, given)
        filled = {k: v for k, v in filled.items() if v is not None}
        return self if filled == given else type(self)(**filled)

    def describe(self) -> str:
        """One sentence for prompts: what thinking costs under this clock."""
        raise NotImplementedError

    @classmethod
    def setting_names(cls) -> tuple[str, ...]:
        return tuple(cls.model_fields)


class PausedClock(Clock):
    """Turn-based: the world waits for every controller, then steps once. `delay_in` says where the injected
    delay is spent: `game` (the action lands `delay_s` of simulated time late: the delay costs game time) or
    `wall` (the decision is held `delay_s` of real time and the world waits for it: the delay costs none)."""

    name: ClassVar[str] = "paused"
    delay_in: Literal["game", "wall"] = "game"

    def thinking_s(self, decision: Decision, wall_latency_s: float, key: DrawKey | None = None) -> float:
        return 0.0

    def decision_delay_s(self, decision: Decision, wall_latency_s: float, key: DrawKey | None = None) -> float:
        return self.delay_s if self.delay_in == "game" else 0.0

    def hold_s(self) -> float:
        return self.delay_s if self.delay_in == "wall" else 0.0

    def _delay_sentence(self) -> str:
        if self.delay_in == "game" or not self.delay_s:
            return super()._delay_sentence()
        return (f" Each decision is held a further {self.delay_s:g} s of real time before it reaches the game, "
                "which waits for it: the delay costs no game time." + self._settle_sentence())

    def describe(self) -> str:
        return "The game is paused while you think: thinking costs no game time." + self._delay_sentence()


class TokenClock(Clock):
    """Simulated thinking time charged per generated token: `overhead_s + tokens_out / kappa`.

    `kappa` is in tokens per simulated second; give it directly or as `tokens_per_interval` (B) times the
    observation rate `obs_rate_hz` (f).
    """

    name: ClassVar[str] = "token"
    kappa: PosFloat | None = None  # tokens per simulated second
    overhead_s: SimSeconds = 0.0  # per decision
    tokens_per_interval: PosFloat | None = None  # B, tokens per observation interval
    obs_rate_hz: PosFloat | None = None  # f, observations per second

    @model_validator(mode="after")
    def _kappa(self) -> TokenClock:
        if self.kappa is None:
            b, f = self.tokens_per_interval, self.obs_rate_hz
            kappa = float(b) * float(f) if b is not None and f is not None else DEFAULT_KAPPA
            object.__setattr__(self, "kappa", kappa)
        else:
            object.__setattr__(self, "kappa", float(self.kappa))
        return self

    def thinking_s(self, decision: Decision, wall_latency_s: float, key: DrawKey | None = None) -> float:
        return self.overhead_s + decision.tokens_out / self.kappa

    @classmethod
    def env_defaults(cls, env: Any, settings: dict[str, Any]) -> dict[str, Any]:
        """Also, given neither kappa nor B, the env's default B (`capabilities.tokens_per_interval`: 64 for a browser
        task); and for B without a rate, the env's actual observation rate `1 / (dt * obs_every)`, so that
        kappa = B * f."""
        out = super().env_defaults(env, settings)
        if out.get("kappa") is None and out.get("tokens_per_interval") is None:
            out["tokens_per_interval"] = env.capabilities.tokens_per_interval
        if out.get("tokens_per_interval") is not None and out.get("obs_rate_hz") is None and out.get("kappa") is None:
            out["obs_rate_hz"] = 1.0 / (float(env.dt) * int(out.get("obs_every") or 1))
        return out

    def describe(self) -> str:
        per_second = f"every {self.kappa:g} tokens you generate cost 1 s of game time"
        over = f", plus {self.overhead_s:g} s per decision" if self.overhead_s else ""
        extra = f", plus an injected delay of {self.delay_s:g} s" if self.delay_s else ""
        return f"The game keeps running while you think: {per_second}{over}{extra}." + self._settle_sentence()


# Where a measured clock's latency comes from: the decision's wall time at the client, or one of the
# latencies a model call recorded in the decision's `extra` (agents/llm/model_agent.py: completion_extra).
LATENCY_SOURCES = {"client": None, "server": "latency_server_s", "endpoint": "latency_endpoint_s"}


class MeasuredClock(Clock):
    """Latency-controlled: the world is frozen while the agent thinks, then advanced by its latency.

    `latency` says which: `client` (the decision's wall time, network and queueing included), `server`
    (the stream's time to its last token minus the connection set-up, i.e. from the response headers), or
    `endpoint` (the inference time the endpoint reports, llama.cpp-style `timings`). A decision without the
    chosen latency (a scripted agent, a server that reports none) is charged its client wall time; every
    latency seen stays in the decision's record."""

    name: ClassVar[str] = "measured"
    deterministic: ClassVar[bool] = False
    latency: Literal["client", "server", "endpoint"] = "client"

    def thinking_s(self, decision: Decision, wall_latency_s: float, key: DrawKey | None = None) -> float:
        source = LATENCY_SOURCES[self.latency]
        seen = (decision.extra or {}).get(source) if source else None
        return float(seen) if seen is not None else wall_latency_s

    def describe(self) -> str:
        return ("The game keeps running while you think: every second you take is a second of game time."
                + self._delay_sentence())


class ReplayClock(Clock):
    """Latency replay: the world is frozen while the agent thinks, as under `measured`, then advanced by a
    latency drawn, seeded, from a recorded run's decisions (`runtime/latency_trace.py`) instead of the
    agent's own wall time. So a paid wall-clock run can be replayed with another agent, offline and
    deterministically, at the same latency profile: same seed + same trace + deterministic agents give
    byte-identical records. `latency_model` says how: `empirical` (a recorded latency of the controller of
    the same name, else of any controller) or `tokens` (a fit on the decision's tokens in and out plus a
    recorded residual; the trace must hold token counts)."""

    name: ClassVar[str] = "replay"
    latency_trace: str | None = None  # a run folder or a Parquet file (a latency trace or a decisions table)
    latency_model: Literal["empirical", "tokens"] = "empirical"

    @model_validator(mode="after")
    def _trace(self) -> ReplayClock:
        if self.latency_trace is None:
            raise ValueError("the replay clock needs latency_trace, the run whose latencies it replays (run: "
                             "--latency-trace RUN_OR_PARQUET; improve: --setting latency_trace=RUN)")
        try:
            trace = load_trace(self.latency_trace)
        except UserError as error:
            raise ValueError(str(error)) from None
        if self.latency_model == "tokens" and not trace.has_tokens():
            raise ValueError(f"--latency-trace {self.latency_trace}: holds no token counts (tokens_in, tokens_out "
                             "are all 0); --latency-model tokens needs them, empirical does not")
        return self

    def thinking_s(self, decision: Decision, wall_latency_s: float, key: DrawKey | None = None) -> float:
        """A drawn latency; without `key` (a plan made before deciding, a video overlay), the least the trace
        recorded, as `planned_delay_s` promises of clocks that measure."""
        trace = load_trace(str(self.latency_trace))
        if key is None:
            return trace.least_s
        model: LatencyModel = self.latency_model
        return trace.draw(key, model, decision.tokens_in, decision.tokens_out)

    def describe(self) -> str:
        median = load_trace(str(self.latency_trace)).median_s
        return ("The game keeps running while you think: each decision costs the game time a recorded model "
                f"took to answer (median {median:.2f} s)." + self._delay_sentence())


class WallClock(Clock):
    """Real time: the env steps every `dt` of wall time whatever the controllers are doing."""

    name: ClassVar[str] = "wall"
    concurrent: ClassVar[bool] = True
    deterministic: ClassVar[bool] = False

    def thinking_s(self, decision: Decision, wall_latency_s: float, key: DrawKey | None = None) -> float:
        return wall_latency_s

    def model_budget_s(self, horizon_s: float | None = None) -> float | None:
        """Until the episode ends (`horizon_s`, the longest it can last; None: no limit): a late reply still
        acts when it arrives (Realtime-Bench's Wall Clock), and the runtime abandons a call still running
        when the episode ends."""
        return horizon_s

    def describe(self) -> str:
        return "The game runs in real time and does not wait for you: act quickly." + self._delay_sentence()


CLOCKS: dict[str, type[Clock]] = {cls.name: cls for cls in (WallClock, PausedClock, TokenClock, MeasuredClock,
                                                              ReplayClock)}


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


def clock_for_env(clock: str | Clock, env: Any, settings: dict[str, Any]) -> Clock:
    """A clock from a stored record's name and settings (a run's `clock` column), completed for `env`
    (`Clock.for_env`). Runs hold their clock as an object; this is for records read back."""
    return build_clock(clock, settings).for_env(env)


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
        if first["type"] == "extra_forbidden":  # say which clock, and what it takes
            where = f"{field}.{first['loc'][0]}" if field else str(first["loc"][0])
            message = f"{where}: not a setting of clock {cls.name!r} (it takes {', '.join(cls.setting_names())})"
        else:
            message = error_line(error, cls, prefix=field or "")
        raise UserError(message, source=source) from None
