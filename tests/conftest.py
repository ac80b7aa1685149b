"""Shared fixtures: small envs and agents used by the runtime tests."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
# `make test` runs one pytest worker per core (pytest-xdist): a worker's torch, BLAS and numba keep to one
# thread each (children inherit it), or two workers' thread pools oversubscribe the cores and spin.
for _threads in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_threads, "1")
