"""The suite as a whole: registration of every game and variant, ratings shown and documented, the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import rtarena
from rtarena.envs.games.base import DEFAULT_SIZE
from rtarena.envs.games.rules import CAPABILITIES, read_capabilities, variant_notes
from rtarena.envs.registry import GAMES, VARIANTS
from rtarena.eval.games_table import game_ratings, radar_svg

ROOT = Path(__file__).resolve().parents[2]
GAME_IDS = ["games/runner2d-v0", "games/parkour3d-v0", "games/tilefall-v0", "games/monsters-v0", "games/escape-v0",
            "games/errands-v0", "games/workshop-v0"]


def test_the_seven_games_and_their_variants_are_registered():
    ids = rtarena.registry_ids()
    for env_id in GAME_IDS:
        assert env_id in ids
        for variant in VARIANTS:
            assert env_id.replace("-v0", f"-{variant}-v0") in ids
    assert len(GAMES) == 7


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_each_variant_changes_the_rules_and_says_how(env_id):
    name = env_id.split("/")[1].removesuffix("-v0")
    notes = variant_notes(f"{name}.toml")
    assert list(notes) == list(VARIANTS) and all(len(text) > 20 for text in notes.values())
    base = rtarena.make(env_id, obs=("state",)).rules.model_dump(exclude={"variants"})
    seen = []
    for variant in VARIANTS:
        rules = rtarena.make(env_id, variant=variant, obs=("state",)).rules.model_dump(exclude={"variants"})
        assert rules != base and rules not in seen
        seen.append(rules)
        doc = type(rtarena.make(env_id, obs=("state",))).__doc__
        assert f"- `{variant}`: {notes[variant]}." in doc  # the docstring renders the level file's note


def test_docs_show_the_ratings_of_the_level_files():
    ratings = game_ratings()
    assert list(ratings)[:7] == sorted(GAME_IDS)  # then the multiplayer games (tests/games/test_suite.py)
    for doc in (ROOT / "docs" / "games.md", ROOT / "README.md"):
        text = doc.read_text()
        for env_id, values in ratings.items():
            assert f"| `{env_id}` | " + " | ".join(str(v) for v in values) + " |" in text, (doc, env_id)
    assert (ROOT / "docs" / "games_radar.svg").read_text() == radar_svg() + "\n"  # regenerate: see docs/games.md
    assert all(0 <= v <= 3 for values in ratings.values() for v in values) and len(CAPABILITIES) == 7


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rtarena.cli", *args], capture_output=True, text=True, timeout=300)


def test_list_shows_the_games_with_their_ratings():
    done = cli("list", "--capabilities")
    assert done.returncode == 0, done.stderr
    for env_id in GAME_IDS:
        line = next(ln for ln in done.stdout.splitlines() if env_id in ln)
        rated = read_capabilities(env_id.split("/")[1].removesuffix("-v0") + ".toml")
        assert [int(c) for c in line.replace("│", " ").split() if c.isdigit()] == \
            [getattr(rated, name) for name in CAPABILITIES]
    plain = cli("list")
    assert "games/tilefall-v0" in plain.stdout and "VP 3, SN 3" in plain.stdout


def test_run_tilefall_with_the_heuristic_under_the_paused_clock(tmp_path):
    done = cli("run", "games/tilefall-v0", "--agent", "heuristic", "--clock", "paused", "--max-steps", "1000",
               "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    episode = json.loads((tmp_path / "episodes.jsonl").read_text())
    assert episode["agents"]["p0"]["score"] > 0.8 and episode["steps"] <= 400


def test_a_bad_settle_time_is_one_line_at_the_cli(tmp_path):
    done = cli("run", "games/tilefall-v0", "--agent", "heuristic", "--clock", "paused", "--settle-s", "-1",
               "--out", str(tmp_path / "x"))
    assert done.returncode == 2 and "settle_s" in done.stderr + done.stdout and "Traceback" not in done.stderr
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_the_base_class_runs_several_players(env_id):
    """The base class is N-player from the start (the multiplayer games build on it)."""
    from pettingzoo.test import parallel_api_test

    env = rtarena.make(env_id, num_agents=3, render_mode="rgb_array")
    assert env.possible_agents == ["p0", "p1", "p2"]
    parallel_api_test(env, num_cycles=30)
    observations, _ = env.reset(seed=4)
    assert set(observations) == {"p0", "p1", "p2"}
    assert env.render().shape == (DEFAULT_SIZE, DEFAULT_SIZE, 3)  # with several players: the spectator's view
    for _ in range(5):
        env.step({a: env.action_space(a).action(["W"]) for a in env.agents})
    assert set(env.episode_metrics()) == {"p0", "p1", "p2"}
