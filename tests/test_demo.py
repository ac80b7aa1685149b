"""`make demo` runs `rtarena demo`: here every section of it, with short episodes, as a user runs it."""

from __future__ import annotations

import json
import subprocess
import sys


def test_the_demo_writes_every_section(tmp_path):
    out = tmp_path / "demo-out"
    done = subprocess.run([sys.executable, "-m", "rtarena.cli", "demo", "--quick", "--out", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    cartpole = [json.loads(line) for line in (out / "cartpole" / "episodes.jsonl").read_text().splitlines()]
    assert sorted((e["clock"]["clock"], e["clock"]["delay_s"]) for e in cartpole) == sorted(
        [("paused", 0.0), ("paused", 0.1), ("token", 0.0), ("token", 0.1), ("wall", 0.0), ("wall", 0.1)])
    arena = [json.loads(line) for line in (out / "arena" / "episodes.jsonl").read_text().splitlines()]
    assert [e["env_id"] for e in arena] == ["arena/coop-v0", "arena/coop-v0", "arena/competitive-v0"]
    for level in ("basic", "coop", "competitive", "mixed"):
        for kind in ("rgb.png", "depth.png", "minimap.png", "spectator.png", "sheet.png", "audio.wav"):
            assert (out / "senses" / f"{level}-{kind}").stat().st_size > 0
    assert "classic/cartpole-v0" in done.stdout and "arena/competitive-v0" in done.stdout
    assert (out / "improve-cartpole" / "improve.json").is_file()  # the improvement loop's section ran too
    for game in ("runner2d", "parkour3d", "tilefall", "monsters", "escape", "errands", "workshop"):
        assert (out / "games" / f"{game}.png").stat().st_size > 0 and f"games/{game}-v0" in done.stdout
    assert "demo output:" in done.stdout
    assert "[1/5]" in done.stdout and "compiling kernels" in done.stdout  # progress while it works
    # the dashboard over the demo folder: every section a run, agents and clocks filled, two videos
    from rtarena.dashboard.data import Store

    store = Store(out)
    rows = {row.run_id: row for row in map(store.summary, store.run_dirs())}
    assert {"cartpole", "arena", "games", "improve-cartpole"} <= set(rows), sorted(rows)
    for name in ("cartpole", "arena", "games"):
        assert rows[name].agents and rows[name].clocks, rows[name]
    for name in ("arena", "games"):  # one episode of each on video, replayed by the dashboard
        lines = [json.loads(line) for line in (out / name / "episodes.jsonl").read_text().splitlines()]
        recorded = [line for line in lines if line.get("video")]
        assert len(recorded) == 1, name
        assert store.frame_kind(out / name, recorded[0]["episode"], recorded[0]) == "video"
