"""The `rtarena` command line. Each command is a thin shell over a module; user mistakes print one line."""

from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from rtarena.errors import UserError
from rtarena.runtime.clocks import CLOCKS


def plain_echo(line: str) -> None:
    """Print a line as it is: no rich markup (settings like `[a=b]` stay visible)."""
    console.print(line, markup=False, highlight=False)


app = typer.Typer(add_completion=False, no_args_is_help=True, help="rtarena: agents that must act in real time.")


def _flag_takes_no_value() -> None:
    """`--help` without a type after flags that take no value (`--resume`, `--open/--no-open`): typer 0.29
    labels every option with its type, so `--resume <bool>` read as if it wanted `true` or `false`."""
    from typer.core import TyperOption

    shown = TyperOption.display_type_rich

    def display_type_rich(self: TyperOption, ctx: object) -> str | None:
        return None if self.is_flag else shown(self, ctx)

    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign]


_flag_takes_no_value()


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            typer.echo(f"rtarena {version('rtarena')}")
        except PackageNotFoundError:
            typer.echo("rtarena (not installed: running from a source tree)")
        raise typer.Exit(0)


@app.callback()
def _root(version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                                help="print the version and exit")] = False) -> None:
    """rtarena: agents that must act in real time."""
# Piped output (CI logs, `make demo | tee`) gets a wide page instead of the 80 columns rich assumes.
console = Console() if sys.stdout.isatty() else Console(width=120)


@app.command("list")
def list_envs(
    capabilities: Annotated[bool, typer.Option("--capabilities", help="the game suite's capability ratings (0-3)")]
    = False,
    svg: Annotated[Path | None, typer.Option("--svg", help="with --capabilities: write the ratings as a radar "
                                                          "chart (SVG) to this file")] = None,
) -> None:
    """List the registered envs and the agent kinds (`--capabilities`: the game suite's ratings)."""
    from rtarena.agents.specs import AGENT_KINDS
    from rtarena.envs.registry import ENV_TABLE

    if capabilities:
        from rtarena.eval.games_table import capabilities_table
        from rtarena.schema import writable_file

        if svg is not None:
            writable_file(svg, "--svg", (".svg",))

        capabilities_table(console, svg)
        return
    from rtarena.envs.conditions import family_condition
    from rtarena.envs.games.rules import game_name, read_capabilities

    table = Table("env id", "agents", "summary", "condition (a bare `run`; `describe ENV_ID`)", title="envs")
    for spec in ENV_TABLE:
        rated = f" [{read_capabilities(game_name(spec.id) + '.toml').short()}]" if spec.family == "games" else ""
        condition = family_condition(spec.family)
        table.add_row(spec.id, "1" if spec.single_agent else "many", spec.summary + rated,
                      escape(f"{condition.name}: {condition.clock.clock}, {'+'.join(condition.view.modalities)}"))
    console.print(table)
    kinds = Table("agent spec", "privileged", "summary", title="agents (--agent); privileged ones read the world")
    for kind in AGENT_KINDS:
        kinds.add_row(kind.name, "PRIVILEGED" if kind.privileged else "", kind.summary)
    console.print(kinds)


def given_options(ctx: typer.Context, names: tuple[str, ...]) -> dict[str, object]:
    """The options of `names` the user typed (not left at their defaults), with their values."""
    given = {}
    for name in names:
        param = name if name in ctx.params else name + "_"
        source = ctx.get_parameter_source(param)
        if source is not None and source.name == "COMMANDLINE":
            given[name] = ctx.params[param]
    return given


@app.command()
def describe(
    env_id: Annotated[str, typer.Argument(help="an env id (see `rtarena list`)")],
) -> None:
    """What a bare `rtarena run ENV_ID` plays: the env family's declared condition, with the paper's words
    (one line each, unwrapped)."""
    from rtarena.envs.conditions import condition_file, family_condition
    from rtarena.envs.registry import env_spec

    spec = env_spec(env_id)
    condition = family_condition(spec.family)
    typer.echo(f"{spec.id}: {spec.summary}")
    typer.echo(condition.line())
    rows = [("clock", " ".join([condition.clock.clock, *(f"{k}={v}" for k, v in condition.clock.settings().items())])),
            ("dt", f"{condition.dt_s:g} s" if condition.dt_s is not None else "the env's own"),
            ("chunks", condition.chunks), ("latency", condition.latency),
            ("model's view", "+".join(condition.view.modalities) + (f" at {condition.view.image_px} px"
                                                                     if condition.view.image_px else "")),
            ("view from", condition.view.about), ("declared in", str(condition_file(spec.family)))]
    for name, value in rows:
        typer.echo(f"  {name}: {value}")
    for quote in condition.quotes:
        typer.echo(f'  paper: "{quote}"')
    for ablation in condition.ablations:
        typer.echo(f"  ablation: {ablation}")


