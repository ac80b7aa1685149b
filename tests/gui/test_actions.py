"""The GUI action string: parsing, prompt text, malformed and failed actions in events and metrics."""

from __future__ import annotations

import json

import pytest

from rtarena.envs.gui import actions
from rtarena.envs.gui.actions import ActionError, GuiAction, parse


def test_parse_several_calls():
    assert parse('click(3); type(2, "hello")\nkey("Enter")') == [
        GuiAction("click", (3,)), GuiAction("type", (2, "hello")), GuiAction("key", ("Enter",))]
    assert parse("") == [GuiAction("wait", ())]
    assert parse("click_xy(10, 20.5); scroll(0, -100); wait()")[0] == GuiAction("click_xy", (10, 20.5))


@pytest.mark.parametrize("text", ['click("3")', "click(1", "open(1)", "import os", "click(1, 2)", "type(1)",
                                  "click(x)", "__import__('os').system('true')", "1 + 1", "click(True)",
                                  "; ".join(["wait()"] * 21)])
def test_malformed_strings_rejected(text):
    with pytest.raises(ActionError):
        parse(text)


def test_describe_comes_from_the_functions():
    text = actions.describe()
    for name, fn in actions.ACTIONS.items():
        assert f"- {name}(" in text and fn.__doc__.strip().split("\n")[0] in text
    assert actions.action_space().contains('type(2, "héllo"); key("Enter")')


def test_malformed_counted_and_treated_as_wait(gui_env):
    env = gui_env("web/auction-v0", obs=("marks", "time"))
    env.reset(seed=0)
    _, _, _, _, infos = env.step({"user": "click(1"})
    events = infos["user"]["events"]
    assert [e["type"] for e in events if e["type"] in ("malformed_action", "gui_action")] == ["malformed_action"]
    _, _, _, _, infos = env.step({"user": "click(999); click(2)"})
    kinds = [e["type"] for e in infos["user"]["events"] if e["type"] in ("failed_action", "gui_action")]
    assert kinds == ["failed_action", "gui_action"]
    metrics = env.episode_metrics()["user"]
    assert metrics["malformed_actions"] == 1 and metrics["failed_actions"] == 1 and metrics["gui_actions"] == 1


def test_observation_fits_its_space_and_marks_are_drawn(gui_env):
    env = gui_env("web/hotel-v0", obs=("som", "rgb", "marks", "goal", "time", "text"))
    observations, _ = env.reset(seed=3)
    obs = observations["user"]
    assert env.observation_space("user").contains(obs)
    marks = json.loads(obs["marks"])
    assert {m["role"] for m in marks} >= {"radio", "checkbox"}
    for mark in marks:
        assert set(mark) >= {"id", "role", "text", "box", "actions"}
    assert "Confirm booking" not in [m["text"] for m in marks]  # disabled: not interactable yet
    assert "hold expires" in obs["goal"] and obs["time"].tolist() == [0.0, env.time_limit_s]
    bare = obs["rgb"]
    x, y, w, h = marks[0]["box"]
    assert (obs["som"] != bare).any(axis=2)[y:y + h, x:x + w].any()  # the box is drawn ...
    assert (obs["som"][300:, 600:] == bare[300:, 600:]).all()  # ... and nothing far from marks
    assert f"[{marks[0]['id']}] radio unchecked" in obs["text"] and "Choose your room" in obs["text"]


def test_modal_covers_marks(gui_env):
    env = gui_env("web/hotel-v0", obs=("marks",))
    env.reset(seed=3)
    popup_steps = round(env.params["popup_at_s"] / env.dt)
    for _ in range(popup_steps):
        observations, *_ = env.step({"user": "wait()"})
    texts = [m["text"] for m in json.loads(observations["user"]["marks"])]
    assert texts == ["Upgrade to Suite", "No thanks"]  # the offer covers the booking form


def test_viewport_is_settable(gui_env):
    env = gui_env("gui-games/snake-v0", viewport=(480, 360), obs=("rgb",))
    observations, _ = env.reset(seed=0)
    assert observations["user"]["rgb"].shape == (360, 480, 3)
    assert env.observation_space("user")["rgb"].shape == (360, 480, 3)
