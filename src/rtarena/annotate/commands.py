"""`rtarena annotate RUN`: apply the codebook to a run, optionally with a model, and report agreement.

Writes `annotations/rules.parquet` (always), `annotations/model.parquet` (with `--model SPEC`) and
`annotations/agreement.json` when both ran; `--review` then serves the review page.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from rtarena.annotate.agreement import agreement
from rtarena.annotate.codebook import Codebook, default_codebook, load_codebook
from rtarena.annotate.evidence import load_run
from rtarena.annotate.model import annotate_with_model
from rtarena.annotate.rules import annotate_episode
from rtarena.annotate.store import read_rows, rows_for, write_rows
from rtarena.errors import UserError


def annotate_run(run: str | Path, root: str | Path = "runs", model: str | None = None,
                 codebook: str | Path | None = None, frames: bool = True) -> dict[str, Any]:
    """Annotate every ok episode of a run; returns a summary (paths, counts per capability, kappa)."""
    book: Codebook = load_codebook(codebook) if codebook else default_codebook()
    model = model or book.annotator  # the paper's annotator when the codebook names one; else rules alone
    folder, episodes = load_run(run, root)
    if not episodes:
        raise UserError("the run has no finished episodes to annotate", source=str(folder), field="episodes.jsonl")
    rule_rows: list[dict[str, Any]] = []
    for ev in episodes:
        rule_rows += rows_for(ev, annotate_episode(ev, book), "rules", book)
    summary: dict[str, Any] = {"run": str(folder), "episodes": len(episodes), "model_spec": model,
                               "rules": str(write_rows(folder, "rules", rule_rows)),
                               "capabilities": dict(Counter(r["capability"] for r in rule_rows if r["capability"]))}
    if model:
        model_rows, errors = [], 0
        for ev, findings, quoted, error in annotate_with_model(folder, episodes, model, book, frames):
            errors += error is not None
            if error is None:
                model_rows += rows_for(ev, findings, "model", book, quoted)
        summary["model"] = str(write_rows(folder, "model", model_rows)) if model_rows else None
        summary["model_errors"] = errors
        summary["agreement"] = agreement(rule_rows, model_rows, book.codes)
        (folder / "annotations" / "agreement.json").write_text(json.dumps(summary["agreement"], indent=2))
    return summary


def annotate_command(run: str, root: str, model: str | None, codebook: str | None, review: bool, port: int,
                     open_browser: bool, console: Any) -> None:
    from rich.table import Table

    summary = annotate_run(run, root, model, codebook)
    model = summary.get("model_spec")
    folder = Path(summary["run"])
    table = Table("condition", "agent", "code", "capability", "episodes", title=f"failure modes: {folder.name}")
    counts: Counter = Counter()
    for row in read_rows(folder, "rules"):
        counts[(row["condition"], row["agent_label"], row["code"], row["capability"])] += 1
    for (condition, agent, code, capability), n in sorted(counts.items()):
        table.add_row(condition, agent, code, capability or "-", str(n))
    console.print(table)
    console.print(f"rule-based annotations: {summary['rules']}")
    if not model:  # say which annotator coded the run (the report says it too: eval/failure_modes.py)
        console.print("coded by the rule annotator, the offline fallback; the paper's annotator is a model: "
                      "rtarena annotate RUN --model MODEL@BASE_URL (then --review for the human check)")
    if model:
        agree = summary["agreement"]
        kappa = "n/a" if agree["kappa"] is None else f"{agree['kappa']:.3f}"
        console.print(f"model annotations: {summary['model']} ({summary['model_errors']} failed calls); "
                      f"Cohen's kappa with the rules: {kappa} over {agree['episodes']} episodes")
    if review:
        from rtarena.annotate.review import serve

        serve(folder, port=port, open_browser=open_browser, echo=console.print)
