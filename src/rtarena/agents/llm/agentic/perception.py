"""Perception: what the agent is shown of an observation, and the extra views it may ask for.

The configured modalities go into every user message. Whatever else the observation holds can be asked
for with `LOOK: <view>` during planning: another modality (`minimap`, `depth`, `rgb`, `state`, ...) or
`crosshair_depth`, the distance in metres under the centre of the depth image.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rtarena.agents.llm.media import depth_part, image_part
from rtarena.agents.llm.options import LLMOptions
from rtarena.agents.llm.prompts import observation_parts

IMAGE_VIEWS = ("rgb", "minimap", "som")


class Perception:
    """Turns observations into content parts for one agent, as configured by its options."""

    def __init__(self, options: LLMOptions) -> None:
        self.options = options

    def parts(self, observation: Any) -> list[dict[str, Any]]:
        o = self.options
        return observation_parts(observation, o.modalities, o.image_size, o.image_format)

    def view_names(self, keys: list[str]) -> list[str]:
        """Views an observation with these keys offers beyond what every message already carries."""
        names = [k for k in keys if k not in self.options.modalities and k != "text"]
        if "depth" in keys:
            names.append("crosshair_depth")
        return names

    def view(self, observation: Any, name: str) -> list[dict[str, Any]] | None:
        """The content of one view of this observation, or None when it has no such view."""
        if not isinstance(observation, dict):
            return None
        o = self.options
        if name == "crosshair_depth" and "depth" in observation:
            depth = np.asarray(observation["depth"], dtype=float).squeeze()
            centre = float(depth[depth.shape[0] // 2, depth.shape[1] // 2])
            return [{"type": "text", "text": f"crosshair depth: {centre:.1f} m"}]
        if name not in observation or name in o.modalities:
            return None
        value = observation[name]
        if name == "depth":
            return [depth_part(value, o.image_size, o.image_format)]
        if name in IMAGE_VIEWS:
            return [image_part(value, o.image_size, o.image_format)]
        if isinstance(value, str):
            return [{"type": "text", "text": value}]
        return [{"type": "text", "text": f"{name}: {np.round(np.asarray(value, dtype=float), 4).tolist()}"}]
