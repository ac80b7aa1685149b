"""Every code of the codebook on small trajectories: one that has the failure, one that does not."""

from __future__ import annotations

import pytest

from rtarena.annotate.codebook import CAPABILITIES, CODEBOOK, default_codebook, load_codebook
from rtarena.annotate.rules import RULES, annotate_episode
from rtarena.errors import UserError

from .trajectories import WAIT, decision, event, every_step, trajectory


def codes(ev) -> set[str]:
    return {f.code for f in annotate_episode(ev)}


def test_the_codebook_has_the_modes_the_issue_lists_each_with_a_rule():
    book = default_codebook()
    assert set(book.codes) == set(RULES) and len(book.codes) >= 8
    assert {m.capability for m in book.modes} == set(CAPABILITIES)
    for mode in book.modes:
        assert mode.definition and mode.include and mode.exclude and mode.fields
        assert all("." in f for f in mode.fields)  # view.column


@pytest.mark.parametrize(("old", "new", "line"), [
    ('capability = "RT-Act"', 'capability = "RT-Guess"', r"modes\[\d+\]\.capability: must be one of .*got 'RT-Guess'"),
    ("repeat_min = 3", "repeat_min = 0", "params.repeat_min: must be > 0, got 0"),
    ("repeat_min = 3", "repeat_min = 3\nrepeat_mni = 4", "params.repeat_mni: unknown field; did you mean 'repeat_min'"),
    ("only_lost = true", "only_lost = 1", "params.only_lost: must be true or false, got 1"),
    ('code = "missed_change"', 'code = "stale_target"', "modes: codes must be unique, got stale_target"),
])
def test_a_bad_codebook_is_one_line_naming_file_and_field(tmp_path, old, new, line):
    """The codebook is read through the typed schema base: each mistake is one line naming file and field."""
    path = tmp_path / "book.toml"
    text = CODEBOOK.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(UserError, match=r"book.toml: " + line) as info:
        load_codebook(path)
    assert "\n" not in str(info.value)


# -- RT-Perceive --------------------------------------------------------------------------------------
def test_stale_target_when_the_world_moved_while_deciding():
    d = decision(0, obs=0.0, commit=0.4, action="click(4)")  # applied at 0.5: two steps later
    ev = trajectory([d], [event(2, "failed_action", action="click(4)", error="no mark 4 on the page")])
    assert codes(ev) == {"stale_target"}
    same_time = decision(0, obs=0.5, commit=0.5, action="click(4)")  # the page did not move: not stale
    assert "stale_target" not in codes(trajectory([same_time], [event(2, "failed_action", action="click(4)")]))


def test_missed_change_when_the_observation_already_showed_it():
    ev = trajectory([decision(0, obs=0.5, commit=0.5, action="click(4)")],
                    [event(2, "failed_action", action="click(4)")])
    assert codes(ev) == {"missed_change"}
    # an identical click had failed before the observation: the change was there to see
    again = trajectory([decision(0, 0.0, 0.0, "click(4)"), decision(1, 0.25, 0.4, "click(4)")],
                       [event(0, "failed_action"), event(2, "failed_action")])
    assert codes(again) == {"missed_change"}
    fine = trajectory([decision(0, obs=0.5, commit=0.5, action="click(4)")], [event(2, "gui_action")])
    assert not codes(fine) & {"missed_change", "stale_target"}


def test_a_wrong_answer_event_counts_as_a_bad_action():
    ev = trajectory([decision(0, 0.5, 0.5, "click(2)")], [event(2, "answer", correct=False)])
    assert "missed_change" in codes(ev)
    assert "missed_change" not in codes(trajectory([decision(0, 0.5, 0.5, "click(2)")],
                                                   [event(2, "answer", correct=True)]))


def test_repeated_action_without_effect():
    ev = trajectory(every_step("press(Space)", 0, 4))
    assert "repeated_no_effect" in codes(ev)
    assert "repeated_no_effect" not in codes(trajectory(every_step("press(Space)", 0, 4), rewards={2: 0.5}))
    assert "repeated_no_effect" not in codes(trajectory(every_step("press(Space)", 0, 2)))  # twice is not yet
    assert "repeated_no_effect" not in codes(trajectory(every_step(WAIT, 0, 6)))  # waiting is not an action


# -- RT-Deliberate ------------------------------------------------------------------------------------
def test_overran_deadline_when_a_commit_comes_after_the_end():
    slow = decision(0, obs=0.0, commit=5.12, action=WAIT, tokens=520, end=2.5)
    ev = trajectory([slow], [event(9, "task_failure", why="no answer in time")], end_s=2.5)
    found = annotate_episode(ev)
    assert [f.code for f in found] == ["overran_deadline"] and found[0].decisions == (0,)
    assert "5.12" in found[0].evidence
    won = trajectory([slow], end_s=2.5, success=1.0)
    assert codes(won) == set()
    last_moment = [*every_step(WAIT, 0, 10), decision(10, obs=2.25, commit=2.6, action=WAIT, end=2.5)]
    assert "overran_deadline" not in codes(trajectory(last_moment, end_s=2.5))  # 0.25 s left: no time to act


