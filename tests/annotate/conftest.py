"""The study the issue asks for, once per session (`annotate/study.py`): the live quiz under the presets
TL, TH, PH and WH, answered by the scripted policy server in reasoning mode with its heuristic policy
(effort-dependent reasoning tokens are the filler) and its stale-target policy."""

from __future__ import annotations

import json

import pytest

from rtarena.annotate.study import scripted_study
from rtarena.policy_server.server import PolicyServer


@pytest.fixture(scope="session")
def policy_server():
    with PolicyServer() as server:
        yield server


@pytest.fixture(scope="session")
def study(tmp_path_factory, policy_server):
    """(policy, condition) -> run folder, under runs/ in a temporary folder."""
    runs = scripted_study(tmp_path_factory.mktemp("study") / "runs", server=policy_server, at_once=4)
    for run in runs.values():
        assert all(json.loads(line)["status"] == "ok" for line in (run / "episodes.jsonl").read_text().splitlines())
    return runs
