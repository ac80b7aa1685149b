"""CLI glue for `rtarena improve`, and the improve-run side of `rtarena report` / `rtarena leaderboard`.

`rtarena improve ENV_ID --player SPEC --reflector SPEC [--judge SPEC] ...` starts a run;
`rtarena improve FILE.toml` reads the same fields from a file (`env`, `player`, `reflector`, `judge`,
`variants`, `[settings]`; flags given on the command line win); `rtarena improve runs/<id> --resume` (or
`--run-id ID --resume`) finishes a run from its own `improve.json`.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from rtarena.errors import UserError
from rtarena.eval.manifest import read_json
from rtarena.improve.loop import RUN_FILE, ImproveRun, Loop
from rtarena.improve.player import check_player
from rtarena.improve.settings import improve_settings
from rtarena.improve.transfer import check_variant, parse_variant
from rtarena.schema import read_toml

FILE_KEYS = {"env", "player", "reflector", "judge", "variants", "settings", "set"}


def is_improve_run(path: str | Path) -> bool:
    return (Path(path) / RUN_FILE).exists()


def _file_fields(path: Path) -> dict[str, Any]:
    data = read_toml(path, "improve file")
    unknown = set(data) - FILE_KEYS
    if unknown:
        raise UserError(f"unknown key {sorted(unknown)[0]!r}; known: {', '.join(sorted(FILE_KEYS))}", source=str(path))
    return data


def improve_command(target: str, player: str | None, reflector: str | None, judge: str | None,
                    variants: list[str], sets: list[str], settings: dict[str, Any], out: Path, run_id: str | None,
                    resume: bool, ray: str | None, console: Console) -> Path:
    err = Console(stderr=True)
    if resume and (is_improve_run(target) or (run_id and is_improve_run(out / run_id))):
        run_dir = Path(target) if is_improve_run(target) else out / str(run_id)
        stored = read_json(run_dir / RUN_FILE)
        run = ImproveRun.from_dict(stored, run_dir, ray)
        console.print(f"resuming {run_dir}", highlight=False)
        return finish(run, console, err)
    if resume and not run_id:
        raise UserError(f"{target} is not an improvement run folder (no {RUN_FILE}); --resume finishes one: "
                        "`rtarena improve RUN_FOLDER --resume`, or `--run-id ID --resume` under --out",
                        field="--resume")
    source = "rtarena improve"
    if target.endswith(".toml"):
        data = _file_fields(Path(target))
        source = target
        target = str(data.get("env") or "")
        player, reflector, judge = player or data.get("player"), reflector or data.get("reflector"), \
            judge or data.get("judge")
        variants = variants or list(data.get("variants") or [])
        sets = sets or list(data.get("set") or [])
        settings = {**(data.get("settings") or {}), **{k: v for k, v in settings.items() if v is not None}}
    from rtarena.envs.registry import env_spec

    env_spec(target)
    if not player or not reflector:
        raise UserError("needs --player and --reflector (model specs MODEL@BASE_URL)", source=source,
                        field="--player" if not player else "--reflector")
    chosen = improve_settings(source, **settings)
    env_kwargs: dict[str, Any] = {}
    if sets:
        from rtarena.eval.customize import arena_kwargs

        env_kwargs = arena_kwargs(target, sets=sets)
    parsed = tuple(parse_variant(v, target) for v in variants)
    for variant in parsed:
        check_variant(target, variant)
    run_id = run_id or f"improve-{datetime.now().strftime('%Y%m%d-%H%M%S')}"
    run_dir = out / run_id
    if (run_dir / RUN_FILE).exists() and not resume:
        raise UserError(f"{run_dir} already holds an improvement run; add --resume or choose another --run-id",
                        field="--run-id")
    run = ImproveRun(target, check_player(player), reflector.removeprefix("llm:"),
                     (judge or reflector).removeprefix("llm:"), chosen, run_dir, parsed, env_kwargs, ray)
    from rtarena.agents.llm.options import parse_llm_options

    parse_llm_options(run.reflector, "reflector")
    parse_llm_options(run.judge, "judge")
    return launch(run, console, err, judge_defaulted=judge is None)


def launch(run: ImproveRun, console: Console, err: Console, judge_defaulted: bool = False) -> Path:
    """Write the run's `improve.json`, then play it to the end."""
    from rtarena.improve.loop import write_json

    write_json(run.run_dir / RUN_FILE, {**run.to_dict(), "judge_defaulted": judge_defaulted})
    return finish(run, console, err)


def finish(run: ImproveRun, console: Console, err: Console) -> Path:
    metrics = Loop(run, err).run_all()
    table = Table("round", metrics["metric"], "95% CI", "n", "", title=f"improvement curve: {run.run_dir}")
    for r, stat in enumerate(metrics["rounds"]):
        mark = "  (best)" if r == metrics["best_round"] else ""
        after = "rollback after this round" if r in metrics["rollback_after"] else ""
        table.add_row(str(r), f"{stat['mean']:.4g}{mark}", f"[{stat['lo']:.4g}, {stat['hi']:.4g}]", str(stat["n"]),
                      after)
    console.print(table)
    for key in ("final_gain", "auc_gain", "best_round_gain"):
        if key in metrics:
            g = metrics[key]
            console.print(f"{key}: {g['mean']:.4g} [{g['lo']:.4g}, {g['hi']:.4g}]", highlight=False)
    console.print(f"rollbacks: {metrics['rollbacks']}  regression rate: {metrics['regression_rate']}",
                  highlight=False)
    console.print(f"run: {run.run_dir}  (rtarena report {run.run_dir})", highlight=False)
    return run.run_dir


