"""`rtarena improve` at the command line: bad input gives one line, exit 2, nothing written."""

from __future__ import annotations

import json

import pytest
from tests.helpers import rtarena_cli, run_main

from rtarena.improve.settings import ImproveSettings

PLAYER, REFLECTOR = "llm:m@http://127.0.0.1:9/v1", "m@http://127.0.0.1:9/v1"
BOTH = ["classic/cartpole-v0", "--player", PLAYER, "--reflector", REFLECTOR]


@pytest.mark.parametrize(("args", "message"), [
    (["classic/cartpole-v0", "--player", "heuristic", "--reflector", REFLECTOR], "--player: the player must be"),
    ([*BOTH, "--alpha", "2"], "alpha: must be <= 1, got 2"),
    ([*BOTH, "--judge-mode", "soft"], "judge_mode: must be one of"),
    ([*BOTH, "--setting", "nope=1"], "nope: unknown field"),
    ([*BOTH, "--clock", "sundial"], "clock: must be one of"),
    ([*BOTH, "--kappa", "50", "--obs-every", "2"], "kappa: not a setting of clock 'paused'"),  # run's line
    (["classic/cartpole-v0", "--player", PLAYER], "--reflector"),
    ([*BOTH, "--variant", "v:nope=1"], "--variant"),
    (["arena/coop-v0", "--player", PLAYER, "--reflector", REFLECTOR, "--set", "turret.nope=1"], "unknown rule"),
    (["nowhere/none-v0", "--player", PLAYER, "--reflector", REFLECTOR], "nowhere/none-v0"),
])
def test_bad_input_is_one_line_exit_2_and_nothing_written(tmp_path, args, message):
    code, out = run_main(["improve", *args, "--out", str(tmp_path / "runs")])
    assert code == 2, out
    out = out.strip()
    assert out.startswith("error:") and message in out and "Traceback" not in out
    assert len(out.splitlines()) == 1, out
    assert not (tmp_path / "runs").exists()


def test_an_improve_file_runs_and_the_report_and_leaderboard_read_it(server, tmp_path):
    from tests.improve.helpers import role

    path = tmp_path / "cp.toml"
    path.write_text(f'env = "classic/cartpole-v0"\nplayer = "{role(server, "skill", "llm:")}"\n'
                    f'reflector = "{role(server, "reflector")}"\n\n[settings]\nrounds = 2\nepisodes = 1\n'
                    "max_steps = 30\n")
    done = rtarena_cli("improve", str(path), "--out", str(tmp_path / "runs"), "--run-id", "f", "--episodes", "2",
                       cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    stored = json.loads((tmp_path / "runs" / "f" / "improve.json").read_text())
    assert stored["settings"]["rounds"] == 2 and stored["settings"]["episodes"] == 2  # the flag wins
    assert stored["judge"] == stored["reflector"] and stored["judge_defaulted"]
    report = rtarena_cli("report", "f", "--root", str(tmp_path / "runs"), cwd=tmp_path)
    assert report.returncode == 0 and (tmp_path / "runs" / "f" / "report" / "curve.svg").exists()
    assert "separate conversation with its own system prompt" in (tmp_path / "runs" / "f" / "report" / "report.md"
                                                                  ).read_text()
    board = rtarena_cli("leaderboard", "--root", str(tmp_path / "runs"), "--metric", "final_gain", cwd=tmp_path)
    assert board.returncode == 0 and "llm:scripted-skill" in board.stdout


def test_improve_plays_the_paused_decision_protocol_chunks_then_settle(server, tmp_path):
    """The paper's PDQ by default: a decision's chunk plays out and the world settles 0.2 s before the next
    observation, so a round records fewer decisions than steps (not one call per step)."""
    import duckdb
    from tests.improve.helpers import role

    done = rtarena_cli("improve", "games/tilefall-v0", "--player", f"llm:scripted-heuristic@{server.base_url}",
                       "--reflector", role(server, "reflector"), "--rounds", "1", "--episodes", "1",
                       "--max-steps", "30", "--out", str(tmp_path / "runs"), "--run-id", "pdq", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    round_dir = tmp_path / "runs" / "pdq" / "round_00"
    episode = json.loads((round_dir / "episodes.jsonl").read_text().splitlines()[0])
    assert episode["clock"]["clock"] == "paused" and episode["clock"]["settle_s"] == 0.2
    decisions = duckdb.connect().execute(f"select count(*) from '{round_dir}/decisions/*.parquet'").fetchone()[0]
    assert episode["steps"] == 30 and 0 < decisions == episode["decisions"] < episode["steps"]
    stored = json.loads((tmp_path / "runs" / "pdq" / "improve.json").read_text())["settings"]
    assert stored["episodes"] == 1 and stored["settle_s"] == 0.2
    defaults = ImproveSettings()  # the paper's K = 5 episodes a round, R = 10 reflection rounds (R0..R10)
    assert (defaults.episodes, defaults.rounds, defaults.clock) == (5, 11, "paused")

