"""Submission rules enforced by the runner: order, the judge's budget and binding verdicts, budgets, lints."""

from __future__ import annotations

import json

import pytest
from tests.improve.helpers import role

from rtarena.improve.judge import Judge, judge_prompt
from rtarena.improve.settings import ImproveSettings
from rtarena.improve.submit import RoundState, Submissions
from rtarena.improve.tools import ToolRefusal

GOOD = "- Push the cart toward the side the pole leans: a pole leaning right needs a push right."
DIAGNOSIS = dict(failure_modes=["ignores the lean"], causes=["no rule"], prescriptions=["add lean"],
                 additions=[GOOD[2:]], deletions=[], lints_response="empty_skill: addressed")


@pytest.fixture
def judge(server):
    j = Judge(role(server, "judge"))
    yield j
    j.close()


def subs(tmp_path, judge, skill="", regressed=False, codes=("empty_skill",), **settings) -> Submissions:
    return Submissions(tmp_path, RoundState(1, skill, "", regressed, list(codes)), ImproveSettings(**settings), judge)


def test_submit_skill_before_submit_diagnosis_is_refused(tmp_path, judge):
    s = subs(tmp_path, judge, judge_mode="advisory")
    with pytest.raises(ToolRefusal, match="submit_diagnosis must come before"):
        s.submit_skill(GOOD, "")
    s.submit_diagnosis(**DIAGNOSIS)
    assert s.submit_skill(GOOD, "")["accepted"] and s.accepted == (GOOD, "")
    rows = [json.loads(x) for x in (tmp_path / "submissions.jsonl").read_text().splitlines()]
    assert [r["accepted"] for r in rows] == [False, True]
    assert (tmp_path / "diagnosis.md").read_text().startswith("# Diagnosis after round 1")


def test_the_validation_budget_holds(tmp_path, judge):
    s = subs(tmp_path, judge, max_validations=2)
    s.submit_diagnosis(**DIAGNOSIS)
    for _ in range(2):
        assert s.validate_skill(GOOD)["verdict"] == "pass"
    with pytest.raises(ToolRefusal, match="validation budget"):
        s.validate_skill(GOOD)
    assert len((tmp_path / "verdicts.jsonl").read_text().splitlines()) == 2


def test_a_binding_judge_always_binds_even_after_its_budget_is_spent(tmp_path, judge):
    bad = GOOD + "\n- Press left 3 times at the start."
    diagnosis = {**DIAGNOSIS, "additions": [GOOD[2:], "Press left 3 times at the start."]}
    s = subs(tmp_path, judge, max_validations=2)
    s.submit_diagnosis(**diagnosis)
    # the content lint refuses it too; here only the judge's part is checked
    with pytest.raises(ToolRefusal, match="validate this skill with validate_skill first"):
        s.submit_skill(bad, "")
    verdict = s.validate_skill(bad)
    assert verdict["verdict"] == "needs_revision"
    assert {v["rule"] for v in verdict["violations"]} == {"no_literal_actions"}
    with pytest.raises(ToolRefusal, match="needs_revision \\(binding\\)"):
        s.submit_skill(bad, "")
    assert s.closed is None  # budget left: the reflector may revise
    s.validate_skill(bad)  # the budget is spent now: the judge still binds
    with pytest.raises(ToolRefusal, match="needs_revision \\(binding\\)") as refusal:
        s.submit_skill(bad, "")
    assert "previous skill kept" in str(refusal.value) and s.accepted is None and s.closed


def test_budget_spent_an_unvalidated_skill_is_refused_and_the_previous_skill_kept(tmp_path, judge):
    s = subs(tmp_path, judge, skill="- Watch the pole.", max_validations=1)
    s.submit_diagnosis(**DIAGNOSIS)
    assert s.validate_skill(GOOD)["verdict"] == "pass"
    other = GOOD + "\n- Keep the cart near the middle of the track."
    with pytest.raises(ToolRefusal, match="validate this skill with validate_skill first"):
        s.submit_skill(other, "")  # never validated, and no budget left to validate it
    assert s.accepted is None and "previous skill kept" in s.closed
    row = json.loads((tmp_path / "submissions.jsonl").read_text().splitlines()[-1])
    assert row["skill"] == other and not row["accepted"]


def test_an_advisory_judge_records_but_does_not_block(tmp_path, judge):
    s = subs(tmp_path, judge, judge_mode="advisory")
    s.submit_diagnosis(**{**DIAGNOSIS, "lints_response": "nothing"})  # the signal is not addressed
    verdict = s.validate_skill(GOOD)
    assert verdict["verdict"] == "needs_revision"
    assert verdict["violations"][0]["rule"] == "lints_addressed"
    assert s.submit_skill(GOOD, "")["accepted"]
    assert json.loads((tmp_path / "verdicts.jsonl").read_text())["mode"] == "advisory"


def test_the_judge_reads_its_rules_and_patterns_from_the_prompt():
    prompt = judge_prompt()
    assert "`no_map_memory`" in prompt and "## Patterns" in prompt and "- no_literal_actions: `" in prompt


CASES = [
    ("", "", {}, "empty_skill"),
    ("- " + "word " * 50, "", {"skill_tokens": 20}, "skill_tokens"),
    ("\n".join(f"- rule {chr(97 + i)}" for i in range(4)), "", {"skill_bullets": 3}, "skill_bullets"),
    (GOOD, "note " * 30, {"notebook_tokens": 10}, "notebook_tokens"),
    ("- Go to the coin at (12, 40) first.", "", {}, "no_map_memory"),
    ("- Hold W for 5 steps, then jump.", "", {}, "no_literal_actions"),
    ("- Answer with [1, 0, 0, 1] when in doubt.", "", {}, "no_literal_actions"),
]


@pytest.mark.parametrize(("skill", "notebook", "settings", "check"), CASES)
def test_budgets_and_lints_are_enforced_at_submission(tmp_path, judge, skill, notebook, settings, check):
    s = subs(tmp_path, judge, judge_mode="advisory", **settings)
    s.submit_diagnosis(**DIAGNOSIS)
    with pytest.raises(ToolRefusal, match=f"{check}:"):
        s.submit_skill(skill, notebook)
    assert s.accepted is None


def test_unchanged_skill_and_bullet_budget_after_a_regression(tmp_path, judge):
    old = "- keep the cart centred\n- watch the pole"
    s = subs(tmp_path, judge, skill=old, regressed=True, judge_mode="advisory", bullets_after_regression=2)
    s.submit_diagnosis(**DIAGNOSIS)
    with pytest.raises(ToolRefusal, match="unchanged_skill"):
        s.submit_skill(" - keep the cart centred\n- watch  the pole ", "")
    with pytest.raises(ToolRefusal, match="bullets_after_regression: 3 bullets"):
        s.submit_skill("- keep the cart centred\n- brake early\n- look ahead", "")
    assert s.submit_skill(old + "\n- brake early", "")["accepted"]


def test_resubmissions_are_bounded(tmp_path, judge):
    s = subs(tmp_path, judge, judge_mode="advisory", max_resubmissions=1)
    s.submit_diagnosis(**DIAGNOSIS)
    with pytest.raises(ToolRefusal, match="1 submissions left"):
        s.submit_skill("", "")
    with pytest.raises(ToolRefusal, match="the skill stays as it was"):
        s.submit_skill("", "")
    assert s.closed and s.accepted is None
