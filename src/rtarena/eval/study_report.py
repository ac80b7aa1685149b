"""The report's Realtime-Bench section: the paper's layout for runs under its conditions.

`rtarena report RUN_TL RUN_TH RUN_PH RUN_WH` opens with it when the runs hold episodes under the study's
conditions (TL, TH, PH, WH: `condition_of`), one table and one chart (SVG) each:

- **success** per condition and task family (web / game), per agent: the share of episodes the task's
  scorer counted as a success (mean ± s.e. over episodes, n);
- **tokens** out per decision, per condition: p5 p25 p50 p75 p95 and the mean;
- **latency** per condition: the decision's delay in page seconds (what the clock charged: tokens / kappa
  under TL and TH, 0 under PH, the measured latency under WH), and its wall-clock latency;
- **failure modes** per condition: episodes coded with each code, of those judged (the annotation tables
  `rtarena annotate` writes, read like the failure-mode section does).
"""

from __future__ import annotations

import re
from collections import defaultdict
from html import escape
from pathlib import Path
from typing import Any

from rtarena.eval import svg
from rtarena.eval.failure_modes import annotation_rows
from rtarena.eval.tables import Stat

CONDITIONS = ("TL", "TH", "PH", "WH")  # the paper's, in its order
PROTOCOL_INITIALS = {"token": "T", "paused": "P", "wall": "W"}  # a condition's name: the clock's initial ...
EFFORT_INITIALS = {"low": "L", "high": "H"}  # ... then the reasoning effort's
EFFORT = re.compile(r"[,:]reasoning_effort=(\w+)")
FAMILIES = {"web": "web", "gui-games": "game"}  # registry family -> the paper's task family
QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)


def condition_of(clock_name: str, clock: str, spec: str) -> str:
    """The study condition an episode ran under: its clock setting's name where that is a condition's
    (TL ... WH), else the initials of its clock and of the reasoning effort its spec sends (a `token` clock
    with `reasoning_effort=high` is TH), else the clock setting's name."""
    if re.fullmatch(r"[TPW][LH]", clock_name or ""):
        return clock_name
    effort = EFFORT.search(spec or "")
    if clock in PROTOCOL_INITIALS and effort and effort.group(1) in EFFORT_INITIALS:
        return PROTOCOL_INITIALS[clock] + EFFORT_INITIALS[effort.group(1)]
    return clock_name


def _family(env_id: str) -> str:
    return FAMILIES.get(env_id.split("/")[0], env_id.split("/")[0])


def _stat(values: list[float]) -> Stat:
    n = len(values)
    if not n:
        return Stat(0, None, None)
    mean = sum(values) / n
    se = (sum((v - mean) ** 2 for v in values) / (n - 1)) ** 0.5 / n ** 0.5 if n > 1 else None
    return Stat(n, mean, se)


def _quantiles(values: list[float]) -> tuple[float, ...]:
    import numpy as np

    return tuple(float(q) for q in np.quantile(values, QUANTILES))


def study_section(con: Any, dirs: list[Path]) -> tuple[list[str], list[str], list[tuple[str, str]]]:
    """(markdown lines, html lines, [(file name, svg)]) of the section; empty when no episode ran under
    one of the study's conditions."""
    names = {row[0] for row in con.execute("DESCRIBE agents").fetchall()}
    if not {"clock_name", "env_id", "agent_label"} <= names:
        return [], [], []
    success = "success" if "success" in names else "NULL"
    rows = con.execute(f"""SELECT run_id, episode, controller, agent_label, env_id, clock_name, clock, spec,
                                  {success} FROM agents""").fetchall()
    per_episode: dict[tuple, list[float]] = defaultdict(list)  # (condition, agent, family, run, episode)
    condition: dict[tuple[str, str, str], tuple[str, str]] = {}  # (run, episode, controller) -> (condition, agent)
    for run, episode, controller, agent, env_id, clock_name, clock, spec, won in rows:
        cond = condition_of(str(clock_name or ""), str(clock or ""), str(spec or ""))
        if cond not in CONDITIONS:
            continue
        condition[(run, episode, controller)] = (cond, agent)
        if won is not None:
            per_episode[(cond, agent, _family(env_id), run, episode)].append(float(won))
    if not condition:
        return [], [], []
    conditions = [c for c in CONDITIONS if any(v[0] == c for v in condition.values())]
    agents = list(dict.fromkeys(a for _, a in condition.values()))
    md, html, charts = ["Conditions of the paper's study (clock and reasoning effort: TL token/low, TH token/high, "
                        "PH paused/high, WH wall/high); mean ± s.e. over episodes.", ""], [], []
    for part in (_success, _distributions, _failures):
        part_md, part_html, part_charts = part(con, dirs, conditions, agents, per_episode, condition)
        md += [*part_md, ""]
        html += part_html
        charts += part_charts
    return md, html, charts


