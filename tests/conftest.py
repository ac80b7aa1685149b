"""Shared fixtures: small envs and agents used by the runtime tests."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

# Tests that time real seconds run one after another on the same pytest-xdist worker (`make test` runs
# `-n 2 --dist loadgroup`), so two of them never compete for the machine's two cores.
WALL_CLOCK_FILES = {"test_wall_clock.py", "test_wall_pacing.py", "test_wall_records.py", "test_runtime_clocks.py",
                    "test_waiting_visible.py", "test_faults.py"}


def pytest_collection_modifyitems(items):
    for item in items:
        if item.path.name in WALL_CLOCK_FILES:
            item.add_marker(pytest.mark.xdist_group("wall-clock"))
