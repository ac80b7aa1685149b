"""Reports, leaderboard and query: the numbers match DuckDB over the Parquet files, and the HTML page
opens in headless Chromium without errors and shows its tables and plots."""

from __future__ import annotations

import math
from pathlib import Path

import duckdb
import pytest
from tests.helpers import rtarena_cli

from rtarena.eval.episodes import EpisodeJob
from rtarena.eval.experiment_file import load_experiment, parse_experiment
from rtarena.eval.leaderboard import leaderboard
from rtarena.eval.report import build_report
from rtarena.eval.runner import run_experiment, run_jobs

from .helpers import cartpole_experiment


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Path:
    """A cart-pole run (3 agents x 2 delays x 4 seeds) and a small 4-body arena run in which `heuristic`
    plays in two line-ups, under one root."""
    folder = tmp_path_factory.mktemp("report")
    cartpole = load_experiment(cartpole_experiment(folder, name="cp", seeds=4, max_steps=150,
                                                   agents=("heuristic", "random", "noop")))
    run_experiment(cartpole, run_id="cp", workers=1)  # in this process: worker processes cost more than they save
    arena = parse_experiment({"name": "coop", "out": str(folder / "runs"), "seeds": 3, "max_steps": 40,
                              "envs": ["arena/coop-v0"],
                              "agents": ["heuristic", "random",
                                         {"name": "half", "slots": ["random", "random", "heuristic", "heuristic"]}],
                              "clocks": [{"name": "turn-based", "clock": "paused", "dt": 0.25}]})
    run_experiment(arena, run_id="coop", workers=1)
    broken = EpisodeJob("classic/cartpole-v0", ("noop",), "paused", 0, 10, env_kwargs={"bogus": 1}, label="broken")
    run_jobs([broken], folder / "runs" / "cp", "cp", {"name": "cp"}, workers=1, resume=True)
    return folder / "runs"


def expected(root: Path, metric: str) -> dict[tuple[str, str, str, str], tuple[int, float, float | None]]:
    """Mean ± s.e. per (agent, line-up, level, clock setting), written independently of the report's SQL."""
    rows = duckdb.connect().execute(f"""
        WITH per_episode AS (
            SELECT episode, agent_label, lineup, level, clock_name, avg("{metric}") AS v
            FROM read_parquet('{root}/*/agents/*.parquet', union_by_name = true)
            GROUP BY episode, agent_label, lineup, level, clock_name)
        SELECT agent_label, lineup, level, clock_name, count(v), avg(v), stddev_samp(v) / sqrt(count(v))
        FROM per_episode WHERE v IS NOT NULL GROUP BY ALL
    """).fetchall()
    return {(a, lu, lv, c): (n, mean, se) for a, lu, lv, c, n, mean, se in rows}


