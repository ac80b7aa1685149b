"""`rtarena findings`: the three papers' measurements as controlled experiments, offline, on one page.

Each finding (`catalog.py: FINDINGS`, one row each) runs a bundled preset, or `rtarena improve`, through
the project's own runner against the scripted policy server (`rtarena serve-policy`, started here on a free
port of 127.0.0.1: scripted stand-ins, never a model), on a positive control (a stand-in with the paper's
property) and a negative control (the same without it) on two seed sets, and applies the finding's
pre-registered rules (`core.py: Rule`): a gated rule must hold for the positive control and fail for the
negative one on both seed sets. The page (`page.py`) is `findings.md` and a self-contained `findings.html`,
one chart and one rules table per finding (`eval/svg.py`). Layers: catalog -> page -> core.

`--quick` runs every finding at its rules' pre-registered sizes; the full run uses at least the papers' seed
counts. A finding that cannot run here (no Chromium for the web tasks) is reported as skipped with its
reason, and the others still run. `--seed-offset` replicates every rule on fresh seeds (the same rules at
the same n), and `--idc-episodes` plays idc's rounds at another K (the paper's is 5).
"""

from __future__ import annotations

from rtarena.findings.catalog import FINDINGS, finding_names, run_findings
from rtarena.findings.core import REGISTERED_SEEDS_BELOW

__all__ = ["FINDINGS", "REGISTERED_SEEDS_BELOW", "finding_names", "run_findings"]
