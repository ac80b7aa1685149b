"""A suite run's report: per-game scores, the solo mean, the PvP win-rate matrix, co-op team scores and
the capability radar, checked in Chromium and against the episodes themselves."""

from __future__ import annotations

import pytest
from tests.helpers import rtarena_cli

from rtarena.eval.experiment_file import parse_experiment
from rtarena.eval.report import build_report
from rtarena.eval.runner import run_experiment
from rtarena.eval.tables import capability_profile

from .helpers import lines

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
    assert "## game suite: solo mean (1 games, each counts the same) [clock setting: paused]" in md
    assert "## game suite: co-op team scores [clock setting: paused]" in md
    assert "side by side" not in md  # one clock setting: nothing to set beside it


def test_capability_profile_weights_scores_by_ratings():
    ratings = {"a": {"x": 3, "y": 0}, "b": {"x": 1, "y": 2}}
    assert capability_profile({"a": 1.0, "b": 0.0}, ratings) == {"x": 0.75, "y": 0.0}
    assert capability_profile({"b": 0.5}, ratings) == {"x": 0.5, "y": 0.5}


def test_the_html_report_shows_tables_matrix_and_radar_in_chromium(suite_run, open_html):
    root, _ = suite_run
    html = build_report(["suite"], root=root)
    page, problems = open_html(html)
    assert problems == []
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
    done = rtarena_cli("ratings", "suite", "--root", str(root), "--bootstrap", "50")
    assert done.returncode == 0, done.stderr
    assert "Bradley-Terry" in done.stdout and "| heuristic | 6 |" in done.stdout


def test_paused_and_measured_cells_get_a_table_each_never_one_pooled_and_a_side_by_side(tmp_path):

    root = tmp_path / "runs"
    table = {"name": "two-clocks", "out": str(root), "seeds": 2, "agents": ["random"],
             "envs": [{"id": "games/tilefall-v0", "overrides": {"game": {"time_limit_s": 3.0}}}],
             "clocks": [{"name": "pdq", "clock": "paused", "settle_s": 0.2}, {"name": "lcrt", "clock": "measured"}]}
    result = run_experiment(parse_experiment(table), run_id="two", workers=1)
    assert result.failed == 0
    build_report(["two"], root=root)
    md = (result.run_dir / "report" / "report.md").read_text()
    titles = [line for line in md.splitlines() if line.startswith("## game suite: score per game")]
    assert titles == ["## game suite: score per game [clock setting: lcrt]",
                      "## game suite: score per game [clock setting: pdq]"]
    episodes = lines(result.run_dir)
    decisions = {c: sum(e["decisions"] for e in episodes if e["clock_name"] == c) / 2 for c in ("pdq", "lcrt")}
    assert decisions["pdq"] < decisions["lcrt"]  # chunks then settle: fewer decisions in the same sim time
    side = md[md.index("## game suite: clock settings side by side"):]
    row = next(line for line in side.splitlines() if line.startswith("| games/tilefall-v0 | random |"))
    assert f"{decisions['lcrt']:.4g}" in row and f"{decisions['pdq']:.4g}" in row
    board = rtarena_cli("leaderboard", "two", "--root", str(root), "--games", "solo", cwd=tmp_path)
    assert board.returncode == 0, board.stdout + board.stderr
    assert "clock setting: pdq" in board.stdout and "clock setting: lcrt" in board.stdout
