"""Screenshots of `rtarena play --web` for docs/play.md: one per family, taken with Playwright in Chromium.

    PYTHONPATH=src python bench/play_screenshots.py [--out docs/images/play]

Each env is started with the real CLI (`--web --no-open --port 0 --max-steps N`), a page is opened, a
few keys are held (or, for a browser task, the marks are shown), and the page is captured mid-episode.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rtarena.envs.gui.browser import chromium_path

# env id, CLI options, keys held before the capture (page key names), show the marks
SHOTS = [
    ("arena/basic-v0", ["--max-steps", "80"], ["w", "q"], False),
    ("games/monsters-v0", ["--max-steps", "60"], ["w"], False),
    ("web/bikedock-v0", ["--max-steps", "40"], [], True),
    ("gui-games/snake-v0", ["--max-steps", "40"], ["ArrowUp"], False),
]


def shoot(page_factory, env_id: str, options: list[str], keys: list[str], marks: bool, out: Path) -> Path:
    with tempfile.TemporaryDirectory() as runs:
        proc = subprocess.Popen([sys.executable, "-m", "rtarena.cli", "play", env_id, "--web", "--no-open", "--port",
                                 "0", "--out", runs, *options], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True)
        url = None
        while url is None:
            line = proc.stdout.readline()
            if not line:
                raise RuntimeError(f"{env_id}: the play command ended before printing its URL")
            if found := re.search(r"(http://127\.0\.0\.1:\d+/)", line):
                url = found.group(1)
        page = page_factory()
        page.goto(url)
        page.wait_for_selector("canvas[data-version]")
        if marks:
            page.check("#show-marks")
        for key in keys:
            page.keyboard.down(key)
        time.sleep(1.5)
        path = out / f"{env_id.split('/')[0]}.png"
        page.screenshot(path=str(path), full_page=True)
        for key in keys:
            page.keyboard.up(key)
        page.close()
        proc.communicate(timeout=120)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/images/play"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(None))
        for env_id, options, keys, marks in SHOTS:
            size = {"width": 1000, "height": 760} if "/" in env_id and env_id.startswith(("web", "gui")) else \
                {"width": 900, "height": 700}
            print(shoot(lambda size=size: browser.new_page(viewport=size), env_id, options, keys, marks, args.out))
        browser.close()


if __name__ == "__main__":
    main()
