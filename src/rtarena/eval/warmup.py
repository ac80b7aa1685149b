"""`rtarena warmup`: compile every numba kernel once, into the cache (`rtarena.numba_cache`), at install.

An arena match with an empty cache first compiles for about a minute; `make` runs this once so that the
first match of a fresh process (a test, `make demo`, a worker of `rtarena eval`) loads the kernels instead.
The jobs below reach every compiled path: each arena level with every observation modality and a picture
to render, each suite game (the 2D canvas and the first-person renderer), the scripted arena planner, the
spectator's overhead map and the map checker's flood fill.
`compiled_signatures()` is what the no-compile test reads: numba's dispatcher stats say, per kernel,
which signatures came from the cache.

    python -m rtarena.eval.warmup            # or: rtarena warmup
    python -m rtarena.eval.warmup --check    # exit 1 if any kernel compiled: a cache miss
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

from rtarena.envs.registry import ENV_TABLE
from rtarena.eval.episodes import EpisodeJob, play_episode

ARENA_SENSES = {"obs": ("text", "state", "rgb", "depth", "minimap", "audio"), "render_mode": "rgb_array"}
STEPS = 8


def warmup_jobs() -> list[EpisodeJob]:
    """Short paused-clock episodes with scripted agents that between them call every kernel: the first row
    of each arena level and suite game class (a game's variants are level-file overrides of the same code)."""
    rows: dict[str, str] = {}
    for spec in ENV_TABLE:
        if spec.family in ("arena", "games"):
            rows.setdefault(spec.entry_point, spec.id)
    jobs = [EpisodeJob(env_id, ("heuristic",), "paused", seed=0, max_steps=STEPS, label="warmup",
                       env_kwargs=ARENA_SENSES if env_id.startswith("arena/") else {})
            for env_id in rows.values()]
    # one player seeing pixels alone: the fused step (`envs/arena/fused.py`, the vector env's kernel too)
    return [*jobs, EpisodeJob("arena/basic-v0", ("heuristic",), "paused", seed=0, max_steps=STEPS, label="warmup",
                              env_kwargs={"obs": ("rgb",)})]


def spectator_frame() -> None:
    """One `render()` of an arena level: the spectator's overhead map beside the players' views (videos, the
    dashboard, human play), a kernel the episodes above never call."""
    import rtarena

    env = rtarena.make("arena/basic-v0", render_mode="rgb_array", obs=("rgb",))
    env.reset(seed=0)
    env.render()
    env.close()


def dispatchers() -> Iterator[tuple[str, object]]:
    """Every numba dispatcher defined in an imported `rtarena` module, by qualified name."""
    from numba.core.dispatcher import Dispatcher

    for module_name, module in list(sys.modules.items()):
        if not module_name.startswith("rtarena") or module is None:
            continue
        for attr, value in list(vars(module).items()):
            if isinstance(value, Dispatcher) and value.py_func.__module__ == module_name:
                yield f"{module_name}.{attr}", value


def compiled_signatures() -> dict[str, dict[str, int]]:
    """Per kernel: signatures compiled in this process, loaded from the cache, and compiled after a miss."""
    counts = {}
    for name, dispatcher in dispatchers():
        stats = dispatcher.stats
        counts[name] = {"signatures": len(dispatcher.signatures), "cache_hits": sum(stats.cache_hits.values()),
                        "cache_misses": sum(stats.cache_misses.values())}
    return counts


def warmup(progress: Any = None) -> dict[str, Any]:
    """Play the warm-up jobs; return the seconds taken (all, and the first match) and what was compiled.
    `progress(line)` hears each job as it starts (a first install compiles for about a minute: no silence)."""
    started = time.perf_counter()
    first = None
    jobs = warmup_jobs()
    for number, job in enumerate(jobs, 1):
        if progress is not None:
            progress(f"rtarena warmup: [{number}/{len(jobs) + 1}] {job.env_id} "
                     f"({time.perf_counter() - started:.0f} s so far)")
        play_episode(job)
        first = first or time.perf_counter() - started
    if progress is not None:
        progress(f"rtarena warmup: [{len(jobs) + 1}/{len(jobs) + 1}] the map checker and the spectator's view")
    from rtarena.envs.arena.maps.grid import label_free

    label_free(np.zeros((2, 2), dtype=bool))  # the map checker's fill (`rtarena map`, procedural maps)
    spectator_frame()
    counts = compiled_signatures()
    return {"seconds": time.perf_counter() - started, "first_match_s": first,
            "kernels": sum(1 for c in counts.values() if c["signatures"]),
            "signatures": sum(c["signatures"] for c in counts.values()),
            "loaded": sum(c["cache_hits"] for c in counts.values()),
            "compiled": sorted(name for name, c in counts.items() if c["signatures"] > c["cache_hits"])}


def main(check: bool = False) -> int:
    """Print what was compiled and loaded; with `check`, return 1 where anything compiled."""
    summary = warmup(progress=lambda line: print(line, file=sys.stderr, flush=True))
    print(f"rtarena warmup: {summary['signatures']} signatures of {summary['kernels']} kernels "
          f"({summary['signatures'] - summary['loaded']} compiled, {summary['loaded']} loaded from the cache) in "
          f"{summary['seconds']:.1f} s (first match {summary['first_match_s']:.1f} s); "
          f"cache: {os.environ.get('NUMBA_CACHE_DIR')}")
    if check and summary["compiled"]:
        print(f"rtarena warmup: compiled instead of loading from the cache: {', '.join(summary['compiled'])}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(check="--check" in sys.argv[1:]))
