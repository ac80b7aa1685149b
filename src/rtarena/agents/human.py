"""A human at the keyboard, as an agent like any other: `--agent human[:wasd|arrows|ijkl|numpad]`.

The window that owns the keyboard (`rtarena.play`) pumps its events on the main thread and writes them to
the process-wide `KEYBOARD` snapshot; `HumanAgent.act` only reads that snapshot, so it is safe in the
runtime's controller threads and returns at once (a human's "latency" is the frame they react to). A
short tap between two decisions is not lost: a key counts as held if it went down since the agent last
looked.

Arena actions are `MultiDiscrete([3, 3, 3, 3, 2, 2, 2])`: move_x (1 left, 2 right), move_y (1 back,
2 forward), yaw (1 left, 2 right), pitch (1 down, 2 up), fire, jump, minimap.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from rtarena.agents.base import Agent, Decision
from rtarena.errors import UserError

# Per layout, the pygame key names of: forward, back, strafe left, strafe right, turn left, turn right,
# look up, look down, fire, jump, minimap.
CONTROLS = ("forward", "back", "left", "right", "turn_left", "turn_right", "look_up", "look_down", "fire",
            "jump", "minimap")
LAYOUTS: dict[str, tuple[str, ...]] = {
    "wasd": ("w", "s", "a", "d", "q", "e", "r", "f", "space", "left shift", "tab"),
    "arrows": ("up", "down", ",", ".", "left", "right", "page up", "page down", "right ctrl", "right shift",
               "return"),
    "ijkl": ("i", "k", "j", "l", "u", "o", "y", "h", "m", "n", "p"),
    "numpad": ("[8]", "[5]", "[4]", "[6]", "[7]", "[9]", "[+]", "[-]", "[0]", "enter", "[.]"),
}
LAYOUT_ORDER = tuple(LAYOUTS)


class KeyboardSnapshot:
    """Which keys are held, by pygame key name, plus a count of presses per key (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: set[str] = set()
        self._presses: dict[str, int] = {}

    def press(self, name: str) -> None:
        with self._lock:
            self._held.add(name)
            self._presses[name] = self._presses.get(name, 0) + 1

    def release(self, name: str) -> None:
        with self._lock:
            self._held.discard(name)

    def clear(self) -> None:
        with self._lock:
            self._held.clear()
            self._presses.clear()

    def read(self) -> tuple[frozenset[str], dict[str, int]]:
        with self._lock:
            return frozenset(self._held), dict(self._presses)


KEYBOARD = KeyboardSnapshot()


def action_from_keys(keys: dict[str, bool]) -> np.ndarray:
    """The arena action for the controls held (`keys[control]`)."""

    def axis(neg: str, pos: str) -> int:
        return 0 if keys[neg] == keys[pos] else (1 if keys[neg] else 2)

    return np.array([
        axis("left", "right"), axis("back", "forward"), axis("turn_left", "turn_right"),
        axis("look_down", "look_up"), int(keys["fire"]), int(keys["jump"]), int(keys["minimap"]),
    ], dtype=np.int64)


class HumanAgent(Agent):
    """Reads one keyboard layout from `KEYBOARD` (or the snapshot given)."""

    def __init__(self, layout: str | None = None, keyboard: KeyboardSnapshot | None = None) -> None:
        layout = layout or "wasd"
        if layout not in LAYOUTS:
            raise UserError(f"unknown keyboard layout {layout!r}; layouts: {', '.join(LAYOUTS)}", field="--agent")
        self.layout = layout
        self.keys = dict(zip(CONTROLS, LAYOUTS[layout], strict=True))
        self.keyboard = keyboard or KEYBOARD
        self._seen: dict[str, int] = {}
        self.name = f"human:{layout}"

    def act(self, observation: Any) -> Decision:
        held, presses = self.keyboard.read()
        state = {}
        for control, key in self.keys.items():
            tapped = presses.get(key, 0) != self._seen.get(key, 0)
            state[control] = key in held or tapped
        self._seen = {key: presses.get(key, 0) for key in self.keys.values()}
        action = action_from_keys(state)
        if len(self.context.agents) > 1:
            return Decision(action={a: action for a in self.context.agents}, tokens_source="none")
        return Decision(action=action, tokens_source="none")


def make_human(option: str | None = None) -> HumanAgent:
    """The `human` agent spec's factory: `human`, `human:arrows` ..."""
    return HumanAgent(option)