def setting_pairs(pairs: list[str]) -> dict[str, str]:
    """`--setting KEY=VALUE` pairs (the schema converts and checks the values)."""
    out = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or not key.strip():
            raise UserError(f"expected KEY=VALUE, got {pair!r}", field="--setting")
        out[key.strip().replace("-", "_")] = value.strip()
    return out


GAIN_METRICS = ("final_gain", "auc_gain")


def improve_runs(runs: list[str], root: str) -> list[Path]:
    """The improvement-run folders named (by path or id under `root`); empty unless every one is one."""
    found = []
    for run in runs:
        path = Path(run) if is_improve_run(run) else Path(root) / run
        if not is_improve_run(path):
            return []
        found.append(path)
    return found


def improve_report_command(runs: list[str], out: Path | None, root: str, console: Console) -> Path:
    from rtarena.improve.report import build_improve_report

    page = build_improve_report(improve_runs(runs, root), out)
    console.print(f"report: {page}  markdown: {page.with_suffix('.md')}  curve: {page.parent / 'curve.svg'}")
    return page


def gain_leaderboard_command(runs: list[str], root: str, by: str, markdown: Path | None, console: Console) -> None:
    """`rtarena leaderboard --metric final_gain|auc_gain`: improvement runs ranked by a gain."""
    from rtarena.improve.report import gain_rows

    dirs = improve_runs(runs, root) if runs else sorted(p.parent for p in Path(root).glob(f"*/{RUN_FILE}"))
    rows = gain_rows(dirs, by)
    if not rows:
        raise UserError(f"no finished improvement runs with {by} under {root}/", field="--metric")
    head = ["rank", "player", "env", "run", f"{by} [95% CI]", f"variants' {by} [95% CI]", "rounds"]
    table = Table(*head, title=f"leaderboard by {by}")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        variant = (f"{r['variant_mean']:.4g} [{r['variant_lo']:.4g}, {r['variant_hi']:.4g}]"
                   if r["variant_mean"] is not None else "—")
        cells = [str(r["rank"]), r["player"], r["env"], r["run"], f"{r['mean']:.4g} [{r['lo']:.4g}, {r['hi']:.4g}]",
                 variant, str(r["rounds"])]
        table.add_row(*cells)
        lines.append("| " + " | ".join(cells) + " |")
    console.print(table)
    if markdown:
        markdown.write_text("\n".join(lines) + "\n", encoding="utf-8")
        console.print(f"markdown: {markdown}")


def analyse_command(run: str, root: str, adherence: bool, attribution: bool, max_decisions: int, out: Path | None,
                    player: str | None, round_index: int | None, episodes: int | None, console: Console) -> Path:
    """`rtarena improve-analyse RUN --adherence --attribution`: tables on the console, and for each analysis
    NAME.md, NAME.json and NAME.svg in `--out` (default `RUN/analysis`)."""
    from rtarena.improve.adherence import improve_run

    run_dir = Path(run) if is_improve_run(run) or not (Path(root) / run).exists() else Path(root) / run
    improve_run(run_dir)  # not an improvement run: one line, before anything else
    if not (adherence or attribution):
        raise UserError("choose an analysis: --adherence and/or --attribution", field="improve-analyse")
    folder = out or run_dir / "analysis"
    if adherence:
        from rtarena.improve import adherence as analysis

        rows = analysis.adherence(run_dir, max_decisions, player)
        _write_analysis(folder, "adherence", f"Skill adherence: {run_dir.name}", analysis.adherence_markdown(rows),
                        analysis.rows_json(rows), analysis.adherence_chart(rows, f"skill adherence: {run_dir.name}"),
                        console)
    if attribution:
        from rtarena.improve import attribution as effects

        chosen, bullets = effects.attribution(run_dir, round_index, episodes, Console(stderr=True))
        _write_analysis(folder, "attribution", f"Bullet attribution: {run_dir.name}",
                        effects.attribution_markdown(chosen, bullets), effects.rows_json(bullets),
                        effects.attribution_chart(bullets, f"bullet effects, round {chosen}: {run_dir.name}"), console)
    return folder


def _write_analysis(folder: Path, name: str, title: str, lines: list[str], rows: list[dict[str, Any]], chart: str,
                    console: Console) -> None:
    import json

    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.md").write_text("\n".join([f"# {title}", "", *lines, "", f"![{name}]({name}.svg)", ""]),
                                       encoding="utf-8")
    (folder / f"{name}.json").write_text(json.dumps(rows, indent=1), encoding="utf-8")
    (folder / f"{name}.svg").write_text(chart, encoding="utf-8")
    for line in lines:
        console.print(line, markup=False, highlight=False)
    console.print(f"-> {folder / f'{name}.md'}", markup=False, highlight=False)
