"""`envs/search.py`'s steps counted from the search's nearest start (`depths`), as the games' scripted players
use them: on an open grid the count is the Manhattan distance to the nearest start, and a tilefall player's
safety map counts steps to the nearest unsafe tile or the board's edge."""

from __future__ import annotations

import numpy as np

from rtarena.agents.scripted.games.tilefall import safety
from rtarena.envs.search import breadth_first, depths, grid


def test_depths_on_an_open_grid_are_manhattan_distances_to_the_nearest_start():
    starts = [(0, 0), (6, 3)]
    steps = depths(breadth_first(starts, grid((7, 5), lambda cell: True)))
    assert len(steps) == 35
    for (c, r), count in steps.items():
        assert count == min(abs(c - sc) + abs(r - sr) for sc, sr in starts)


def test_a_wall_makes_the_way_round_longer():
    wall = {(2, 0), (2, 1), (2, 2)}
    steps = depths(breadth_first([(0, 0)], grid((5, 4), lambda cell: cell not in wall)))
    assert steps[(4, 0)] == 10  # down to row 3, across, back up: not the 4 steps straight across
    assert (2, 1) not in steps


def test_tilefall_safety_counts_steps_to_an_unsafe_tile_or_the_edge():
    safe = np.ones((7, 7), dtype=bool)
    safe[3, 3] = False
    dist = safety(safe)
    assert dist[3, 3] == 0 and dist[0, 0] == 1 and dist[6, 2] == 1  # the edge tiles are one step from the void
    assert dist[3, 2] == 1 and dist[2, 2] == 2 and dist[1, 1] == 2
    assert np.isfinite(dist).all()