@app.command()
def run(
    ctx: typer.Context,
    target: Annotated[str | None, typer.Argument(
        help="an env id (see `rtarena list`), an experiment file (.toml/.json/.yaml), or a run folder with --resume",
        show_default=False)] = None,
    agent: Annotated[
        list[str] | None, typer.Option("--agent", help="agent spec, required with an ENV_ID (e.g. random); once "
                                       "for every slot, or once per slot", show_default=False)
    ] = None,
    clock: Annotated[str | None, typer.Option(help=" | ".join(CLOCKS) + " [default: the env's declared condition, "
                                              "`rtarena describe ENV_ID`]", show_default=False)] = None,
    dt: Annotated[float | None, typer.Option(help="simulated seconds per env step [default: the condition's, else "
                                             "the env's]", show_default=False)] = None,
    kappa: Annotated[float | None, typer.Option(help="token clock: tokens per simulated second")] = None,
    overhead: Annotated[float | None, typer.Option(help="token clock: fixed seconds per decision")] = None,
    delay_ms: Annotated[float, typer.Option("--delay-ms", help="injected delay per decision, ms")] = 0.0,
    obs_every: Annotated[int | None, typer.Option("--obs-every", help="publish an observation every K steps "
                                                  "[default: the env's, 1]", show_default=False)] = None,
    max_steps: Annotated[int | None, typer.Option(
        "--max-steps", help="step limit per episode [default: until the env ends it]", show_default=False)] = None,
    settle_s: Annotated[float | None, typer.Option(
        "--settle-s", help="action chunks: play a decision's chunk, then S more seconds, before observing")] = None,
    latency: Annotated[str | None, typer.Option(
        help="measured clock: the latency charged, client | server | endpoint [client]")] = None,
    latency_trace: Annotated[str | None, typer.Option(
        "--latency-trace", help="replay clock: a run folder or Parquet file whose latencies are replayed")] = None,
    latency_model: Annotated[str | None, typer.Option(
        "--latency-model", help="replay clock: empirical | tokens (a fit on tokens in/out) [empirical]")] = None,
    obs: Annotated[str | None, typer.Option(help="what the env makes, +-joined (rgb+text) [default: what the agents "
                                            "declare they observe, else the env's own]", show_default=False)] = None,
    resolution: Annotated[int | None, typer.Option(help="image side in pixels for rgb/depth (the arena: 84..640) "
                                                   "[default: the agents' or the env's]", show_default=False)] = None,
    seeds: Annotated[int, typer.Option(help="number of episodes, seeds 0..N-1")] = 1,
    seed_start: Annotated[int, typer.Option("--seed-start", help="first seed")] = 0,
    out: Annotated[Path, typer.Option(help="output folder")] = Path("runs/latest"),
    preset: Annotated[str | None, typer.Option("--preset", help="a bundled experiment (see `rtarena presets`)")] = None,
    set_: Annotated[list[str] | None, typer.Option("--set", help="KEY=VALUE for the experiment's \\[params]; for an "
                    "arena ENV_ID a game rule SECTION.KEY=VALUE (turret.range_m=30)")] = None,
    map_: Annotated[str | None, typer.Option("--map", help="arena: a map file or procedural:SEED[:STYLE]")] = None,
    disable: Annotated[list[str] | None, typer.Option(
        "--disable", help="arena: features to switch off, e.g. chickens,toxic_zone,hud")] = None,
    ray: Annotated[str | None, typer.Option(
        "--ray", metavar="[ADDRESS]",
        help="run on Ray: a private local cluster, or the cluster at ADDRESS (needs rtarena\\[ray])")] = None,
    resume: Annotated[bool, typer.Option("--resume", help="finish an interrupted run: only missing episodes")] = False,
    workers: Annotated[int, typer.Option("--workers", help="episodes at once (0: one per CPU; 1 for ENV_ID)")] = 0,
    video: Annotated[bool, typer.Option("--video", help="write an MP4 per episode (needs rtarena\\[video])")] = False,
    run_id: Annotated[str | None, typer.Option("--run-id", help="name of the run folder under the experiment's out")]
    = None,
    max_cost: Annotated[float | None, typer.Option(
        "--max-cost", help="USD: stop starting episodes when the run would pass it", show_default=False)] = None,
    max_errors: Annotated[float | None, typer.Option(
        "--max-errors", help="share of episodes (0-1): fail the run once more have errored", show_default=False)]
    = None,
) -> None:
    """Run episodes: of one env with the flags below, or of an experiment file or preset, on a local
    process pool or Ray. Writes episodes.jsonl and Parquet records; `--resume` finishes a killed run."""
    from rtarena.eval.commands import RunOptions, run_command
    from rtarena.eval.flags import RunFlags
    from rtarena.schema import run_name

    # the flags of one env's run are the fields of `RunFlags` (eval/flags.py), typed and checked there once;
    # next to an experiment file or a preset, those the user typed are refused
    names = tuple(RunFlags.model_fields)
    flags = {name: ctx.params[name if name in ctx.params else name + "_"] for name in names}
    options = RunOptions(preset, tuple(set_ or ()), ray, resume, workers, video, run_name(run_id), max_cost, max_errors)
    result = run_command(target, flags, given_options(ctx, names), options, console)
    if result.exit_code:  # exit codes: docs/evaluation.md
        raise typer.Exit(result.exit_code)


