"""Every browser task's page keeps BrowserGym's task contract (`pages/rt.js`), called by the Python names of
`session.PageSession`: `RT.setup(cfg)` builds the episode, `RT.validate()` says it is not solved yet, and the
task's own `RT.cheat(lead, period)`, played one decision per observation on the page's paused clock, makes
`RT.validate()` say solved within the deadline, with no failed action, crossing two or more pages of a site.

One Chromium for all 50 tasks (the process's `BrowserHost`), one tab per viewport, no screenshots. The same
solution played by the oracle agent through the runtime under the token clock is `test_tasks.py`'s.
"""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest
from tests.gui.helpers import GUI_IDS

from rtarena.envs.gui import actions as gui_actions
from rtarena.envs.gui.browser import BrowserHost, chromium_path
from rtarena.envs.gui.server import PageServer
from rtarena.envs.gui.session import T0_ISO, PageSession
from rtarena.envs.gui.spec import TaskSpec, load_spec


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


@pytest.mark.parametrize("env_id", GUI_IDS)
def test_setup_then_validate_false_then_cheat_then_validate_true(env_id, tab):
    spec = spec_of(env_id)
    session = tab(tuple(spec.viewport))
    snap, _ = session.open(PageServer.shared().url(spec.page), {"seed": 0, "dt": spec.dt, "params": spec.params})
    assert session.validate() == {"done": False, "success": False, "progress": 0, "why": ""}
    assert snap["vars"], "setup draws the goal's values from the seed"
    period = spec.dt * spec.obs_every  # one decision per observation
    marks, failed, elapsed = snap["marks"], [], 0.0
    views = {e["view"] for e in snap["events"] if e["type"] == "page"}
    while not snap["task"]["done"] and elapsed < spec.time_limit_s:  # each snapshot carries RT.validate()
        calls = [c for c in gui_actions.parse(session.cheat(0.0, period)) if c.name != "wait"]
        snap, _, done = session.step(calls, {m["id"]: m["box"] for m in marks}, round(period * 1000))
        marks, elapsed = snap["marks"], elapsed + period
        failed += [e for e in done if e["type"] == "failed_action"]
        views |= {e["view"] for e in snap["events"] if e["type"] == "page"}
    verdict = session.validate()
    assert verdict["done"] and verdict["success"] and verdict["progress"] == 1, verdict["why"]
    assert elapsed <= (spec.deadline_s or spec.time_limit_s) + spec.dt
    assert not failed
    if env_id.startswith("web/"):  # a site, not a single widget: the way to the goal crosses its pages
        assert len(views) >= 2
    assert session.cheat(0.0, period) == "wait()"  # nothing left to do once decided


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
