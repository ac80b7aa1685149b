"""`rtarena findings --only modality`: the quick shape (arena/basic-v0, rgb+text against rgb+depth+text,
turn-based and 250 ms real time) runs the scripted pixel player, turn-based on the score rule's own fresh
seeds, and the depth image reaches it (every request of the depth condition carries one more image, 85
tokens more); the negative control (the player ignoring depth) plays both conditions on seed sets A and B
turn-based. A smoke run (4 steps): the rule needs the finding's own
lengths (docs/findings.md)."""

from __future__ import annotations

import pyarrow.parquet as pq
from rich.console import Console

from rtarena.findings import catalog, run_findings


def test_the_modality_finding_runs_both_senses_under_both_clocks_and_sends_the_depth_image(tmp_path):
    out = tmp_path / "f"  # a smoke run plays `catalog.SMOKE_SEEDS` seeds per run (the quick run's, cut)
    assert catalog.SMOKE_SEEDS == 2
    _, failed = run_findings(out, quick=True, only=["modality"], workers=1, max_steps=4,
                             console=Console(quiet=True))  # in this process: no workers to start
    assert failed == []
    markdown = (out / "findings.md").read_text()
    assert "| modality | ROAR |" in markdown and "0.66 to 0.67" in markdown
    rows = [r for f in sorted((out / "runs").glob("modality-[tr]*/agents/*.parquet"))  # quick: a run per clock
            for r in pq.read_table(f).to_pylist()]
    flat = {(r["obs"], r["seed"]) for f in sorted((out / "runs").glob("modality-flat-*/agents/*.parquet"))
            for r in pq.read_table(f).to_pylist()}
    assert flat == {(o, s) for o in ("rgb+text", "rgb+depth+text")
                    for s in (1000, 1001, 2000, 2001)}  # the negative control: seed sets A and B
    cells = {(r["clock_name"], r["obs"]) for r in rows}
    assert cells == {(c, o) for c in ("turn-based", "realtime-250ms") for o in ("rgb+text", "rgb+depth+text")}
    seeds = {c: {r["seed"] for r in rows if r["clock_name"] == c} for c in ("turn-based", "realtime-250ms")}
    # the score rule's fresh seeds turn-based; the reported real-time rule on seed set A
    assert seeds == {"turn-based": {catalog.MODALITY_SEEDS, catalog.MODALITY_SEEDS + 1}, "realtime-250ms": {1000, 1001}}
    per_request = {}
    for r in rows:
        if r["clock_name"] == "turn-based":
            per_request.setdefault(r["obs"], []).append(r["tokens_in"] / r["decisions"])
    assert min(per_request["rgb+depth+text"]) > max(per_request["rgb+text"])  # the depth image reached the model
    assert all("scripted-pixels" in r["spec"] for r in rows)