@app.command()
def presets(
    name: Annotated[str | None, typer.Argument(help="a preset: print its cells and seeds instead of running it")]
    = None,
) -> None:
    """List the bundled experiment presets (`rtarena run --preset NAME`); `presets NAME`: what NAME would run."""
    from rtarena.eval.commands import presets_command

    presets_command(console, name)


@app.command()
def report(
    runs: Annotated[list[str], typer.Argument(help="run folders or run ids under --root")],
    out: Annotated[Path | None, typer.Option(help="output folder (default: RUN/report for one run)")] = None,
    root: Annotated[str, typer.Option(help="folder holding the runs")] = "runs",
) -> None:
    """Write a Markdown report and a self-contained HTML page: tables (mean ± s.e.), plots, videos."""
    from rtarena.eval.commands import report_command
    from rtarena.improve.commands import improve_report_command, improve_runs

    if improve_runs(runs, root):  # improvement runs get their curve, gains and transfer (improve/report.py)
        improve_report_command(runs, out, root, console)
        return
    report_command(runs, out, root, console)


@app.command()
def leaderboard(
    runs: Annotated[list[str] | None, typer.Argument(help="run folders or ids (default: every run under --root)")]
    = None,
    root: Annotated[str, typer.Option(help="folder holding the runs")] = "runs",
    metric: Annotated[str | None, typer.Option(
        help="metric to rank by (default: score, else return); final_gain or auc_gain rank improvement runs")] = None,
    clock: Annotated[str | None, typer.Option(help="only episodes of this clock setting")] = None,
    markdown: Annotated[Path | None, typer.Option(help="also write the table as Markdown to this file")] = None,
    games: Annotated[str | None, typer.Option(
        help="only the game suite's solo | pvp | coop games (solo: the suite's solo mean)")] = None,
    force: Annotated[bool, typer.Option("--force", help="overwrite the --markdown file when it exists")] = False,
) -> None:
    """Rank agents across runs by the mean over levels of their per-level means."""
    from rtarena.eval.commands import leaderboard_command
    from rtarena.improve.commands import GAIN_METRICS, gain_leaderboard_command
    from rtarena.schema import new_file

    if markdown is not None:
        new_file(markdown, "--markdown", (".md",), force)

    if metric in GAIN_METRICS:
        gain_leaderboard_command(runs or [], root, metric, markdown, console)
        return
    leaderboard_command(runs or [], root, metric, clock, markdown, console, games)


@app.command()
def ratings(
    runs: Annotated[list[str], typer.Argument(help="run folders or run ids under --root")],
    root: Annotated[str, typer.Option(help="folder holding the runs")] = "runs",
    game: Annotated[list[str] | None, typer.Option(help="only these env ids (repeatable)")] = None,
    clock: Annotated[str | None, typer.Option(help="only matches of this clock setting (default: all pooled)")]
    = None,
    bootstrap: Annotated[int, typer.Option(min=10, max=100_000, help="bootstrap resamples")] = 1000,
    seed: Annotated[int, typer.Option(help="bootstrap seed")] = 0,
) -> None:
    """PvP ratings from the runs' two-player matches: Bradley-Terry and Elo with bootstrap intervals, and the
    share of rock-paper-scissors cycles among agent triples (docs/evaluation.md)."""
    from rtarena.eval.pvp import pvp_matches, rate, to_markdown
    from rtarena.eval.query import connect, run_dirs

    result = rate(pvp_matches(connect(run_dirs(runs, root)), game, clock), bootstrap=bootstrap, seed=seed)
    for line in to_markdown(result):
        plain_echo(line)


@app.command()
def query(
    sql: Annotated[str, typer.Argument(help="SQL over the views episodes, agents, decisions, steps, events, runs")],
    runs: Annotated[list[str] | None, typer.Option("--run", help="only these runs (default: all under --root)")]
    = None,
    root: Annotated[str, typer.Option(help="folder holding the runs")] = "runs",
    format_: Annotated[str, typer.Option("--format", help="table | csv | json")] = "table",
) -> None:
    """Query every run with DuckDB, e.g. `rtarena query "SELECT agent_label, avg(return) FROM agents GROUP BY 1"`."""
    from rtarena.eval.commands import query_command

    query_command(sql, runs or [], root, format_, console)


@app.command()
def demo(
    out: Annotated[Path, typer.Option(help="output folder")] = Path("demo-out"),
    quick: Annotated[bool, typer.Option("--quick", help="every section, with short episodes (for tests)")] = False,
) -> None:
    """The offline demo: no API key, scripted agents, every clock."""
    from rtarena.demo import run_demo
    from rtarena.schema import writable_folder

    run_demo(writable_folder(out, "--out"), console, quick=quick)


