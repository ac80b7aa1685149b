"""The page's clock is the env's: frozen between steps, and moved by exactly dt per step."""

from __future__ import annotations

import time

import numpy as np
import pytest

PROBE = """(() => { window.__probe = {ticks: 0, frames: 0};
  setInterval(() => __probe.ticks++, 10);
  (function f() { __probe.frames++; requestAnimationFrame(f); })(); return true; })()"""
READ = "[Date.now(), performance.now(), __probe.ticks, __probe.frames, RT.now(), ...Object.values(RT.inspect())]"


def test_frozen_page_then_exact_dt(gui_env):
    env = gui_env("gui-games/breakout-v0", dt=0.25)  # short enough that the ball meets no wall in one step
    observations, _ = env.reset(seed=5)
    assert env.page_eval(PROBE)
    before = env.page_eval(READ)
    shot = observations["user"]["som"]
    time.sleep(1.5)  # real time passes; the page must not notice
    assert env.page_eval(READ) == before
    observations, *_ = env.step({"user": "wait()"})
    again = env.page_eval(READ)
    dt_ms = env.dt * 1000
    assert again[0] - before[0] == dt_ms  # Date
    assert again[1] - before[1] == pytest.approx(dt_ms)  # performance.now
    assert again[2] - before[2] == round(dt_ms / 10)  # a 10 ms interval fired exactly dt / 10 ms times
    assert abs((again[3] - before[3]) - dt_ms / 16) <= 1  # animation frames on Playwright's 16 ms grid
    assert again[4] - before[4] == pytest.approx(env.dt)  # the task's own clock
    # the ball (moved by a 10 ms timer) travelled exactly velocity * dt
    assert again[5] - before[5] == pytest.approx(before[7] * env.dt)
    assert again[6] - before[6] == pytest.approx(before[8] * env.dt)
    assert not np.array_equal(observations["user"]["som"], shot)  # and the picture moved with it


def test_pixels_unchanged_while_frozen(gui_env):
    env = gui_env("gui-games/snake-v0")
    env.reset(seed=0)
    env.step({"user": "wait()"})
    pixels, text = env.capture(), env.page_eval("document.body.innerText")
    time.sleep(1.5)
    np.testing.assert_array_equal(env.capture(), pixels)
    assert env.page_eval("document.body.innerText") == text
    env.step({"user": "wait()"})
    assert not np.array_equal(env.capture(), pixels)


def test_gui_actions_take_no_page_time(gui_env):
    env = gui_env("web/auction-v0", obs=("marks",))
    env.reset(seed=0)
    t0 = env.page_eval("Date.now()")
    env.step({"user": 'type(1, "5"); click(2); key("Tab"); scroll(0, 50); click_xy(10, 10)'})
    assert env.page_eval("Date.now()") - t0 == env.dt * 1000
