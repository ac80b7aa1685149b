"""The findings page: `findings.md` (charts as `charts/NAME.svg`) and a self-contained `findings.html`
(charts inline), with the report's style (`eval/report.py: CSS`)."""

from __future__ import annotations

import platform
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from html import escape
from pathlib import Path

from rtarena.eval.report import CSS
from rtarena.findings.catalog import Finding, Outcome


@dataclass
class Result:
    finding: Finding
    outcome: Outcome | None  # None: skipped
    skipped: str | None
    seconds: float

    @property
    def verdict(self) -> str:
        if self.outcome is None:
            return "failed" if (self.skipped or "").startswith("failed") else "skipped"
        return "matches" if self.outcome.matches else "differs"


def write_page(out: Path, results: list[Result], quick: bool, max_steps: int | None = None) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    (out / "charts").mkdir(exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    kind = "`rtarena findings --quick`" if quick else "`rtarena findings` (full: the papers' seed counts)"
    if max_steps is not None:
        kind += f" capped at {max_steps} steps per episode (a smoke run: too short for the directions)"
    about = (f"Run {stamp} with {kind} on {platform.node() or 'this machine'} (Python "
             f"{sys.version.split()[0]}), the scripted policy server standing in for a model: these are the "
             "findings' directions reproduced by scripted stand-ins, not any model's numbers.")
    head = ["finding", "paper", "paper's figure", "ours", "direction"]
    md = ["# The papers' findings, reproduced offline", "", about, "",
          "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    html = ["<!doctype html><html lang='en'><head><meta charset='utf-8'><title>rtarena findings</title>"
            f"<style>{CSS}</style></head><body><h1>The papers' findings, reproduced offline</h1>",
            f"<p class='muted'>{escape(about)}</p>", "<table class='findings'><thead><tr>"
            + "".join(f"<th class='key'>{escape(h)}</th>" for h in head) + "</tr></thead><tbody>"]
    for r in results:
        f = r.finding
        ours = r.outcome.ours if r.outcome else f"{r.verdict}: {r.skipped}".replace("failed: failed:", "failed:")
        cells = [f.name, f.paper, f.paper_figure, ours, r.verdict]
        md.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
        html.append(f"<tr data-finding='{escape(f.name)}' data-verdict='{r.verdict}'>"
                    + "".join(f"<td class='key'>{escape(c)}</td>" for c in cells) + "</tr>")
    html.append("</tbody></table>")
    md.append("")
    for r in results:
        f = r.finding
        md += [f"## {f.name} ({f.paper})", "", f"Paper: \"{f.claim}\"; {f.paper_figure}.", "",
               f"Ours: {f.design}."]
        html += [f"<h2 id='{escape(f.name)}'>{escape(f.name)} ({escape(f.paper)})</h2>",
                 f"<p>Paper: “{escape(f.claim)}”; {escape(f.paper_figure)}.</p>", f"<p>Ours: {escape(f.design)}.</p>"]
        if r.outcome is None:
            md += ["", f"**{r.verdict.capitalize()}**: {r.skipped}", ""]
            html.append(f"<p class='{r.verdict}'><strong>{r.verdict.capitalize()}</strong>: "
                        f"{escape(r.skipped or '')}</p>")
            continue
        o = r.outcome
        (out / "charts" / f"{f.name}.svg").write_text(o.chart, encoding="utf-8")
        md += ["", f"Result ({r.seconds:.0f} s): {o.ours}. Direction: **{r.verdict}**.", "",
               "| " + " | ".join(o.table[0]) + " |", "|" + "---|" * len(o.table[0]),
               *("| " + " | ".join(row) + " |" for row in o.table[1:]), "",
               f"![{f.name}](charts/{f.name}.svg)", "", "Runs: " + ", ".join(f"`{run}`" for run in o.runs), ""]
        html += [f"<p>Result ({r.seconds:.0f} s): {escape(o.ours)}. Direction: <strong>{r.verdict}</strong>.</p>",
                 "<table class='finding'><thead><tr>" + "".join(f"<th>{escape(h)}</th>" for h in o.table[0])
                 + "</tr></thead><tbody>"
                 + "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in o.table[1:])
                 + "</tbody></table>",
                 f"<div class='plots' data-chart='{escape(f.name)}'>{o.chart}</div>",
                 "<p class='muted'>Runs: " + ", ".join(f"<code>{escape(run)}</code>" for run in o.runs) + "</p>"]
    html.append("</body></html>")
    (out / "findings.md").write_text("\n".join(md) + "\n", encoding="utf-8")
    (out / "findings.html").write_text("\n".join(html), encoding="utf-8")
    return out / "findings.html"
