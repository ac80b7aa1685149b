"""The study report (`rtarena report RUN_TL RUN_TH RUN_PH RUN_WH`) from four small offline runs of the condition
presets (two tasks, a web task and a game, four steps, the scripted reasoning-mode server), annotated: the
paper's layout, rendered in Chromium, its numbers checked against DuckDB over the runs' files."""

from __future__ import annotations

from dataclasses import replace

import duckdb
import pytest
from tests.helpers import rtarena_cli

from rtarena.annotate.commands import annotate_run
from rtarena.eval.presets import load_preset
from rtarena.eval.runner import run_experiment
from rtarena.policy_server.server import PolicyServer

CONDITIONS = ("TL", "TH", "PH", "WH")
TASKS = ("web/auction-v0", "gui-games/snake-v0")


@pytest.fixture(scope="module")
def study_runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("study") / "runs"
    runs = []
    with PolicyServer() as server:
        for name in CONDITIONS:
            experiment = load_preset(name, params={"base_url": server.url(reasoning_model=True)})
            small = replace(experiment, envs=tuple(e for e in experiment.envs if e.id in TASKS), seeds=(0,),
                            max_steps=4, out=str(root))
            result = run_experiment(small, run_id=f"study-{name}", workers=1)
            assert result.failed == 0
            annotate_run(result.run_dir)
            runs.append(result.run_dir)
    return runs


def test_study_report_renders_in_chromium_with_the_papers_layout(study_runs, tmp_path, open_html):
    out = tmp_path / "report"
    done = rtarena_cli("report", *map(str, study_runs), "--out", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    with duckdb.connect() as con:
        root = study_runs[0].parent
        success = dict(con.execute(f"""SELECT clock_name || ' ' || CASE WHEN env_id LIKE 'web/%' THEN 'web'
                                      ELSE 'game' END, avg(success)
                                      FROM read_parquet('{root}/*/agents/*.parquet') GROUP BY 1""").fetchall())
        decisions = dict(con.execute(f"""SELECT regexp_extract(filename, 'study-(\\w+)/', 1), count(*)
                                        FROM read_parquet('{root}/*/decisions/*.parquet', filename=true)
                                        GROUP BY 1""").fetchall())
        coded = dict(con.execute(f"""SELECT code || ' ' || condition, count(*)
                                    FROM read_parquet('{root}/*/annotations/rules.parquet')
                                    WHERE code <> 'none' GROUP BY 1""").fetchall())
    page, problems = open_html(out / "report.html")
    assert problems == []
    assert page.get_by_role("heading", name="Realtime-Bench study").is_visible()
    cells = page.locator("table.study-success td[data-condition]").evaluate_all(
        "tds => tds.map(td => [td.dataset.condition, td.dataset.family, td.dataset.n, td.dataset.mean])")
    assert {(c, f) for c, f, _, _ in cells} == {(c, f) for c in CONDITIONS for f in ("web", "game", "all")}
    for condition, family, n, mean in cells:
        if family != "all":
            assert int(n) == 1 and float(mean) == pytest.approx(success[f"{condition} {family}"])
    rows = page.locator("table.study-distributions tr[data-condition]").evaluate_all(
        "trs => trs.map(tr => [tr.dataset.condition, Number(tr.dataset.decisions)])")
    assert dict(rows) == decisions and set(decisions) == set(CONDITIONS)
    failures = page.locator("table.study-failures td[data-condition]").evaluate_all(
        "tds => tds.map(td => [td.parentElement.dataset.code, td.dataset.condition, Number(td.dataset.n),"
        " Number(td.dataset.of)])")
    assert failures and all(of == 2 for _, _, _, of in failures)
    assert {f"{code} {c}": n for code, c, n, _ in failures if n} == coded
    assert {c for code, c, n, _ in failures if n and code == "overran_deadline"} <= {"TL", "TH", "WH"}
    for name in ("success per condition and task family", "failure modes per condition (share of judged episodes)"):
        chart = page.locator(f"svg[aria-label='{name}']")
        box = chart.bounding_box()
        assert box and box["width"] > 300 and box["height"] > 150
        assert chart.locator("rect.bar").count() > 0
    assert page.locator("svg.chart g.box").count() >= 2 * len(CONDITIONS)  # tokens and latency per condition
    for name in ("study-success", "study-tokens", "study-latency", "study-failures"):
        assert (out / "plots" / f"{name}.svg").exists()
