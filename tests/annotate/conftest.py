"""The study the issue asks for, once per session: the live quiz under the presets TL, TH, PH and WH,
answered by the scripted policy server in reasoning mode (the heuristic policy, whose effort-dependent
reasoning tokens are the filler) and by its scripted stale-target policy (with next to no reasoning)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rtarena.eval.presets import load_preset
from rtarena.eval.runner import run_experiment
from rtarena.policy_server.server import PolicyServer

CONDITIONS = ("TL", "TH", "PH", "WH")
TASK = "web/quiz-v0"
STALE_SCALE = 0.01  # high effort: 5 reasoning tokens, low: 0 (the effort still shows in the records)


def server_settings(policy: str, condition: str) -> dict:
    settings: dict = {"reasoning_model": True, "policy": policy}
    if condition == "WH":
        settings["filler_rate"] = 200  # reasoning takes real time: 512 tokens are 2.56 s
    if policy == "stale":
        settings["effort_scale"] = STALE_SCALE  # a few reasoning tokens: deliberation does not cause its failures
    return settings


@pytest.fixture(scope="session")
def policy_server():
    with PolicyServer() as server:
        yield server


@pytest.fixture(scope="session")
def study(tmp_path_factory, policy_server):
    """(policy, condition) -> run folder, under runs/ in a temporary folder."""
    root = tmp_path_factory.mktemp("study") / "runs"
    runs = {}
    for policy in ("heuristic", "stale"):
        for condition in CONDITIONS:
            url = policy_server.url(**server_settings(policy, condition))
            experiment = load_preset(condition, params={"base_url": url, "model": f"scripted-{policy}"})
            experiment = replace(experiment, envs=tuple(e for e in experiment.envs if e.id == TASK), seeds=(0,),
                                 out=str(root))
            result = run_experiment(experiment, run_id=f"{policy}-{condition}", workers=1)
            assert result.failed == 0
            runs[(policy, condition)] = result.run_dir
    return runs
