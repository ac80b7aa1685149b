"""Done-when of the annotation study: under TL/TH/WH the failures that the filler (effort-dependent
reasoning tokens) causes are coded RT-Deliberate, and under PH the stale-target policy's are coded
RT-Perceive; no code is given outside its condition (the paper's procedure)."""

from __future__ import annotations

import json

import duckdb
import pyarrow.parquet as pq
import pytest

from rtarena.annotate.commands import annotate_run
from rtarena.annotate.study import CONDITIONS, HEURISTIC_SCALE, STALE_SCALE
from rtarena.policy_server.reasoning import EFFORT_TOKENS

EFFORT = {"TL": "low", "TH": "high", "PH": "high", "WH": "high"}
CLOCK = {"TL": "token", "TH": "token", "PH": "paused", "WH": "wall"}


def rules(run_dir) -> list[dict]:
    return pq.read_table(annotate_run(run_dir)["rules"]).to_pylist()


def reasoning_tokens(run) -> set[int]:
    if not (run / "decisions").exists():
        return set()
    with duckdb.connect() as con:  # its own connection: the module-level one is shared by every test
        rows = con.execute(f"SELECT extra FROM '{run}/decisions/*.parquet'").fetchall()
    return {json.loads(x)["reasoning_tokens"] for (x,) in rows if x}  # an abandoned decision has no call details


@pytest.mark.parametrize("condition", CONDITIONS)
def test_each_condition_reaches_the_agent(study, condition):
    for policy, scale in (("heuristic", HEURISTIC_SCALE), ("stale", STALE_SCALE)):
        run = study[(policy, condition)]
        line = json.loads((run / "episodes.jsonl").read_text().splitlines()[0])
        assert line["clock"]["clock"] == CLOCK[condition] and line["clock_name"] == condition
        effort = f"reasoning_effort={EFFORT[condition]}"
        assert all(effort in spec for spec in line["slot_specs"].values())
        seen = reasoning_tokens(run)
        assert seen <= {round(EFFORT_TOKENS[EFFORT[condition]] * scale)}
    assert reasoning_tokens(study[("stale", condition)])  # the stale policy always commits something


def test_filler_failures_are_deliberation_failures(study):
    coded = {c: rules(study[("heuristic", c)]) for c in CONDITIONS}
    # the page waits under PH and low effort fits the 8 s answer window under TL: nothing fails
    assert [r["code"] for r in coded["TL"]] == ["none"] and [r["code"] for r in coded["PH"]] == ["none"]
    # 1024 reasoning tokens outlast the answer window under TH; WH fails the same way, uncoded as in the paper
    assert {r["capability"] for r in coded["TH"]} == {"RT-Deliberate"}
    assert "overran_deadline" in {r["code"] for r in coded["TH"]}
    assert all(r["condition"] == "TH" and r["agent_label"] == "llm:scripted-heuristic" for r in coded["TH"])
    assert [r["code"] for r in coded["WH"]] == ["none"]


def test_stale_target_failures_are_perception_failures_coded_under_ph_only(study):
    rows = rules(study[("stale", "PH")])
    assert rows and {r["capability"] for r in rows} == {"RT-Perceive"}
    assert {"missed_change", "repeated_no_effect"} <= {r["code"] for r in rows}
    assert all(r["evidence"] and json.loads(r["decisions"]) for r in rows)
    for condition in ("TL", "TH", "WH"):  # the same failures, not coded where the paper does not code them
        assert [r["code"] for r in rules(study[("stale", condition)])] == ["none"], condition


def test_report_shows_failure_modes_per_condition_and_agent(study, tmp_path):
    from rtarena.eval.report import build_report

    runs = [study[(p, c)] for p in ("heuristic", "stale") for c in CONDITIONS]
    for run in runs:
        annotate_run(run)
    html = build_report(runs, out=tmp_path / "report").read_text()
    assert "<h2>failure modes</h2>" in html and "failure modes per condition: llm:scripted-heuristic" in html
    assert "the rule annotator (the offline fallback" in html  # the report says which annotator coded each run
    rows = {(m[0], m[1], m[2]): (int(m[3]), int(m[4])) for m in __import__("re").findall(
        r'data-condition="(\w+)" data-agent="([^"]+)" data-code="(\w+)" data-n="(\d+)" data-of="(\d+)"', html)}
    heuristic = {k: v for k, v in rows.items() if "heuristic" in k[1]}
    assert {(c, code) for c, _, code in heuristic} == {("TH", "overran_deadline")}
    assert all(v == (1, 1) for v in heuristic.values())
    assert {c for c, a, code in rows if "stale" in a and code == "missed_change"} == {"PH"}
    assert 'href="../' in html  # example episodes link to their frames in the run folders
    assert (tmp_path / "report" / "plots" / "failure-modes-0.svg").exists()


def test_a_run_that_mixes_conditions_is_coded_per_condition(policy_server, tmp_path):
    """One run, clocks not named after the conditions: each episode's condition comes from its clock and its
    spec's reasoning effort, and each is coded with its own capabilities (PL is none of the paper's four:
    every code applies)."""
    from rtarena.eval.experiment_file import parse_experiment
    from rtarena.eval.runner import run_experiment

    url = policy_server.url(reasoning_model=True, policy="stale", effort_scale=STALE_SCALE)
    spec = f"llm:scripted-stale@{url},modalities=text,reasoning_effort="
    experiment = parse_experiment({
        "name": "mixed", "out": str(tmp_path), "max_steps": 14, "envs": ["web/quiz-v0"],
        "agents": [{"name": "low", "slots": [spec + "low"]}, {"name": "high", "slots": [spec + "high"]}],
        "clocks": [{"name": "turns", "clock": "paused"}, {"name": "tokens", "clock": "token"}]})
    run = run_experiment(experiment, run_id="mixed", workers=1).run_dir
    rows = rules(run)
    by_condition: dict[str, set] = {}
    for r in rows:
        by_condition.setdefault(r["condition"], set()).add(r["capability"])
    assert set(by_condition) == {"TL", "TH", "PL", "PH"}
    assert by_condition["TL"] == by_condition["TH"] == {""}  # lost, but no deliberation failure: code `none`
    assert by_condition["PH"] == by_condition["PL"] == {"RT-Perceive"}
