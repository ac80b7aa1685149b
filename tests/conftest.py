"""Shared fixtures: small envs and agents used by the runtime tests."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
