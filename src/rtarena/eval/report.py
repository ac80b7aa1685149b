"""`rtarena report RUN...`: Markdown and a self-contained HTML page from one or more runs.

Tables give mean ± standard error per agent x level x clock setting (columns are clock settings, as in
the research system's tables); plots are inline SVG (score against injected delay, decision latency
distributions, effective action frequency, per-level bars); episodes with a video are linked. Every
number comes from DuckDB over the runs' Parquet files (`eval/tables.py`), and every table cell carries
its exact mean, standard error and count as `data-` attributes.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import datetime
from html import escape
from pathlib import Path
from typing import Any

from rtarena.eval import svg
from rtarena.eval.failure_modes import failure_section
from rtarena.eval.manifest import run_state
from rtarena.eval.pvp import pvp_section
from rtarena.eval.query import connect, run_dirs
from rtarena.eval.replay import replay_sections
from rtarena.eval.study_report import study_section
from rtarena.eval.suite_report import suite_sections
from rtarena.eval.tables import (
    REPORT_METRICS,
    Stat,
    cell_stats,
    episode_counts,
    latency_boxes,
    metric_names,
)

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:1100px;color:#222;
padding:0 1rem}h1{margin-bottom:.2rem}h2{margin-top:2.2rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.6rem 0 1.2rem;font-size:.9rem}th,td{border:1px solid #ddd;
padding:.25rem .55rem;text-align:right}th{background:#f4f6f8}td.key,th.key{text-align:left}
.muted{color:#666;font-size:.85rem}.plots{display:flex;flex-wrap:wrap;gap:1rem}
.plots svg{border:1px solid #eee;max-width:100%;height:auto}details{margin:.5rem 0}code{background:#f4f4f4;
padding:0 .2rem}
"""


@dataclass
class Section:
    title: str
    markdown: list[str] = field(default_factory=list)
    html: list[str] = field(default_factory=list)


def _cell_attrs(stat: Stat) -> str:
    def num(v: float | None) -> str:
        return "" if v is None else repr(float(v))

    return f'data-n="{stat.n}" data-mean="{num(stat.mean)}" data-se="{num(stat.se)}" title="n = {stat.n}"'


def needs_lineup(cells: list[dict[str, Any]]) -> bool:
    """Whether some agent plays one level in several line-ups (then rows must say which)."""
    seen: dict[tuple, set] = {}
    for c in cells:
        seen.setdefault((c["agent"], c["level"]), set()).add(c["lineup"])
    return any(len(v) > 1 for v in seen.values())


