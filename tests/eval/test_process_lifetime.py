"""Killing a run kills its workers, and the run folder says how far it got."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

from tests.eval.helpers import RTARENA

from rtarena.eval.report import build_report


def children(pid: int) -> set[int]:
    """Live (not zombie) processes whose parent is `pid`."""
    out = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            out.add(int(stat.parent.name))
    return out


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait_for(condition, limit_s: float = 120.0) -> bool:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    return condition()


def start_long_run(out: Path) -> subprocess.Popen:
    # wall-clock cart-pole episodes of 2000 steps take 40 s each: the workers are busy when the driver dies
    return subprocess.Popen([*RTARENA, "run", "classic/cartpole-v0", "--agent", "noop", "--clock", "wall",
                             "--max-steps", "2000", "--seeds", "4", "--workers", "2", "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_sigkill_of_the_driver_kills_its_pool_workers(tmp_path):
    driver = start_long_run(tmp_path / "run")
    try:
        assert wait_for(lambda: len(children(driver.pid)) >= 2), "no pool workers started"
        workers = children(driver.pid)
        driver.send_signal(signal.SIGKILL)
        driver.wait(timeout=30)
        assert wait_for(lambda: not any(alive(w) for w in workers), limit_s=30), "workers outlived the driver"
    finally:
        driver.kill()
        for w in children(driver.pid):
            os.kill(w, signal.SIGKILL)
    manifest = json.loads((tmp_path / "run" / "run.json").read_text())
    assert manifest["status"] == "running" and manifest["episodes_total"] == 4
    report = build_report([tmp_path / "run"], tmp_path / "report")
    assert "stopped after 0 of 4 episodes" in report.with_suffix(".md").read_text()


def test_sigterm_stops_the_run_in_order(tmp_path):
    driver = start_long_run(tmp_path / "run")
    try:
        assert wait_for(lambda: len(children(driver.pid)) >= 2), "no pool workers started"
        workers = children(driver.pid)
        driver.send_signal(signal.SIGTERM)
        _, err = driver.communicate(timeout=30)  # in-flight 40 s episodes are stopped, not awaited
        assert driver.returncode == 130
        assert "interrupted: 0 of 4 episodes are recorded" in err
        assert wait_for(lambda: not any(alive(w) for w in workers), limit_s=30), "workers outlived the driver"
    finally:
        driver.kill()
    manifest = json.loads((tmp_path / "run" / "run.json").read_text())
    assert manifest["status"] == "interrupted"
