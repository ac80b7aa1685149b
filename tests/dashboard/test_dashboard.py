"""The dashboard in Chromium, over runs the test produces with the real CLI (cart-pole under two clock
settings, an arena match with its video, a browser task with its screenshots)."""

from __future__ import annotations

import csv
import io
import json
import urllib.error
import urllib.request
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest
from tests.eval.helpers import cartpole_experiment
from tests.helpers import run_main
from tests.improve.helpers import role

from rtarena.dashboard.server import make_app
from rtarena.policy_server import PolicyServer


def rtarena(*args: str) -> None:
    """`rtarena ARGS` in this process (the fixture's runs only make data; the CLI's own process is tested
    elsewhere), saving a Python start-up per command."""
    code, output = run_main(list(args))
    assert code == 0, output


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("dash")
    runs = base / "runs"
    experiment = cartpole_experiment(base, name="cartpole", seeds=3, max_steps=60)  # writes under base/runs
    rtarena("run", str(experiment), "--run-id", "cartpole")
    rtarena("run", "arena/basic-v0", "--agent", "heuristic", "--clock", "paused", "--seeds", "1",
            "--max-steps", "30", "--video", "--out", str(runs / "arena"))
    rtarena("run", "web/auction-v0", "--agent", "oracle", "--clock", "paused", "--seeds", "1",
            "--max-steps", "12", "--out", str(runs / "web"))
    rtarena("run", "games/duel-v0", "--agent", "heuristic", "--agent", "random", "--clock", "paused", "--seeds", "2",
            "--max-steps", "80", "--video", "--out", str(runs / "duel"))
    rtarena("annotate", str(runs / "web"))  # rule-based failure-mode codes for the Compare page
    with PolicyServer() as server:
        rtarena("improve", "classic/cartpole-v0", "--player", role(server, "skill", "llm:"), "--reflector",
                role(server, "reflector"), "--judge", role(server, "judge"), "--rounds", "2", "--episodes", "2",
                "--max-steps", "60", "--settle-s", "0", "--out", str(runs), "--run-id", "improve")
    return runs


@pytest.fixture(scope="module")
def app(root):
    with make_app(root) as running:
        yield running


@pytest.fixture
def page(new_page, app):
    # bypass_csp: Playwright's wait_for_function evaluates its string with eval, which the pages' CSP forbids
    # (the CSP itself is tested without it, tests/test_page_injection.py)
    return new_page(viewport={"width": 1400, "height": 900}, bypass_csp=True)


def api(page, path: str) -> str:
    """An API answer fetched by the page itself (it holds the session token)."""
    return page.evaluate("path => fetch(path, {headers: {'X-Rtarena-Token': TOKEN}}).then(r => r.text())", path)


def test_runs_page_lists_runs_and_filters_change_the_rows(page, app, root):
    page.goto(app.url + "#/runs")
    page.wait_for_selector("#runs-table tbody tr[data-run='arena']")
    assert page.locator("#runs-table tbody tr").count() == 5
    cartpole = page.locator("#runs-table tbody tr[data-run='cartpole']")
    assert "12 / 12" in cartpole.locator("td.progress").inner_text()  # 2 agents x 2 clocks x 3 seeds
    assert cartpole.locator("td").nth(7).inner_text() == "complete"
    improve = page.locator("#runs-table tbody tr[data-run='improve']")
    assert "2 / 2" in improve.locator("td.progress").inner_text()  # rounds of the improvement run
    assert improve.locator("td").nth(2).inner_text() == "improve"
    page.fill("#runs-search", "auction")
    page.wait_for_function("document.querySelectorAll('#runs-table tbody tr').length === 1")
    assert page.locator("#runs-table tbody tr").get_attribute("data-run") == "web"
    page.fill("#runs-search", "")
    page.select_option("#runs-status", "stopped early")
    page.wait_for_function("document.querySelectorAll('#runs-table tbody tr').length === 0")


def test_runs_page_shows_a_run_that_stopped_early(page, app, root):
    run = root / "cartpole"
    episodes = run / "episodes.jsonl"
    kept = episodes.read_text()
    try:
        episodes.write_text("".join(kept.splitlines(keepends=True)[:5]))
        page.goto(app.url + "#/runs")
        row = page.locator("#runs-table tbody tr[data-run='cartpole']")
        row.wait_for()
        page.wait_for_function(
            "document.querySelector(\"tr[data-run='cartpole'] td.progress\").textContent.includes('5 / 12')")
        assert row.locator("td").nth(7).inner_text() == "stopped early"
    finally:
        episodes.write_text(kept)


