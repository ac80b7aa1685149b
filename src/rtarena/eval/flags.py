"""The flags of `rtarena run ENV_ID`, as one typed object validated once at the top.

`cli.py` hands what the user typed to `RunFlags` (a typed schema of `rtarena.schema`; field names are the
flags' own, `--delay-ms`); the clock's own settings (`--kappa`, `--overhead`) are checked by the clock
class (`runtime/clocks.py`), as for experiment files and the Python API. Every mistake is one line naming
the flag and its value before any env is built; `commands.run_flags` then turns the flags into an
`Experiment` of one cell. With an experiment file or a preset, run flags the user typed are refused by
name (`flags_given_with_experiment`): an experiment sets them in its file.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import ConfigDict, Field, PrivateAttr, field_validator

from rtarena.errors import UserError
from rtarena.limits import check_limit
from rtarena.runtime.clocks import Clock, build_clock
from rtarena.schema import (
    PosFloat,
    PosInt,
    Section,
    Seed,
    SimMilliseconds,
    at_most,
    validate,
    writable_folder,
)

if TYPE_CHECKING:  # the env side's declared condition: read by `run_command`, handed in as validation context
    from rtarena.envs.conditions import Condition


def flag_name(field: str) -> str:
    """`delay_ms` -> `--delay-ms`."""
    return "--" + field.replace("_", "-")


class RunFlags(Section):
    """`rtarena run ENV_ID` flags; units in the names (`delay_ms` milliseconds, `dt` seconds)."""

    model_config = ConfigDict(alias_generator=flag_name, populate_by_name=True, frozen=True)

    agent: tuple[str, ...] = Field(min_length=1, description="agent specs: one for every slot, or one per slot")
    clock: str | None = Field(None, description="clock protocol, a name of runtime.clocks.CLOCKS (it checks its "
                              "settings); None: the env family's declared condition (envs/conditions.py)")
    dt: Annotated[PosFloat, at_most("step.dt_s")] | None = Field(
        None, description="simulated seconds per env step (the env's default if unset)")
    kappa: float | None = Field(None, description="token clock: tokens per simulated second (the clock checks it)")
    overhead: float | None = Field(None, description="token clock: fixed seconds per decision (the clock checks it)")
    delay_ms: SimMilliseconds = Field(0.0, description="injected delay per decision, milliseconds")
    obs_every: int | None = Field(None, description="publish an observation every K steps (the clock checks it; "
                                  "None: the env's own)")
    settle_s: float | None = Field(None, description="seconds the world runs on default actions after a chunk "
                                   "before the next observation (the clock checks it)")
    latency: str | None = Field(None, description="measured clock: which latency is charged (the clock checks it)")
    latency_trace: str | None = Field(None, description="replay clock: the run folder or Parquet file whose "
                                      "latencies are replayed (the clock checks it)")
    latency_model: str | None = Field(None, description="replay clock: empirical | tokens (the clock checks it)")
    max_steps: Annotated[PosInt, at_most("episode.steps")] | None = Field(
        None, description="step limit per episode (None: until the env ends it)")
    seeds: Annotated[PosInt, at_most("run.seeds")] = Field(1, description="number of episodes")
    seed_start: Seed = Field(0, description="first seed")
    out: Path = Field(Path("runs/latest"), description="output folder")
    map: str | None = None
    disable: tuple[str, ...] = ()
    obs: tuple[Annotated[str, Field(pattern=r"^[a-z_]+$")], ...] | None = Field(
        None, description="observation modalities the env makes, `+`-joined (rgb+text); the env checks them "
        "(None: what the agents declare they observe, else the env's own)")
    resolution: Annotated[int, Field(ge=16, le=1024)] | None = Field(
        None, description="image side in pixels for the rgb/depth modalities (the env checks it)")

    @field_validator("obs", mode="before")
    @classmethod
    def _joined(cls, value: Any) -> Any:
        return tuple(part.strip() for part in value.replace(",", "+").split("+")) if isinstance(value, str) else value
    _clock: Clock = PrivateAttr()
    _condition: Condition | None = PrivateAttr(None)

    @property
    def seed_list(self) -> tuple[int, ...]:
        return tuple(range(self.seed_start, self.seed_start + self.seeds))

    @property
    def run_clock(self) -> Clock:
        """The run's clock, built once from the flags when they were read (`model_post_init`)."""
        return self._clock

    @property
    def run_dt(self) -> float | None:
        """`--dt`, else the declared condition's step when the run plays it (None: the env's own)."""
        return self.dt if self.dt is not None or self.condition is None else self.condition.dt_s

    @property
    def condition(self) -> Condition | None:
        """The env family's declared condition when no `--clock` was given (the run plays it), else None."""
        return self._condition

    def model_post_init(self, context: Any) -> None:
        """Build the clock from its flags: the clock class checks them, with the same one line as a file's
        `[[clocks]]` entry or `make_clock` (`--delay-ms` is converted to seconds and `--latency-trace` made
        absolute here, once: a resumed run, or a worker, may start elsewhere). Without `--clock`, the env
        family's declared condition (`context["condition"]`) gives the clock and its settings, and the flags
        given change them."""
        declared: Condition | None = (context or {}).get("condition")
        self._condition = declared if self.clock is None else None
        base = self._condition.clock if self._condition is not None else None
        trace = str(Path(self.latency_trace).resolve()) if self.latency_trace else None
        flags = {"kappa": self.kappa, "overhead_s": self.overhead, "obs_every": self.obs_every,
                 "delay_s": self.delay_ms / 1000.0 if self.delay_ms else None, "settle_s": self.settle_s,
                 "latency": self.latency, "latency_trace": trace, "latency_model": self.latency_model}
        given = {k: v for k, v in flags.items() if v is not None}
        try:
            self._clock = build_clock(self.clock or (base.clock if base else "token"),
                                      {**(base.settings() if base else {}), **given})
        except UserError as error:
            if base is None:
                raise
            raise UserError(f"{error} (the env's declared condition; choose another with --clock)") from None


def run_flags(values: dict[str, object], condition: Condition | None = None) -> RunFlags:
    """The typed flags (a one-line `UserError` naming the flag on a mistake); `--out` checked writable.
    `condition`: the env family's declared condition, played when no `--clock` is given."""
    if not values.get("agent"):
        raise UserError("is required: one spec for every slot or one per slot (e.g. --agent random); "
                        "see `rtarena list`", field="--agent")
    flags = validate(RunFlags, {flag_name(k): v for k, v in values.items() if v is not None},
                     context={"condition": condition})
    if flags.run_dt is not None and flags.max_steps is not None:  # an episode's simulated length (docs/limits.md)
        check_limit("episode.sim_s", flags.max_steps * flags.run_dt, field="--max-steps x --dt")
    check_limit("run.seed", flags.seed_start + flags.seeds - 1, field="--seed-start + --seeds - 1")
    writable_folder(flags.out, "--out")
    return flags


def flags_given_with_experiment(given: dict[str, object]) -> None:
    """Refuse run flags next to an experiment file or preset, naming the first one and its value."""
    if given:
        name, value = next(iter(given.items()))
        shown = " ".join(map(str, value)) if isinstance(value, (list, tuple)) else value
        names = ", ".join(flag_name(k) for k in given)
        raise UserError(f"{flag_name(name)} {shown}: {names} apply to `rtarena run ENV_ID`; an experiment sets "
                        "them in its file (or use --set KEY=VALUE for its [params])")
