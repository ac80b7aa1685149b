"""A human at the keyboard, as an agent like any other: `--agent human[:wasd|arrows|ijkl|numpad]`.

The window that owns the keyboard (`rtarena.play`) pumps its events on the main thread and writes them to
the process-wide `KEYBOARD` snapshot; `HumanAgent.act` only reads that snapshot, so it is safe in the
runtime's controller threads and returns at once (a human's "latency" is the frame they react to). A
short tap between two decisions is not lost: a key counts as held if it went down since the agent last
looked.

The same snapshot is the one human input path of every family (`HUMAN_PATHS`): the play page
(`rtarena play --web`) and the feasibility check (`--check`, an oracle's actions turned into key and click
events) write key names (pygame's: `w`, `space`, `left shift`, `up`; mouse buttons `mouse 1`/`mouse 3`),
mouse moves in degrees, and browser GUI calls (`click_xy(...)`, `key(...)`) to it, and one agent per
family reads it: `HumanAgent` (the arena's layouts), `GameHuman` (a suite game's keys and mouse, as the
models' `KeyMouseSpace`) and `GuiHuman` (a browser task's GUI actions, each applied at its commit time).

Arena actions are `MultiDiscrete([3, 3, 3, 3, 2, 2, 2])`: move_x (1 left, 2 right), move_y (1 back,
2 forward), yaw (1 left, 2 right), pitch (1 down, 2 up), fire, jump, minimap.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
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
    """Which keys are held, by pygame key name, plus a count of presses per key, the mouse moved since last
    read (degrees) and the browser GUI calls not yet taken (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: set[str] = set()
        self._presses: dict[str, int] = {}
        self._mouse = [0.0, 0.0]
        self._calls: deque[str] = deque()
        self._call_ready = threading.Condition(self._lock)

    def press(self, name: str) -> None:
        with self._lock:
            self._held.add(name)
            self._presses[name] = self._presses.get(name, 0) + 1

    def release(self, name: str) -> None:
        with self._lock:
            self._held.discard(name)

    def release_all(self) -> None:
        with self._lock:
            self._held.clear()

    def clear(self) -> None:
        with self._lock:
            self._held.clear()
            self._presses.clear()
            self._mouse = [0.0, 0.0]
            self._calls.clear()

    def move(self, dx: float, dy: float) -> None:
        """The mouse moved by (dx, dy) degrees (turn right +, look up +)."""
        with self._lock:
            self._mouse[0] += float(dx)
            self._mouse[1] += float(dy)

    def take_mouse(self) -> tuple[float, float]:
        """The mouse move since the last call."""
        with self._lock:
            dx, dy = self._mouse
            self._mouse = [0.0, 0.0]
            return dx, dy

    def call(self, text: str) -> None:
        """A browser GUI call the person made (`click_xy(12, 30)`, `key('Enter')`)."""
        with self._lock:
            self._calls.append(text)
            self._call_ready.notify_all()

    def pending_calls(self) -> int:
        with self._lock:
            return len(self._calls)

    def take_calls(self, most: int, wait_s: float = 0.0) -> list[str]:
        """Up to `most` GUI calls in the order made, waiting at most `wait_s` for the first."""
        with self._lock:
            if not self._calls and wait_s > 0:
                self._call_ready.wait(wait_s)
            return [self._calls.popleft() for _ in range(min(most, len(self._calls)))]

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


# A suite game's keys (`envs/games/keys.py`) and the key names that hold them (arrows work as W A S D).
GAME_KEYS: dict[str, tuple[str, ...]] = {
    "W": ("w", "up"), "A": ("a", "left"), "S": ("s", "down"), "D": ("d", "right"), "Space": ("space",),
    "F": ("f",), "E": ("e",), "Shift": ("left shift", "right shift"), "LMB": ("mouse 1",), "RMB": ("mouse 3",),
}


HOLD_STEPS = 20  # steps a game decision holds its keys for, unless the next decision comes first


class GameHuman(Agent):
    """A person playing a suite game with the models' interface: the game's keys held, the mouse move."""

    def __init__(self, keyboard: KeyboardSnapshot | None = None) -> None:
        self.keyboard = keyboard or KEYBOARD
        self._seen: dict[str, int] = {}
        self.name = "human"

    def reset(self, context: Any) -> None:
        super().reset(context)
        self.space = context.action_spaces[context.agent]
        self._seen = {}

    def act(self, observation: Any) -> Decision:
        held, presses = self.keyboard.read()
        down = {key for key, count in presses.items() if count != self._seen.get(key, 0)} | held
        self._seen = presses
        names = [name for name, keys in GAME_KEYS.items() if down.intersection(keys)]
        dx, dy = self.keyboard.take_mouse()
        first = self.space.action(names, dx, dy)
        # keys still held stay held until the person's next decision replaces the rest (a tap fires once)
        kept = self.space.action([n for n in names if held.intersection(GAME_KEYS[n])])
        return Decision(action=first, chunk=(first, *[kept] * (HOLD_STEPS - 1)), tokens_source="none")


class GuiHuman(Agent):
    """A person using a browser task: the clicks and keys made since the last decision, as GUI actions.

    With `wait_s` > 0 (a live person) a decision waits for the person's next input, however long (looking
    every `wait_s` whether the agent was closed): it commits when the input was made, and no `wait()` in
    between can replace a click still waiting for its step. With 0 (the check) it answers at once."""

    def __init__(self, keyboard: KeyboardSnapshot | None = None, wait_s: float = 0.0) -> None:
        from rtarena.envs.gui.actions import MAX_ACTIONS_PER_DECISION

        self.keyboard = keyboard or KEYBOARD
        self.wait_s, self.most = float(wait_s), MAX_ACTIONS_PER_DECISION
        self.closed = threading.Event()
        self.name = "human"

    def act(self, observation: Any) -> Decision:
        calls = self.keyboard.take_calls(self.most, self.wait_s)
        while not calls and self.wait_s > 0 and not self.closed.is_set():
            calls = self.keyboard.take_calls(self.most, self.wait_s)
        return Decision(action="; ".join(calls) or "wait()", tokens_source="none")

    def close(self) -> None:
        self.closed.set()


# Per env family with a human path: the agent that turns the input snapshot into the family's actions
# (`wait_s`: how long a GUI decision may wait for input; keys and the mouse are read at once).
HUMAN_PATHS: dict[str, Callable[[KeyboardSnapshot, float], Agent]] = {
    "arena": lambda keyboard, wait_s: HumanAgent("wasd", keyboard),
    "games": lambda keyboard, wait_s: GameHuman(keyboard),
    "web": lambda keyboard, wait_s: GuiHuman(keyboard, wait_s),
    "gui-games": lambda keyboard, wait_s: GuiHuman(keyboard, wait_s),
}


def make_human(option: str | None = None) -> HumanAgent:
    """The `human` agent spec's factory: `human`, `human:arrows` ..."""
    return HumanAgent(option)
