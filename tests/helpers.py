"""Test-only envs and agents (the real envs are tested by walking the registry)."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces

from rtarena.agents.base import Agent, Decision
from rtarena.envs.base import RealtimeParallelEnv


class CounterEnv(RealtimeParallelEnv):
    """N agents; each observation is the step count; action 1 adds a point. Lets tests see exactly
    which step applied which action."""

    metadata: ClassVar[dict] = {"render_modes": [], "name": "counter", "is_parallelizable": True}

    def __init__(self, num_agents: int = 2, dt: float = 0.1, horizon: int = 10_000) -> None:
        super().__init__()
        self.possible_agents = [f"a{i}" for i in range(num_agents)]
        self.dt = dt
        self.horizon = horizon
        self._obs_space = spaces.Box(0, np.inf, shape=(1,), dtype=np.float64)
        self._act_space = spaces.Discrete(2)

    def observation_space(self, agent):
        return self._obs_space

    def action_space(self, agent):
        return self._act_space

    def _reset(self, options):
        self.t = 0
        self.points = {a: 0 for a in self.agents}
        return {a: np.array([0.0]) for a in self.agents}, {a: {} for a in self.agents}

    def _step(self, actions):
        events = {a: [] for a in self.agents}
        for agent, action in actions.items():
            if action == 1:
                self.points[agent] += 1
                events[agent].append({"type": "point", "t": self.t})
        self.t += 1
        done = self.t >= self.horizon
        obs = {a: np.array([float(self.t)]) for a in self.agents}
        rewards = {a: float(actions[a] == 1) for a in self.agents}
        return (obs, rewards, {a: False for a in self.agents}, {a: done for a in self.agents},
                {a: {"events": events[a]} for a in self.agents})


class ScriptedTokens(Agent):
    """Always presses 1, declaring a fixed number of output tokens per decision."""

    def __init__(self, tokens_out: int, sleep_s: float = 0.0) -> None:
        self.tokens_out = tokens_out
        self.sleep_s = sleep_s
        self.seen: list[float] = []

    def act(self, observation: Any) -> Decision:
        self.seen.append(float(np.asarray(observation).ravel()[0]))
        if self.sleep_s:
            time.sleep(self.sleep_s)
        return Decision(action=1, tokens_out=self.tokens_out, tokens_source="scripted", text=f"t={self.seen[-1]}")


def cartpole(dt: float = 0.02):
    from rtarena import wrap_gymnasium

    return wrap_gymnasium(gymnasium.make("CartPole-v1"), dt=dt)


def clock_needs(name: str) -> dict[str, Any]:
    """The settings a clock cannot be made without: the replay clock's latency trace (a small one written
    once per test process); `make_clock(name, **clock_needs(name))` walks every clock of `CLOCKS`."""
    if name != "replay":
        return {}
    import os
    import tempfile

    import pyarrow as pa
    import pyarrow.parquet as pq

    path = os.path.join(tempfile.gettempdir(), f"rtarena-test-trace-{os.getpid()}.parquet")
    if not os.path.exists(path):
        pq.write_table(pa.table({"controller": ["agent_0"] * 3, "wall_latency_s": [0.2, 0.3, 0.4]}), path)
    return {"latency_trace": path}


def run_main(argv: list[str]) -> tuple[int, str]:
    """`rtarena ARGV` in this process through `rtarena.cli.main` (what the installed command runs): its exit
    code and everything it printed."""
    done = rtarena_cli(*argv, merged=True)
    return done.returncode, done.stdout


def rtarena_cli(*args: str, cwd: Path | None = None, merged: bool = False) -> subprocess.CompletedProcess:
    """`rtarena ARGS` in this process (from `cwd`), as `subprocess.run` would report it: exit code, stdout and
    stderr (both in stdout when `merged`). A test that needs a process of its own (a signal, a kill, what the
    interpreter prints at exit) starts one; the others save the 1-2 s an interpreter takes to import rtarena."""
    from rtarena.cli import main

    out = io.StringIO()
    err = out if merged else io.StringIO()
    old_argv, old_cwd = sys.argv, Path.cwd()
    sys.argv = ["rtarena", *args]
    try:
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main()
        code = 0
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    finally:
        sys.argv = old_argv
        os.chdir(old_cwd)
    return subprocess.CompletedProcess(["rtarena", *args], code, out.getvalue(), "" if merged else err.getvalue())