def who(cells: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Cells with a `who` label for plot series: the agent, and its line-up where that is ambiguous."""
    ambiguous = needs_lineup(cells)
    return [{**c, "who": f"{c['agent']} ({c['lineup']})" if ambiguous else c["agent"]} for c in cells]


def clock_order(dirs: list[Path]) -> list[str]:
    """Clock settings in the order the experiments list them (columns follow it)."""
    order: list[str] = []
    for d in dirs:
        config = json.loads((d / "config.json").read_text()) if (d / "config.json").exists() else {}
        for clock in config.get("experiment", {}).get("clocks", []):
            if clock.get("name") not in order:
                order.append(clock.get("name"))
    return order


def metric_table(metric: str, cells: list[dict[str, Any]], order: tuple[str, ...] = ()) -> Section:
    """Rows agent x level (x line-up, x modality), one column per clock setting."""
    clocks = sorted(dict.fromkeys(c["clock_name"] for c in cells),
                    key=lambda c: order.index(c) if c in order else len(order))
    with_obs = any(c["obs"] for c in cells)
    keys = ["agent"] + (["lineup"] if needs_lineup(cells) else []) + ["level"] + (["obs"] if with_obs else [])
    rows: dict[tuple, dict[str, Stat]] = {}
    for c in cells:
        rows.setdefault(tuple(c[k] for k in keys), {})[c["clock_name"]] = c[metric]
    section = Section(metric)
    header = [*keys, *clocks]
    section.markdown += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    html = [f'<table class="metric" data-metric="{escape(metric)}"><thead><tr>'
            + "".join(f'<th class="key">{escape(k)}</th>' for k in keys)
            + "".join(f"<th>{escape(c)}</th>" for c in clocks) + "</tr></thead><tbody>"]
    for key, by_clock in rows.items():
        stats = [by_clock.get(c, Stat(0, None, None)) for c in clocks]
        section.markdown.append("| " + " | ".join([*map(str, key), *(s.text() for s in stats)]) + " |")
        attrs = "".join(f' data-{k}="{escape(str(v))}"' for k, v in zip(keys, key, strict=True))
        html.append(f"<tr{attrs}>" + "".join(f'<td class="key">{escape(str(v))}</td>' for v in key)
                    + "".join(f'<td data-clock="{escape(c)}" {_cell_attrs(s)}>{escape(s.text())}</td>'
                              for c, s in zip(clocks, stats, strict=True)) + "</tr>")
    html.append("</tbody></table>")
    section.html += html
    return section


def headline(cells: list[dict[str, Any]], metrics: list[str]) -> tuple[str, list[dict[str, Any]]]:
    """The metric plots show: each level's `score`, or its `return` where a level has no score
    (cart-pole next to the arena); returns its label and the cells with it under the key "headline"."""
    chosen = [m for m in ("score", "return") if m in metrics] or metrics[:1]
    out, used = [], []
    for c in cells:
        stat = next((c[m] for m in chosen if c[m].mean is not None), c[chosen[0]])
        name = next((m for m in chosen if c[m].mean is not None), chosen[0])
        used.append(name)
        out.append({**c, "headline": stat})
    names = [m for m in chosen if m in used]
    return (names[0] if len(names) == 1 else " / ".join(names)), out


def plots(con: Any, cells: list[dict[str, Any]], metrics: list[str]) -> list[tuple[str, str]]:
    """(file name, SVG) for every plot the data supports."""
    out = []
    label, cells = headline(who(cells), metrics)
    metric = "headline"
    agents = list(dict.fromkeys(c["who"] for c in cells))
    levels = list(dict.fromkeys(c["level"] for c in cells))
    delays = sorted({c["delay_ms"] for c in cells})
    if len(delays) > 1:
        series: dict[str, list] = {}
        for c in cells:
            name = c["who"] if len(levels) == 1 else f"{c['who']} @ {c['level']}"
            if c[metric].mean is not None:
                series.setdefault(name, []).append((c["delay_ms"], c[metric].mean, c[metric].se))
        out.append(("score-vs-delay.svg", svg.line_chart(f"{label} against injected delay", label,
                                                         "injected delay (ms)", series)))
    boxes = latency_boxes(con)
    if boxes:
        out.append(("latency.svg", svg.box_chart("decision latency (wall, ms): p5 p25 p50 p75 p95", "ms", boxes)))
    if cells and "effective_action_frequency" in cells[0]:
        values = _pooled(cells, "clock_name", "effective_action_frequency")
        out.append(("action-frequency.svg", svg.bar_chart("effective action frequency (per step)", "actions / step",
                                                          list(dict.fromkeys(c["clock_name"] for c in cells)),
                                                          agents, values)))
    for clock in list(dict.fromkeys(c["clock_name"] for c in cells))[:4]:
        chosen = [c for c in cells if c["clock_name"] == clock]
        values = _pooled(chosen, "level", metric)
        out.append((f"levels-{clock}.svg", svg.bar_chart(f"{label} per level ({clock})", label,
                                                         list(dict.fromkeys(c["level"] for c in chosen)), agents,
                                                         values)))
    return out


def _pooled(cells: list[dict[str, Any]], group: str, metric: str) -> dict[tuple[str, str], tuple[float, float | None]]:
    """(group, agent) -> (mean, se) taken from the cells; where several cells share a key (modalities),
    the first is shown."""
    values: dict[tuple[str, str], tuple[float, float | None]] = {}
    for c in cells:
        stat = c[metric]
        if stat.mean is not None:
            values.setdefault((c[group], c["who"]), (stat.mean, stat.se))
    return values


def _runs_section(con: Any, dirs: list[Path]) -> Section:
    section = Section("runs")
    counts = {run: (ok, failed) for run, ok, failed in episode_counts(con)}
    section.markdown += ["| run | experiment | episodes ok | failed | state | backend | machine |",
                         "|---|---|---|---|---|---|---|"]
    html = ['<table class="runs"><thead><tr><th class="key">run</th><th class="key">experiment</th>'
            "<th>episodes ok</th><th>failed</th><th class='key'>state</th><th class='key'>backend</th>"
            "<th class='key'>machine</th></tr></thead><tbody>"]
    for d in dirs:
        info = json.loads((d / "run.json").read_text()) if (d / "run.json").exists() else {}
        session = (info.get("sessions") or [{}])[-1]
        backend = session.get("backend", {}).get("backend", "")
        machine = info.get("machine", {})
        where = f"{machine.get('cpu_count', '?')} CPUs, {machine.get('platform', '')}" if machine else ""
        ok, failed = counts.get(d.name, (0, 0))
        state = run_state(d, ok + failed) or "complete"
        row = [d.name, str(info.get("experiment", "")), str(ok), str(failed), state, backend, where]
        section.markdown.append("| " + " | ".join(row) + " |")
        html.append("<tr>" + "".join(f'<td class="{"key" if i in (0, 1, 4, 5, 6) else ""}">{escape(v)}</td>'
                                     for i, v in enumerate(row)) + "</tr>")
    section.html += [*html, "</tbody></table>"]
    return section


def _columns(con: Any, view: str) -> set[str]:
    return {row[0] for row in con.execute(f"DESCRIBE {view}").fetchall()}


def endpoint_notes(con: Any) -> tuple[Section | None, list[str]]:
    """The runs' cost and queue wait (a section, when any decision had a price or a limited endpoint), and
    a warning line per run whose decisions waited for an endpoint slot under a clock that charges measured
    time (`wall`, `measured`): game time lost that was not the model's."""
    priced = "cost_usd" in _columns(con, "episodes")
    waited = "queue_wait_s" in _columns(con, "decisions")
    if not (priced or waited):
        return None, []
    cost = {r[0]: r[1:] for r in con.execute(
        "SELECT run_id, sum(cost_usd), count(cost_usd), count(*) FROM episodes GROUP BY run_id").fetchall()} \
        if priced else {}
    waits = {r[0]: r[1:] for r in con.execute("""
        SELECT d.run_id, count(d.queue_wait_s), count(*) FILTER (WHERE d.queue_wait_s > 0.001),
               quantile_cont(d.queue_wait_s, 0.5), quantile_cont(d.queue_wait_s, 0.95), max(d.queue_wait_s),
               bool_or(e.clock.clock IN ('wall', 'measured') AND d.queue_wait_s > 0.001)
        FROM decisions d JOIN episodes e USING (run_id, episode) GROUP BY d.run_id""").fetchall()} if waited else {}
    runs = sorted(set(cost) | {r for r, w in waits.items() if w[0]})
    if not any(c[1] for c in cost.values()) and not any(w[0] for w in waits.values()):
        return None, []
    section = Section("cost and endpoint queueing")
    section.markdown += ["| run | cost (USD) | episodes priced | decisions limited | waited "
                         "| wait p50 / p95 / max (ms) |", "|---|---|---|---|---|---|"]
    html = ['<table class="endpoints"><tr><th class="key">run</th><th>cost (USD)</th><th>episodes priced</th>'
            "<th>decisions limited</th><th>waited</th><th>wait p50 / p95 / max (ms)</th></tr>"]
    warnings = []
    for run in runs:
        total, n_priced, n = cost.get(run, (None, 0, 0))
        limited, n_waited, p50, p95, most, charged = waits.get(run, (0, 0, None, None, None, False))
        quantiles = " / ".join("—" if v is None else f"{v * 1000:.0f}" for v in (p50, p95, most)) if limited else "—"
        row = [run, "—" if not n_priced else f"{total:.4f}", f"{n_priced} of {n}", str(limited), str(n_waited),
               quantiles]
        section.markdown.append("| " + " | ".join(row) + " |")
        html.append("<tr>" + "".join(f'<td class="{"key" if i == 0 else ""}">{escape(v)}</td>'
                                     for i, v in enumerate(row)) + "</tr>")
        if charged:
            warnings.append(f"{run}: {n_waited} decisions waited for an endpoint slot under a clock that charges "
                            f"measured time (p95 {p95 * 1000:.0f} ms): game time lost that was not the model's")
    section.html += [*html, "</table>"]
    return section, warnings


def _failures_and_videos(con: Any, dirs: list[Path], out: Path) -> list[Section]:
    sections = []
    names = {row[0] for row in con.execute("DESCRIBE episodes").fetchall()}
    if "error" in names:
        failed = con.execute("SELECT run_id, episode, error FROM episodes WHERE status = 'error' "
                             "ORDER BY run_id, episode").fetchall()
        if failed:
            s = Section(f"failed episodes ({len(failed)})")
            s.markdown += ["| run | episode | error |", "|---|---|---|"]
            s.html.append('<table class="failures"><tr><th class="key">run</th><th class="key">episode</th>'
                          '<th class="key">error</th></tr>')
            for run, episode, error in failed:
                s.markdown.append(f"| {run} | {episode} | {str(error).replace('|', '/')} |")
                s.html.append(f'<tr><td class="key">{escape(run)}</td><td class="key">{escape(episode)}</td>'
                              f'<td class="key">{escape(str(error))}</td></tr>')
            s.html.append("</table>")
            sections.append(s)
    if "video" in names:
        videos = con.execute("SELECT run_id, episode, video FROM episodes WHERE video IS NOT NULL "
                             "ORDER BY run_id, episode").fetchall()
        if videos:
            s = Section(f"videos ({len(videos)})")
            by_name = {d.name: d for d in dirs}
            s.html.append('<ul class="videos">')
            for run, episode, video in videos:
                link = os.path.relpath(by_name[run].resolve() / video, out.resolve())
                s.markdown.append(f"- [{run} / {episode}]({link})")
                s.html.append(f'<li><a href="{escape(link)}">{escape(run)} / {escape(episode)}</a></li>')
            s.html.append("</ul>")
            sections.append(s)
    return sections


def _episode_lines(con: Any, dirs: list[Path]) -> dict[tuple[str, str], dict]:
    """(run folder, episode) -> its video and files, for the failure-mode section's example links."""
    names = {row[0] for row in con.execute("DESCRIBE episodes").fetchall()}
    wanted = [c for c in ("video", "files") if c in names]
    if not wanted:
        return {}
    by_name = {d.name: str(d) for d in dirs}
    rows = con.execute(f"SELECT run_id, episode, {', '.join(wanted)} FROM episodes").fetchall()
    return {(by_name.get(r[0], r[0]), r[1]): dict(zip(wanted, r[2:], strict=True)) for r in rows}


def build_report(runs: list[str | Path], out: Path | None = None, root: str | Path = "runs") -> Path:
    """Write `report.md`, `report.html` and `plots/*.svg` to `out`; returns the HTML path."""
    dirs = run_dirs(runs, root)
    if out is None:
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        out = dirs[0] / "report" if len(dirs) == 1 else Path(root) / f"report-{stamp}"
    con = connect(dirs)
    metrics = metric_names(con)
    cells = cell_stats(con, metrics) if metrics else []
    out.mkdir(parents=True, exist_ok=True)  # after the records were read: a refused run writes nothing
    sections = [_runs_section(con, dirs)]
    main = [m for m in metrics if m in REPORT_METRICS or (m == "return" and "score" not in metrics)]
    order = tuple(clock_order(dirs))
    for metric in main:
        sections.append(metric_table(metric, cells, order))
    charts = plots(con, cells, metrics) if cells else []
    (out / "plots").mkdir(exist_ok=True)
    for name, chart in charts:
        (out / "plots" / name).write_text(chart, encoding="utf-8")
    others = [metric_table(m, cells, order) for m in metrics if m not in main]
    sections += suite_sections(con, Section) if cells else []  # the game suite's tables, when games were played
    sections += pvp_section(con, Section)  # Bradley-Terry / Elo ratings, when PvP matches were played
    sections += replay_sections(dirs, con, Section)  # trace vs charged latency, for `--clock replay` runs
    endpoints, waited = endpoint_notes(con)
    sections += [endpoints] if endpoints else []
    sections += _failures_and_videos(con, dirs, out)
    title = "rtarena report: " + ", ".join(d.name for d in dirs)
    md = [f"# {title}", "", "Mean ± standard error over episodes (n in the HTML tooltips).", ""]
    html = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{escape(title)}</title>"
            f"<style>{CSS}</style></head><body><h1>{escape(title)}</h1>"
            "<p class='muted'>Mean ± standard error over episodes; hover a cell for n. "
            f"Generated {escape(datetime.now().isoformat(timespec='seconds'))}.</p>"]
    counts = {run: ok + failed for run, ok, failed in episode_counts(con)}
    for d in dirs:
        state = run_state(d, counts.get(d.name, 0))
        if state:
            md += [f"**{d.name}: {state}**", ""]
            html.append(f"<p><strong>{escape(d.name)}: {escape(state)}</strong></p>")
    for line in waited:
        md += [f"**{line}**", ""]
        html.append(f"<p class='waited'><strong>{escape(line)}</strong></p>")
    study_md, study_html, study_charts = study_section(con, dirs)  # the paper's layout, for its conditions
    for name, chart in study_charts:
        (out / "plots" / name).write_text(chart, encoding="utf-8")
    for i, s in enumerate(sections[:1 + len(main)]):
        md += [f"## {s.title}", "", *s.markdown, ""]
        html += [f"<h2>{escape(s.title)}</h2>", *s.html]
        if i == 0 and study_md:
            md += ["## Realtime-Bench study", "", *study_md, "", *(f"![{n}](plots/{n})" for n, _ in study_charts), ""]
            html += ["<h2>Realtime-Bench study</h2>", *study_html, "<div class='plots'>",
                     *(chart for _, chart in study_charts), "</div>"]
    if charts:
        md += ["## plots", "", *(f"![{name}](plots/{name})" for name, _ in charts), ""]
        html += ["<h2>plots</h2><div class='plots'>", *(chart for _, chart in charts), "</div>"]
    if others:
        md += ["## all metrics", ""]
        html.append("<h2>all metrics</h2>")
        for s in others:
            md += [f"### {s.title}", "", *s.markdown, ""]
            html += [f"<details><summary>{escape(s.title)}</summary>", *s.html, "</details>"]
    failure_md, failure_html, failure_charts = failure_section(dirs, out, _episode_lines(con, dirs))
    if failure_md:
        for name, chart in failure_charts:
            (out / "plots" / name).write_text(chart, encoding="utf-8")
        md += ["## failure modes", "", *failure_md, "", *(f"![{n}](plots/{n})" for n, _ in failure_charts), ""]
        html += ["<h2>failure modes</h2>", *failure_html, "<div class='plots'>",
                 *(chart for _, chart in failure_charts), "</div>"]
    for s in sections[1 + len(main):]:
        md += [f"## {s.title}", "", *s.markdown, ""]
        html += [f"<h2>{escape(s.title)}</h2>", *s.html]
    html.append("</body></html>")
    (out / "report.md").write_text("\n".join(md), encoding="utf-8")
    (out / "report.html").write_text("\n".join(html), encoding="utf-8")
    return out / "report.html"
