"""The GUI action space: one string form, parsed here, documented by the functions below.

An action is one or more calls separated by `;` or newlines, e.g. `type(2, "hello"); key("Enter")`.
The functions in `ACTIONS` are the single source of truth: their signatures check the arguments, their
docstrings are the prompt text (`describe()`) and their bodies execute them on the page, so prompt,
parser and behaviour cannot drift apart. Adding an action is adding one function here. A string
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


class ActionFailed(Exception):
    """The action parsed but could not be carried out on the page (an unknown mark, a point off-screen)."""


class Hands:
    """What an action executes on: the page's mouse and keyboard, the marks of the last observation
    (id -> box `[x, y, w, h]`) and the viewport size. Made by the env for each step."""

    def __init__(self, page: Any, boxes: dict[int, list[int]], viewport: tuple[int, int]) -> None:
        self.page, self.boxes, self.viewport = page, boxes, viewport

    def centre(self, mark: int) -> tuple[float, float]:
        box = self.boxes.get(mark)
        if box is None:
            raise ActionFailed(f"no mark {mark} on the page")
        x, y, w, h = box
        return x + w / 2, y + h / 2


# Each action: the first parameter is the page's `Hands` (not shown to agents); the rest, with their
# annotations, are the action's arguments; the docstring is its prompt text; the body executes it.

async def click(hands: Hands, mark: int) -> None:
    """Left-click the centre of the element labelled `mark` in the screenshot."""
    await hands.page.mouse.click(*hands.centre(mark))


async def click_xy(hands: Hands, x: float, y: float) -> None:
    """Left-click the viewport point (x, y), in screenshot pixels from the top-left corner."""
    width, height = hands.viewport
    if not (0 <= x < width and 0 <= y < height):
        raise ActionFailed(f"point ({x:g}, {y:g}) is outside the {width}x{height} viewport")
    await hands.page.mouse.click(x, y)


async def type(hands: Hands, mark: int, text: str) -> None:
    """Click the field labelled `mark`, select its content and replace it with `text`."""
    await hands.page.mouse.click(*hands.centre(mark))
    await hands.page.keyboard.press("Control+A")
    await hands.page.keyboard.insert_text(text)


async def key(hands: Hands, name: str) -> None:
    """Press one key or chord: "Enter", "ArrowLeft", "Space", "Backspace", "Control+A" ..."""
    await hands.page.keyboard.press(name)


async def scroll(hands: Hands, dx: float, dy: float) -> None:
    """Scroll the page by (dx, dy) pixels; positive dy scrolls down."""
    await hands.page.mouse.wheel(dx, dy)


async def wait(hands: Hands) -> None:
    """Do nothing this time."""


ACTIONS = {f.__name__: f for f in (click, click_xy, type, key, scroll, wait)}


@dataclass(frozen=True)
class GuiAction:
    """One parsed call: the action's name and its checked arguments."""

    name: str
    args: tuple[Any, ...]

    async def execute(self, hands: Hands) -> None:
        """Carry the call out on the page; `ActionFailed` (or Playwright's error) when it cannot be."""
        await ACTIONS[self.name](hands, *self.args)

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
    signature = _agent_signature(fn)
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
        params = ", ".join(f"{p.name}: {p.annotation}" for p in _agent_signature(fn).parameters.values())
        lines.append(f"- {fn.__name__}({params}): {inspect.getdoc(fn)}")
    lines.append("Marks are the numbered boxes on the screenshot; anything that does not parse counts as wait().")
    return "\n".join(lines)


def _agent_signature(fn: Any) -> inspect.Signature:
    """An action's signature as agents see it: without the leading `hands`."""
    signature = inspect.signature(fn)
    return signature.replace(parameters=list(signature.parameters.values())[1:])
