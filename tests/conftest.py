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

# Files that train, improve or play whole games for tens of seconds start first: `make test` hands whole files
# to its workers in collection order, and one of these collected last keeps a worker busy while the others idle.
SLOW_FIRST = ("tests/train/", "tests/improve/test_games_idc.py", "tests/llm/test_stand_ins.py", "tests/annotate/",
              "tests/test_demo.py", "tests/gui/test_tasks.py", "tests/gui/test_contract.py", "tests/maps/test_maps.py",
              "tests/dashboard/", "tests/eval/test_runner.py", "tests/play/", "tests/findings/",
              "tests/llm/test_skill_rulebooks.py", "tests/eval/test_ray.py", "tests/eval/test_records_safety.py",
              "tests/gui/test_wall_budget.py")


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
        return FileOrFolderScheduling(config, log)
