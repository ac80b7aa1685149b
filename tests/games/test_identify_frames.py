"""The identification probe shows informative moments, chosen by a rule over the episode's record."""

from __future__ import annotations

import rtarena
from rtarena.envs.games.identify import informative_moments


def test_the_first_time_each_kind_of_event_happens_is_shown_then_spread_moments():
    events = [(3, "order"), (15, "warn"), (16, "warn"), (18, "drop"), (40, "warn"), (52, "drop"), (60, "fall")]
    # the order comes in the opening second; the first drop is too near the warning, so its next time is shown
    assert informative_moments(events, 120, min_gap=10) == [(15, "warn"), (42, "spread"), (52, "drop")]
    # nothing happened after the opening second: moments spread over the play, never the first second
    assert informative_moments([(2, "order")], 120, min_gap=10) == [(42, "spread"), (78, "spread"),
                                                                     (114, "spread")]


def test_the_probe_shows_tilefall_warning_dropping_and_falling():
    env = rtarena.make("probe/identify-v0", game="games/tilefall-v0", size=96)
    observations, _ = env.reset(seed=0)
    assert [kind for _, kind in env.moments] == ["warn", "drop", "fall"]
    assert observations["p0"]["rgb"].shape == (96, 288, 3)
