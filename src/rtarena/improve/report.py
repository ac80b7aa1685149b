"""The report of improvement runs: the curve (per model, intervals, rollback marks), gains, transfer,
and links to each round's skill, diagnosis, verdicts, signals and transcript.

`rtarena report RUN...` comes here when every RUN is an improvement run (`improve.json`); it writes
`report.md`, `report.html` (the SVG inline) and `curve.svg` into `--out` (default: `RUN/report`).
"""

from __future__ import annotations

import os
from html import escape
from pathlib import Path
from typing import Any

from rtarena.eval.manifest import read_json
from rtarena.eval.svg import interval_chart
from rtarena.improve.loop import METRICS, RUN_FILE, TRANSFER

ROUND_FILES = (("skill in", "skill_in.md"), ("skill out", "skill_out.md"), ("diagnosis", "diagnosis.md"),
               ("verdicts", "verdicts.jsonl"), ("signals", "lints.md"), ("transcript", "transcript.jsonl"))
CSS = ("body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:1100px;padding:0 1rem}"
       "table{border-collapse:collapse;margin:.6rem 0 1.2rem;font-size:.9rem}th,td{border:1px solid #ddd;"
       "padding:.25rem .55rem;text-align:right}th{background:#f4f6f8}td.key{text-align:left}")


def _num(v: Any) -> str:
    return "—" if v is None or (isinstance(v, float) and v != v) else f"{v:.4g}"


def _ci(d: dict[str, Any] | None) -> str:
    return "—" if not d else f"{_num(d['mean'])} [{_num(d['lo'])}, {_num(d['hi'])}]"


def load(run_dir: Path) -> dict[str, Any]:
    run = read_json(run_dir / RUN_FILE)
    rounds = []
    for r in range(run["settings"]["rounds"]):
        state = read_json(run_dir / f"round_{r:02d}" / "round.json")
        if state.get("done"):
            rounds.append(state)
    return {"dir": run_dir, "run": run, "rounds": rounds, "metrics": read_json(run_dir / METRICS),
            "transfer": read_json(run_dir / TRANSFER)}


def series_names(runs: list[dict[str, Any]]) -> list[str]:
    labels = [r["run"]["player"].split("@", 1)[0] for r in runs]
    return [f"{lb} ({r['dir'].name})" if labels.count(lb) > 1 else lb for lb, r in zip(labels, runs, strict=True)]


def curve_svg(runs: list[dict[str, Any]]) -> str:
    names = series_names(runs)
    series = {n: [(float(s["round"]), s["interval"]["mean"], s["interval"]["lo"], s["interval"]["hi"])
                  for s in r["rounds"]] for n, r in zip(names, runs, strict=True)}
    for n, r in zip(names, runs, strict=True):  # --transfer-every-round: the held-out variants beside the source
        variants = (r["metrics"] or {}).get("variant_rounds")
        if variants:
            series[f"{n}: variants (mean)"] = [(float(i), v["mean"], v["lo"], v["hi"]) for i, v in enumerate(variants)]
    marks = {n: [float(s["round"]) for s in r["rounds"] if s["rollback"]] for n, r in zip(names, runs, strict=True)}
    metric = next((r["metrics"].get("metric") or r["rounds"][0].get("metric") for r in runs if r["rounds"]), "score")
    return interval_chart("Improvement curve (round means, 95% bootstrap CI; x: rollback)", str(metric), "round",
                          series, marks)


def build_improve_report(run_dirs: list[Path], out: Path | None = None) -> Path:
    runs = [load(Path(d)) for d in run_dirs]
    out = Path(out) if out else Path(run_dirs[0]) / "report"
    out.mkdir(parents=True, exist_ok=True)
    svg = curve_svg(runs)
    (out / "curve.svg").write_text(svg, encoding="utf-8")
    md = ["# Improvement report", "", "![improvement curve](curve.svg)", "", "## Gains", "",
          "| player | run | final gain | AUC gain | best round | best-round gain | regression rate | rollbacks |",
          "|---|---|---|---|---|---|---|---|"]
    html = [f"<!doctype html><meta charset='utf-8'><title>Improvement report</title><style>{CSS}</style>",
            "<h1>Improvement report</h1>", svg, "<h2>Gains</h2><table><tr><th>player</th><th>run</th>"
            "<th>final gain</th><th>AUC gain</th><th>best round</th><th>best-round gain</th>"
            "<th>regression rate</th><th>rollbacks</th></tr>"]
    for name, r in zip(series_names(runs), runs, strict=True):
        m = r["metrics"]
        cells = [name, r["dir"].name, _ci(m.get("final_gain")), _ci(m.get("auc_gain")),
                 str(m.get("best_round", "—")), _ci(m.get("best_round_gain")), _num(m.get("regression_rate")),
                 str(m.get("rollbacks", "—"))]
        md.append("| " + " | ".join(cells) + " |")
        html.append("<tr>" + "".join(f"<td class='key'>{escape(c)}</td>" if i < 2 else f"<td>{escape(c)}</td>"
                                     for i, c in enumerate(cells)) + "</tr>")
    html.append("</table>")
    for name, r in zip(series_names(runs), runs, strict=True):
        md_part, html_part = run_section(name, r, out)
        md += md_part
        html += html_part
    (out / "report.md").write_text("\n".join(md) + "\n", encoding="utf-8")
    page = out / "report.html"
    page.write_text("\n".join(html) + "\n", encoding="utf-8")
    return page


