"""The condition presets (TL, TH, PH, WH over browser tasks and arena levels) and the scripted policies
the study needs: the quiz answerer and the stale-target policy (scripted, not models)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from rtarena.envs.gui.text import text_block
from rtarena.eval.presets import load_preset, preset_names
from rtarena.eval.runner import run_experiment
from rtarena.policy_server import gui_text
from rtarena.policy_server.policies import answer
from rtarena.policy_server.reasoning import EFFORT_TOKENS

CONDITIONS = {"TL": ("token", "low"), "TH": ("token", "high"), "PH": ("paused", "high"), "WH": ("wall", "high")}
SYSTEM = {"role": "system", "content": "The action is one line of text, e.g. click(3)."}


def quiz_observation(question: str, marks: dict[int, str]) -> str:
    """The quiz page's text observation, written by the env's own writer."""
    rows = [{"id": i, "role": "button", "text": t, "box": [0, 0, 10, 10], "actions": ["click"]}
            for i, t in marks.items()]
    return text_block("answer", 1.0, 9.0, rows, f"QuizLive Question 1 of 3 {question}")


@pytest.mark.parametrize("name", ["TL", "TH", "PH", "WH"])
def test_condition_presets_name_their_clock_and_effort(name):
    assert name in preset_names() and f"arena-{name}" in preset_names()
    clock, effort = CONDITIONS[name]
    for preset in (name, f"arena-{name}"):
        experiment = load_preset(preset)
        assert [(c.name, c.clock) for c in experiment.clocks] == [(name, clock)]
        specs = [s for lineup in experiment.lineups for s in lineup.slots if s.startswith("llm:")]
        assert specs and all(f"reasoning_effort={effort}" in s for s in specs)
    web = load_preset(name)
    assert all(e.id.startswith("web/") for e in web.envs) and len(web.envs) >= 12
    assert {e.id for e in load_preset(f"arena-{name}").envs} == {"arena/basic-v0", "arena/coop-v0",
                                                                  "arena/competitive-v0", "arena/mixed-v0"}


@pytest.mark.parametrize("name", ["TL", "TH"])
def test_arena_preset_effort_reaches_the_model(name, policy_server, tmp_path):
    url = policy_server.url(reasoning_model=True)
    experiment = load_preset(f"arena-{name}", params={"base_url": url})
    experiment = replace(experiment, envs=tuple(e for e in experiment.envs if e.id == "arena/basic-v0"),
                         seeds=(0,), max_steps=4, out=str(tmp_path))
    result = run_experiment(experiment, run_id=name, workers=1)
    import duckdb

    with duckdb.connect() as con:  # its own connection: the module-level one is shared by every test
        extras = con.execute(f"SELECT extra FROM '{result.run_dir}/decisions/*.parquet'").fetchall()
    assert extras and {json.loads(e)["reasoning_tokens"] for (e,) in extras} == {
        EFFORT_TOKENS[CONDITIONS[name][1]]}


def test_quiz_policy_clicks_the_mark_with_the_result():
    obs = quiz_observation("35 - 12 = ?", {3: "24", 4: "23", 5: "13"})
    assert gui_text.decide(obs) == "click(4)"
    assert gui_text.decide(quiz_observation("Get ready...", {})) == "wait()"
    assert answer([SYSTEM, {"role": "user", "content": obs}], "heuristic").endswith("ACTION: click(4)")


def test_quiz_policy_joins_the_lobby_with_the_goals_pin_and_nickname():
    lobby = quiz_observation("Join a game", {1: "Game PIN", 2: "Nickname", 3: "Join"})
    goal = "Goal: Join the QuizLive game with PIN 482113 and the nickname 'nightowl91' before the host starts it"
    assert gui_text.decide(lobby.replace("Goal: answer", goal)) == 'type(1, "482113"); type(2, "nightowl91"); click(3)'
    assert gui_text.decide(lobby) == "wait()"  # no PIN and nickname in the goal: nothing to type


def test_stale_policy_keeps_acting_on_its_first_target():
    first = quiz_observation("35 - 12 = ?", {4: "23"})
    later = quiz_observation("10 + 10 = ?", {7: "20"})
    chat = [SYSTEM, {"role": "user", "content": first}, {"role": "assistant", "content": "ACTION: click(4)"},
            {"role": "user", "content": later}]
    assert answer(chat, "heuristic").endswith("ACTION: click(7)")  # the current page
    stale = answer(chat, "stale")
    assert stale.endswith("ACTION: click(4)") and "scripted stale-target policy" in stale
