"""What the `run`, `presets`, `report`, `leaderboard` and `query` commands do, behind `cli.py`'s options.

`rtarena run TARGET` takes an env id (the runtime's flags describe one cell), an experiment file
(`.toml`, `.yaml`), or a run folder to resume; `--preset NAME` stands for a bundled experiment file.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Column, Table

from rtarena.errors import UserError
from rtarena.eval.experiment import experiment_from_flags, plain_keys
from rtarena.eval.experiment_file import load_experiment, refuse_people
from rtarena.eval.flags import RunFlags, flags_given_with_experiment
from rtarena.eval.flags import run_flags as typed_flags
from rtarena.eval.presets import load_preset, preset_names, preset_summary
from rtarena.eval.runner import RunLimits, RunResult, resume_run_dir, run_experiment, run_jobs
from rtarena.schema import writable_folder


@dataclass
class RunOptions:
    """The new options of `rtarena run` (the runtime's flags travel separately)."""

    preset: str | None = None
    params: tuple[str, ...] = ()
    ray: str | None = None
    resume: bool = False
    workers: int = 0
    video: bool = False
    run_id: str | None = None
    max_cost: float | None = None  # USD: stop starting episodes before the run would pass it
    max_errors: float | None = None  # share of episodes: fail the run past it


def normalise_argv(argv: list[str]) -> list[str]:
    """Let `--ray` go without a value (typer's options cannot have an optional value): a bare `--ray`, or one
    followed by something that is not a Ray address, means `--ray local`."""
    out = list(argv)
    for i, arg in enumerate(out):
        if arg == "--ray":
            after = out[i + 1] if i + 1 < len(out) else None
            if after is None or not (after in ("auto", "local") or ":" in after):
                out.insert(i + 1, "local")
            break
    return out


def parse_params(pairs: tuple[str, ...]) -> dict[str, str]:
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UserError(f"expected KEY=VALUE, got {pair!r}", field="--set")
        out[key.strip()] = value
    return out


def is_experiment_file(target: str) -> bool:
    return target.endswith((".toml", ".yaml", ".yml", ".json"))


def run_command(target: str | None, flags: dict[str, Any], given: dict[str, Any], options: RunOptions,
                console: Console) -> RunResult:
    """Dispatch `rtarena run` on what TARGET is; print the outcome. `given`: the run flags the user typed."""
    err = Console(stderr=True)
    if target is not None and not target.strip():
        raise UserError("must name an env id, an experiment file or a run folder, got ''", field="TARGET")
    if options.workers < 0:
        raise UserError(f"must be >= 0 (0: one per CPU), got {options.workers}", field="--workers")
    if options.max_cost is not None and not 0 <= options.max_cost < float("inf"):
        raise UserError(f"must be a number of USD >= 0, got {options.max_cost}", field="--max-cost")
    if options.max_errors is not None and not 0 <= options.max_errors <= 1:
        raise UserError(f"must be a share between 0 and 1, got {options.max_errors}", field="--max-errors")
    budgets = {"max_cost": options.max_cost, "max_errors": options.max_errors}
    if options.preset or (target and (is_experiment_file(target) or (Path(target) / "config.json").exists())):
        flags_given_with_experiment(given)
        if options.preset and target:
            raise UserError(f"give an experiment file or --preset, not both (got {target!r})", field="--preset")
        if target and (Path(target) / "config.json").exists() and not is_experiment_file(target):
            if not options.resume:
                raise UserError(f"{target} is a run folder; add --resume to finish it", field="--resume")
            result = resume_run_dir(Path(target), workers=options.workers, ray=options.ray, console=err, **budgets)
        else:
            params = parse_params(options.params)
            experiment = load_preset(options.preset, params) if options.preset else load_experiment(target, params)
            refuse_people(experiment)
            writable_folder(experiment.out, f"{experiment.source}: out")
            result = run_experiment(experiment, run_id=options.run_id, resume=options.resume,
                                    workers=options.workers, ray=options.ray, video=options.video or None, console=err,
                                    **budgets)
        print_run(result, console)
        return result
    if target is None:
        raise UserError("give an env id, an experiment file or --preset NAME (see `rtarena presets`)", field="TARGET")
    if Path(target).is_dir():  # a folder is a run to resume, never an env id
        raise UserError(f"{target} is not a run folder of `rtarena run` (no config.json); give an env id, an "
                        "experiment file, or a run folder with --resume", field="TARGET")
    if Path(target).exists():
        raise UserError(f"{target} is a file, not an env id; experiment files end in .toml, .json or .yaml",
                        field="TARGET")
    from rtarena.envs.conditions import family_condition
    from rtarena.envs.registry import env_spec

    family = env_spec(target).family  # an unknown env id is named before any flag is asked for
    if options.resume and not flags.get("agent"):
        raise UserError(f"{target} is not a run folder; --resume takes a run folder (RUN --resume), or an env id "
                        "with the --agent and --out of the run to finish", field="--resume")
    return run_flags(target, typed_flags(flags, family_condition(family)), options, console, err,
                     fresh="out" not in given and not options.resume)


def run_flags(env_id: str, flags: RunFlags, options: RunOptions, console: Console, err: Console,
              fresh: bool = False) -> RunResult:
    """`rtarena run ENV_ID --agent ...`: one cell, written straight into `--out` like the first version; without
    `--out` (`fresh`), into a new `runs/<timestamp>` that `runs/latest` points to."""
    from rtarena.agents.specs import checked_agent
    from rtarena.envs.registry import env_spec, make

    family = env_spec(env_id).family
    env_kwargs: dict[str, Any] = {"dt": flags.run_dt} if flags.run_dt is not None else {}
    from rtarena.eval.customize import arena_kwargs

    # --map, --set SECTION.KEY=VALUE and --disable customise an arena level (checked before any episode)
    custom = arena_kwargs(env_id, flags.map, options.params, flags.disable)
    env_kwargs.update(custom)
    agents = [checked_agent(spec, family, command="run") for spec in dict.fromkeys(flags.agent)]  # built once
    try:
        env = make(env_id, **env_kwargs)
        slots = len(env.possible_agents)
        # what the agents observe (a pixel policy: rgb at 84; a model agent naming no view: the family's
        # declared one), or --obs/--resolution: asked of the env, checked before any episode
        asked = observation_kwargs(env_id, env, agents, family, flags, env_kwargs)
        env.close()
    finally:
        for agent in agents:
            agent.close()
    if asked:
        env_kwargs.update(asked)
        custom = {**custom, **asked}
    if len(flags.agent) not in (1, slots):
        raise UserError(f"{len(flags.agent)} --agent specs for {slots} slots of {env_id}; give one (for every slot) "
                        "or one per slot", field="--agent")
    out = Path(flags.out)
    refuse_reuse(out, options.resume or fresh)  # fresh: a new folder beside it (`runs/latest` is the last run)
    from rtarena.agents.specs import check_connections

    check_connections(flags.agent)  # a live session that cannot open is the one line, before the condition's
    if flags.condition is not None:  # no --clock: the family's declared condition, said in one line
        console.print(flags.condition.line(), markup=False, highlight=False, soft_wrap=True)
    experiment = experiment_from_flags(env_id, flags.agent, flags.run_clock, flags.run_dt, flags.seed_list,
                                       flags.max_steps, str(out))
    if custom:
        from dataclasses import replace as _replace

        experiment = _replace(experiment, envs=(_replace(experiment.envs[0], kwargs=custom),))
    jobs = plain_keys(experiment.jobs())
    if options.video:
        from dataclasses import replace

        jobs = [replace(job, video=True) for job in jobs]
    config = experiment.to_dict()
    result = run_jobs(jobs, out, out.name, config, workers=options.workers or 1, ray=options.ray,
                      resume=options.resume, console=err, connections_checked=True,
                      limits=RunLimits(max_cost=options.max_cost, max_errors=options.max_errors), fresh=fresh)
    out = result.run_dir
    table = Table("seed", "steps", "sim s", "wall s", "decisions", "return (per agent)")
    for line in sorted(result.lines, key=lambda ln: ln.get("seed", 0)):
        if line.get("status") != "ok":
            table.add_row(str(line.get("seed")), "[red]failed[/red]", "", "", "", str(line.get("error", ""))[:60])
            continue
        returns = ", ".join(f"{a}={m['return']:.2f}" for a, m in line["agents"].items())
        table.add_row(str(line["seed"]), str(line["steps"]), f"{line['sim_seconds']:.2f}",
                      f"{line['wall_seconds']:.2f}", str(line["decisions"]), returns)
    console.print(table)
    console.print(f"episodes: {out / 'episodes.jsonl'}  decisions: {out / 'decisions'}")
    return result


def observation_kwargs(env_id: str, env: Any, agents: list[Any], family: str, flags: RunFlags,
                       env_kwargs: dict[str, Any]) -> dict[str, Any]:
    """The env kwargs (`obs`, `resolution`) that make what the run's agents observe: `--obs`/`--resolution`
    when given; else each agent's declared `observes` (a pixel policy: `rgb` at 84 px; a VLM: `rgb`), and
    for a model agent that names no modalities the family's declared view (the arena: `rgb` beside its text,
    ROAR's screen; docs/conditions.md). {} when the env makes it all already. A request the env cannot meet
    is one line, before any episode."""
    from gymnasium.spaces import Box, Dict

    from rtarena.envs.conditions import family_condition
    from rtarena.envs.registry import make

    space = env.observation_space(env.possible_agents[0])
    if not isinstance(space, Dict) and not flags.obs:  # one array (cart-pole's state): nothing to choose from
        return {}
    made = list(space.spaces) if isinstance(space, Dict) else []
    declared = family_condition(family).view.modalities
    wanted = list(flags.obs or ())
    sizes = {flags.resolution} if flags.resolution else set()
    if not flags.obs:
        for agent in agents:
            if agent.observes is not None:
                wanted += [*agent.observes.modalities, *(declared if agent.observes.family_view else ())]
                sizes |= {agent.observes.image_px} if agent.observes.image_px and not flags.resolution else set()
    if len(sizes) > 1:
        raise UserError(f"the agents need images of different sizes ({', '.join(map(str, sorted(sizes)))} px); "
                        "give --resolution, or agents that agree", field="--agent")
    missing = [m for m in dict.fromkeys(wanted) if m not in made]
    rgb = space.spaces.get("rgb") if isinstance(space, Dict) else None
    asked: dict[str, Any] = {}
    if flags.obs:
        asked["obs"] = list(dict.fromkeys(flags.obs))
    elif missing:
        asked["obs"] = [*made, *missing]
    if sizes and not (isinstance(rgb, Box) and max(rgb.shape[:2]) == next(iter(sizes)) and "obs" not in asked):
        asked["resolution"] = next(iter(sizes))
    final = asked.get("obs", made)
    for agent in agents:
        lacking = [m for m in (agent.observes.modalities if agent.observes else ()) if final and m not in final]
        if lacking:
            raise UserError(f"{agent.name} observes {'+'.join(lacking)}; the env would make {'+'.join(final)} "
                            f"(give --obs with {'+'.join(lacking)}, or leave --obs out)", field="--obs")
    if not asked:
        return {}
    try:  # the env must make it: built once more with the request, refused here in one line
        probe = make(env_id, **{**env_kwargs, **asked})
        probe.close()
    except (UserError, TypeError, ValueError, KeyError) as error:
        shown = " ".join(f"{k}={'+'.join(v) if isinstance(v, list) else v}" for k, v in asked.items())
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise UserError(f"{env_id} cannot make what the agents observe ({shown}): {reason}",
                        field="--obs" if flags.obs else "--agent") from None
    return asked


def refuse_reuse(out: Path, resume: bool) -> None:
    """One folder holds one run: writing a second run into it would pair one run's lines with another's
    records, so an existing run folder needs `--resume` (which checks it is the same experiment)."""
    if resume:
        return
    for name in ("episodes.jsonl", "config.json"):
        if (out / name).exists():
            raise UserError(f"{out} already holds a run ({name}); choose another --out, or add --resume to "
                            "finish that run", field="--out")


def print_summary(run_dir: Path, console: Console, limit: int = 40) -> None:
    """The run's headline metric per cell (mean ± s.e. over its episodes)."""
    from rtarena.eval.query import connect
    from rtarena.eval.report import headline
    from rtarena.eval.tables import cell_stats, metric_names

    con = connect([run_dir])
    metrics = metric_names(con)
    if not metrics:
        return
    label, cells = headline(cell_stats(con, [m for m in ("score", "return") if m in metrics] or metrics[:1]), metrics)
    table = Table("agent", "line-up", "level", "clock", "obs", "n", label, title=f"{run_dir.name}")
    for c in cells[:limit]:
        table.add_row(c["agent"], c["lineup"], c["level"], c["clock_name"], c["obs"], str(c["headline"].n),
                      c["headline"].text())
    console.print(table)
    if len(cells) > limit:
        console.print(f"... {len(cells) - limit} more cells: see the report")


def print_run(result: RunResult, console: Console) -> None:
    if (result.run_dir / "agents").exists():
        print_summary(result.run_dir, console)
    ok = len(result.lines) - result.failed
    console.print(f"run {result.run_id}: {ok} episodes ok, {result.failed} failed"
                  + (f", {result.skipped} already recorded" if result.skipped else "") + f"  -> {result.run_dir}",
                  soft_wrap=True)
    if result.failed:
        first = next(line for line in result.lines if line.get("status") != "ok")
        console.print(f"[red]first failure:[/red] {escape(first['episode'])}: {escape(str(first.get('error')))}",
                      highlight=False, soft_wrap=True)
    console.print(f"report: rtarena report {result.run_dir}", soft_wrap=True)


QUERY_FORMATS = ("table", "csv", "json")


def presets_command(console: Console, name: str | None = None) -> None:
    """The bundled presets; with NAME, what that preset would run: one row per cell, nothing run."""
    if name is not None:
        return preset_plan_command(console, name)
    table = Table(Column("preset", no_wrap=True), "description", "parameters (--set KEY=VALUE)",
                  title="presets (rtarena run --preset NAME)")
    for name in preset_names():
        description, params = preset_summary(name)
        table.add_row(name, description, ", ".join(f"{k}={v}" for k, v in params.items()))
    console.print(table)


def preset_plan_command(console: Console, name: str) -> None:
    from rtarena.eval.presets import preset_plan

    experiment, cells = preset_plan(name)
    seeds = experiment.seeds
    shown = f"{seeds[0]}-{seeds[-1]}" if seeds == tuple(range(seeds[0], seeds[-1] + 1)) else ",".join(map(str, seeds))
    table = Table(Column("env id", no_wrap=True), "line-up", Column("agent slots", overflow="fold"), "clock",
                  "modalities (per slot)", "seeds",
                  title=f"{name}: {len(cells)} cells x {len(seeds)} seeds = {len(cells) * len(seeds)} episodes "
                        f"of at most {experiment.max_steps} steps (nothing run)")
    for cell in cells:
        table.add_row(cell.env_id, cell.lineup, escape(" | ".join(cell.slots)), escape(cell.clock),
                      " | ".join(cell.modalities), shown)
    console.print(table)


def query_command(sql: str, runs: list[str], root: str, fmt: str, console: Console) -> None:
    from rtarena.eval.query import run_query

    if fmt not in QUERY_FORMATS:
        raise UserError(f"must be one of {', '.join(QUERY_FORMATS)}, got {fmt!r}", field="--format")
    names, rows = run_query(sql, runs, root)
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(names)
        writer.writerows(rows)
        console.out(buffer.getvalue(), end="")
    elif fmt == "json":
        console.out(json.dumps([dict(zip(names, row, strict=True)) for row in rows], default=str, indent=1))
    else:
        table = Table(*names)
        for row in rows:
            table.add_row(*("NULL" if v is None else str(v) for v in row))
        console.print(table)
        console.print(f"{len(rows)} rows", style="dim")


def report_command(runs: list[str], out: Path | None, root: str, console: Console) -> Path:
    import duckdb

    from rtarena.eval.report import build_report

    try:
        html = build_report(runs, out, root)
    except duckdb.Error as error:  # records a run did not write (a hand-edited or foreign episodes.jsonl)
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise UserError(f"cannot read the runs' records ({first}); is each folder a run of `rtarena run`?",
                        field="RUNS") from None
    console.print(f"report: {html}  markdown: {html.with_suffix('.md')}")
    return html


def leaderboard_command(runs: list[str], root: str, metric: str | None, clock: str | None, markdown: Path | None,
                        console: Console, games: str | None = None) -> None:
    from rtarena.eval.leaderboard import leaderboard, suite_settings, to_markdown

    # the suite is ranked per clock setting, never over settings pooled (PDQ and LCRT apart)
    settings: list[str | None] = [clock] if clock or games is None else list(suite_settings(runs, root)) or [None]
    pages = []
    for setting in settings:
        name, rows = leaderboard(runs, root, metric, setting, games)
        levels = list(dict.fromkeys(lv for r in rows for lv in r.levels))
        priced = any(r.cost_usd is not None for r in rows)
        table = Table("rank", "agent", f"{name} (mean over levels)", "episodes",
                      *(["USD / episode"] if priced else []), *levels,
                      title="leaderboard" + (f" (clock setting: {setting})" if setting else ""))
        for r in rows:
            rating = f"{r.rating:.4g}" + (f" ± {r.se:.2g}" if r.se is not None else "")
            cost = ["—" if r.cost_usd is None else f"{r.cost_usd:.4g}"] if priced else []
            table.add_row(str(r.rank), r.agent, rating, str(r.episodes), *cost,
                          *(f"{r.levels[lv]:.4g}" if lv in r.levels else "—" for lv in levels))
        console.print(table)
        pages.append((f"## clock setting: {setting}\n\n" if len(settings) > 1 else "") + to_markdown(name, rows))
        if games == "pvp":  # the matches' ratings beside the score table (eval/pvp.py)
            lines = pvp_ratings_lines(runs, root, setting)
            for line in lines:
                console.print(line, markup=False, highlight=False)
            pages.append("\n".join(["", *lines, ""]))
    if markdown:
        markdown.write_text("\n".join(pages), encoding="utf-8")
        console.print(f"markdown: {markdown}")


def pvp_ratings_lines(runs: list[str], root: str, setting: str | None) -> list[str]:
    """`leaderboard --games pvp`: the Bradley-Terry and Elo ratings (with intervals) and the non-transitivity
    of the suite's PvP games under one clock setting, as Markdown lines (none without matches)."""
    from rtarena.envs.games.ratings import suite_ratings
    from rtarena.eval.pvp import pvp_matches, rate, to_markdown
    from rtarena.eval.query import connect, run_dirs

    ids = [r.env_id for r in suite_ratings() if r.mode == "pvp"]
    matches = pvp_matches(connect(run_dirs(runs, root)), ids, setting)
    return to_markdown(rate(matches)) if matches else []
