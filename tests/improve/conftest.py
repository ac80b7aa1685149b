"""A scripted policy server (not a model) for the improvement tests: player, reflector and judge roles."""

from __future__ import annotations

import pytest

from rtarena.policy_server import PolicyServer


@pytest.fixture(scope="module")
def server():
    with PolicyServer() as running:
        yield running

