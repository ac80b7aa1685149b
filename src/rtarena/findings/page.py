"""The findings page: `findings.md` (charts as `charts/NAME.svg`) and a self-contained `findings.html`
(charts inline), with the report's style (`eval/report.py: CSS`). Per finding: its verdict, and per rule
the positive control, the negative control (seed sets A and B), the statistic, n and the smallest effect
the rule detects with 80% power, and the command and seeds a real-model run needs."""

from __future__ import annotations

import platform
import sys
from datetime import UTC, datetime
from html import escape
from pathlib import Path

from rtarena.eval.report import CSS
from rtarena.findings.core import CONFIDENCE, POWER, SEEDS_A, SEEDS_B, Check, Controlled, Result

TITLE = "The papers' measurements as controlled experiments"


def _check(check: Check | None) -> str:
    if check is None:
        return "not run"
    return f"{check.text()} {'holds' if check.holds else 'fails'}"


def rule_rows(controls: list[Controlled]) -> list[list[str]]:
    """One row per rule: name, gated, statistic, positive, negative (A, B), n, 80%-power effect, verdict."""
    rows = [["rule", "gated", "statistic (predicted sign)", "positive control", "negative control",
             "positive", "negative (set A)", "negative (set B)", "n", "detects (80% power)", "separates"]]
    for c in controls:
        r = c.rule
        sign = ">" if r.direction > 0 else "<"
        rows.append([r.name, "yes" if r.gated else f"no ({r.note})", f"{r.statistic} ({sign} 0)",
                     r.positive, r.negative, _check(c.positive), _check(c.negative), _check(c.negative_b),
                     str(r.n), f"{r.mde:.3g} (s.d. {r.planning_sd:g}: {r.pilot})",
                     ("yes" if c.separates else "no") if c.negative else "reported (no negative control run)"])
    return rows


def _md_table(rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0]),
            *("| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows[1:])]


def _html_table(rows: list[list[str]], css: str) -> str:
    return (f"<table class='{css}'><thead><tr>" + "".join(f"<th>{escape(h)}</th>" for h in rows[0])
            + "</tr></thead><tbody>"
            + "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in rows[1:])
            + "</tbody></table>")


def write_page(out: Path, results: list[Result], quick: bool, max_steps: int | None = None, seed_offset: int = 0,
               idc_episodes: int | None = None) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    (out / "charts").mkdir(exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    kind = "`rtarena findings --quick`" if quick else "`rtarena findings` (full: the papers' seed counts)"
    if max_steps is not None:
        kind += f" capped at {max_steps} steps per episode (a smoke run: too short for the rules; nothing gated)"
    if seed_offset:
        kind += (f" --seed-offset {seed_offset} (a replication: every seed {seed_offset} further on than the rules "
                 "name, the same rules at the same n on seeds none was registered on)")
    if idc_episodes:
        kind += f" --idc-episodes {idc_episodes} (idc's rounds play {idc_episodes} episodes each)"
    about = (f"Run {stamp} with {kind} on {platform.node() or 'this machine'} (Python {sys.version.split()[0]}). "
             "These are controls with scripted agents, not the papers' numbers: each finding's measurement is run "
             "on a positive control (a scripted stand-in with the paper's property) and a negative control (the "
             f"same without it, on seed sets A = {SEEDS_A + seed_offset}.. and B = {SEEDS_B + seed_offset}..), and a "
             f"pre-registered rule (the {CONFIDENCE:.0%} t-interval of a per-seed statistic on the predicted side "
             "of zero) must hold for the first and fail for both others. A row `holds` when every gated rule "
             "separates its controls; rules whose clock reads wall time are reported, not gated. 'detects' is the "
             f"smallest true mean the rule finds with {POWER:.0%} power.")
    head = ["finding", "paper", "paper's figure", "ours", "verdict"]
    md = [f"# {TITLE}", "", about, "", *_md_table([head])]
    html = ["<!doctype html><html lang='en'><head><meta charset='utf-8'><title>rtarena findings</title>"
            f"<style>{CSS}</style></head><body><h1>{escape(TITLE)}</h1>",
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
               f"Ours: {f.design}.", "", f"A real-model run: `{f.real_model}`."]
        html += [f"<h2 id='{escape(f.name)}'>{escape(f.name)} ({escape(f.paper)})</h2>",
                 f"<p>Paper: “{escape(f.claim)}”; {escape(f.paper_figure)}.</p>", f"<p>Ours: {escape(f.design)}.</p>",
                 f"<p>A real-model run: <code>{escape(f.real_model)}</code>.</p>"]
        if r.outcome is None:
            md += ["", f"**{r.verdict.capitalize()}**: {r.skipped}", ""]
            html.append(f"<p class='{r.verdict}'><strong>{r.verdict.capitalize()}</strong>: "
                        f"{escape(r.skipped or '')}</p>")
            continue
        o = r.outcome
        rules = rule_rows(o.controls)
        (out / "charts" / f"{f.name}.svg").write_text(o.chart, encoding="utf-8")
        md += ["", f"Result ({r.seconds:.0f} s): {o.ours}. Verdict: **{r.verdict}**.", "", *_md_table(rules), "",
               *_md_table(o.table), "", f"![{f.name}](charts/{f.name}.svg)", "",
               "Runs: " + ", ".join(f"`{run}`" for run in o.runs), ""]
        html += [f"<p>Result ({r.seconds:.0f} s): {escape(o.ours)}. Verdict: <strong>{r.verdict}</strong>.</p>",
                 _html_table(rules, "rules"), _html_table(o.table, "finding"),
                 f"<div class='plots' data-chart='{escape(f.name)}'>{o.chart}</div>",
                 "<p class='muted'>Runs: " + ", ".join(f"<code>{escape(run)}</code>" for run in o.runs) + "</p>"]
    html.append("</body></html>")
    (out / "findings.md").write_text("\n".join(md) + "\n", encoding="utf-8")
    (out / "findings.html").write_text("\n".join(html), encoding="utf-8")
    return out / "findings.html"