def test_an_abandoned_reply_is_a_deliberation_failure_not_an_invalid_action():
    abandoned = {**decision(0, obs=0.0, commit=0.0, action=WAIT, tokens=0, valid=False, applied=False),
                 "committed_sim_s": None, "delay_sim_s": None,
                 "error": "abandoned: no answer when the episode ended (2.34 s in)"}
    ev = trajectory([abandoned], [event(9, "task_failure")], end_s=2.5, clock="wall")
    found = annotate_episode(ev)
    assert [f.code for f in found] == ["overran_deadline"] and "still unanswered" in found[0].evidence
    late = {**abandoned, "obs_sim_s": 2.25, "start_sim_s": 2.25}  # 0.25 s left: no time to act anyway
    assert "overran_deadline" not in codes(trajectory([*every_step(WAIT, 0, 9), late], end_s=2.5, clock="wall"))


def test_no_adaptation_when_deliberation_stays_long_as_time_runs_out():
    steady = [decision(i, obs=i * 1.0, commit=i * 1.0 + 0.75, action=WAIT, tokens=75) for i in range(4)]
    ev = trajectory(steady, end_s=4.0)
    assert "no_adaptation" in codes(ev)
    shrinking = [decision(i, obs=i * 1.0, commit=i * 1.0 + t / 100, action=WAIT, tokens=t)
                 for i, t in enumerate((75, 75, 20, 10))]
    assert "no_adaptation" not in codes(trajectory(shrinking, end_s=4.0))
    quick = [decision(i, obs=i * 1.0, commit=i * 1.0 + 0.1, action=WAIT, tokens=10) for i in range(4)]
    assert "no_adaptation" not in codes(trajectory(quick, end_s=4.0))  # never long enough to matter


# -- RT-Act ---------------------------------------------------------------------------------------------
def test_waited_too_long():
    ev = trajectory(every_step(WAIT, 0, 12), [event(11, "task_failure", why="auction closed")])
    assert codes(ev) == {"waited_too_long"}
    acted = [*every_step(WAIT, 0, 11), decision(11, 2.75, 2.75, "click(3)")]
    assert "waited_too_long" not in codes(trajectory(acted))


def test_acted_too_early():
    acts = [*every_step(WAIT, 0, 3), decision(3, 0.75, 0.75, "click(5)")]
    ev = trajectory(acts, [event(3, "gui_action"), event(3, "task_failure", why="bought above the limit")])
    assert codes(ev) == {"acted_too_early"}
    missed = trajectory(acts, [event(3, "failed_action"), event(3, "task_failure")])
    assert "acted_too_early" not in codes(missed)


def test_invalid_action_under_time_pressure():
    bad = [*every_step(WAIT, 0, 11), decision(11, 2.75, 2.75, WAIT, valid=False)]
    assert "invalid_action" in codes(trajectory(bad))
    assert "invalid_action" in codes(trajectory(every_step(WAIT, 0, 12), [event(4, "malformed_action")]))
    assert codes(trajectory(bad, success=1.0)) == set()  # won episodes are not coded


# -- per condition (the paper: RT-Deliberate under TL/TH, RT-Perceive and RT-Act under PH, nothing under WH) ---
def test_codes_are_applied_per_condition():
    book = default_codebook()
    assert book.conditions == {"TL": ("RT-Deliberate",), "TH": ("RT-Deliberate",), "WH": (),
                               "PH": ("RT-Perceive", "RT-Act")}
    # a lost episode with a perception failure (a stale click), and the same with a reply that overran too
    stale = decision(0, obs=0.0, commit=0.4, action="click(4)")
    late = decision(1, obs=0.5, commit=5.0, action=WAIT)
    failed = [event(2, "failed_action", action="click(4)", error="no mark 4 on the page")]
    seen = {}
    for condition in ("TL", "TH", "PH", "WH", "token-B64"):
        for name, decisions in (("stale", [stale]), ("late", [stale, late])):
            ev = trajectory(decisions, failed, end_s=2.0, condition=condition)
            seen[(condition, name)] = {book.capability(f.code) for f in annotate_episode(ev, book)}
    for condition in ("TL", "TH"):  # stale_target is never coded here; overran_deadline is
        assert seen[(condition, "stale")] == set() and seen[(condition, "late")] == {"RT-Deliberate"}
    assert seen[("WH", "stale")] == seen[("WH", "late")] == set()  # the paper codes nothing under WH
    assert seen[("PH", "stale")] == {"RT-Perceive"} and seen[("PH", "late")] == set()
    # outside the study every code applies, and the exclusions between codes hold
    assert seen[("token-B64", "stale")] == {"RT-Perceive"} and seen[("token-B64", "late")] == {"RT-Deliberate"}


def test_the_condition_comes_from_the_clock_setting_or_the_clock_and_effort():
    from rtarena.eval.study_report import condition_of

    assert condition_of("TH", "token", "llm:m@u") == "TH"
    assert condition_of("token-B64", "token", "llm:m@http://h/v1,reasoning_effort=high") == "TH"
    assert condition_of("paused", "paused", "llm:m@http://h/v1,reasoning_effort=high,modalities=text") == "PH"
    assert condition_of("realtime", "wall", "oracle") == "realtime"
