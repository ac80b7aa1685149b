"""Every browser task's page keeps BrowserGym's task contract (`pages/rt.js`), called by the Python names of
`session.PageSession`: `RT.setup(cfg)` builds the episode from the seed and `RT.validate()` says it is not
solved yet; waiting and random clicking leave it unsolved, and the page lives on by itself with no input.
The task's own `RT.cheat(lead, period)` making `RT.validate()` say solved (within the deadline, with no
failed action, crossing two or more pages of a site) is played by the oracle agent through the runtime under
the token clock: `test_tasks.py`.

One Chromium for all 50 tasks (the process's `BrowserHost`), one tab per viewport, no screenshots.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from types import SimpleNamespace
from urllib.parse import quote

import pytest
from tests.gui.helpers import GUI_IDS

from rtarena.agents.gui_random import GuiRandomAgent
from rtarena.envs.gui import actions as gui_actions
from rtarena.envs.gui.browser import BrowserHost, chromium_path
from rtarena.envs.gui.server import PageServer
from rtarena.envs.gui.session import T0_ISO, PageSession
from rtarena.envs.gui.spec import TaskSpec, load_spec

# the page less the header's clock: the markup of the body (without the env's own mark ids) and the pixels of
# any canvas
LIVE_STATE = """(() => Array.from(document.body.children).filter((e) => !e.matches("header.site, script"))
  .map((e) => e.outerHTML).join("").replace(/ data-rt-mark="\\d+"/g, "")
  + Array.from(document.querySelectorAll("canvas")).map((c) => c.toDataURL()).join())()"""


def spec_of(env_id: str) -> TaskSpec:
    return load_spec(env_id.split("/", 1)[1].removesuffix("-v0"))


@pytest.fixture(scope="module")
def tab():
    """`tab(viewport)`: one page session per viewport, shared by every task of this module."""
    sessions: dict[tuple[int, int], PageSession] = {}

    def get(viewport: tuple[int, int]) -> PageSession:
        if viewport not in sessions:
            sessions[viewport] = PageSession(chromium_path(), viewport, 80, text=False, screenshot=False)
        return sessions[viewport]

    yield get
    for session in sessions.values():
        session.close()


def open_task(session: PageSession, spec: TaskSpec, seed: int = 0) -> dict:
    return session.open(PageServer.shared().url(spec.page), {"seed": seed, "dt": spec.dt, "params": spec.params})[0]


def play(session: PageSession, spec: TaskSpec, snap: dict, choose: Callable[[list[dict]], str],
         until: Callable[[], bool] = lambda: False, limit_s: float | None = None,
         ) -> tuple[dict, float]:
    """Play `choose(marks)` once per observation (one decision per observation, taking no page time) from the
    snapshot `snap` until the page says done, `until()` (asked after every observation) says so, or `limit_s`
    (the task's time limit) passes. Returns the last snapshot and the page seconds played."""
    period, limit_s = spec.dt * spec.obs_every, limit_s or spec.time_limit_s
    marks, elapsed = snap["marks"], 0.0
    while not snap["task"]["done"] and elapsed < limit_s:  # each snapshot carries RT.validate()
        calls = [c for c in gui_actions.parse(choose(marks)) if c.name != "wait"]
        snap, _, _ = session.step(calls, {m["id"]: m["box"] for m in marks}, round(period * 1000))
        marks, elapsed = snap["marks"], elapsed + period
        if until():
            break
    return snap, elapsed


@pytest.mark.parametrize("env_id", GUI_IDS)
def test_setup_then_waiting_and_random_clicking_lose_while_the_page_lives_on(env_id, tab):
    """`RT.setup(cfg)` draws the goal's values from the seed and `RT.validate()` says not solved; the page
    changes by itself within twelve seconds of page time with no input (its live counterpart: a ticking clock,
    a moving rival, a falling piece); waiting out the time limit, and the random agent's clicks, keys and
    typing on the marks it sees (`GuiRandomAgent`, seeded), leave the task unsolved."""
    spec = spec_of(env_id)
    session = tab(tuple(spec.viewport))
    snap = open_task(session, spec)
    assert session.validate() == {"done": False, "success": False, "progress": 0, "why": ""}
    assert snap["vars"], "setup draws the goal's values from the seed"
    first = session.evaluate(LIVE_STATE)
    snap, elapsed = play(session, spec, snap, lambda marks: "wait()",
                         until=lambda: session.evaluate(LIVE_STATE) != first, limit_s=12.0)
    assert session.evaluate(LIVE_STATE) != first, "the page should change by itself within 12 s"
    if not snap["task"]["done"]:  # the rest of the time limit in one run of the page clock
        session.step([], {}, round((spec.time_limit_s - elapsed) * 1000))
    verdict = session.validate()
    assert not verdict["success"] and verdict["progress"] < 1, f"waiting: {verdict['why']}"
    random = GuiRandomAgent()
    random.reset(SimpleNamespace(seed=0))  # it reads only the seed of its context
    play(session, spec, open_task(session, spec), lambda marks: random.act({"marks": json.dumps(marks)}).action)
    verdict = session.validate()
    assert not verdict["success"] and verdict["progress"] < 1, f"random: {verdict['why']}"


def test_a_page_opened_with_cfg_in_its_url_sets_itself_up_once(tab):
    """A person's browser opens `page?cfg=...`: the page runs the same setup as `RT.setup(cfg)` from the env,
    and a second setup in the same page load is refused."""
    spec = spec_of("web/auction-v0")
    cfg = {"seed": 3, "dt": spec.dt, "params": spec.params}
    url = PageServer.shared().url(spec.page)
    snap, _ = tab(tuple(spec.viewport)).open(url, cfg)
    host = BrowserHost.shared()

    async def open_by_url() -> tuple[dict, str]:
        context = await (await host.browser()).new_context()
        await context.clock.pause_at(T0_ISO)
        page = await context.new_page()
        await page.goto(url + "?cfg=" + quote(json.dumps(cfg)))
        values = await page.evaluate("RT.task.vars")
        again = await page.evaluate("(cfg) => { try { RT.setup(cfg); return 'set up twice'; } "
                                    "catch (e) { return String(e); } }", cfg)
        await context.close()
        return values, again

    values, again = host.call(open_by_url)
    assert values == snap["vars"]
    assert "one episode per page load" in again
