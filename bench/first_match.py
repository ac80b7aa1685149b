"""How soon a fresh process finishes its first arena match, with the kernels in the numba cache.

    /usr/bin/time -v .venv/bin/python bench/first_match.py

Imports rtarena, then plays `arena/coop-v0` (4 heuristic bots, every observation modality, a picture, 8
paused steps) and prints the seconds since the first import; `/usr/bin/time` adds the CPU time, which is the
wall time a quiet machine would show. Run `rtarena warmup` first (make does), or it times the cold compile.
"""

import time

started = time.perf_counter()

from rtarena.eval.episodes import EpisodeJob, play_episode  # noqa: E402  (timed from before the import)
from rtarena.eval.warmup import ARENA_SENSES  # noqa: E402

play_episode(EpisodeJob("arena/coop-v0", ("heuristic",), "paused", seed=0, max_steps=8, env_kwargs=ARENA_SENSES))
print(f"first match done {time.perf_counter() - started:.2f} s after the first import")
