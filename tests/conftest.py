"""Shared fixtures: small envs and agents used by the runtime tests."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
# `make test` runs one pytest worker per core (pytest-xdist): a worker's torch, BLAS and
# numba keep to one thread each (children inherit it), or the workers' thread pools oversubscribe the cores.
for _threads in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_threads, "1")

# The longest files first, longest first (wall seconds of one `-n 3` run, 2 cores, loaded): `make test` hands
# whole files to its workers in collection order, and a long one handed out last keeps a worker busy while the
# others idle. The rest follow in collection order, then LAST: the Ray cluster's second node starts its
# worker for a new driver 4-20 s late while the suite's first files load both cores (the pair test's
# episodes of 20 s then no longer overlap), and the load is lowest at the end.
SLOW_FIRST = (
    "tests/test_bad_input.py", "tests/train/test_sb3.py", "tests/gui/test_contract.py", "tests/annotate/",
    "tests/gui/test_tasks.py", "tests/test_registry.py", "tests/llm/test_stand_ins.py", "tests/maps/test_maps.py",
    "tests/dashboard/", "tests/llm/test_skill_rulebooks.py",
    "tests/improve/test_games_idc.py", "tests/eval/test_runner.py", "tests/eval/test_presets_run.py",
    "tests/play/test_play_web.py", "tests/test_demo.py", "tests/test_reliability.py", "tests/games/test_catalog.py",
    "tests/games/test_parity.py", "tests/train/test_vlm.py",
)


LAST = ("tests/eval/test_ray.py",)


def pytest_collection_modifyitems(config, items):
    def rank(item) -> int:
        if item.nodeid.startswith(LAST):
            return len(SLOW_FIRST) + 1
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
