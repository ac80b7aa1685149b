"""The report's failure-mode section: how often each failure mode was coded, per condition and agent.

It reads the annotation tables that `rtarena annotate` leaves in a run folder, by file name
(`annotations/review.parquet` where a person reviewed the codes, else `annotations/model.parquet`, the
paper's annotator, a model, else `annotations/rules.parquet`, the rule annotator: the offline fallback), so
`eval` needs nothing from the annotation package. Shares are of the episodes judged in that cell; each
row links an example episode (its video where there is one, else its first frame).
"""

from __future__ import annotations

import os
from collections import defaultdict
from html import escape
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from rtarena.envs.capabilities import REALTIME_SHORT
from rtarena.eval import svg

# preferred first, each with what the report says coded the run
SOURCES = {"review": "reviewed by a person", "model": "the model annotator (the paper's)",
           "rules": "the rule annotator (the offline fallback; `rtarena annotate RUN --model MODEL@URL` for the "
                    "paper's)"}
SHORT = REALTIME_SHORT  # chart legends: "P stale_target"


def annotation_rows(dirs: list[Path]) -> tuple[list[dict[str, Any]], list[str]]:
    """Rows of every run's preferred annotation table, and which table each run used."""
    rows, used = [], []
    for d in dirs:
        for name in SOURCES:
            path = d / "annotations" / f"{name}.parquet"
            if path.exists():
                table = [r for r in pq.read_table(path).to_pylist() if r.get("verdict") != "reject"]
                rows += [{**r, "run_dir": str(d)} for r in table]
                used.append(f"{d.name}: {SOURCES[name]}")
                break
    return rows, used


def _label(code: str, capability: str) -> str:
    return f"{SHORT.get(capability, '?')} {code}"


def _example_link(row: dict[str, Any], episodes: dict[tuple[str, str], dict], out: Path) -> str | None:
    line = episodes.get((row["run_dir"], row["episode"]), {})
    target = line.get("video") or next(iter(line.get("files") or []), None)
    return os.path.relpath(Path(row["run_dir"]).resolve() / target, out.resolve()) if target else None


def failure_section(dirs: list[Path], out: Path, episodes: dict[tuple[str, str], dict]) -> tuple[
        list[str], list[str], list[tuple[str, str]]]:
    """(markdown lines, html lines, [(file name, svg)]) of the section; empty when no run was annotated."""
    rows, used = annotation_rows(dirs)
    if not rows:
        return [], [], []
    judged: dict[tuple[str, str], set] = defaultdict(set)
    coded: dict[tuple[str, str, str], list[dict]] = defaultdict(list)
    capability: dict[str, str] = {}
    for r in rows:
        judged[(r["condition"], r["agent_label"])].add((r["run_dir"], r["episode"], r["controller"]))
        if r["code"] != "none":
            coded[(r["condition"], r["agent_label"], r["code"])].append(r)
            capability[r["code"]] = r["capability"]
    conditions = list(dict.fromkeys(r["condition"] for r in rows))
    agents = list(dict.fromkeys(r["agent_label"] for r in rows))
    codes = sorted(capability, key=lambda c: (capability[c], c))
    md = [f"Codes from: {', '.join(used)}. Share of judged episodes with each code. Chart legends: "
          "P = RT-Perceive, D = RT-Deliberate, A = RT-Act.", "",
          "| condition | agent | code | capability | episodes | share | example |", "|---|---|---|---|---|---|---|"]
    html = [f"<p class='muted'>Codes from: {escape(', '.join(used))}. Share of judged episodes with each code. "
            "Chart legends: P = RT-Perceive, D = RT-Deliberate, A = RT-Act.</p>",
            '<table class="failure-modes"><thead><tr><th class="key">condition</th><th class="key">agent</th>'
            '<th class="key">code</th><th class="key">capability</th><th>episodes</th><th>share</th>'
            '<th class="key">example</th></tr></thead><tbody>']
    charts = []
    for agent in agents:
        values: dict[tuple[str, str], tuple[float, float | None]] = {}
        for condition in conditions:
            total = len(judged.get((condition, agent), ()))
            for code in codes:
                hits = coded.get((condition, agent, code), [])
                episodes_hit = {(r["run_dir"], r["episode"], r["controller"]) for r in hits}
                if total:
                    values[(condition, _label(code, capability[code]))] = (len(episodes_hit) / total, None)
                if not hits:
                    continue
                share = len(episodes_hit) / total
                link = _example_link(hits[0], episodes, out)
                example = f"[{hits[0]['episode']}]({link})" if link else hits[0]["episode"]
                md.append(f"| {condition} | {agent} | {code} | {capability[code]} | {len(episodes_hit)} of {total} "
                          f"| {share:.2f} | {example} |")
                cell = (f'<a href="{escape(link)}">{escape(hits[0]["episode"])}</a>' if link
                        else escape(hits[0]["episode"]))
                html.append(f'<tr data-condition="{escape(condition)}" data-agent="{escape(agent)}" '
                            f'data-code="{escape(code)}" data-n="{len(episodes_hit)}" data-of="{total}">'
                            f'<td class="key">{escape(condition)}</td><td class="key">{escape(agent)}</td>'
                            f'<td class="key">{escape(code)}</td><td class="key">{escape(capability[code])}</td>'
                            f'<td>{len(episodes_hit)} of {total}</td><td>{share:.2f}</td>'
                            f'<td class="key">{cell}</td></tr>')
        if codes:
            name = f"failure-modes-{len(charts)}.svg"
            charts.append((name, svg.bar_chart(f"failure modes per condition: {agent}", "share of episodes",
                                               conditions, [_label(c, capability[c]) for c in codes], values)))
    html.append("</tbody></table>")
    return md, html, charts
