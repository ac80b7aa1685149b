"""Compile once: the numba cache lives in an explicit folder outside the install, and a fresh process on a
warm machine loads every kernel it plays with instead of compiling it (numba's dispatcher stats say so)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile

import pytest

from rtarena import numba_cache


def test_the_cache_folder_is_explicit_and_outside_the_install(monkeypatch, tmp_path):
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert numba_cache.use_cache_dir() == str(tmp_path / "cache" / "rtarena" / "numba")
    assert os.environ["NUMBA_CACHE_DIR"] == str(tmp_path / "cache" / "rtarena" / "numba")  # workers inherit it
    # a cache home that cannot be written (here: a path under a file) falls back to the temp folder
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    (tmp_path / "afile").write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "afile"))
    fallback = numba_cache.use_cache_dir()
    assert fallback.startswith(tempfile.gettempdir()) and "rtarena-numba" in fallback
    # a folder the user names is kept as it is
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "mine"))
    assert numba_cache.use_cache_dir() == str(tmp_path / "mine")


def test_the_package_sets_the_folder_before_numba_is_imported():
    import numba

    import rtarena

    assert os.environ["NUMBA_CACHE_DIR"] == numba.config.CACHE_DIR
    folder = os.path.realpath(numba.config.CACHE_DIR)
    for install in (os.path.dirname(os.path.dirname(numba.__file__)), os.path.dirname(rtarena.__file__)):
        assert not folder.startswith(os.path.realpath(install))  # never beside the sources of an install


@pytest.mark.timeout(1200)  # a cold cache compiles every kernel first (about 3 minutes on 2 cores)
def test_a_fresh_process_loads_every_kernel_from_the_warm_cache():
    command = [sys.executable, "-m", "rtarena.eval.warmup", "--check"]
    fresh = subprocess.run(command, capture_output=True, text=True)
    if fresh.returncode == 1 and re.search(r"\((?!0 )\d+ compiled", fresh.stdout):
        fresh = subprocess.run(command, capture_output=True, text=True)  # a cold cache: the first run filled it
    assert fresh.returncode == 0, fresh.stdout + fresh.stderr
    loaded = re.search(r"\(0 compiled, (\d+) loaded from the cache\)", fresh.stdout)
    assert loaded and int(loaded[1]) >= 20, fresh.stdout  # every arena, game and planner kernel, none compiled
