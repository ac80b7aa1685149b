"""`rtarena improve` killed with SIGKILL mid-round resumes the same round: no round replayed, no episode twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections import Counter

from tests.eval.helpers import RTARENA
from tests.helpers import rtarena_cli
from tests.improve.helpers import role


def test_sigkill_mid_round_then_resume_continues_the_same_round(server, tmp_path):
    run_dir = tmp_path / "runs" / "killed"
    args = ["improve", "classic/cartpole-v0", "--player", role(server, "skill", "llm:"), "--reflector",
            role(server, "reflector"), "--judge", role(server, "judge"), "--rounds", "3", "--episodes", "4",
            "--max-steps", "60", "--out", str(tmp_path / "runs"), "--run-id", "killed",
            "--setting", "frames=0"]  # no video: resume is the point (frames: test_loop.py)
    process = subprocess.Popen([*RTARENA, *args], cwd=tmp_path, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)
    target = run_dir / "round_01" / "episodes.jsonl"
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and not (target.exists() and target.read_bytes().count(b"\n") >= 1):
        time.sleep(0.01)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    killed_at = target.read_bytes().count(b"\n")
    assert 1 <= killed_at < 4, "the kill must land inside round 1"
    assert not json.loads((run_dir / "round_01" / "round.json").read_text()).get("done")
    skill_before = (run_dir / "round_01" / "skill_in.md").read_text()
    assert skill_before.strip()  # round 1 plays the reflector's skill

    done = rtarena_cli("improve", str(run_dir), "--resume", cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "resuming" in done.stdout
    for r in range(3):
        folder = run_dir / f"round_{r:02d}"
        keys = Counter(json.loads(x)["episode"] for x in (folder / "episodes.jsonl").read_text().splitlines())
        assert len(keys) == 4 and set(keys.values()) == {1}, f"round {r}: {keys}"
        assert json.loads((folder / "round.json").read_text())["done"]
    sessions = {r: json.loads((run_dir / f"round_{r:02d}" / "run.json").read_text())["sessions"] for r in range(3)}
    assert len(sessions[0]) == 1  # round 0 was not played again
    assert len(sessions[1]) == 2 and sessions[1][1]["resume"]  # round 1 went on where it stopped
    assert (run_dir / "round_01" / "skill_in.md").read_text() == skill_before
    assert json.loads((run_dir / "metrics.json").read_text())["rounds"][2]["n"] == 4
