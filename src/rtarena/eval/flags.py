"""The flags of `rtarena run ENV_ID`, as one typed object validated once at the top.

`cli.py` turns what the user typed into `RunFlags` (a typed schema of `rtarena.schema`, field names are
the flags' own: `--delay-ms`), so every mistake is one line naming the flag and its value before any env
is built; `commands.run_flags` then turns the flags into an `Experiment` of one cell, and nothing below
re-validates a flag bag. With an experiment file or a preset, the run flags are refused by name
(`flags_given_with_experiment`): an experiment sets them in its file.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ConfigDict, Field, field_validator, model_validator

from rtarena.errors import UserError
from rtarena.schema import NonNegFloat, NonNegInt, PosFloat, PosInt, Section, validate, writable_folder

# Flags that are settings of some clocks only: the clock class declares whether it takes them.
CLOCK_SETTING_FLAGS = {"kappa": "kappa", "overhead": "overhead_s"}


def flag_name(field: str) -> str:
    """`delay_ms` -> `--delay-ms`."""
    return "--" + field.replace("_", "-")


class RunFlags(Section):
    """`rtarena run ENV_ID` flags; units in the names (`delay_ms` milliseconds, `dt` seconds)."""

    model_config = ConfigDict(alias_generator=flag_name, populate_by_name=True, frozen=True)

    agent: tuple[str, ...] = Field(min_length=1, description="agent specs: one for every slot, or one per slot")
    clock: str = Field("token", description="clock protocol, a name of runtime.clocks.CLOCKS")
    dt: PosFloat | None = Field(None, description="simulated seconds per env step (the env's default if unset)")
    kappa: PosFloat | None = Field(None, description="token clock: tokens per simulated second")
    overhead: NonNegFloat | None = Field(None, description="token clock: fixed seconds per decision")
    delay_ms: NonNegFloat = Field(0.0, description="injected delay per decision, milliseconds")
    obs_every: PosInt = Field(1, description="publish an observation every K steps")
    max_steps: PosInt = Field(500, description="step limit per episode")
    seeds: PosInt = Field(1, description="number of episodes")
    seed_start: NonNegInt = Field(0, description="first seed")
    workers: NonNegInt = Field(0, description="episodes at once (0: one per CPU)")
    out: Path = Field(Path("runs/latest"), description="output folder")
    map: str | None = None
    disable: tuple[str, ...] = ()

    @field_validator("clock")
    @classmethod
    def _known_clock(cls, value: str) -> str:
        from rtarena.runtime.clocks import CLOCKS

        if value not in CLOCKS:
            raise ValueError(f"must be one of {', '.join(CLOCKS)}")
        return value

    @model_validator(mode="after")
    def _clock_takes_it(self) -> RunFlags:
        """A clock setting the chosen clock does not declare is refused, not silently dropped."""
        from rtarena.runtime.clocks import CLOCKS

        declared = CLOCKS[self.clock].__dataclass_fields__
        for flag, setting in CLOCK_SETTING_FLAGS.items():
            if getattr(self, flag) is not None and setting not in declared:
                raise ValueError(f"{flag_name(flag)} {getattr(self, flag):g}: the {self.clock} clock takes no "
                                 f"{setting}, got --clock {self.clock}")
        return self

    @property
    def seed_list(self) -> tuple[int, ...]:
        return tuple(range(self.seed_start, self.seed_start + self.seeds))

    def clock_settings(self) -> dict[str, float | int | None]:
        return {"kappa": self.kappa, "overhead": self.overhead, "delay_s": self.delay_ms / 1000.0,
                "obs_every": self.obs_every}


def run_flags(values: dict[str, object]) -> RunFlags:
    """The typed flags (a one-line `UserError` naming the flag on a mistake); `--out` checked writable."""
    if not values.get("agent"):
        raise UserError("is required: one spec for every slot or one per slot (e.g. --agent random); "
                        "see `rtarena list`", field="--agent")
    flags = validate(RunFlags, {flag_name(k): v for k, v in values.items() if v is not None})
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
