"""A browser task's observation, built from a page snapshot: the modalities an agent chose, nothing more.

`ObservationBuilder.build(snapshot, jpeg, elapsed_s)` turns what `session.PageSession` read from the page
(the task state, the marks, the page text) and its screenshot into the observation dict of
`BrowserTaskEnv`'s documented modalities (`som`, `rgb`, `marks`, `goal`, `time`, `text`). It keeps the
latest task state and marks (the env scores and executes actions with them) and the latest marked pixels
(`render()`, saved screenshots).
"""

from __future__ import annotations

import json
import unicodedata
from typing import Any

import numpy as np

from rtarena.envs.gui.som import decode, draw_marks
from rtarena.envs.gui.text import text_block
from rtarena.envs.modalities import GUI_IMAGES, GUI_MODALITIES

MODALITIES = GUI_MODALITIES
IMAGE_MODALITIES = GUI_IMAGES
MAX_TEXT = 200_000


class ObservationBuilder:
    """The observation of the modalities `observe`, for a task whose time limit is `time_limit_s`."""

    def __init__(self, observe: tuple[str, ...], time_limit_s: float) -> None:
        self.observe = observe
        self.time_limit_s = time_limit_s
        self.goal = ""
        self.clear()

    def clear(self) -> None:
        """Forget the last episode's page (at reset)."""
        self.task: dict[str, Any] = {}
        self.marks: list[dict] = []
        self.pixels: np.ndarray | None = None  # the last screenshot with its marks drawn

    @property
    def wants_text(self) -> bool:
        return "text" in self.observe

    @property
    def wants_image(self) -> bool:
        return any(m in self.observe for m in IMAGE_MODALITIES)

    def build(self, snap: dict, shot: bytes | None, elapsed_s: float) -> dict[str, Any]:
        self.task = snap["task"]
        self.marks = snap["marks"]
        obs: dict[str, Any] = {}
        if shot is not None:
            pixels = decode(shot)
            if "rgb" in self.observe:
                obs["rgb"] = pixels
            self.pixels = draw_marks(pixels, self.marks)
            if "som" in self.observe:
                obs["som"] = self.pixels
        if "marks" in self.observe:
            obs["marks"] = json.dumps(self.marks, ensure_ascii=True, separators=(",", ":"))
        if "goal" in self.observe:
            obs["goal"] = ascii_text(self.goal)
        if "time" in self.observe:
            obs["time"] = np.array([elapsed_s, max(0.0, self.time_limit_s - elapsed_s)], dtype=np.float32)
        if "text" in self.observe:
            obs["text"] = ascii_text(self.text_block(snap.get("text", ""), elapsed_s))[:MAX_TEXT]
        return obs

    def text_block(self, page_text: str, elapsed_s: float) -> str:
        """The `text` modality: goal, time, one line per mark, the page's visible text (`gui/text.py`)."""
        return text_block(self.goal, elapsed_s, max(0.0, self.time_limit_s - elapsed_s), self.marks, page_text)


_PUNCTUATION = str.maketrans({"\u00b7": "-", "\u2013": "-", "\u2014": "-", "\u2212": "-", "\u2019": "'",
                              "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u00a0": " ", "\u2026": "...",
                              "\u20ac": "EUR", "\u00d7": "x"})


def ascii_text(text: str) -> str:
    """Text for a gymnasium Text space: printable ASCII (accents dropped, common punctuation spelled)."""
    plain = unicodedata.normalize("NFKD", text.translate(_PUNCTUATION))
    return "".join(c if (" " <= c <= "~") or c in "\n\t" else ("" if unicodedata.combining(c) else "?")
                   for c in plain)
