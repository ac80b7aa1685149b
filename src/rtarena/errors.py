"""The one error type for user mistakes.

A `UserError` carries a one-line message naming what was wrong (file, field, value). The CLI catches it
once and prints that line without a traceback; internal bugs raise ordinary exceptions.
"""

from __future__ import annotations


class UserError(ValueError):
    """A mistake the user can fix: a wrong id, a malformed file, a bad setting."""

    def __init__(self, message: str, *, source: str | None = None, field: str | None = None) -> None:
        prefix = ""
        if source and not _names(message, source):
            prefix += f"{source}: "
        if field and not _names(message, field):
            prefix += f"{field}: "
        super().__init__(prefix + message)
        self.source = source
        self.field = field


def _names(message: str, what: str) -> bool:
    """Whether `message` already starts by naming `what` (`--obs must be ...`, a re-raised `ENV_ID: ...`), so
    that the line names it once."""
    return message.startswith((f"{what}: ", f"{what} "))
