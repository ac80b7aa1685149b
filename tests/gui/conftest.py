"""One Chromium for the whole session, and a few envs per (task, settings) kept open and reused."""

from __future__ import annotations

from collections import OrderedDict

import pytest

import rtarena
from rtarena.envs.gui.browser import BrowserHost

KEEP_OPEN = 6  # envs kept between tests; a closed env's tab goes back to the pool for the next env


@pytest.fixture(scope="session")
def gui_env():
    """`gui_env(env_id, **kwargs)`: an env from a small cache; every env shares the session's one browser.

    The tests walk the registry one test function at a time, so an env is rarely wanted again soon: the
    least recently used one is closed (its tab reused by the next env) instead of keeping a tab per task
    and settings open for the whole session."""
    cache: OrderedDict = OrderedDict()

    def get(env_id: str, **kwargs):
        key = (env_id, tuple(sorted((k, str(v)) for k, v in kwargs.items())))
        if key not in cache:
            cache[key] = rtarena.make(env_id, **kwargs)
            while len(cache) > KEEP_OPEN:
                cache.popitem(last=False)[1].close()
        cache.move_to_end(key)
        return cache[key]

    yield get
    BrowserHost.close_all()  # closing the browser closes every tab at once
