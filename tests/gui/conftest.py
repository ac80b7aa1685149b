"""One Chromium for the whole session, and one env per (task, settings), reused across tests."""

from __future__ import annotations

import pytest

import rtarena
from rtarena.envs.gui.browser import BrowserHost


@pytest.fixture(scope="session")
def gui_env():
    """`gui_env(env_id, **kwargs)`: a cached env; every env shares the session's one browser process."""
    cache: dict = {}

    def get(env_id: str, **kwargs):
        key = (env_id, tuple(sorted((k, str(v)) for k, v in kwargs.items())))
        if key not in cache:
            cache[key] = rtarena.make(env_id, **kwargs)
        return cache[key]

    yield get
    for env in cache.values():
        env.close()
    BrowserHost.close_all()