@app.command()
def findings(
    out: Annotated[Path, typer.Option(help="output folder (the page, its charts and the runs)")] = Path("findings"),
    quick: Annotated[bool, typer.Option("--quick", help="every finding shrunk to minutes")] = False,
    only: Annotated[list[str] | None, typer.Option("--only", help="run only this finding (repeatable)")] = None,
    workers: Annotated[int, typer.Option(help="episodes at once")] = 2,
    max_steps: Annotated[int | None, typer.Option("--max-steps", help="cap every episode (a smoke run: the "
                                                  "directions need the findings' own lengths)")] = None,
    seed_offset: Annotated[int, typer.Option("--seed-offset", help="a replication: play every seed this far on "
                                             "from the seeds the rules name (0: the registered seeds)")] = 0,
    idc_episodes: Annotated[int | None, typer.Option("--idc-episodes", help="idc's episodes per round (the "
                                                     "paper's K is 5; default: the run size's own)")] = None,
) -> None:
    """The papers' headline findings, reproduced offline with scripted stand-ins, on one page (docs/findings.md)."""
    from rtarena.findings import REGISTERED_SEEDS_BELOW, run_findings
    from rtarena.limits import LIMITS, check_limit
    from rtarena.schema import writable_folder

    for name, value in (("--workers", workers), ("--max-steps", max_steps), ("--idc-episodes", idc_episodes)):
        if value is not None and value < 1:
            raise UserError(f"must be >= 1, got {value}", field=name)
    check_limit("option.count", idc_episodes, field="--idc-episodes")
    highest = int(LIMITS["run.seed"].value) - REGISTERED_SEEDS_BELOW
    if seed_offset and not REGISTERED_SEEDS_BELOW <= seed_offset <= highest:
        raise UserError(f"must be 0 or from {REGISTERED_SEEDS_BELOW} (nearer, the seeds would meet the registered "
                        f"runs' and pilots') to {highest} (limit run.seed, docs/limits.md), got {seed_offset}",
                        field="--seed-offset")
    page, failed = run_findings(writable_folder(out, "--out"), quick=quick, only=only or None, workers=workers,
                                max_steps=max_steps, console=console, seed_offset=seed_offset,
                                idc_episodes=idc_episodes)
    console.print(f"page: {page} and {page.with_suffix('.md')}", highlight=False)
    if failed:
        raise typer.Exit(1)


@app.command()
def warmup(
    check: Annotated[bool, typer.Option("--check", help="exit 1 if any kernel compiled (a cache miss)")] = False,
) -> None:
    """Compile the numba kernels once into the cache (`make` runs it; docs/arena-senses.md)."""
    from rtarena.eval.warmup import main as warmup_main

    raise typer.Exit(warmup_main(check))


@app.command()
def improve(
    target: Annotated[str, typer.Argument(help="an env id, an improve file (.toml), or a run folder with --resume")],
    player: Annotated[str | None, typer.Option(help="the player: a model agent spec (llm:MODEL@URL,...)")] = None,
    reflector: Annotated[str | None, typer.Option(help="the reflector: MODEL@URL (tool calling)")] = None,
    judge: Annotated[str | None, typer.Option(help="the judge: MODEL@URL (default: the reflector's)")] = None,
    rounds: Annotated[int | None, typer.Option(help="rounds, round 0 included [11: R0..R10]")] = None,
    episodes: Annotated[int | None, typer.Option(help="episodes per round [5]")] = None,
    clock: Annotated[str | None, typer.Option(help="clock of the player's episodes [paused]")] = None,
    settle_s: Annotated[float | None, typer.Option("--settle-s", help="seconds after a chunk has played [0.2]")]
    = None,
    kappa: Annotated[float | None, typer.Option(help="token clock: tokens per simulated second")] = None,
    overhead: Annotated[float | None, typer.Option(help="token clock: fixed seconds per decision [0]")] = None,
    delay_ms: Annotated[float | None, typer.Option("--delay-ms", help="injected delay per decision, ms [0]")] = None,
    obs_every: Annotated[int | None, typer.Option("--obs-every", help="observation every K steps [the env's, 1]")]
    = None,
    max_steps: Annotated[int | None, typer.Option("--max-steps", help="step limit per episode [until the env ends "
                                                  "it]")] = None,
    alpha: Annotated[float | None, typer.Option(help="rollback below alpha x the best round [0.5]")] = None,
    judge_mode: Annotated[str | None, typer.Option("--judge-mode", help="binding | advisory [binding]")] = None,
    transfer: Annotated[int | None, typer.Option("--transfer", help="episodes per variant and condition [0]")]
    = None,
    variant: Annotated[list[str] | None, typer.Option(
        "--variant", help="NAME:KEY=VALUE[,KEY=VALUE] (env kwargs, or arena rules SECTION.KEY)")] = None,
    set_: Annotated[list[str] | None, typer.Option("--set", help="arena: game rule SECTION.KEY=VALUE")] = None,
    setting: Annotated[list[str] | None, typer.Option("--setting", help="any other improve setting KEY=VALUE")]
    = None,
    transfer_every_round: Annotated[bool | None, typer.Option(
        "--transfer-every-round", help="every round also plays the variants (--transfer N each) with its skill")]
    = None,
    stop_rule: Annotated[str | None, typer.Option("--stop-rule", help="none | peak (needs --setting "
                                                  "holdout_episodes=N) [none]")] = None,
    workers: Annotated[int | None, typer.Option(help="episodes at once (0: one per CPU) [1]")] = None,
    ray: Annotated[str | None, typer.Option("--ray", metavar="[ADDRESS]", help="run episodes on Ray")] = None,
    out: Annotated[Path, typer.Option(help="folder holding the runs")] = Path("runs"),
    run_id: Annotated[str | None, typer.Option("--run-id", help="the run folder's name under --out")] = None,
    resume: Annotated[bool, typer.Option("--resume", help="finish an interrupted improvement run")] = False,
) -> None:
    """Self-improvement rounds: play K episodes, let a reflector with tools write a skill, judge, repeat."""
    from rtarena.improve.commands import improve_command, setting_pairs

    settings = {"rounds": rounds, "episodes": episodes, "clock": clock, "max_steps": max_steps, "alpha": alpha,
                "settle_s": settle_s, "kappa": kappa, "overhead_s": overhead, "delay_ms": delay_ms,
                "obs_every": obs_every,
                "judge_mode": judge_mode, "transfer_episodes": transfer, "workers": workers,
                "transfer_every_round": transfer_every_round, "stop_rule": stop_rule,
                **setting_pairs(setting or [])}
    from rtarena.schema import run_name

    improve_command(target, player, reflector, judge, variant or [], set_ or [], settings, out, run_name(run_id),
                    resume, ray, console)


