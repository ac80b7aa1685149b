"""The editor's page in Chromium: build a small map, see problems live, preview, save, then play it with bots."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from rtarena.editor.server import start_server
from rtarena.envs.arena.maps import read_map_file, validate_map
from rtarena.envs.arena.maps.topdown import palette_css


@pytest.fixture
def page(new_page):
    return new_page(viewport={"width": 1200, "height": 800}, bypass_csp=True)  # wait_for_function uses eval


def test_editor_builds_saves_and_the_map_plays(page, tmp_path):
    path = tmp_path / "small.toml"
    server, url = start_server(path, level="arena/basic-v0")
    try:
        page.goto(url)
        page.wait_for_selector("body[data-ready='1']")
        # the editor draws with the arena's one top-down palette (the minimap's, `rtarena map render`'s)
        assert page.evaluate("PALETTE") == json.loads(json.dumps(palette_css()))
        page.fill("#size", "30")
        page.dispatch_event("#size", "change")

        def at(x, y):
            return page.evaluate(f"editor.toPx({x}, {y})")

        def drag(a, b):
            page.mouse.move(*at(*a))
            page.mouse.down()
            page.mouse.move(*at(*b), steps=4)
            page.mouse.up()

        page.click("button[data-tool=wall]")
        drag((14, 4), (15, 22))
        page.click("button[data-tool=crate]")
        drag((20, 20), (21.5, 21.5))
        page.click("button[data-tool=spawns]")
        page.mouse.click(*at(4, 4))
        page.click("button[data-tool=coins]")
        for x, y in ((20, 8), (25, 25), (14.5, 10)):  # the last one inside the wall
            page.mouse.click(*at(x, y))
        page.wait_for_selector("#problems li[data-field='coins[2]']")
        assert "overlaps obstacles[0]" in page.inner_text("#problems")
        page.click("button[data-tool=erase]")
        page.mouse.click(*at(14.5, 10))
        page.wait_for_selector("#problems.ok")
        page.click("button[data-tool=move]")  # move the second coin from (25, 25) to (26, 24)
        drag((25, 25), (26, 24))
        page.click("button[data-tool=view]")
        drag((4, 4), (20, 8))
        page.wait_for_selector("#preview[data-shown='1']", timeout=60_000)
        page.click("#save")
        page.wait_for_function("document.querySelector('#status').textContent.startsWith('saved')")
    finally:
        server.stop()
    table = read_map_file(path)
    assert table["size_m"] == 30
    assert table["obstacles"] == [[14, 4, 15, 22, 3, "wall"], [20, 20, 21.5, 21.5, 0.9, "crate"]]
    assert table["spawns"] == [[4, 4]] and table["coins"] == [[20, 8], [26, 24]]
    assert validate_map(table, players=1) == []
    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "-m", "rtarena.cli", "run", "arena/basic-v0", "--map", str(path),
                           "--agent", "heuristic", "--clock", "paused", "--max-steps", "240", "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    line = json.loads((out / "episodes.jsonl").read_text().splitlines()[-1])
    assert line["agents"]["p0"]["return"] >= 1.0  # the bot collected coins on the edited map
