"""The capability vocabularies, one home each: what a game rates and what a real-time failure is coded as.

- `GAME_CAPABILITIES`: the seven capabilities each suite game is rated on, 0 (not needed) to 3 (central),
  after OmniGameArena (paper 002); `GAME_ABBREV` their short names in tables and the radar chart.
- `REALTIME_CAPABILITIES`: Realtime-Bench's three real-time capabilities (paper 001), spelled as the paper
  spells them everywhere: the browser tasks' `capabilities` tags and the failure-mode codebook's
  `capability`; `REALTIME_SHORT` their one-letter chart legends.
"""

from __future__ import annotations

GAME_CAPABILITIES = ("visual_perception", "spatial_navigation", "reaction_time", "memory", "planning",
                     "adversarial", "cooperation")
GAME_ABBREV = dict(zip(GAME_CAPABILITIES, ("VP", "SN", "RT", "MEM", "PLN", "ADV", "COOP"), strict=True))

# Temporal state awareness, deliberation within the time left, deciding whether to act now (paper 001, 1).
REALTIME_CAPABILITIES = ("RT-Perceive", "RT-Deliberate", "RT-Act")
REALTIME_SHORT = dict(zip(REALTIME_CAPABILITIES, ("P", "D", "A"), strict=True))

__all__ = ["GAME_ABBREV", "GAME_CAPABILITIES", "REALTIME_CAPABILITIES", "REALTIME_SHORT"]