@app.command("improve-analyse")
def improve_analyse(
    run: Annotated[str, typer.Argument(help="an improvement run folder, or its id under --root")],
    adherence: Annotated[bool, typer.Option("--adherence", help="per round: share of decisions the skill changed, "
                                            "share of replies citing a bullet")] = False,
    attribution: Annotated[bool, typer.Option("--attribution", help="leave-one-bullet-out effects of the best "
                                              "skill")] = False,
    max_decisions: Annotated[int, typer.Option("--max-decisions", min=1, help="decisions replayed per round")]
    = 200,
    root: Annotated[str, typer.Option(help="folder holding the runs")] = "runs",
    out: Annotated[Path | None, typer.Option(help="output folder (default: RUN/analysis)")] = None,
    player: Annotated[str | None, typer.Option(help="adherence: replay with this model agent instead of the run's "
                                               "player")] = None,
    round_: Annotated[int | None, typer.Option("--round", min=0, help="attribution: this round's skill [the best "
                                               "round's]")] = None,
    episodes: Annotated[int | None, typer.Option(min=1, help="attribution: seeds per condition [the run's "
                                                 "episodes]")] = None,
) -> None:
    """Analyse an improvement run: does the player follow its skill, what is each bullet worth (docs/improve.md)."""
    from rtarena.improve.commands import analyse_command

    analyse_command(run, root, adherence, attribution, max_decisions, out, player, round_, episodes, console)


@app.command()
def annotate(
    run: Annotated[str, typer.Argument(help="a run folder or run id under --root")],
    root: Annotated[str, typer.Option(help="folder holding the runs")] = "runs",
    model: Annotated[str | None, typer.Option(help="also annotate with a model: MODEL@BASE_URL[,key=value...]")]
    = None,
    codebook: Annotated[str | None, typer.Option(help="a codebook TOML (default: the bundled failure_modes.toml)")]
    = None,
    review: Annotated[bool, typer.Option("--review", help="then serve the review page on 127.0.0.1")] = False,
    port: Annotated[int, typer.Option(help="review page port on 127.0.0.1 (0: any free port)")] = 8766,
    open_browser: Annotated[bool, typer.Option("--open/--no-open", help="open the review page in a browser")] = True,
) -> None:
    """Code why episodes failed (RT-Perceive / RT-Deliberate / RT-Act) into RUN/annotations/."""
    from rtarena.annotate.commands import annotate_command

    annotate_command(run, root, model, codebook, review, port, open_browser, console)


@app.command("serve-policy")
def serve_policy(
    port: Annotated[int, typer.Option(help="port on 127.0.0.1 (0: any free port)")] = 8000,
    policy: Annotated[str, typer.Option(
        help="heuristic | pixels | random | stale | skill | judge | reflector | annotator (scripted, not models)")] = (
        "heuristic"),
    filler_tokens: Annotated[int, typer.Option("--filler-tokens", help="reasoning tokens before each answer")] = 0,
    filler_rate: Annotated[float, typer.Option("--filler-rate", help="filler tokens per second (0: unpaced)")] = 0.0,
    ttft_ms: Annotated[float, typer.Option("--ttft-ms", help="time to first token, ms")] = 0.0,
    fault: Annotated[str, typer.Option(
        help="none | garbage | empty | html | cut | http_500 | http_429 | slow | garbage_event | no_done")] = "none",
    setting: Annotated[
        list[str] | None, typer.Option("--set", help="any other server setting, KEY=VALUE (repeatable)")
    ] = None,
) -> None:
    """Serve an OpenAI-compatible chat API (and the Realtime protocol at /v1/realtime) on 127.0.0.1 that answers
    with a scripted policy."""
    from rtarena.policy_server.server import serve
    from rtarena.schema import check_port

    check_port(port)
    if not 0 <= ttft_ms < float("inf"):
        raise UserError(f"must be >= 0 milliseconds, got {ttft_ms:g}", field="--ttft-ms")
    serve(port, policy=policy, filler_tokens=filler_tokens, filler_rate=filler_rate, ttft_s=ttft_ms / 1000.0,
          fault=fault, overrides=",".join(setting or []), echo=plain_echo)


