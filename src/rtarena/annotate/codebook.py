"""The failure-mode codebook as data (`failure_modes.toml`), read into small typed objects.

A mode has a code, a capability (RT-Perceive, RT-Deliberate, RT-Act), an operational definition,
inclusion and exclusion rules and the record fields it is judged from. `params` holds the numbers and
event names the rules use, so tuning a rule never means editing Python. `conditions` says which
capabilities each study condition can show (the paper codes RT-Deliberate under TL and TH, RT-Perceive and
RT-Act under PH): a code is applied only under a condition that can show its capability.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
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
    conditions: dict[str, tuple[Capability, ...]] = Field(
        default_factory=dict, description="study condition -> the capabilities it can show")
    annotator: str | None = Field(None, description="the paper's annotator, a model: MODEL@BASE_URL[,key=value]; "
                                  "`rtarena annotate` uses it unless --model is given (none: the rule annotator "
                                  "alone, the offline fallback)")

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
    conditions: dict[str, tuple[str, ...]] = field(default_factory=dict)  # condition -> capabilities it shows
    annotator: str | None = None  # the model annotator the codebook names (the paper's), else None

    def for_condition(self, condition: str) -> Codebook:
        """The codebook as applied under `condition`: only the modes of the capabilities it can show (every
        mode under a condition the codebook does not list)."""
        if condition not in self.conditions:
            return self
        shown = self.conditions[condition]
        return replace(self, modes=tuple(m for m in self.modes if m.capability in shown))

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
    return Codebook(capabilities=dict(book.capabilities), params=book.params.model_dump(), modes=book.modes,
                    conditions={name: tuple(shown) for name, shown in book.conditions.items()},
                    annotator=book.annotator)


@cache
def default_codebook() -> Codebook:
    return load_codebook()