JUDGE_DEFAULTED = ("; no --judge given: the judge is the reflector's model in a separate conversation with its "
                   "own system prompt (judge.py), not an independent model")


def run_section(name: str, r: dict[str, Any], out: Path) -> tuple[list[str], list[str]]:
    run = r["run"]
    s = run["settings"]
    md = ["", f"## {name}: {r['dir'].name}", "",
          f"env `{run['env_id']}`, reflector `{run['reflector'].split('@')[0]}`, judge `{run['judge'].split('@')[0]}` "
          f"({s['judge_mode']}{JUDGE_DEFAULTED if run.get('judge_defaulted') else ''}), alpha {s['alpha']}, "
          f"{s['episodes']} episodes per round; protocol: clock {s['clock']}, settle {s.get('settle_s')} s"
          f"{', delay ' + format(s['delay_ms'], 'g') + ' ms' if s.get('delay_ms') else ''}", "",
          "| round | mean [95% CI] | n | skill from | signals | files |", "|---|---|---|---|---|---|"]
    html = [f"<h2>{escape(name)}: {escape(r['dir'].name)}</h2>",
            "<table><tr><th>round</th><th>mean [95% CI]</th><th>n</th><th>skill from</th><th>signals</th>"
            "<th>files</th></tr>"]
    for s in r["rounds"]:
        folder = r["dir"] / f"round_{s['round']:02d}"
        links = [(label, os.path.relpath(folder / f, out)) for label, f in ROUND_FILES if (folder / f).exists()]
        signals = ", ".join(sig["code"] for sig in s.get("signals", [])) or "—"
        cells = [str(s["round"]), _ci(s["interval"]), str(s["interval"]["n"]), s["skill_source"], signals]
        md.append("| " + " | ".join(cells) + " | " + " ".join(f"[{lb}]({p})" for lb, p in links) + " |")
        html.append("<tr>" + "".join(f"<td class='key'>{escape(c)}</td>" for c in cells) + "<td class='key'>"
                    + " ".join(f"<a href='{escape(p)}'>{escape(lb)}</a>" for lb, p in links) + "</td></tr>")
    html.append("</table>")
    rows = (r["transfer"] or {}).get("variants") or []
    if rows:
        best = r["transfer"].get("best_round")
        md += ["", f"### Transfer of the best skill (round {best})", "",
               "| variant | with | without | transfer ± s.e. | n |", "|---|---|---|---|---|"]
        html.append(f"<h3>Transfer of the best skill (round {best})</h3><table><tr><th>variant</th><th>with</th>"
                    "<th>without</th><th>transfer ± s.e.</th><th>n</th></tr>")
        for t in rows:
            cells = [t["variant"], f"{_num(t['with_mean'])} ± {_num(t['with_se'])}",
                     f"{_num(t['without_mean'])} ± {_num(t['without_se'])}",
                     f"{_num(t['transfer'])} ± {_num(t['transfer_se'])}", f"{t['with_n']} / {t['without_n']}"]
            md.append("| " + " | ".join(cells) + " |")
            html.append("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in cells) + "</tr>")
        html.append("</table>")
    stop = (r["metrics"] or {}).get("stop")
    if stop:
        when = (f"stopped after round {stop['stopped_after']}" if stop["stopped_after"] is not None
                else "never fired (every round played)")
        line = (f"Stop rule `peak` {when}; it keeps round {stop['kept_round']}. Regret against the best round "
                f"played (round {stop['best_round']}, held-out means): {_num(stop['regret'])}; the last round's: "
                f"{_num(stop['regret_last'])}.")
        md += ["", "### Stop rule", "", line]
        html.append(f"<h3>Stop rule</h3><p data-regret='{stop['regret']!r}'>{escape(line)}</p>")
    best_skill = (r["metrics"] or {}).get("best_skill")
    if best_skill is not None:
        md += ["", "### Best skill", "", "```", best_skill.strip() or "(empty)", "```"]
        html.append(f"<h3>Best skill</h3><pre>{escape(best_skill.strip() or '(empty)')}</pre>")
    return md, html


def gain_rows(run_dirs: list[Path], by: str) -> list[dict[str, Any]]:
    """Improvement runs ranked by `final_gain` or `auc_gain` (the lower bound breaks ties); with variant curves,
    by the smaller of the source and the variants' gain."""
    rows = []
    for d in run_dirs:
        metrics = read_json(Path(d) / METRICS)
        if by in metrics:
            run = read_json(Path(d) / RUN_FILE)
            variant = metrics.get(f"variant_{by}") or {}
            rows.append({"player": run["player"].split("@", 1)[0], "env": run["env_id"], "run": Path(d).name,
                         **{k: metrics[by][k] for k in ("mean", "lo", "hi")}, "rounds": len(metrics["rounds"]),
                         **{f"variant_{k}": variant.get(k) for k in ("mean", "lo", "hi")}})
    # ranked by both curves where a run has its variants' (--transfer-every-round): by the smaller gain, so a
    # run ranks high only when it gains on the source and on the held-out variants
    rows.sort(key=lambda r: (-min(r["mean"], r["variant_mean"] if r["variant_mean"] is not None else r["mean"]),
                             -r["mean"], -r["lo"], r["run"]))
    return [{"rank": i + 1, **r} for i, r in enumerate(rows)]

