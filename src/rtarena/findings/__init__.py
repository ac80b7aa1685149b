"""`rtarena findings`: the three papers' headline findings, reproduced offline, on one page.

Each finding (`catalog.py: FINDINGS`, one row each) runs a bundled preset, or `rtarena improve`, through
the project's own runner against the scripted policy server (`rtarena serve-policy`, started here on a free
port of 127.0.0.1: a scripted stand-in, never a model), reads the numbers back with DuckDB
(`eval/tables.py`), and states the paper's figure beside ours and whether the direction matches. The page
(`page.py`) is `findings.md` and a self-contained `findings.html`, one chart per finding (`eval/svg.py`).

`--quick` shrinks every finding (fewer seeds, shorter episodes, fewer levels) to finish in minutes; the
full run uses the papers' seed counts. A finding that cannot run here (no Chromium for the web tasks) is
reported as skipped with its reason, and the others still run.
"""

from __future__ import annotations

from rtarena.findings.catalog import FINDINGS, finding_names, run_findings

__all__ = ["FINDINGS", "finding_names", "run_findings"]
