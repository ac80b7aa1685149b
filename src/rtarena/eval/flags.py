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
from typing import Annotated

from pydantic import ConfigDict, Field

from rtarena.errors import UserError
from rtarena.limits import check_limit
from rtarena.schema import (
    NonNegInt,
    PosFloat,
    PosInt,
    Section,
    Seed,
    SimMilliseconds,
    at_most,
    validate,
    writable_folder,
)


def flag_name(field: str) -> str:
    """`delay_ms` -> `--delay-ms`."""
    return "--" + field.replace("_", "-")


class RunFlags(Section):
    """`rtarena run ENV_ID` flags; units in the names (`delay_ms` milliseconds, `dt` seconds)."""

    model_config = ConfigDict(alias_generator=flag_name, populate_by_name=True, frozen=True)

    agent: tuple[str, ...] = Field(min_length=1, description="agent specs: one for every slot, or one per slot")
    clock: str = Field("token", description="clock protocol, a name of runtime.clocks.CLOCKS (it checks its settings)")
    dt: Annotated[PosFloat, at_most("step.dt_s")] | None = Field(
        None, description="simulated seconds per env step (the env's default if unset)")
    kappa: float | None = Field(None, description="token clock: tokens per simulated second (the clock checks it)")
    overhead: float | None = Field(None, description="token clock: fixed seconds per decision (the clock checks it)")
    delay_ms: SimMilliseconds = Field(0.0, description="injected delay per decision, milliseconds")
    obs_every: int = Field(1, description="publish an observation every K steps (the clock checks it)")
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
    workers: NonNegInt = Field(0, description="episodes at once (0: one per CPU)")
    out: Path = Field(Path("runs/latest"), description="output folder")
    map: str | None = None
    disable: tuple[str, ...] = ()

    @property
    def seed_list(self) -> tuple[int, ...]:
        return tuple(range(self.seed_start, self.seed_start + self.seeds))

    def clock_settings(self) -> dict[str, float | int | None]:
        """The clock's settings by their own names, in seconds: `--delay-ms` is converted here, once."""
        return {"kappa": self.kappa, "overhead_s": self.overhead, "delay_s": self.delay_ms / 1000.0,
                "obs_every": self.obs_every, "settle_s": self.settle_s, "latency": self.latency,
                "latency_trace": self.latency_trace, "latency_model": self.latency_model}


def run_flags(values: dict[str, object]) -> RunFlags:
    """The typed flags (a one-line `UserError` naming the flag on a mistake); `--out` checked writable."""
    if not values.get("agent"):
        raise UserError("is required: one spec for every slot or one per slot (e.g. --agent random); "
                        "see `rtarena list`", field="--agent")
    from rtarena.runtime.clocks import build_clock

    flags = validate(RunFlags, {flag_name(k): v for k, v in values.items() if v is not None})
    if flags.dt is not None and flags.max_steps is not None:  # an episode's simulated length (docs/limits.md)
        check_limit("episode.sim_s", flags.max_steps * flags.dt, field="--max-steps x --dt")
    check_limit("run.seed", flags.seed_start + flags.seeds - 1, field="--seed-start + --seeds - 1")
    build_clock(flags.clock, flags.clock_settings())  # the clock class declares and checks its own settings
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