def _success(con, dirs, conditions, agents, per_episode, condition):
    families = [f for f in ("web", "game") if any(k[2] == f for k in per_episode)] + sorted(
        {k[2] for k in per_episode} - {"web", "game"})
    columns = [(c, f) for c in conditions for f in [*families, "all"]]
    md = ["### success per condition and task family", "",
          "| agent | " + " | ".join(f"{c} {f}" for c, f in columns) + " |", "|---|" + "---|" * len(columns)]
    html = ["<h3>success per condition and task family</h3>", '<table class="study-success"><thead><tr>'
            '<th class="key" rowspan="2">agent</th>' + "".join(f'<th colspan="{len(families) + 1}">{escape(c)}</th>'
                                                                for c in conditions) + "</tr><tr>"
            + "".join(f"<th>{escape(f)}</th>" for _, f in columns) + "</tr></thead><tbody>"]
    values: dict[tuple[str, str], tuple[float, float | None]] = {}
    for agent in agents:
        stats = []
        for cond, family in columns:
            episodes = [sum(v) / len(v) for k, v in per_episode.items()
                        if k[0] == cond and k[1] == agent and (family == "all" or k[2] == family)]
            stat = _stat(episodes)
            stats.append(stat)
            if stat.mean is not None and family != "all":
                values[(cond, f"{agent} · {family}" if len(agents) > 1 else family)] = (stat.mean, stat.se)
        md.append(f"| {agent} | " + " | ".join(f"{s.text()} (n {s.n})" for s in stats) + " |")
        html.append(f'<tr data-agent="{escape(agent)}"><td class="key">{escape(agent)}</td>' + "".join(
            f'<td data-condition="{escape(c)}" data-family="{escape(f)}" data-n="{s.n}" '
            f'data-mean="{"" if s.mean is None else repr(s.mean)}">{escape(s.text())}</td>'
            for (c, f), s in zip(columns, stats, strict=True)) + "</tr>")
    html.append("</tbody></table>")
    series = list(dict.fromkeys(name for _, name in values))
    chart = svg.bar_chart("success per condition and task family", "success rate", conditions, series, values)
    return md, html, [("study-success.svg", chart)]


