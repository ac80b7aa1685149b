"""`rtarena play`: the window loop on the main thread, scripted key presses moving a human player."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rtarena.agents.human import HumanAgent, KeyboardSnapshot
from rtarena.errors import UserError
from rtarena.play import assign_slots, parse_script, play


def test_key_layouts_map_to_arena_actions():
    keyboard = KeyboardSnapshot()

    class Ctx:
        agents = ("p0",)

    agent = HumanAgent("arrows", keyboard)
    agent.context = Ctx()
    assert agent.act(None).action.tolist() == [0, 0, 0, 0, 0, 0, 0]
    keyboard.press("up")
    keyboard.press("left")
    assert agent.act(None).action.tolist() == [0, 2, 1, 0, 0, 0, 0]
    keyboard.press("right ctrl")
    keyboard.release("right ctrl")  # a tap between two decisions still fires once
    assert agent.act(None).action.tolist() == [0, 2, 1, 0, 1, 0, 0]
    assert agent.act(None).action.tolist() == [0, 2, 1, 0, 0, 0, 0]
    with pytest.raises(UserError, match="unknown keyboard layout"):
        HumanAgent("dvorak")
    assert parse_script("0.5:+w 2:-left_shift") == [(0.5, True, "w"), (2.0, False, "left shift")]


def test_slots_get_distinct_layouts_and_bots_fill_the_rest():
    class Env:
        possible_agents = ("p0", "p1", "p2", "p3")

    specs, humans = assign_slots(Env(), ["human", "human:wasd", "random"])
    assert specs == ["human:arrows", "human:wasd", "random", "heuristic"]
    assert humans == {"p0": "arrows", "p1": "wasd"}
    with pytest.raises(UserError, match="share the keyboard layout"):
        assign_slots(Env(), ["human:ijkl", "human:ijkl"])


def test_play_with_scripted_keys_moves_only_the_human_who_pressed(tmp_path, monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    open_floor = {"size_m": 40.0, "obstacles": [], "spawns": [[5, 5], [35, 35], [5, 35], [35, 5]]}
    outcome = play("arena/coop-v0", ["human", "heuristic", "human"], map=open_floor, dt=0.1, max_steps=30,
                   resolution=(128, 96), scale=1, out=tmp_path, script="0.05:+w 2.5:-w", disable=("turret",))
    assert outcome.humans == {"p0": "wasd", "p2": "arrows"}
    assert outcome.walked_m["p0"] > 5.0  # 5 m/s for most of 3 s
    assert outcome.walked_m["p2"] == 0.0
    forward = [d for d in outcome.result.decisions if d.controller == "p0" and list(d.action)[1] == 2]
    assert len(forward) >= 10
    assert outcome.line["steps"] == 30 and (tmp_path / "episodes.jsonl").exists()  # recorded like any match


def _free_display() -> int:
    for number in range(90, 140):
        if not Path(f"/tmp/.X11-unix/X{number}").exists() and not Path(f"/tmp/.X{number}-lock").exists():
            return number
    raise RuntimeError("no free X display number")


def test_cli_play_under_xvfb_with_scripted_keys(tmp_path):
    assert shutil.which("Xvfb"), "Xvfb is missing: `make system-deps` installs it"
    open_map = tmp_path / "open.toml"
    open_map.write_text("size_m = 40.0\nobstacles = []\nspawns = [[5.0, 5.0]]\n")
    number = _free_display()
    xvfb = subprocess.Popen(["Xvfb", f":{number}", "-screen", "0", "1024x768x24", "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 10
        while not Path(f"/tmp/.X11-unix/X{number}").exists() and time.time() < deadline:
            time.sleep(0.05)
        env = {k: v for k, v in os.environ.items() if not k.startswith("SDL_")}
        env["DISPLAY"] = f":{number}"
        done = subprocess.run(
            [sys.executable, "-m", "rtarena.cli", "play", "arena/basic-v0", "--max-steps", "25", "--dt", "0.1",
             "--scale", "1", "--map", str(open_map), "--disable", "turret", "--out", str(tmp_path),
             "--script", "0.05:+w 0.05:+q 2.0:-w 2.0:-q"],
            capture_output=True, text=True, timeout=180, env=env)
        assert done.returncode == 0, done.stdout + done.stderr
        walked = re.search(r"p0\s+│\s+human:wasd\s+│\s+[-\d.]+\s+│\s+([\d.]+)", done.stdout)
        assert walked and float(walked.group(1)) > 3.0, done.stdout
    finally:
        xvfb.terminate()
        xvfb.wait(timeout=10)
    episode = json.loads((tmp_path / "episodes.jsonl").read_text().splitlines()[-1])
    assert episode["env_id"] == "arena/basic-v0" and episode["clock"]["clock"] == "wall"
    assert episode["steps"] == 25 and episode["controllers"] == {"p0": ["p0"]}