train_app = typer.Typer(no_args_is_help=True, help="Train agents in the arena (needs rtarena\\[rl]; docs/training.md).")
app.add_typer(train_app, name="train")


@train_app.command("sb3")
def train_sb3_command(
    env_id: Annotated[str, typer.Argument(help="a one-player arena level, e.g. arena/basic-v0")],
    steps: Annotated[int, typer.Option(help="env steps of PPO")] = 60000,
    out: Annotated[Path, typer.Option(help="the policy file to write (.zip); play it with --agent sb3:PATH")]
    = Path("runs/ppo.zip"),
    seed: Annotated[int, typer.Option(help="random seed")] = 0,
    envs: Annotated[int, typer.Option("--envs", help="copies of the level stepped together")] = 8,
    obs: Annotated[str, typer.Option(help="state (an MLP on the state vector) | pixels (a CNN on 84x84 RGB)")]
    = "state",
) -> None:
    """PPO (Stable-Baselines3) on the level's state vector or its pixels; saves the policy."""
    from rtarena.train.sb3 import train_sb3

    train_sb3(env_id, steps, out, seed=seed, num_envs=envs, log=plain_echo, obs=obs)


@train_app.command("vlm")
def train_vlm_command(
    env_id: Annotated[str, typer.Argument(help="a one-player arena level, e.g. arena/basic-v0")],
    model: Annotated[str, typer.Option(help="a local model folder (a VLM, or a causal LM with --obs text)")],
    updates: Annotated[int, typer.Option(min=1, help="PPO updates")] = 50,
    steps_per_update: Annotated[int, typer.Option("--steps-per-update", min=1, help="env decisions per update")]
    = 32,
    obs: Annotated[str, typer.Option(help="pixels (the screenshot) | text (the level's text view)")] = "pixels",
    resolution: Annotated[int, typer.Option(min=16, max=1024, help="screenshot size in pixels")] = 84,
    device: Annotated[str | None, typer.Option(help="cpu | cuda (default: cuda when present)")] = None,
    out: Annotated[Path, typer.Option(help="folder for the LoRA adapter, value head and log.jsonl")]
    = Path("runs/lora"),
    seed: Annotated[int, typer.Option(help="random seed")] = 0,
) -> None:
    """Online PPO with LoRA adapters: screenshot -> text action -> env reward (GPU when present)."""
    from rtarena.train.vlm import PPOSettings, train_vlm

    train_vlm(env_id, model, updates, out, seed=seed, settings=PPOSettings(steps_per_update=steps_per_update),
              log=plain_echo, obs=obs, resolution=resolution, device=device)


map_app = typer.Typer(no_args_is_help=True, help="Arena maps: generate, validate, render (format: docs/maps.md).")
app.add_typer(map_app, name="map")


@map_app.command("generate")
def map_generate(
    out: Annotated[Path, typer.Argument(help="the map file to write (.toml or .json)")],
    seed: Annotated[int, typer.Option(help="random seed: the same seed gives the same map")] = 0,
    style: Annotated[str, typer.Option(help="open | rooms | maze")] = "open",
    level: Annotated[str | None, typer.Option(help="fit the map to an arena level id (size, counts, symmetry)")]
    = None,
    players: Annotated[int | None, typer.Option(help="number of spawns")] = None,
    size: Annotated[float | None, typer.Option("--size", help="arena side, metres")] = None,
    density: Annotated[float | None, typer.Option(help="share of the floor under obstacles (0..0.5)")] = None,
    crate_ratio: Annotated[float | None, typer.Option("--crate-ratio", help="share of obstacles that are crates")]
    = None,
    coins: Annotated[int | None, typer.Option(help="coins")] = None,
    turrets: Annotated[int | None, typer.Option(help="turrets")] = None,
    ammo: Annotated[int | None, typer.Option(help="ammo areas")] = None,
    symmetric: Annotated[bool | None, typer.Option("--symmetric/--no-symmetric", help="mirror-symmetric layout")]
    = None,
    force: Annotated[bool, typer.Option("--force", help="overwrite OUT when it exists")] = False,
) -> None:
    """Generate a procedural map (every coin and spawn reachable) and write it."""
    from rtarena.editor.maps import generate_command
    from rtarena.schema import writable_file

    writable_file(out, "OUT", (".toml", ".json"))
    if out.exists() and not force:
        raise UserError(f"{out} exists; add --force to overwrite it", field="OUT")
    if size is not None and not 0 < size < float("inf"):
        raise UserError(f"must be a number of metres > 0, got {size:g}", field="--size")
    from rtarena.limits import check_limit

    for flag, value in (("--coins", coins), ("--turrets", turrets), ("--ammo", ammo), ("--players", players)):
        if value is not None and value < 0:
            raise UserError(f"must be >= 0, got {value}", field=flag)
        check_limit("map.points", value, field=flag)
    if players is not None and players < 1:
        raise UserError(f"must be >= 1, got {players}", field="--players")
    path, data = generate_command(out, seed, style, level, players, size_m=size, density=density,
                                  crate_ratio=crate_ratio, coins=coins, turrets=turrets, ammo=ammo,
                                  symmetric=symmetric)
    console.print(f"{path}: {len(data['obstacles'])} obstacles, {len(data['spawns'])} spawns, "
                  f"{len(data['coins'])} coins, {len(data['turrets'])} turrets")


