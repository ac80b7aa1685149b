"""Reading one table of an experiment file with one-line errors that name the file, the field and the value.

`Fields` wraps a parsed table (a dict) and a dotted path (`clocks[1]`); each accessor checks one field's
type and range and raises `UserError(source=file, field="clocks[1].delay_ms")` with the offending value.
`done()` rejects fields nobody asked for, suggesting the nearest known name (a typo must not be ignored).
"""

from __future__ import annotations

import difflib
import math
from typing import Any

from rtarena.errors import UserError
from rtarena.schema import shown

REQUIRED = object()


def show(value: Any) -> str:
    """A value as the user wrote it, cut short so the error stays one line (the schema's rendering)."""
    return shown(value)


class Fields:
    """Typed access to one table of an experiment file."""

    def __init__(self, table: Any, path: str, source: str) -> None:
        self.path = path
        self.source = source
        if not isinstance(table, dict):
            self.fail("", f"must be a table, got {show(table)}")
        self.table = table
        self.seen: set[str] = set()

    def field(self, name: str) -> str:
        if not name:
            return self.path or "(top level)"
        return f"{self.path}.{name}" if self.path else name

    def fail(self, name: str, message: str) -> None:
        raise UserError(message, source=self.source, field=self.field(name))

    def get(self, name: str, default: Any = REQUIRED) -> Any:
        self.seen.add(name)
        if name not in self.table or self.table[name] is None:
            if default is REQUIRED:
                self.fail(name, "is required")
            return default
        return self.table[name]

    def str(self, name: str, default: Any = REQUIRED, choices: tuple[str, ...] | None = None) -> Any:
        value = self.get(name, default)
        if value is default and default is not REQUIRED:
            return value
        if not isinstance(value, str) or not value:
            self.fail(name, f"must be a non-empty string, got {show(value)}")
        if choices and value not in choices:
            self.fail(name, f"must be one of {', '.join(choices)}, got {show(value)}")
        return value

    def int(self, name: str, default: Any = REQUIRED, minimum: int = 0) -> Any:
        value = self.get(name, default)
        if value is default and default is not REQUIRED:
            return value
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            self.fail(name, f"must be a whole number >= {minimum}, got {show(value)}")
        return value

    def number(self, name: str, default: Any = REQUIRED, minimum: float = 0.0, positive: bool = False) -> Any:
        value = self.get(name, default)
        if value is default and default is not REQUIRED:
            return value
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        if not ok or value < minimum or (positive and value <= 0):
            bound = f"> {minimum:g}" if positive else f">= {minimum:g}"
            self.fail(name, f"must be a number {bound}, got {show(value)}")
        return float(value)

    def bool_or_int(self, name: str, default: Any) -> Any:
        value = self.get(name, default)
        if isinstance(value, bool) or (isinstance(value, int) and value >= 0):
            return value
        self.fail(name, f"must be true, false or a whole number >= 0, got {show(value)}")
        return None

    def list(self, name: str, default: Any = REQUIRED, allow_single: bool = True) -> Any:
        value = self.get(name, default)
        if value is default and default is not REQUIRED:
            return value
        if allow_single and not isinstance(value, list):
            value = [value]
        if not isinstance(value, list) or not value:
            self.fail(name, f"must be a non-empty list, got {show(value)}")
        return value

    def sub(self, name: str, default: Any = REQUIRED) -> Any:
        """A nested table as a plain dict (its keys are checked by whoever reads it)."""
        value = self.get(name, default)
        if value is default and default is not REQUIRED:
            return value
        if not isinstance(value, dict):
            self.fail(name, f"must be a table, got {show(value)}")
        return value

    def done(self) -> None:
        for name in self.table:
            if name not in self.seen:
                close = difflib.get_close_matches(str(name), sorted(self.seen), n=1)
                hint = f"; did you mean {close[0]!r}?" if close else f"; known: {', '.join(sorted(self.seen))}"
                self.fail(str(name), f"unknown field{hint}")
