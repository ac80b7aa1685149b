"""How a latency replay went: the trace's wall latencies against the delays the replay clock charged.

A run under `--clock replay` (`runtime/clocks.py: ReplayClock`) should charge its decisions the latency
profile of the run it replays; `replay_summary` puts the two side by side (quantiles in milliseconds, and
the median's relative error), and `replay_sections` gives `rtarena report` a table and a box chart per
replay run.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

import numpy as np

from rtarena.errors import UserError
from rtarena.eval import svg
from rtarena.eval.store import read_episodes
from rtarena.runtime.latency_trace import load_trace

QUANTILES = (5, 25, 50, 75, 95)


@dataclass(frozen=True)
class ReplaySummary:
    """One replay run: its trace, and the quantiles (`QUANTILES`, ms) of the trace and of the replay."""

    run: str
    trace: str
    model: str
    trace_ms: tuple[float, ...]
    replay_ms: tuple[float, ...]
    decisions: int

    @property
    def median_error(self) -> float:
        """|replayed median - trace median| / trace median."""
        return abs(self.replay_ms[2] - self.trace_ms[2]) / self.trace_ms[2]


def replay_summary(run_dir: Path, con: Any) -> ReplaySummary | None:
    """The replay summary of `run_dir` (a run in `con`'s views), None when it was not run under `replay`."""
    clocks = [line.get("clock") or {} for line in read_episodes(run_dir) if line.get("status", "ok") == "ok"]
    replays = [c for c in clocks if c.get("clock") == "replay"]
    if not replays:
        return None
    trace = load_trace(replays[0]["latency_trace"])
    delays = [row[0] for row in con.execute(
        "SELECT delay_sim_s FROM decisions WHERE run_id = ? AND delay_sim_s IS NOT NULL", [run_dir.name]).fetchall()]
    if not delays:
        return None
    quantiles = lambda values: tuple(float(v) * 1000 for v in np.percentile(values, QUANTILES))  # noqa: E731
    return ReplaySummary(run_dir.name, str(replays[0]["latency_trace"]), str(replays[0].get("latency_model")),
                         quantiles(trace.pooled.latency_s), quantiles(np.array(delays)), len(delays))


def replay_chart(summary: ReplaySummary) -> str:
    """A box chart: the trace's wall latencies beside the replay's charged delays (ms)."""
    return svg.box_chart(f"latency replay {summary.run}: p5 p25 p50 p75 p95 (ms)", "ms",
                         {"trace: wall latency": summary.trace_ms, "replay: charged delay": summary.replay_ms})


def replay_sections(dirs: list[Path], con: Any, section_type: type) -> list[Any]:
    """The report's "latency replay" sections (`section_type(title, markdown, html)`), one per replay run."""
    out = []
    for run_dir in dirs:
        try:
            summary = replay_summary(run_dir, con)
        except UserError as missing:  # the trace was moved or deleted since: say so, keep the rest of the report
            line = str(missing)
            out.append(section_type(f"latency replay: {run_dir.name}", [line], [f"<p>{escape(line)}</p>"]))
            continue
        if summary is None:
            continue
        header = "| | " + " | ".join(f"p{q}" for q in QUANTILES) + " |"
        rows = [f"| {name} | " + " | ".join(f"{v:.1f}" for v in values) + " |"
                for name, values in (("trace wall latency (ms)", summary.trace_ms),
                                     ("replayed delay (ms)", summary.replay_ms))]
        line = (f"{summary.decisions} decisions replayed from {summary.trace} ({summary.model}); the medians "
                f"differ by {summary.median_error:.1%}.")
        md = [line, "", header, "|---" * (len(QUANTILES) + 1) + "|", *rows]
        html = [f'<p class="muted" data-median-error="{summary.median_error!r}">{escape(line)}</p>',
                replay_chart(summary)]
        out.append(section_type(f"latency replay: {summary.run}", md, html))
    return out