@map_app.command("validate")
def map_validate(
    maps: Annotated[list[str], typer.Argument(help="map files (or procedural:SEED[:STYLE])")],
    level: Annotated[str | None, typer.Option(help="check against an arena level id (size, players, jump)")] = None,
    players: Annotated[int | None, typer.Option(help="players the map must have spawns for")] = None,
) -> None:
    """Check maps: one line per problem (file: field: what), exit 1 when there is any."""
    from rtarena.editor.maps import validate_command

    if players is not None and players < 1:
        raise UserError(f"must be >= 1, got {players}", field="--players")
    problems = validate_command(maps, level, players)
    for problem in problems:
        typer.echo(problem.line())
    if problems:
        raise typer.Exit(1)
    typer.echo(f"{len(maps)} map(s) valid")


@map_app.command("render")
def map_render(
    source: Annotated[str, typer.Argument(help="a map file or procedural:SEED[:STYLE]")],
    out: Annotated[Path, typer.Option(help="the PNG to write")] = Path("map.png"),
    px_per_m: Annotated[float, typer.Option("--px-per-m", help="pixels per metre")] = 6.0,
    level: Annotated[str | None, typer.Option(help="for procedural maps: the level to fit")] = None,
    force: Annotated[bool, typer.Option("--force", help="overwrite --out when it exists")] = False,
) -> None:
    """Write a top-down PNG preview of a map."""
    from rtarena.editor.maps import render_command
    from rtarena.schema import new_file

    new_file(out, "--out", (".png",), force)
    if not 0 < px_per_m < float("inf"):
        raise UserError(f"must be a number of pixels > 0, got {px_per_m:g}", field="--px-per-m")
    console.print(str(render_command(source, out, px_per_m, level)))


@app.command()
def edit(
    map_file: Annotated[Path | None, typer.Argument(help="the map to edit (created on save if missing)")] = None,
    level: Annotated[str, typer.Option(help="arena level the map is checked against")] = "arena/coop-v0",
    port: Annotated[int, typer.Option(help="port on 127.0.0.1 (0: any free port)")] = 8768,
    open_browser: Annotated[bool, typer.Option("--open/--no-open", help="open the page in a browser")] = True,
    root: Annotated[Path | None, typer.Option(help="the folder saves may write to (default: the map's folder)")]
    = None,
) -> None:
    """The map editor: a page on 127.0.0.1 to paint obstacles, place things, generate, preview and save."""
    from rtarena.editor.server import serve
    from rtarena.schema import check_port

    check_port(port)
    serve(map_file, level=level, port=port, open_browser=open_browser, console=console, root=root)


@app.command()
def dashboard(
    root: Annotated[Path, typer.Option(help="folder whose sub-folders are runs")] = Path("runs"),
    port: Annotated[int, typer.Option(help="port on 127.0.0.1 (0: any free port)", min=0, max=65535)] = 8765,
    open_browser: Annotated[bool, typer.Option("--open/--no-open", help="open the page in a browser")] = True,
) -> None:
    """Browse runs, compare agents and replay any episode against its decision timeline (127.0.0.1 only)."""
    from rtarena.dashboard.server import serve

    if not root.is_dir():
        raise UserError(f"{root} is not a folder of runs", field="--root")
    serve(root, port=port, open_browser=open_browser, echo=plain_echo)


