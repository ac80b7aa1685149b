"""`rtarena play ENV_ID --web`: real key presses and clicks in Chromium reach the env through the page.

Each test starts the real CLI (`python -m rtarena.cli play ... --web --no-open --port 0`), reads the URL
it prints, and drives the page with Playwright as the person, in the session's one Chromium (`new_page`).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

pytestmark = pytest.mark.timeout(240)


class Served:
    """`rtarena play ... --web` in a subprocess, with the URL it printed."""

    def __init__(self, out: Path, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "rtarena.cli", "play", *args, "--web", "--no-open", "--port", "0", "--out",
             str(out)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines = []
        self.url = None
        while self.url is None:
            line = self.proc.stdout.readline()
            assert line, "".join(self.lines)
            self.lines.append(line)
            if found := re.search(r"(http://127\.0\.0\.1:\d+/)", line):
                self.url = found.group(1)

    def finish(self) -> str:
        output = "".join(self.lines) + self.proc.communicate(timeout=120)[0]
        assert self.proc.returncode == 0, output
        return output


def last_line(out: Path) -> dict:
    return json.loads((out / "episodes.jsonl").read_text().splitlines()[-1])


def test_tilefall_keys_in_the_page_move_the_player_and_the_records_name_the_human(tmp_path, new_page, capsys):
    served = Served(tmp_path, "games/tilefall-v0", "--max-steps", "30")
    page = new_page()
    page.goto(served.url)
    page.wait_for_selector("canvas[data-version]")
    page.keyboard.down("a")  # west, at 3 m/s (from x = 5.5 m on the 8 m floor)
    page.wait_for_timeout(1500)  # a loaded machine steps the wall-clock world late: 1 s once walked 0.9 m
    page.keyboard.up("a")
    page.wait_for_selector("body[data-done='1']", timeout=60000)
    readout = page.inner_text("#latency")
    assert re.search(r"frame \d+ ms old at the server \+ \d+ ms on the way, input \d+ ms round trip, \d+ fps", readout)
    page.close()
    output = served.finish()
    line = last_line(tmp_path)
    assert line["agent_specs"] == ["human:web"] and line["humans"] == {"p0": "web"} and not line["interrupted"]
    assert line["clock"]["clock"] == "wall" and line["steps"] == 30
    assert line["walked_m"]["p0"] > 1.0, output  # 3 m/s for the 1.5 s A was held
    agents = pq.read_table(tmp_path / "agents").to_pylist()
    assert [(a["agent"], a["spec"], a["agent_label"]) for a in agents] == [("p0", "human:web", "human:web")]
    decisions = pq.read_table(tmp_path / "decisions").to_pylist()
    west = [d for d in decisions if "[0, 1, 0, 0]" in d["action"]]
    assert len(west) >= 5, [d["action"] for d in decisions[:5]]
    # a human run is a run: the leaderboard ranks it and the dashboard lists it like any agent's
    from tests.test_bad_input import run_cli

    from rtarena.dashboard.data import Store

    code, shown = run_cli(["leaderboard", str(tmp_path)], capsys)
    assert code == 0 and re.search(r"human:web\s+│\s+[\d.]+", shown), shown
    assert [run["agents"] for run in Store(tmp_path.parent).runs() if run["run_id"] == tmp_path.name] == \
        [["human:web"]]


def test_a_person_books_a_bike_through_the_page(tmp_path, new_page):
    served = Served(tmp_path, "web/bikedock-v0", "--dt", "0.2")
    page = new_page(viewport={"width": 1400, "height": 1000})
    page.goto(served.url)
    page.wait_for_selector("canvas[data-version]")
    page.check("#show-marks")
    station = re.search(r"at the (.+?) station", page.inner_text("#goal")).group(1)

    def click_mark(pattern: str) -> None:
        """Find the labelled element as a person reading the marked screenshot would, and click it."""
        deadline = time.time() + 20
        while time.time() < deadline:
            box = page.evaluate("""(pattern) => {
                const mark = [...document.querySelectorAll('#marks .mark')]
                    .find((m) => new RegExp(pattern, 'i').test(m.dataset.text));
                return mark ? mark.getBoundingClientRect().toJSON() : null;
            }""", pattern)
            if box:
                page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
                return
            page.wait_for_timeout(100)
        raise AssertionError(f"no mark matching {pattern!r}")

    click_mark(re.escape(station))
    page.wait_for_timeout(600)
    click_mark(r"reserve.*e-bike|e-bike.*reserve")
    page.wait_for_selector("body[data-done='1']", timeout=60000)
    page.close()
    served.finish()
    line = last_line(tmp_path)
    assert line["agents"]["user"]["success"] == 1.0 and line["agent_specs"] == ["human:web"]
    decisions = pq.read_table(tmp_path / "decisions").to_pylist()
    clicks = [d for d in decisions if d["action"].startswith("click_xy(")]
    assert len(clicks) == 2 and all(d["committed_sim_s"] is not None for d in clicks)


def serve_in_thread(builders, out: Path) -> tuple[list[str], list[dict], threading.Thread]:
    """`play_web` in a thread of this process (the CLI's own code, without its start-up)."""
    from rtarena.play.web import play_web

    urls: list[str] = []
    lines: list[dict] = []
    thread = threading.Thread(target=lambda: lines.extend(
        play_web(builders, open_browser=False, echo=lambda text: urls.append(text.split()[2]), out=out)))
    thread.start()
    while not urls:
        time.sleep(0.05)
    return urls, lines, thread


def test_a_page_that_goes_away_ends_the_episode_as_interrupted(tmp_path, new_page):
    from rtarena.play.session import HumanSession

    urls, lines, thread = serve_in_thread([lambda: HumanSession.build("games/tilefall-v0")], tmp_path)  # 40 s
    page = new_page()
    page.goto(urls[0])
    page.wait_for_selector("canvas[data-version]")
    page.close()
    thread.join(timeout=30)
    [line] = lines
    assert line["interrupted"] and line["interrupted_why"] == "the page disconnected"
    assert 0 < line["steps"] < 100  # ended about DISCONNECT_S after the page left, not at the time limit
    assert line == last_line(tmp_path) and (tmp_path / "steps" / f"{line['episode']}.parquet").exists()


def test_a_preset_session_plays_its_envs_in_turn_in_one_page(tmp_path, new_page):
    from rtarena.play.session import HumanSession

    builders = [lambda e=e: HumanSession.build(e, max_steps=8) for e in ("games/tilefall-v0", "games/runner2d-v0")]
    urls, lines, thread = serve_in_thread(builders, tmp_path)
    page = new_page(bypass_csp=True)  # wait_for_function evaluates with eval, which the page's CSP forbids
    page.goto(urls[0])
    page.wait_for_selector("body[data-family='games'] canvas[data-version]")
    page.click("#start")
    page.wait_for_function("document.getElementById('title').textContent.includes('runner2d')",
                           timeout=60000)  # the page reloaded itself for the second env
    page.wait_for_selector("canvas[data-version]")
    page.click("#start")
    thread.join(timeout=60)
    page.close()
    assert [line["env_id"] for line in lines] == ["games/tilefall-v0", "games/runner2d-v0"]
    assert all(line["agent_specs"] == ["human:web"] and line["steps"] == 8 for line in lines)
    assert len((tmp_path / "episodes.jsonl").read_text().splitlines()) == 2


def test_the_episode_starts_at_the_persons_start_after_its_first_frame(tmp_path, new_page):
    """Issue 47: the clock started when the page loaded (1.8 s of a 40 s game gone before the first frame),
    and the page logged 404s until the first frame existed."""
    from rtarena.play.session import HumanSession

    urls, lines, thread = serve_in_thread([lambda: HumanSession.build("games/tilefall-v0", max_steps=8)], tmp_path)
    page = new_page()
    failed = []  # a 404 (the frame before it existed, a favicon) logs an error in the console
    page.on("response", lambda response: failed.append(response.url) if response.status >= 400 else None)
    page.on("console", lambda message: failed.append(message.text) if message.type == "error" else None)
    page.goto(urls[0])
    page.wait_for_selector("canvas[data-version]")
    first = page.get_attribute("#view", "data-version")
    assert page.is_visible("#start")
    page.wait_for_timeout(1500)  # six steps of 250 ms, were the world running
    assert page.get_attribute("#view", "data-version") == first  # the world waits for the person
    assert page.is_visible("#start")
    pressed = time.monotonic()
    page.keyboard.press("a")  # the first key starts it
    page.wait_for_selector("body[data-done='1']", timeout=60000)
    played_s = time.monotonic() - pressed
    # what the page logged while the episode ran: once it is over the server ends, and the page's next poll (for
    # a preset's next episode) finds no server, a refused connection Chromium logs, which is not this test's
    during = list(failed)
    assert not page.is_visible("#start")
    thread.join(timeout=30)
    page.close()
    [line] = lines
    assert line["steps"] == 8 and not line["interrupted"] and during == []
    assert line["wall_seconds"] < played_s + 0.5  # the 1.5 s before the key are not the episode's
