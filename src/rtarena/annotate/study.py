"""The offline failure-mode study: condition presets x scripted policies on one task, against the scripted
policy server in reasoning mode (no model anywhere). The scripted policies read the page as text, so the
study runs the text-only ablations of the conditions (`TL-text` ...: the clock setting is still named
`TL` ..., so annotation codes each run under its condition).

- `heuristic`: knows every answer; its effort-dependent reasoning tokens are the filler, so whatever it
  loses, it loses to deliberation time.
- `stale`: the stale-target policy, with next to no reasoning (`STALE_SCALE`): it keeps acting on the first
  target it saw, so whatever it loses, it loses to perception.

Under `WH` the server paces reasoning at `WALL_RATE` tokens per second (the token clock's 64 tokens per
page second), so thinking takes as long in real time as the token clock charges in page time.

`at_once` runs go at once in threads, the wall-clock ones first (the tests use 4: a `WH` run spends its
16 s waiting on the server's pacing). The paused and token runs never read real time, so sharing the CPU
changes none of their records; a `WH` run shares the CPU with the others, so a study whose wall-clock
numbers are reported (`bench/annotate_study.py`) runs one at a time, the default. Each run prints plain
lines (no live display: only one can be on a terminal at a time).
"""

from __future__ import annotations

import contextlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

from rich.console import Console

from rtarena.eval.presets import load_preset
from rtarena.eval.runner import run_experiment
from rtarena.policy_server.server import PolicyServer
from rtarena.runtime.clocks import clock_class

CONDITIONS = ("TL", "TH", "PH", "WH")
POLICIES = ("heuristic", "stale")
STALE_SCALE = 0.01  # high effort: 5 reasoning tokens, low: 0 (the effort still shows in the records)
WALL_RATE = 64.0  # reasoning tokens per second under WH: high effort (1024 tokens) takes 16 s
HEURISTIC_SCALE = 2.0  # high effort: 1024 reasoning tokens, low: 64 (the quiz gives 8 s per answer)


def server_settings(policy: str, condition: str) -> dict[str, Any]:
    settings: dict[str, Any] = {"reasoning_model": True, "policy": policy}
    if condition == "WH":
        settings["filler_rate"] = WALL_RATE
    settings["effort_scale"] = STALE_SCALE if policy == "stale" else HEURISTIC_SCALE
    return settings


def scripted_study(root: Path, env_id: str = "web/quiz-v0", seeds: tuple[int, ...] = (0,),
                   conditions: tuple[str, ...] = CONDITIONS, policies: tuple[str, ...] = POLICIES,
                   server: PolicyServer | None = None, workers: int = 1, at_once: int = 1,
                   ) -> dict[tuple[str, str], Path]:
    """Run every (policy, condition) on `env_id` into `root/<policy>-<condition>`; returns the run folders."""
    with contextlib.ExitStack() as stack:
        if server is None:
            server = stack.enter_context(PolicyServer())
        experiments = {}
        for policy in policies:
            for condition in conditions:
                url = server.url(**server_settings(policy, condition))
                experiment = load_preset(f"{condition}-text", params={"base_url": url, "model": f"scripted-{policy}"})
                experiments[(policy, condition)] = replace(
                    experiment, envs=tuple(e for e in experiment.envs if e.id == env_id), seeds=tuple(seeds),
                    out=str(root))

        def run(key: tuple[str, str]) -> Path:
            console = None if at_once == 1 else Console(stderr=True, force_terminal=False, force_interactive=False)
            return run_experiment(experiments[key], run_id="-".join(key), workers=workers, console=console).run_dir

        def real_time_first(key: tuple[str, str]) -> bool:
            return not any(clock_class(c.clock).concurrent for c in experiments[key].clocks)

        with ThreadPoolExecutor(at_once) as pool:
            done = {key: pool.submit(run, key) for key in sorted(experiments, key=real_time_first)}
        return {key: future.result() for key, future in done.items()}
