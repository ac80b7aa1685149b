"""The GUI action space: one string form, parsed here, documented by the functions below.

An action is one or more calls separated by `;` or newlines, e.g. `type(2, "hello"); key("Enter")`.
The functions in `ACTIONS` are the single source of truth: their signatures check the arguments and
their docstrings are the prompt text (`describe()`), so prompt and parser cannot drift apart. A string
that does not parse is executed as `wait()` and counted by the env as malformed.
"""

from __future__ import annotations

import ast
import inspect
import string
import warnings
from dataclasses import dataclass
from typing import Any

from gymnasium import spaces

MAX_ACTIONS_PER_DECISION = 20
MAX_ACTION_CHARS = 4000
# Printable ASCII plus Latin-1 letters, so that typed text may carry accents; models rarely need more.
ACTION_CHARSET = frozenset(string.printable) | frozenset(chr(c) for c in range(0xA0, 0x100)) | {"€"}


def click(mark: int) -> None:
    """Left-click the centre of the element labelled `mark` in the screenshot."""


def click_xy(x: float, y: float) -> None:
    """Left-click the viewport point (x, y), in screenshot pixels from the top-left corner."""


def type(mark: int, text: str) -> None:
    """Click the field labelled `mark`, select its content and replace it with `text`."""


def key(name: str) -> None:
    """Press one key or chord: "Enter", "ArrowLeft", "Space", "Backspace", "Control+A" ..."""


def scroll(dx: float, dy: float) -> None:
    """Scroll the page by (dx, dy) pixels; positive dy scrolls down."""


def wait() -> None:
    """Do nothing this time."""


ACTIONS = {f.__name__: f for f in (click, click_xy, type, key, scroll, wait)}


@dataclass(frozen=True)
class GuiAction:
    """One parsed call: the action's name and its checked arguments."""

    name: str
    args: tuple[Any, ...]

    def __str__(self) -> str:
        return f"{self.name}({', '.join(repr(a) if isinstance(a, str) else f'{a:g}' for a in self.args)})"


class ActionError(ValueError):
    """The action string does not parse; the message says why, for the step's events."""


def action_space() -> spaces.Text:
    return spaces.Text(max_length=MAX_ACTION_CHARS, min_length=0, charset="".join(sorted(ACTION_CHARSET)))


def parse(text: str) -> list[GuiAction]:
    """The calls in an action string, or `ActionError`. An empty string means `wait()`."""
    if not isinstance(text, str):
        raise ActionError(f"an action is a string, got {text.__class__.__name__}")
    source = text.strip()
    if not source:
        return [GuiAction("wait", ())]
    try:
        with warnings.catch_warnings():  # model text may hold odd escapes ("\$"); only the parse result counts
            warnings.simplefilter("ignore")
            tree = ast.parse(source, mode="exec")
    except SyntaxError as error:
        raise ActionError(f"not a call list: {error.msg}") from None
    calls = []
    for statement in tree.body:
        if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
            raise ActionError(f"not a call: {ast.unparse(statement)[:60]}")
        calls.append(_check_call(statement.value))
    if len(calls) > MAX_ACTIONS_PER_DECISION:
        raise ActionError(f"{len(calls)} actions in one decision; at most {MAX_ACTIONS_PER_DECISION}")
    return calls


def _check_call(call: ast.Call) -> GuiAction:
    if not isinstance(call.func, ast.Name) or call.func.id not in ACTIONS:
        name = ast.unparse(call.func)[:40]
        raise ActionError(f"unknown action {name!r}; known: {', '.join(ACTIONS)}")
    fn = ACTIONS[call.func.id]
    try:
        args = [ast.literal_eval(a) for a in call.args]
        kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg}
    except ValueError:
        raise ActionError(f"{fn.__name__}: arguments must be literals") from None
    signature = inspect.signature(fn)
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as error:
        raise ActionError(f"{fn.__name__}: {error}") from None
    checked = []
    for name, value in bound.arguments.items():
        expected = signature.parameters[name].annotation
        if expected in ("int", int):
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif expected in ("float", float):
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        else:
            ok = isinstance(value, str)
        if not ok:
            raise ActionError(f"{fn.__name__}: {name} must be {expected}, got {value!r}")
        checked.append(value)
    return GuiAction(fn.__name__, tuple(checked))


def describe() -> str:
    """The action set as prompt text, built from the functions' signatures and docstrings."""
    lines = ["Answer with one or more actions separated by `;`, e.g. `type(2, \"hello\"); key(\"Enter\")`:"]
    for fn in ACTIONS.values():
        params = ", ".join(f"{p.name}: {p.annotation}" for p in inspect.signature(fn).parameters.values())
        lines.append(f"- {fn.__name__}({params}): {inspect.getdoc(fn)}")
    lines.append("Marks are the numbered boxes on the screenshot; anything that does not parse counts as wait().")
    return "\n".join(lines)
