"""A scripted policy server for the whole module (in-process, free port), and small helpers."""

from __future__ import annotations

import pytest

from rtarena.policy_server import PolicyServer


@pytest.fixture(scope="session")
def server():
    with PolicyServer() as running:
        yield running


def make_spec(url: str, **options) -> str:
    """An `llm:` option string (without the `llm:` kind) for the scripted server."""
    extra = "".join(f",{k}={v}" for k, v in options.items())
    return f"scripted-heuristic@{url}{extra}"


@pytest.fixture
def spec():
    return make_spec
