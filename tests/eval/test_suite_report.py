"""A suite run's report: per-game scores, the solo mean, the PvP win-rate matrix, co-op team scores and
the capability radar, checked in Chromium and against the episodes themselves."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from rtarena.eval.experiment_file import parse_experiment
from rtarena.eval.report import build_report
from rtarena.eval.runner import run_experiment
from rtarena.eval.tables import capability_profile

from .helpers import RTARENA, lines

CHROMIUM = Path("/usr/bin/chromium")
SHORT = {"game": {"time_limit_s": 8.0}}


@pytest.fixture(scope="module")
def suite_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("suite") / "runs"
    table = {
        "name": "suite-mini", "out": str(root), "seeds": 3, "max_steps": 200,
        "envs": [{"id": "games/duel-v0", "overrides": SHORT, "lineups": ["pvp"]},
                 {"id": "games/kitchen-v0", "overrides": SHORT, "lineups": ["heuristic", "random"]},
                 {"id": "games/tilefall-v0", "overrides": SHORT, "lineups": ["heuristic", "random"]}],
        "agents": [{"name": "pvp", "pairs": ["heuristic", "random"]}, "heuristic", "random"],
        "clocks": ["paused"],
    }
    result = run_experiment(parse_experiment(table), run_id="suite", workers=1)
    assert result.failed == 0
    return root, result.run_dir


def test_the_win_rate_matrix_counts_both_seats(suite_run):
    root, run_dir = suite_run
    build_report(["suite"], root=root)
    md = (run_dir / "report" / "report.md").read_text()
    duels = [e for e in lines(run_dir) if e["env_id"] == "games/duel-v0"]
    assert len(duels) == 6  # two line-ups (both sides) x three seeds
    wins = sum(e["agents"][seat]["score"] == 1.0 for e in duels for seat, spec in e["slot_specs"].items()
               if spec == "heuristic")
    draws = sum(e["agents"][seat]["score"] == 0.5 for e in duels for seat, spec in e["slot_specs"].items()
                if spec == "heuristic")
    row = next(line for line in md.splitlines() if line.startswith("| heuristic |") and "(n=6)" in line)
    assert f"{100 * wins / 6:.0f}% / {100 * draws / 6:.0f}% (n=6)" in row
    assert "## game suite: solo mean (1 games, each counts the same)" in md
    assert "## game suite: co-op team scores" in md


def test_capability_profile_weights_scores_by_ratings():
    ratings = {"a": {"x": 3, "y": 0}, "b": {"x": 1, "y": 2}}
    assert capability_profile({"a": 1.0, "b": 0.0}, ratings) == {"x": 0.75, "y": 0.0}
    assert capability_profile({"b": 0.5}, ratings) == {"x": 0.5, "y": 0.5}


def test_the_html_report_shows_tables_matrix_and_radar_in_chromium(suite_run):
    from playwright import sync_api

    root, _ = suite_run
    html = build_report(["suite"], root=root)
    if not CHROMIUM.exists():
        pytest.fail("Chromium is missing: `make system-deps` installs it")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        page.goto(html.resolve().as_uri())
        games = page.eval_on_selector_all("table.suite-scores tr[data-game]", "rows => rows.map(r => r.dataset.game)")
        assert set(games) == {"games/duel-v0", "games/kitchen-v0", "games/tilefall-v0"}
        cells = page.eval_on_selector_all("table.winrate td[data-win]",
                                          "tds => tds.map(t => [t.dataset.row, t.dataset.col, +t.dataset.win])")
        assert {(r, c) for r, c, _ in cells} == {("heuristic", "random"), ("random", "heuristic")}
        assert all(0.0 <= w <= 1.0 for *_, w in cells)
        assert page.locator("table.coop-scores tr[data-game='games/kitchen-v0']").count() == 1
        radar = page.locator("div.radar svg")
        assert radar.count() == 1 and radar.first.is_visible()
        agents = page.eval_on_selector_all("div.radar svg polygon[fill-opacity] title",
                                           "ts => ts.map(t => t.textContent.split(':')[0])")
        assert sorted(agents) == ["heuristic", "random"]
        box = radar.first.bounding_box()
        assert box["width"] > 200 and box["height"] > 200
        browser.close()


def test_leaderboard_ranks_by_the_solo_mean_and_refuses_an_unknown_mode(suite_run):
    from rtarena.errors import UserError
    from rtarena.eval.leaderboard import leaderboard

    root, run_dir = suite_run
    _, rows = leaderboard(["suite"], root=root, games="solo")
    assert all(list(r.levels) == ["tilefall-v0"] for r in rows)
    tilefall = [e for e in lines(run_dir) if e["env_id"] == "games/tilefall-v0" and e["lineup"] == "heuristic"]
    best = next(r for r in rows if r.agent == "heuristic")
    assert best.rating == pytest.approx(sum(e["agents"]["p0"]["score"] for e in tilefall) / len(tilefall))
    _, pvp = leaderboard(["suite"], root=root, games="pvp")
    assert {lv for r in pvp for lv in r.levels} == {"duel-v0"}
    with pytest.raises(UserError, match="--games"):
        leaderboard(["suite"], root=root, games="duo")


def test_a_pvp_run_gets_ratings_in_the_report_and_from_the_cli(suite_run):
    root, run_dir = suite_run
    build_report(["suite"], root=root)
    md = (run_dir / "report" / "report.md").read_text()
    assert "## PvP ratings" in md and "6 matches" in md
    rows = [line for line in md.splitlines() if line.startswith(("| heuristic | 6 |", "| random | 6 |"))]
    assert len(rows) == 2
    done = subprocess.run([*RTARENA, "ratings", "suite", "--root", str(root), "--bootstrap", "50"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Bradley-Terry" in done.stdout and "| heuristic | 6 |" in done.stdout
