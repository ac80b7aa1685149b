"""Specs for the scripted roles of the policy server."""

from __future__ import annotations

from rtarena.policy_server import PolicyServer


def role(server: PolicyServer, policy: str, prefix: str = "") -> str:
    """A spec for one scripted role of the server (`llm:` prefix for a player)."""
    return f"{prefix}scripted-{policy}@{server.url(policy=policy)}"
