"""The failure-mode codebook as data (`failure_modes.toml`), read into small typed objects.

A mode has a code, a capability (RT-Perceive, RT-Deliberate, RT-Act), an operational definition,
inclusion and exclusion rules and the record fields it is judged from. `params` holds the numbers and
event names the rules use, so tuning a rule never means editing Python.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import ConfigDict, Field, model_validator

from rtarena.envs.capabilities import REALTIME_CAPABILITIES
from rtarena.errors import UserError
from rtarena.schema import Flag, Fraction, NonNegFloat, NonNegInt, PosFloat, PosInt, Section, read_toml, validate

CODEBOOK = Path(__file__).with_name("failure_modes.toml")
CAPABILITIES = REALTIME_CAPABILITIES
Capability = Literal[CAPABILITIES]


class FailureMode(Section):
    """One `[[modes]]` row: what the rule-based annotator implements and the model annotator is shown."""

    model_config = ConfigDict(frozen=True)

    code: str = Field(min_length=1)
    capability: Capability
    name: str
    definition: str
    include: tuple[str, ...]
    exclude: tuple[str, ...]
    fields: tuple[str, ...]


class CodebookParams(Section):
    """The `[params]` table: the numbers and event names the rules use (docs/annotate.md)."""

    only_lost: Flag
    bad_action_events: list[str]
    bad_action_fields: dict[str, Any]
    failure_events: list[str]
    repeat_min: PosInt
    wait_window: PosInt
    adapt_min_decisions: PosInt
    adapt_ratio: PosFloat
    min_left_s: NonNegFloat
    min_left_steps: NonNegInt
    pressure_share: Fraction


class CodebookFile(Section):
    """A codebook file as written (the bundled `failure_modes.toml` or `--codebook FILE`)."""

    capabilities: dict[Capability, str]
    params: CodebookParams
    modes: tuple[FailureMode, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_codes(self) -> CodebookFile:
        codes = [m.code for m in self.modes]
        twice = sorted({c for c in codes if codes.count(c) > 1})
        if twice:
            raise ValueError(f"modes: codes must be unique, got {', '.join(twice)} more than once")
        return self


@dataclass(frozen=True)
class Codebook:
    capabilities: dict[str, str]
    params: dict[str, Any]
    modes: tuple[FailureMode, ...]

    def mode(self, code: str) -> FailureMode:
        for mode in self.modes:
            if mode.code == code:
                return mode
        raise UserError(f"unknown failure code {code!r}; known: {', '.join(self.codes)}", field="code")

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(m.code for m in self.modes)

    def capability(self, code: str) -> str:
        return self.mode(code).capability


def load_codebook(path: str | Path = CODEBOOK) -> Codebook:
    """Read and check a codebook file (the bundled one by default): one line naming file and field if wrong."""
    book = validate(CodebookFile, read_toml(path, "codebook"), source=str(path))
    return Codebook(capabilities=dict(book.capabilities), params=book.params.model_dump(), modes=book.modes)


@cache
def default_codebook() -> Codebook:
    return load_codebook()
