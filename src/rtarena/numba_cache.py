"""Where numba keeps the compiled kernels: an explicit folder outside the install, shared by every process.

numba's default cache sits in `__pycache__` beside the sources, inside the install (for a read-only one,
a system `site-packages` or a container layer, numba falls back to a per-user folder of its own): where
the compiled kernels live then depends on how rtarena was installed, and nothing names the folder that
`make` fills and the workers share. Without a cache every fresh process compiles the arena for about a
minute (103 s of CPU for every kernel). `use_cache_dir()` runs when `rtarena` is imported, before any
module imports numba: where `NUMBA_CACHE_DIR` is unset it points it at `$XDG_CACHE_HOME/rtarena/numba`
(`~/.cache/rtarena/numba`), and, if that folder cannot be written, at a per-user folder under the
system's temp directory. The variable is set in `os.environ`, so subprocesses and pool workers started
from here find the same cache, and a process started elsewhere (a Ray worker on the same machine)
computes the same folder when it imports rtarena. numba lays the cache out by the absolute path of each
source file, so two checkouts never mix, and keys each entry by signature, CPU (name and features) and
numba version, so a machine or numba upgrade recompiles instead of loading a stale kernel.
`rtarena warmup` (run by `make`) fills it once. Importing this module sets the folder (the package
imports it first).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path


def default_cache_dir() -> Path:
    """`$XDG_CACHE_HOME/rtarena/numba`, `~/.cache/rtarena/numba` without it."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "rtarena" / "numba"


def _writable(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(folder, os.W_OK | os.X_OK)


def use_cache_dir() -> str:
    """Set `NUMBA_CACHE_DIR` where the user has not, and return the folder in force."""
    chosen = os.environ.get("NUMBA_CACHE_DIR")
    if not chosen:
        folder = default_cache_dir()
        if not _writable(folder):
            folder = Path(tempfile.gettempdir()) / f"rtarena-numba-{os.getuid() if hasattr(os, 'getuid') else 0}"
        chosen = os.environ["NUMBA_CACHE_DIR"] = str(folder)
    config = sys.modules.get("numba.core.config")
    if config is not None and not config.CACHE_DIR:  # numba imported first: its config read the env already
        config.CACHE_DIR = chosen
    return chosen


use_cache_dir()
