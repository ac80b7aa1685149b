"""The arena's senses for pixels: first-person RGB and depth, HUD, minimap, spectator view, window.

`ArenaRenderer` renders every agent's view of a `World` in one batch call (compiled, GIL-free, in a
thread pool). Importing this package registers the `rgb`, `depth` and `minimap` observation modalities
with the arena env (`observations.py` here), which also provides the env's render modes.
"""

from rtarena.envs.arena.render import observations as _observations  # registers the modalities
from rtarena.envs.arena.render.renderer import ArenaRenderer, depth_image, parse_resolution

__all__ = ["ArenaRenderer", "depth_image", "parse_resolution"]
del _observations