@app.command()
def play(
    env_id: Annotated[str | None, typer.Argument(help="an env id: arena/competitive-v0 (window or --web), "
                                                 "games/tilefall-v0, web/auction-v0 (--web)")] = None,
    agent: Annotated[list[str] | None, typer.Option(
        "--agent", help="per slot in order: human[:wasd|arrows|ijkl|numpad], heuristic, llm:... (rest: heuristic)")]
    = None,
    map_: Annotated[str | None, typer.Option("--map", help="a map file or procedural:SEED[:STYLE]")] = None,
    set_: Annotated[list[str] | None, typer.Option("--set", help="game rule SECTION.KEY=VALUE")] = None,
    disable: Annotated[list[str] | None, typer.Option("--disable", help="e.g. chickens,toxic_zone,hud")] = None,
    dt: Annotated[float | None, typer.Option(help="simulated seconds per step (0.05 multiples)")] = 0.1,
    seed: Annotated[int, typer.Option(help="episode seed")] = 0,
    max_steps: Annotated[int | None, typer.Option("--max-steps", help="step limit (default: the time limit)")]
    = None,
    scale: Annotated[int, typer.Option(help="window pixels per rendered pixel")] = 2,
    out: Annotated[Path, typer.Option(help="where the match is recorded")] = Path("runs/play"),
    script: Annotated[str | None, typer.Option(help="timed keys for demos/tests: '0.5:+w 2:-w'", hidden=True)]
    = None,
    web: Annotated[bool, typer.Option("--web", help="play any env with a human path in a page on 127.0.0.1 "
                                      "(no display needed; also over an SSH tunnel)")] = False,
    port: Annotated[int, typer.Option(help="--web: port on 127.0.0.1 (0: any free port)", min=0, max=65535)]
    = 8767,
    open_browser: Annotated[bool, typer.Option("--open/--no-open", help="--web: open the page in a browser")] = True,
    check: Annotated[bool, typer.Option("--check", help="feasibility: the oracle plays through the human input "
                                        "path with a 250 ms reaction delay (ENV_ID may be a pattern: 'web/*')")]
    = False,
    preset: Annotated[str | None, typer.Option(help="--web: play a preset's envs in turn (`humans`)")] = None,
) -> None:
    """Play an env in real time: the arena in a window (up to four people at one keyboard, split-screen), any
    env with a human path in a page (`--web`); `--check` asks whether a person could finish it in time."""
    from rtarena.play import check_play, check_play_options, needs_display, result_table
    from rtarena.play import play as play_match

    check_play_options(dt=dt, seed=seed, max_steps=max_steps, scale=scale, out=out)
    if (env_id is None) == (preset is None) or (preset and not web):
        raise UserError("give ENV_ID, or --preset NAME with --web", field="ENV_ID")
    if web or check:
        from rtarena.play.web import play_command

        play_command(env_id, agent, web=web, check=check, port=port, open_browser=open_browser, map_=map_,
                     sets=tuple(set_ or ()), disable=tuple(disable or ()), dt=dt, seed=seed, max_steps=max_steps,
                     out=out, echo=plain_echo, print_=console.print, preset=preset)
        return
    check_play(env_id, agent, map=map_, sets=tuple(set_ or ()), disable=tuple(disable or ()), dt=dt)
    why = needs_display()
    if why:
        raise UserError(why, field="play")
    outcome = play_match(env_id, agent, map=map_, sets=tuple(set_ or ()), disable=tuple(disable or ()), dt=dt,
                         seed=seed, max_steps=max_steps, scale=scale, out=out, script=script)
    console.print(result_table(outcome.line, outcome.walked_m))
    console.print(f"recorded in {out}")


def _is_usage_error(error: BaseException) -> bool:
    """A click (or typer's own click) usage error: a wrong flag, a value of the wrong type."""
    import click

    kinds: tuple[type, ...] = (click.ClickException,)
    try:
        from typer._click.exceptions import ClickException as TyperClickException

        kinds += (TyperClickException,)
    except ImportError:  # typer versions that use click itself
        pass
    return isinstance(error, kinds)


# Options naming a file or folder: an empty value would mean the current folder, never what was meant.
PATH_OPTIONS = ("--out", "--root", "--run-id", "--map", "--codebook", "--markdown", "--svg", "--skill")


def refuse_empty_paths(argv: list[str]) -> list[str]:
    """`--out ""` (or `--out=`) is refused by name before typer turns it into `.`."""
    for i, arg in enumerate(argv):
        name, eq, value = arg.partition("=")
        if name in PATH_OPTIONS and ((eq and not value.strip()) or (
                not eq and i + 1 < len(argv) and not argv[i + 1].strip())):
            raise UserError("must name a file or folder, got ''", field=name)
    return argv


def os_error_line(error: OSError) -> str:
    """An `OSError` as one line naming the path: `/proc/x/out: cannot write: Permission denied`."""
    where = error.filename if error.filename is not None else ""
    reason = error.strerror or (str(error).splitlines() or [type(error).__name__])[0]
    return f"{where}: cannot write or read: {reason}" if where else f"cannot write or read: {reason}"


@functools.cache
def click_command() -> Any:
    """The click command typer builds from `app`, once per process: building it reads every command's
    signature and type hints (about 0.35 s), which each in-process call (the test suite makes hundreds) would
    otherwise pay again."""
    return typer.main.get_command(app)


def main() -> None:
    try:
        from rtarena.eval.commands import normalise_argv

        status = click_command()(args=normalise_argv(refuse_empty_paths(sys.argv[1:])), standalone_mode=False)
        # without standalone mode click returns a command's `typer.Exit(code)` as the code: exit with it
        sys.exit(status if isinstance(status, int) else 0)
    except UserError as error:
        console.print(f"[red]error:[/red] {escape(str(error))}", highlight=False, soft_wrap=True)
        sys.exit(2)
    except OSError as error:  # the edge: an output the system refused (permission, read-only, disk full)
        console.print(f"[red]error:[/red] {escape(os_error_line(error))}", highlight=False, soft_wrap=True)
        sys.exit(2)
    except typer.Exit as done:
        sys.exit(done.exit_code)
    except (typer.Abort, KeyboardInterrupt):
        console.print("aborted")
        sys.exit(130)
    except Exception as error:  # click usage errors arrive here in non-standalone mode
        if _is_usage_error(error):  # a usage mistake: one line, like a UserError
            message = error.format_message()
            cause = getattr(error.__cause__, "errors", None)  # typer's pydantic coercion keeps the input there
            if callable(cause) and cause():
                from rtarena.schema import shown

                message += f", got {shown(cause()[0].get('input'))}"
            console.print(f"[red]error:[/red] {escape(message)}", highlight=False, soft_wrap=True)
            sys.exit(2 if error.exit_code in (1, 2) else error.exit_code)
        raise


if __name__ == "__main__":
    main()
