"""`rtarena findings`: an unknown name is one line and exit 2; a finding that cannot run is skipped with its
reason while the others run; the page (Markdown and HTML, one chart per finding run, a rules table per
finding) opens in Chromium.

The run here is a smoke run (`--max-steps 8`): it proves the plumbing, not the rules, which need the
findings' own lengths (`rtarena findings --quick`, measured in docs/findings.md); the rules themselves are
checked against their negative controls in test_rules.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.helpers import run_main

from rtarena.findings import finding_names
from rtarena.findings.core import Context

RTARENA = [sys.executable, "-m", "rtarena.cli", "findings"]


def test_an_unknown_finding_is_one_line_listing_the_names_and_nothing_is_written(tmp_path):
    code, output = run_main(["findings", "--only", "nope", "--out", str(tmp_path / "f")])  # in this process
    assert code == 2, output
    out = output.strip()
    assert len(out.splitlines()) == 1 and "'nope'" in out and "Traceback" not in output
    assert all(name in out for name in finding_names())
    assert not (tmp_path / "f").exists()


@pytest.mark.parametrize(("option", "value", "words"), [
    ("--seed-offset", "5000", "must be 0 or from 20000"),  # shifted seeds would meet the registered and pilot ones
    ("--seed-offset", "-1", "must be 0 or from 20000"),
    ("--idc-episodes", "0", "must be >= 1")])
def test_a_replication_option_out_of_range_is_one_line_and_nothing_is_written(tmp_path, option, value, words):
    code, output = run_main(["findings", "--quick", option, value, "--out", str(tmp_path / "f")])
    assert code == 2, output
    assert len(output.strip().splitlines()) == 1 and option in output and value in output and words in output
    assert not (tmp_path / "f").exists()


def test_a_second_run_into_the_same_folder_is_one_line_and_the_first_runs_files_stay(tmp_path):
    from rtarena.eval.manifest import run_lock

    out = tmp_path / "f"
    with run_lock(out, field="--out"):  # a first `rtarena findings --out f` still running
        (out / "findings.md").write_text("the first run's page")
        code, output = run_main(["findings", "--quick", "--only", "token-deliberation", "--out", str(out)])
    assert code == 2, output
    assert len(output.strip().splitlines()) == 1 and "another rtarena process is writing" in output
    assert "--out" in output and "Traceback" not in output
    assert (out / "findings.md").read_text() == "the first run's page" and not (out / "runs").exists()


def test_idc_plays_the_asked_k_from_the_replicated_seeds():
    """`--idc-episodes` and `--seed-offset` reach `rtarena improve`'s settings; without them, the registered
    sizes and seeds."""
    from rtarena.findings.catalog import IDC_QUICK, idc_rule, idc_settings

    rule = idc_rule("kitchen")
    registered = idc_settings(Context(True, Path("f"), None, 2, None), rule, 3000)
    assert (registered["episodes"], registered["seed_start"]) == (IDC_QUICK["episodes"], 3000)
    assert registered["transfer_episodes"] == rule.n and registered["rounds"] == IDC_QUICK["rounds"]
    replicated = idc_settings(Context(True, Path("f"), None, 2, None, seed_offset=30000, idc_episodes=5), rule, 3000)
    assert (replicated["episodes"], replicated["seed_start"]) == (5, 33000)
    assert {k: v for k, v in replicated.items() if k not in ("episodes", "seed_start")} == {
        k: v for k, v in registered.items() if k not in ("episodes", "seed_start")}


def test_a_finding_that_cannot_run_is_skipped_the_others_run_and_the_page_opens_in_chromium(tmp_path, open_html):
    out = tmp_path / "f"
    env = {**os.environ, "RTARENA_CHROMIUM": str(tmp_path / "no-chromium")}  # the web tasks' browser is missing
    # a replication's plumbing too: every seed set 30,000 further on
    done = subprocess.run([*RTARENA, "--quick", "--only", "token-deliberation", "--only", "pdq-vs-lcrt",
                           "--max-steps", "8", "--workers", "1", "--seed-offset", "30000", "--out", str(out)],
                          capture_output=True, text=True, timeout=280, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    seeds = {run: {json.loads(line)["seed"] for line in (out / "runs" / run / "episodes.jsonl").open()}
             for run in ("pdq-vs-lcrt-paused-chunks", "pdq-vs-lcrt-pdq-waits-b")}
    assert seeds == {"pdq-vs-lcrt-paused-chunks": {31000, 31001}, "pdq-vs-lcrt-pdq-waits-b": {32000, 32001}}
    markdown = (out / "findings.md").read_text()
    assert "--seed-offset 30000 (a replication" in markdown and "seed sets A = 31000.. and B = 32000.." in markdown
    assert "token-deliberation: skipped" in done.stdout + done.stderr and "Chromium is missing" in markdown
    assert "| pdq-vs-lcrt | OmniGameArena |" in markdown and "--quick" in markdown and "smoke run" in markdown
    assert "controls with scripted agents, not the papers' numbers" in markdown
    assert "A real-model run: `rtarena run --preset suite-solo" in markdown and "--seed-start 1000" in markdown
    assert (out / "charts" / "pdq-vs-lcrt.svg").exists() and not (out / "charts" / "token-deliberation.svg").exists()
    html = Path(out / "findings.html")
    page, problems = open_html(html)
    assert problems == []
    verdicts = {r.get_attribute("data-finding"): r.get_attribute("data-verdict")
                for r in page.locator("table.findings tbody tr").all()}
    # gated rules on the deterministic lcrt-300ms (a smoke run's verdict gates nothing: exit 0 above); the
    # measured clock reads wall time, so its rule is reported
    assert verdicts["token-deliberation"] == "skipped" and verdicts["pdq-vs-lcrt"] in ("holds", "fails")
    rules = page.locator("table.rules").inner_text()
    assert "the answer's time charged costs decisions" in rules and "LCRT costs decisions" in rules
    assert "no (wall time)" in rules
    chart = page.locator("[data-chart='pdq-vs-lcrt'] svg")
    assert chart.count() == 1 and chart.bounding_box()["width"] > 300  # drawn, not an empty element
    assert page.locator("[data-chart] svg rect.bar").count() == 6  # score and decisions: PDQ, LCRT x 2
    assert "PDQ (paused-chunks)" in page.locator("table.finding").inner_text()