def test_compare_filters_and_csv_export_match_duckdb(page, app, root):
    page.goto(app.url + "#/compare?runs=cartpole")
    page.wait_for_selector("#compare-table tbody tr")
    assert page.locator("#compare-table tbody tr").count() == 4  # 2 agents x 2 clock settings
    assert page.locator("#charts figure").count() >= 1
    page.select_option("#f-agent", "heuristic")
    page.wait_for_function("document.querySelectorAll('#compare-table tbody tr').length === 2")

    text = api(page, "/api/compare.csv?runs=cartpole&agent=heuristic")
    rows = list(csv.DictReader(io.StringIO(text)))
    files = str(root / "cartpole" / "agents" / "*.parquet")
    expected = dict(duckdb.connect().execute(f"""
        SELECT delay_ms, avg("return") FROM read_parquet('{files}')
        WHERE agent_label = 'heuristic' GROUP BY delay_ms""").fetchall())
    assert len(rows) == 2
    for row in rows:
        assert row["agent"] == "heuristic"
        assert float(row["return_mean"]) == pytest.approx(expected[float(row["delay_ms"])])
        assert int(row["return_n"]) == 3


def test_replay_timeline_matches_the_decision_records_and_the_scrubber_moves_the_frame(page, app, root):
    line = json.loads((root / "arena" / "episodes.jsonl").read_text().splitlines()[0])
    key = line["episode"]
    decisions = pq.read_table(root / "arena" / "decisions" / f"{key}.parquet").to_pylist()
    events_file = root / "arena" / "events" / f"{key}.parquet"
    events = pq.read_table(events_file).to_pylist() if events_file.exists() else []

    page.goto(app.url + "#/run?run=arena")
    page.click(f"#episodes-table tr[data-episode='{key}'] a")
    page.wait_for_selector("img#frame[data-loaded='0']")
    bars = page.locator("#timeline g.decision")
    assert bars.count() == len(decisions) > 0
    for record in decisions[:5]:
        bar = page.locator(f"#timeline g.decision[data-index='{record['index']}']"
                           f"[data-controller='{record['controller']}']")
        assert float(bar.get_attribute("data-obs")) == pytest.approx(record["obs_sim_s"])
        assert float(bar.get_attribute("data-commit")) == pytest.approx(record["committed_sim_s"])
        applied = bar.get_attribute("data-applied")
        assert (float(applied) if applied else None) == (
            pytest.approx(record["applied_sim_s"]) if record["applied_sim_s"] is not None else None)
    assert page.locator("#timeline line.event").count() == len(events)

    frames = int(page.get_attribute("#scrubber", "max")) + 1
    assert frames == line["steps"] + 1  # one frame after reset and one after every step
    first = page.evaluate("document.getElementById('frame').src")
    page.eval_on_selector("#scrubber", "el => { el.value = 20; el.dispatchEvent(new Event('input')); }")
    page.wait_for_selector("img#frame[data-loaded='20']")
    assert page.evaluate("document.getElementById('frame').src") != first
    assert page.evaluate("document.getElementById('frame').naturalWidth") > 0
    x20 = float(page.get_attribute("#playhead", "x1"))
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("img#frame[data-loaded='21']")
    assert float(page.get_attribute("#playhead", "x1")) > x20

    page.locator(f"#timeline g.decision[data-index='{decisions[3]['index']}']").first.click()
    assert "committed at sim" in page.inner_text("#decision-detail")


def test_replay_of_a_browser_task_shows_its_screenshots(page, app, root):
    key = json.loads((root / "web" / "episodes.jsonl").read_text().splitlines()[0])["episode"]
    page.goto(app.url + f"#/episode?run=web&episode={key}")
    page.wait_for_selector("img#frame[data-loaded='0']")
    assert "screenshots" in page.inner_text("#frame-note")
    assert page.evaluate("document.getElementById('frame').naturalWidth") > 0


