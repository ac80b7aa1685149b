"""The suite's schedule (slow files first, whole files per worker) and its one Chromium for pages."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
# `make test` runs one pytest worker per core (pytest-xdist): a worker's torch, BLAS and
# numba keep to one thread each (children inherit it), or the workers' thread pools oversubscribe the cores.
for _threads in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_threads, "1")

# The longest files first, longest first (wall seconds of one `-n 3` run, 2 cores, loaded): `make test` hands
# whole files to its workers in collection order, and a long one handed out last keeps a worker busy while the
# others idle. The Ray file is in the first batch: most of its minute is spent waiting (a cluster starting,
# two 20 s wall-clock episodes), which the other workers fill with CPU work; run last it was a minute with one
# core idle. Its pair test waits until the cluster shows both CPUs free, and passed 3 runs in 3 with three
# busy loops loading the two cores. The IDC rounds and the demo (the next longest) follow it, and the wall-budget
# test (a 9 s wall-clock episode waiting on 6 s replies, which the other workers fill); the files that had
# setups or calls of 10-25 s (a study report's runs, the CLI's GUI run, the findings pages) before the rest.
# The rest follow in collection order.
SLOW_FIRST = (
    "tests/test_bad_input.py", "tests/train/test_sb3.py", "tests/gui/test_contract.py", "tests/eval/test_ray.py",
    "tests/improve/test_games_idc.py", "tests/test_demo.py", "tests/gui/test_wall_budget.py",
    "tests/annotate/", "tests/gui/test_tasks.py", "tests/test_registry.py", "tests/llm/test_stand_ins.py",
    "tests/maps/test_maps.py", "tests/dashboard/", "tests/llm/test_skill_rulebooks.py",
    "tests/eval/test_study_report.py", "tests/gui/test_cli_run.py", "tests/findings/test_findings.py",
    "tests/findings/test_modality.py", "tests/eval/test_runner.py", "tests/eval/test_presets_run.py",
    "tests/play/test_play_web.py", "tests/test_reliability.py", "tests/games/test_catalog.py",
    "tests/games/test_parity.py", "tests/train/test_vlm.py", "tests/test_conditions.py",
    "tests/eval/test_agent_observes.py", "tests/games/test_screens.py", "tests/test_warmup.py",
    "tests/test_docs_site.py", "tests/test_page_injection.py",
    "tests/eval/test_endpoints.py", "tests/llm/test_games_pixel_player.py",
)


def pytest_collection_modifyitems(config, items):
    def rank(item) -> int:
        return next((i for i, prefix in enumerate(SLOW_FIRST) if item.nodeid.startswith(prefix)), len(SLOW_FIRST))

    items.sort(key=rank)  # stable: a file's own order is kept


# Folders whose tests share a session fixture that costs tens of seconds (the annotation study's runs) go to
# one worker whole; every other file is a unit of its own (pytest-xdist's `loadfile`).
ONE_WORKER_FOLDERS = ("tests/annotate/",)

try:
    from xdist.scheduler import LoadFileScheduling
except ImportError:  # pytest-xdist is in the dev extra; without it `make test` runs in one process
    LoadFileScheduling = None
else:

    class FileOrFolderScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return next((folder for folder in ONE_WORKER_FOLDERS if path.startswith(folder)), path)

    def pytest_xdist_make_scheduler(config, log):
        # xdist reorders scopes by their number of tests unless told not to, which would undo SLOW_FIRST
        config.option.loadscopereorder = False
        return FileOrFolderScheduling(config, log)


@pytest.fixture(scope="session")
def chromium():
    """One headless Chromium per test process (Playwright's sync API) for the tests that open a page the code
    wrote or serves: a launch is a Playwright driver and a browser process, seconds of CPU each, and nine
    launches (one per test or module) cost the 2-core suite about 30 s. Each test opens its own pages
    (`new_page`), so no state is shared but the process."""
    from playwright.sync_api import sync_playwright

    from rtarena.envs.gui.browser import CHROMIUM_ARGS, chromium_path

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(None), args=list(CHROMIUM_ARGS))
        yield browser
        browser.close()


@pytest.fixture
def new_page(chromium):
    """`new_page(**options)`: a page in a browser context of its own, closed with its context after the test
    (a page left open would keep its scripts running for the rest of the session)."""
    pages = []

    def open_page(**options):
        page = chromium.new_page(**options)
        pages.append(page)
        return page

    yield open_page
    for page in pages:
        page.context.close()


@pytest.fixture
def open_html(new_page):
    """`open_html(path, width=1200, height=900)`: a page the code wrote, loaded, and its problems (console
    errors, page errors, requests that failed), a list the test expects to stay empty."""

    def load(html: Path, width: int = 1200, height: int = 900):
        page = new_page(viewport={"width": width, "height": height})
        problems: list[str] = []
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.on("requestfailed", lambda r: problems.append(f"failed to load {r.url}"))
        page.goto(Path(html).resolve().as_uri())
        page.wait_for_load_state("load")
        return page, problems

    return load