def test_html_report_opens_in_chromium_and_matches_duckdb(runs, tmp_path, open_html):
    html = build_report(["cp", "coop"], out=tmp_path / "report", root=runs)
    markdown = html.with_suffix(".md").read_text()
    page, problems = open_html(html)
    assert problems == []
    assert page.locator("table.metric").count() >= 4
    failures = page.locator("table.failures tr").all_inner_texts()
    assert len(failures) == 2 and "classic__cartpole-v0__seed00000__broken" in failures[1]
    assert "bogus" in failures[1]
    runs_table = page.locator("table.runs tr").all_inner_texts()
    assert any(row.split("\t")[:4] == ["cp", "cp", "24", "1"] for row in runs_table), runs_table
    charts = page.locator("svg.chart")
    assert charts.count() >= 4
    for i in range(charts.count()):
        box = charts.nth(i).bounding_box()
        assert box and box["width"] > 300 and box["height"] > 150
    assert page.locator("svg.chart rect.bar").count() > 0 and page.locator("svg.chart polyline.line").count() > 0
    assert page.locator("svg[aria-label='score / return against injected delay']").count() == 1
    for metric in ("return", "score"):
        cells = page.locator(f"table.metric[data-metric='{metric}'] td[data-clock]").evaluate_all(
            "tds => tds.map(td => ({agent: td.parentElement.dataset.agent, lineup: td.parentElement.dataset.lineup,"
            " level: td.parentElement.dataset.level,"
            " clock: td.dataset.clock, n: td.dataset.n, mean: td.dataset.mean, se: td.dataset.se,"
            " text: td.textContent}))")
        want = expected(runs, metric)
        shown = [c for c in cells if c["n"] != "0"]
        assert len(shown) == len(want) > 0
        for cell in shown:
            n, mean, se = want[(cell["agent"], cell["lineup"], cell["level"], cell["clock"])]
            assert int(cell["n"]) == n
            assert math.isclose(float(cell["mean"]), mean, rel_tol=1e-12, abs_tol=1e-12)
            if se is None or math.isnan(se):
                assert cell["se"] == "" and "±" not in cell["text"]
            else:
                assert math.isclose(float(cell["se"]), se, rel_tol=1e-9, abs_tol=1e-12)
                assert cell["text"] == f"{mean:.4g} ± {se:.2g}"
                assert cell["text"] in markdown
    # the coop level: four bodies per episode, but the unit of the standard error is the episode
    assert {n for (_, _, level, _), (n, _, _) in expected(runs, "score").items() if level == "coop-v0"} == {3}
    assert {(a, lu) for a, lu, level, _ in expected(runs, "score") if level == "coop-v0"} == {
        ("heuristic", "heuristic"), ("heuristic", "half"), ("random", "random"), ("random", "half")}
    for plot in ("score-vs-delay", "latency", "action-frequency", "levels-turn-based"):
        assert (html.parent / "plots" / f"{plot}.svg").exists()


def test_report_command_and_failures_section(runs, tmp_path):
    done = rtarena_cli("report", "cp", "--root", str(runs), "--out", str(tmp_path / "r"))
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "r" / "report.md").read_text()
    assert "## return" in text and "| heuristic | cartpole-v0 |" in text and "![" in text
    assert "| agent | level | turn-based | delay-60ms |" in text  # columns in the experiment's order


def test_leaderboard_ranks_agents_across_runs(runs):
    metric, rows = leaderboard([], root=runs, metric="return", clock="turn-based")
    assert metric == "return"
    order = [r.agent for r in rows]
    assert order.index("heuristic") == 0 and order.index("random") < order.index("noop")
    heuristic = rows[0]
    assert set(heuristic.levels) == {"cartpole-v0", "coop-v0"}
    assert math.isclose(heuristic.rating, sum(heuristic.levels.values()) / 2)
    done = rtarena_cli("leaderboard", "--root", str(runs), "--metric", "return")
    assert done.returncode == 0 and "heuristic" in done.stdout
    bad = rtarena_cli("leaderboard", "--root", str(runs), "--metric", "nope")
    assert bad.returncode == 2 and "no metric 'nope'" in bad.stdout


def test_query_sees_every_run(runs):
    done = rtarena_cli("query", "SELECT run_id, count(*) AS n FROM episodes GROUP BY 1 ORDER BY 1", "--root",
                       str(runs), "--format", "csv")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["run_id,n", "coop,9", "cp,25"]
    joined = rtarena_cli("query", "SELECT count(*) FROM decisions d JOIN agents a USING (run_id, episode, "
                         "controller) WHERE a.run_id = 'cp'", "--root", str(runs), "--format", "csv")
    assert joined.returncode == 0, joined.stderr
    # fetchall, not fetchone: an unfinished result would block DuckDB's shared default connection for
    # every later test in the session (the improve and dashboard tests query it too)
    total = duckdb.connect().execute(f"SELECT count(*) FROM '{runs}/cp/decisions/*.parquet'").fetchall()[0][0]
    assert joined.stdout.splitlines()[1] == str(total)
    bad = rtarena_cli("query", "SELECT nope FROM agents", "--root", str(runs))
    assert bad.returncode == 2 and len(bad.stdout.strip().splitlines()) == 1
