"""The offline failure-mode study and the annotator's speed: the live quiz under TL/TH/PH/WH, answered by the
scripted policy server (heuristic with reasoning tokens by effort; stale-target policy), annotated by rules.

    .venv/bin/python bench/annotate_study.py [--seeds 3] [--out /tmp/rtarena-annotate-study]

Prints, per policy and condition: episodes won, and how many lost episodes got each capability; then the
rule-based annotator's time per episode (DuckDB loading included). Expected: the heuristic loses only under
TH and WH, to RT-Deliberate; the stale-target policy loses everywhere, to RT-Perceive.
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from collections import Counter
from pathlib import Path

from rtarena.annotate.commands import annotate_run
from rtarena.annotate.store import read_rows
from rtarena.annotate.study import CONDITIONS, POLICIES, scripted_study


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--out", default="/tmp/rtarena-annotate-study")
    args = parser.parse_args()
    root = Path(args.out)
    shutil.rmtree(root, ignore_errors=True)
    started = time.perf_counter()
    runs = scripted_study(root, seeds=tuple(range(args.seeds)))
    played = time.perf_counter() - started
    print(f"{'policy':10} {'cond':5} {'won':>5}  capabilities of lost episodes")
    annotate_s, episodes = 0.0, 0
    for policy in POLICIES:
        for condition in CONDITIONS:
            run = runs[(policy, condition)]
            lines = [json.loads(x) for x in (run / "episodes.jsonl").read_text().splitlines()]
            won = sum(all(a.get("success", 0) >= 0.5 for a in line["agents"].values()) for line in lines)
            t0 = time.perf_counter()
            annotate_run(run)
            annotate_s += time.perf_counter() - t0
            episodes += len(lines)
            per_episode: dict[str, set] = {}
            for row in read_rows(run, "rules"):
                per_episode.setdefault(row["episode"], set()).add(row["capability"] or "none")
            counts = Counter(c for caps in per_episode.values() for c in caps if c != "none")
            print(f"{policy:10} {condition:5} {won:>2}/{len(lines):<2}  {dict(sorted(counts.items())) or '-'}")
    print(f"played {episodes} episodes in {played:.1f} s; rule-based annotation {1000 * annotate_s / episodes:.1f} ms "
          f"per episode (DuckDB loading included)")


if __name__ == "__main__":
    main()
