"""Observation modalities, one home: what each env family can observe and what a model agent can be shown.

An env refuses a modality outside its family's list (one line naming the list); a model agent's options
accept any of `MODEL_MODALITIES`. The arena's own builders are registered by name in
`envs/arena/observations/` (text, state, rgb, depth, audio).
"""

from __future__ import annotations

from typing import Literal

GAME_MODALITIES = ("rgb", "text", "state")  # the game suite (envs/games)
GUI_MODALITIES = ("som", "rgb", "marks", "goal", "time", "text")  # browser tasks (envs/gui)
GUI_IMAGES = ("som", "rgb")  # the browser modalities that need a screenshot
# What a model agent may be shown (`LLMOptions.modalities`), every family's union that a prompt carries.
MODEL_MODALITIES = ("text", "state", "rgb", "depth", "audio", "som", "marks")
Modality = Literal[MODEL_MODALITIES]
# Arrays that are pictures or sound, never printed as numbers in a prompt.
MEDIA = ("rgb", "depth", "audio", "som")

__all__ = ["GAME_MODALITIES", "GUI_IMAGES", "GUI_MODALITIES", "MEDIA", "MODEL_MODALITIES", "Modality"]
