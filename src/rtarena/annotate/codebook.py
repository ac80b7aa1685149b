"""The failure-mode codebook as data (`failure_modes.toml`), read into small typed objects.

A mode has a code, a capability (RT-Perceive, RT-Deliberate, RT-Act), an operational definition,
inclusion and exclusion rules and the record fields it is judged from. `params` holds the numbers and
event names the rules use, so tuning a rule never means editing Python.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from rtarena.errors import UserError
from rtarena.schema import read_toml

CODEBOOK = Path(__file__).with_name("failure_modes.toml")
CAPABILITIES = ("RT-Perceive", "RT-Deliberate", "RT-Act")


@dataclass(frozen=True)
class FailureMode:
    code: str
    capability: str
    name: str
    definition: str
    include: tuple[str, ...]
    exclude: tuple[str, ...]
    fields: tuple[str, ...]


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


def _mode(row: dict[str, Any], index: int, source: str) -> FailureMode:
    where = f"modes[{index}]"
    for key in ("code", "capability", "name", "definition", "include", "exclude", "fields"):
        if key not in row:
            raise UserError(f"missing {key!r}", source=source, field=where)
    if row["capability"] not in CAPABILITIES:
        raise UserError(f"capability must be one of {', '.join(CAPABILITIES)}, got {row['capability']!r}",
                        source=source, field=f"{where}.capability")
    return FailureMode(code=str(row["code"]), capability=row["capability"], name=str(row["name"]),
                       definition=str(row["definition"]), include=tuple(row["include"]),
                       exclude=tuple(row["exclude"]), fields=tuple(row["fields"]))


def load_codebook(path: str | Path = CODEBOOK) -> Codebook:
    """Read and check a codebook file (the bundled one by default)."""
    source = str(path)
    data = read_toml(path, "codebook")
    modes = tuple(_mode(row, i, source) for i, row in enumerate(data.get("modes", [])))
    codes = [m.code for m in modes]
    if len(set(codes)) != len(codes):
        raise UserError("codes must be unique", source=source, field="modes")
    return Codebook(capabilities=dict(data.get("capabilities", {})), params=dict(data.get("params", {})),
                    modes=modes)


@cache
def default_codebook() -> Codebook:
    return load_codebook()