def _get(app, path: str, headers: dict[str, str] | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(app.url.rstrip("/") + path, headers={"X-Rtarena-Token": app.token,
                                                                         **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@pytest.mark.parametrize(("path", "headers", "status"), [
    ("/api/runs", {"X-Rtarena-Token": "wrong"}, 403),
    ("/api/runs", {"Host": "evil.example:80"}, 403),
    ("/api/runs", {"Origin": "http://evil.example"}, 403),
    ("/api/episodes?run=../..", {}, 403),
    ("/api/episodes?run=%2Fetc", {}, 403),
    ("/api/episodes?run=nope", {}, 404),
    ("/api/episodes", {}, 400),
    ("/api/episode?run=arena&episode=../../cartpole/episodes", {}, 404),
    ("/api/frame?run=arena&episode=x&i=abc", {}, 400),
    ("/api/nothing", {}, 404),
])
def test_bad_requests_get_json_errors(app, path, headers, status):
    code, body = _get(app, path, headers)
    assert code == status
    assert isinstance(body.get("error"), str) and body["error"]


def test_only_loopback_is_served(app):
    assert app.host == "127.0.0.1" and app.socket.getsockname()[0] == "127.0.0.1"
    code, body = _get(app, "/api/runs")
    assert code == 200 and {r["run_id"] for r in body} == {"arena", "cartpole", "web", "duel", "improve"}


def test_compare_of_a_game_suite_run_shows_the_win_matrix_and_the_radar(page, app, root):
    page.goto(app.url + "#/compare?runs=duel")
    page.wait_for_selector("#compare-table tbody tr")
    panels = page.locator("#panels section.panel")
    assert panels.count() >= 1
    text = page.inner_text("#panels")
    assert "duel" in text
    assert page.locator("#panels svg").count() >= 1  # the capability radar


def test_replay_of_a_game_episode_has_frames_and_timeline(page, app, root):
    key = json.loads((root / "duel" / "episodes.jsonl").read_text().splitlines()[0])["episode"]
    decisions = pq.read_table(root / "duel" / "decisions" / f"{key}.parquet").num_rows
    page.goto(app.url + f"#/episode?run=duel&episode={key}")
    page.wait_for_selector("img#frame[data-loaded='0']")
    assert page.locator("#timeline g.decision").count() == decisions > 0
    page.keyboard.press("Shift+ArrowRight")
    page.wait_for_selector("img#frame[data-loaded='10']")


def test_improvement_page_shows_the_curve_rollbacks_and_each_rounds_skill(page, app, root):
    run = root / "improve"
    rounds = sorted(p.name for p in run.glob("round_*"))
    states = {r: json.loads((run / r / "round.json").read_text()) for r in rounds}
    page.goto(app.url + "#/runs")
    page.click("#runs-table tr[data-run='improve'] a")
    page.wait_for_selector("#curve circle.round-point")
    points = page.locator("#curve circle.round-point")
    assert points.count() == len(rounds) == 2  # --rounds 2: round 0, then one round after a reflection
    for i, name in enumerate(rounds):
        assert float(points.nth(i).get_attribute("data-mean")) == pytest.approx(states[name]["interval"]["mean"])
    assert page.locator("#curve .rollback-mark").count() == sum(bool(s.get("rollback")) for s in states.values())
    # the run's metrics as tables and a chart, not raw JSON (issue 47)
    metrics = json.loads((run / "metrics.json").read_text())
    final = page.locator("#improve-metrics table.metric-intervals tr[data-metric='final_gain'] td").first.inner_text()
    assert float(final) == pytest.approx(metrics["final_gain"]["mean"], rel=1e-3)
    assert page.locator("#improve-metrics svg.interval-chart g[data-metric='final_gain']").count() == 1
    assert page.locator("#improve-metrics table.metric-list[data-name='rounds'] tbody tr").count() == len(rounds)
    assert "{" not in page.inner_text("#improve-metrics")
    skill = (run / "round_01" / "skill_in.md").read_text().strip().splitlines()
    diff = page.inner_text("section.round[data-round='round_01'] pre.skill-diff")
    assert skill and all(f"+ {line}" in diff for line in skill if line.strip())
    page.click("section.round[data-round='round_01'] h3 a")
    page.wait_for_selector("#episodes-table tbody tr")
    assert page.locator("#episodes-table tbody tr").count() == 2


def test_compare_of_an_annotated_run_shows_its_failure_modes(page, app, root):
    codes = pq.read_table(root / "web" / "annotations" / "rules.parquet").to_pylist()
    coded = [r for r in codes if r["code"] != "none"]
    assert coded, "the oracle cut at 12 s loses the auction: the rules code it"
    page.goto(app.url + "#/compare?runs=web")
    page.wait_for_selector("#panels section.panel[data-title='failure modes']")
    rows = page.locator("#panels table.failure-modes tbody tr")
    assert rows.count() == len({(r["condition"], r["agent_label"], r["code"]) for r in coded})
    for r in coded:
        assert page.locator(f"#panels tr[data-code='{r['code']}']").count() >= 1


def test_compare_groups_the_games_each_with_its_own_metrics(page, app, root):
    """Issue 47: the demo's games in one Compare table were about 50 columns and 4,300 px wide."""
    page.goto(app.url + "#/compare?runs=cartpole,duel")
    page.wait_for_selector("#compare-table section.compare-group table tbody tr")
    data = json.loads(api(page, "/api/compare?runs=cartpole,duel"))
    groups = page.locator("#compare-table section.compare-group")
    levels = {row["level"] for row in data["rows"]}
    assert groups.count() == len(levels) == 2
    shown, counts = set(), []
    for i in range(groups.count()):
        level = groups.nth(i).get_attribute("data-level")
        mine = [row for row in data["rows"] if row["level"] == level]
        headers = groups.nth(i).locator("thead th").all_inner_texts()
        metrics = [m for m in data["metrics"] if m in headers]
        assert metrics == [m for m in data["metrics"] if any(row[m]["n"] for row in mine)]
        assert groups.nth(i).locator("tbody tr").count() == len(mine)
        shown.update(metrics)
        counts.append(len(metrics))
    assert shown == {m for m in data["metrics"] if any(row[m]["n"] for row in data["rows"])}
    # cart-pole's table leaves out the duel's own columns (the duel has every metric cart-pole has, and more)
    assert min(counts) < len(data["metrics"]), counts
