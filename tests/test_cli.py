"""The command line, run as a user runs it: a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys

import duckdb
import pytest
from tests.helpers import rtarena_cli, run_main

RTARENA = [sys.executable, "-m", "rtarena.cli"]


def test_run_writes_episodes_and_parquet_decisions(tmp_path):
    """The installed command's own process (the other tests call `rtarena.cli.main` in this one)."""
    out = tmp_path / "run"
    done = subprocess.run([*RTARENA, "run", "classic/cartpole-v0", "--agent", "heuristic", "--clock", "token",
                           "--kappa", "100", "--delay-ms", "0", "--max-steps", "200", "--seeds", "3",
                           "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    episodes = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    assert [e["seed"] for e in episodes] == [0, 1, 2]
    for episode in episodes:
        assert episode["env_id"] == "classic/cartpole-v0"
        assert episode["clock"]["clock"] == "token" and episode["clock"]["kappa"] == 100.0
        assert episode["steps"] == 200 and episode["sim_seconds"] == pytest.approx(4.0)
        assert episode["agents"]["agent_0"]["decisions"] == episode["decisions"] == 200
        assert "wall_seconds" in episode and episode["controllers"] == {"agent_0": ["agent_0"]}
    count = duckdb.connect().execute(f"select count(*) from '{out}/decisions/*.parquet'").fetchone()[0]
    assert count == 600


def test_one_agent_spec_per_slot_and_noop(tmp_path):
    done = rtarena_cli("run", "classic/cartpole-v0", "--agent", "noop", "--clock", "paused", "--seeds", "1",
                       "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    episode = json.loads((tmp_path / "episodes.jsonl").read_text())
    assert episode["agents"]["agent_0"]["effective_action_frequency"] == 0.0
    assert episode["steps"] < 50  # always pushing left drops the pole


@pytest.mark.parametrize(("args", "message"), [
    (["run", "arena/nope-v0", "--agent", "random"], "unknown env id 'arena/nope-v0'"),
    (["run", "classic/cartpole-v0", "--agent", "random", "--clock", "fast"], "unknown clock 'fast'"),
    (["run", "classic/cartpole-v0", "--agent", "random", "--dt", "0"], "--dt: must be > 0, got 0"),
    (["run", "classic/cartpole-v0", "--agent", "random", "--dt", "-0.5"], "--dt: must be > 0, got -0.5"),
    (["run", "classic/cartpole-v0", "--agent", "wizard"], "unknown agent spec 'wizard'"),
    (["run", "classic/cartpole-v0", "--agent", "random", "--kappa", "0"], "kappa: must be > 0, got 0"),
    (["run", "classic/cartpole-v0"], "--agent: is required"),
    (["run", "classic/cartpole-v0", "--agent", "heuristic:easy"], "does not take option 'easy'"),
    (["run", "classic/cartpole-v0", "--agent", "llm:m@http://127.0.0.1:9/v1,temperature=hot"],
     "temperature: must be a number, got 'hot'"),
])
def test_user_mistakes_give_one_line_and_no_traceback(tmp_path, args, message):
    # in this process; test_bad_input.py's real subprocesses show that the one line is all a process prints
    code, output = run_main([*args, "--out", str(tmp_path / "x")])
    assert code == 2
    output = output.strip()
    assert message in output
    assert "Traceback" not in output
    assert len(output.splitlines()) == 1
    assert not (tmp_path / "x" / "episodes.jsonl").exists()


def test_list_shows_envs_and_agents():
    done = rtarena_cli("list")
    assert done.returncode == 0
    assert "classic/cartpole-v0" in done.stdout and "heuristic" in done.stdout


# The newcomer's path (issue 47): the README's commands after `make demo`, in order, and again in the same
# folder, as a person trying things twice would: every one exits 0, and the second run keeps the first.
NEWCOMER = [
    ["list"],
    ["run", "games/tilefall-v0", "--agent", "heuristic", "--clock", "paused"],  # README, "What is inside"
    ["report", "runs/latest"],
    ["leaderboard"],
]


def test_the_readme_commands_twice_in_one_folder(tmp_path, monkeypatch):
    from pathlib import Path

    readme = (Path(__file__).parents[1] / "README.md").read_text()
    for argv in NEWCOMER[1:2]:
        assert "rtarena " + " ".join(argv) in readme  # the README still shows it
    monkeypatch.chdir(tmp_path)
    for _ in range(2):
        for argv in NEWCOMER:
            code, out = run_main(argv)
            assert code == 0, (argv, out[-2000:])
    runs = sorted(p.name for p in (tmp_path / "runs").iterdir() if p.is_dir() and not p.is_symlink())
    assert len(runs) == 2 and (tmp_path / "runs" / "latest").resolve().name == runs[-1], runs
    code, out = run_main(["run", "games/tilefall-v0", "--agent", "heuristic", "--out", "runs/latest"])
    assert code == 2 and "already holds a run" in out  # naming a run's folder still refuses to mix two runs
    code, out = run_main(["query", "SELECT * FROM range(100000001)"])  # a result past query.rows: one line
    assert code == 2 and len(out.strip().splitlines()) == 1 and "query.rows" in out, out


def test_help_shows_no_type_after_a_flag_that_takes_no_value():
    code, out = run_main(["run", "--help"])
    lines = {line.split()[1]: line for line in out.splitlines() if line.strip().startswith("│ --")}
    assert code == 0 and "<bool>" not in lines["--resume"] and "<bool>" not in lines["--video"], out
    assert "<int>" in lines["--seeds"]  # an option that takes a value still says which kind