def _distributions(con, dirs, conditions, agents, per_episode, condition):
    names = {row[0] for row in con.execute("DESCRIBE decisions").fetchall()}
    if not {"tokens_out", "delay_sim_s", "controller"} <= names:
        return [], [], []
    wall = "wall_latency_s" if "wall_latency_s" in names else "NULL"
    samples: dict[tuple[str, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for run, episode, controller, tokens, delay, latency in con.execute(
            f"SELECT run_id, episode, controller, tokens_out, delay_sim_s, {wall} FROM decisions").fetchall():
        key = condition.get((run, episode, controller))
        if key is None:
            continue
        for what, value in (("tokens", tokens), ("delay", delay), ("wall", latency)):
            if value is not None:
                samples[key][what].append(float(value))
    keys = [(c, a) for c in conditions for a in agents if (c, a) in samples]
    label = {k: k[0] if len(agents) == 1 else f"{k[0]} · {k[1]}" for k in keys}
    md = ["### tokens and latency per condition", "", "Per decision: tokens out, the delay the clock charged in page "
          "seconds (tokens / kappa under TL and TH, 0 under PH, measured under WH) and the wall-clock latency; "
          "p5 / p25 / p50 / p75 / p95 and the mean.", "",
          "| condition | agent | decisions | tokens out | delay (page s) | wall latency (s) |",
          "|---|---|---|---|---|---|"]
    html = ["<h3>tokens and latency per condition</h3>", '<table class="study-distributions"><thead><tr>'
            '<th class="key">condition</th><th class="key">agent</th><th>decisions</th><th>tokens out</th>'
            "<th>delay (page s)</th><th>wall latency (s)</th></tr></thead><tbody>"]
    boxes: dict[str, dict[str, tuple[float, ...]]] = {"tokens": {}, "delay": {}}
    for key in keys:
        cells = []
        for what in ("tokens", "delay", "wall"):
            values = samples[key][what]
            if not values:
                cells.append("—")
                continue
            q = _quantiles(values)
            if what in boxes:
                boxes[what][label[key]] = q
            cells.append(" / ".join(f"{v:.3g}" for v in q) + f" (mean {sum(values) / len(values):.3g})")
        n = len(samples[key]["tokens"])
        md.append(f"| {key[0]} | {key[1]} | {n} | " + " | ".join(cells) + " |")
        html.append(f'<tr data-condition="{escape(key[0])}" data-agent="{escape(key[1])}" data-decisions="{n}">'
                    f'<td class="key">{escape(key[0])}</td><td class="key">{escape(key[1])}</td><td>{n}</td>'
                    + "".join(f"<td>{escape(c)}</td>" for c in cells) + "</tr>")
    html.append("</tbody></table>")
    charts = [("study-tokens.svg", svg.box_chart("tokens out per decision, per condition: p5 p25 p50 p75 p95",
                                                 "tokens", boxes["tokens"])),
              ("study-latency.svg", svg.box_chart("decision delay per condition (page s): p5 p25 p50 p75 p95",
                                                  "page seconds", boxes["delay"]))]
    return md, html, [c for c in charts if boxes["tokens"]]


def _failures(con, dirs, conditions, agents, per_episode, condition):
    rows, used = annotation_rows(dirs)
    rows = [r for r in rows if r["condition"] in conditions]
    if not rows:
        return ["### failure modes per condition", "", "No run was annotated (`rtarena annotate RUN`).", ""], [
            "<h3>failure modes per condition</h3><p class='muted'>No run was annotated "
            "(<code>rtarena annotate RUN</code>).</p>"], []
    judged: dict[str, set] = defaultdict(set)
    coded: dict[tuple[str, str], set] = defaultdict(set)
    capability: dict[str, str] = {}
    for r in rows:
        episode = (r["run_dir"], r["episode"], r["controller"])
        judged[r["condition"]].add(episode)
        if r["code"] != "none":
            coded[(r["code"], r["condition"])].add(episode)
            capability[r["code"]] = r["capability"]
    codes = sorted(capability, key=lambda c: (capability[c], c))
    if not codes:
        total = sum(len(v) for v in judged.values())
        return ["### failure modes per condition", "", f"No failure coded in the {total} judged episodes.", ""], [
            f"<h3>failure modes per condition</h3><p class='muted'>No failure coded in the {total} judged "
            "episodes.</p>"], []
    md = ["### failure modes per condition", "", f"Codes from: {', '.join(used)}; episodes with the code, of those "
          "judged under the condition (a code is applied only under the conditions its capability is coded in).", "",
          "| code | capability | " + " | ".join(conditions) + " |", "|---|---|" + "---|" * len(conditions)]
    html = ["<h3>failure modes per condition</h3>", f"<p class='muted'>Codes from: {escape(', '.join(used))}.</p>",
            '<table class="study-failures"><thead><tr><th class="key">code</th><th class="key">capability</th>'
            + "".join(f"<th>{escape(c)}</th>" for c in conditions) + "</tr></thead><tbody>"]
    values: dict[tuple[str, str], tuple[float, float | None]] = {}
    for code in codes:
        cells = []
        for cond in conditions:
            hit, of = len(coded.get((code, cond), ())), len(judged.get(cond, ()))
            cells.append((cond, hit, of))
            if of:
                values[(cond, code)] = (hit / of, None)
        md.append(f"| {code} | {capability[code]} | " + " | ".join(f"{h} of {o}" for _, h, o in cells) + " |")
        html.append(f'<tr data-code="{escape(code)}"><td class="key">{escape(code)}</td>'
                    f'<td class="key">{escape(capability[code])}</td>' + "".join(
                        f'<td data-condition="{escape(c)}" data-n="{h}" data-of="{o}">{h} of {o}</td>'
                        for c, h, o in cells) + "</tr>")
    html.append("</tbody></table>")
    chart = svg.bar_chart("failure modes per condition (share of judged episodes)", "share of episodes", conditions,
                          codes, values)
    return md, html, [("study-failures.svg", chart)]
