"""The findings, one row each: the paper's claim and figure, and how we reproduce it offline.

Every run goes through the project's one runner (`eval/runner.py: run_experiment` on a bundled preset,
shrunk with `--quick`) or `rtarena improve`'s own command (`improve/commands.py: improve_command`), against
the scripted policy server; the numbers are read back by `eval/tables.py` and drawn by `eval/svg.py`.
"""

from __future__ import annotations

import json
import shutil
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from rtarena.errors import UserError
from rtarena.eval import svg
from rtarena.eval.presets import load_preset
from rtarena.eval.query import connect
from rtarena.eval.runner import run_experiment
from rtarena.eval.tables import Stat, cell_stats, mean_of, metric_names
from rtarena.policy_server.server import PolicyServer
from rtarena.runtime.clocks import CLOCKS

# The team policy's reply: reasoning tokens per body it decides for, paced at this rate (tokens per
# second): 32 tokens per body at 128 tokens per second is a quarter second per body, one arena step.
# The pacing only matters to a clock that reads wall time (`wall`, `measured`): the token clock charges the
# tokens whatever their pace and `paused` charges nothing, so when every chosen clock is deterministic (the
# quick run's turn-based and token) the plan tokens go out unpaced (filler_rate 0): the same records for the
# scripted (deterministic) stand-in, minutes sooner.
PLAN_TOKENS, PLAN_RATE = 32, 128.0
# The scripted stand-in finishes the co-op level's 24 coins in about a minute (a model does not), so at the
# paper's five minutes every control mode scores 1.0; the finding is read at 30 s instead.
COOP_STEPS = 120
LCRT_TTFT_S = 0.3  # the stand-in's latency in the latency-charged protocol (LCRT): it answers in 0.3 s


@dataclass
class Context:
    quick: bool
    out: Path
    server: PolicyServer
    workers: int
    console: Console
    max_steps: int | None = None  # a cap on every episode (a smoke run: the directions need the full lengths)


@dataclass
class Outcome:
    """What one finding measured: our figure in words, whether its direction matches the paper's, a chart,
    a table (header row first) and the run folders it read."""

    ours: str
    matches: bool
    chart: str
    table: list[list[str]]
    runs: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Finding:
    name: str
    paper: str
    claim: str  # the paper's words
    paper_figure: str  # the paper's numbers, quoted exactly
    design: str  # what we run (quick and full)
    run: Callable[[Context], Outcome]
    cannot_run: Callable[[], str | None] = lambda: None  # why it cannot run here, else None


# -- shared steps ------------------------------------------------------------------------------------
def run_preset(ctx: Context, preset: str, label: str, *, params: dict[str, str] | None = None,
               envs: tuple[str, ...] = (), lineups: tuple[str, ...] = (), clocks: tuple[str, ...] = (),
               quick_seeds: int = 2, quick_steps: int | None = None, max_steps: int | None = None,
               llm_options: str = "", observations: tuple[str, ...] = ()) -> tuple[Path, list[dict[str, Any]]]:
    """Run a bundled preset (restricted to some envs, line-ups and clock settings; shrunk with `--quick`)
    into the findings folder and return its run folder and its cells (`tables.cell_stats`). `llm_options`
    (`modalities=text`) are added to every model slot's spec."""
    experiment = load_preset(preset, params={"base_url": ctx.server.base_url, **(params or {})})
    kept = tuple(replace(lu, slots=tuple(f"{s},{llm_options}" if llm_options and "llm:" in s else s
                                         for s in lu.slots))
                 for lu in experiment.lineups if not lineups or lu.name in lineups)
    names = {lu.name for lu in kept}
    chosen_envs = tuple(replace(e, lineups=tuple(n for n in e.lineups if n in names))
                        for e in experiment.envs if (not envs or e.id in envs) and (not e.lineups
                                                                                   or set(e.lineups) & names))
    experiment = replace(experiment, envs=chosen_envs, lineups=kept,
                         clocks=tuple(c for c in experiment.clocks if not clocks or c.name in clocks),
                         observations=tuple(o for o in experiment.observations
                                            if not observations or o.name in observations),
                         out=str(ctx.out / "runs"))
    if max_steps is not None:
        experiment = replace(experiment, max_steps=max_steps)
    if ctx.quick:
        experiment = replace(experiment, seeds=tuple(range(quick_seeds)),
                             max_steps=quick_steps or experiment.max_steps)
    if ctx.max_steps is not None:
        experiment = replace(experiment, max_steps=min(ctx.max_steps, experiment.max_steps or ctx.max_steps))
    shutil.rmtree(ctx.out / "runs" / label, ignore_errors=True)  # a rerun into the same folder starts afresh
    result = run_experiment(experiment, run_id=label, workers=ctx.workers, console=ctx.console)
    con = connect([result.run_dir])
    return result.run_dir, cell_stats(con, metric_names(con))


def pooled(cells: list[dict[str, Any]], metric: str, **where: Any) -> Stat:
    """The mean of the matching cells' means (each level counts the same; `tables.mean_of`)."""
    return mean_of([c[metric] for c in cells if metric in c and all(c[k] == v for k, v in where.items())])


def model_cells(cells: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The cells of model agents (the stand-in behind the protocol), not the bots they play against."""
    return [c for c in cells if "llm:" in c["agent"]]


def shown(ctx: Context, path: Path) -> str:
    """A run folder as the page names it: relative to the findings folder."""
    try:
        return str(path.relative_to(ctx.out))
    except ValueError:
        return str(path)


def relative(before: float, after: float) -> str:
    return f"{(after - before) / before:+.0%}" if before else "n/a"


# -- ROAR: the delay curve -----------------------------------------------------------------------------
def delay_curve(ctx: Context) -> Outcome:
    run_dir, cells = run_preset(ctx, "delay-injection", "delay-curve",
                                lineups=("model", "model-vs-heuristic", "model-team-vs-heuristic"),
                                envs=("arena/basic-v0",) if ctx.quick else (), quick_seeds=2, quick_steps=120)
    cells = model_cells(cells)
    delays = sorted({c["delay_ms"] for c in cells})
    score = {d: pooled(cells, "score", delay_ms=d) for d in delays}
    freq = {d: pooled(cells, "effective_action_frequency", delay_ms=d) for d in delays}
    first, last = delays[0], delays[-1]
    matches = score[last].mean < score[first].mean and freq[last].mean < freq[first].mean
    chart = svg.line_chart("Delay injection (wall clock, dt 0.25 s)", "mean over levels", "injected delay (ms)",
                           {"score": [(d, score[d].mean, score[d].se) for d in delays],
                            "effective action frequency": [(d, freq[d].mean, freq[d].se) for d in delays]})
    table = [["injected delay (ms)", "score", "effective action frequency"]] + [
        [f"{d:g}", score[d].text(), freq[d].text()] for d in delays]
    ours = (f"score {score[first].text()} -> {score[last].text()}, effective action frequency "
            f"{freq[first].text()} -> {freq[last].text()} ({first:g} -> {last:g} ms)")
    return Outcome(ours, matches, chart, table, [shown(ctx, run_dir)])


# -- Realtime-Bench: the token cost of deliberation on web tasks ----------------------------------------
# The text stand-in plays one web task, the live quiz (policy_server/gui_text.py), from the page as text: the
# `-text` ablations of the paper's conditions. Effort lengths as the offline study's (annotate/study.py):
# high effort 1024 reasoning tokens (16 s at 64 tokens per page second), low 64 (1 s); the quiz gives 8 s.
WEB_TASKS = ("web/quiz-v0",)
EFFORT_SCALE = 2.0
CONDITIONS = {"PH-text": "PH (paused, high)", "TL-text": "TL (token, low)", "TH-text": "TH (token, high)"}


def token_deliberation(ctx: Context) -> Outcome:
    url = ctx.server.url(reasoning_model=True, effort_scale=EFFORT_SCALE)
    rows, stats, runs = [], {}, []
    for preset, shown_as in CONDITIONS.items():
        run_dir, cells = run_preset(ctx, preset, f"deliberation-{preset}", params={"base_url": url},
                                    envs=WEB_TASKS, quick_seeds=2)
        cells = model_cells(cells)
        tokens, decisions = pooled(cells, "tokens_out"), pooled(cells, "decisions")
        per_decision = (tokens.mean or 0.0) / decisions.mean if decisions.mean else 0.0
        stats[preset] = (pooled(cells, "success"), per_decision)
        rows.append([shown_as, stats[preset][0].text(), f"{per_decision:.0f}"])
        runs.append(shown(ctx, run_dir))
    (ph, _), (tl, tl_tokens), (th, th_tokens) = stats["PH-text"], stats["TL-text"], stats["TH-text"]
    matches = (th.mean or 0.0) < (tl.mean or 0.0) and (th.mean or 0.0) < (ph.mean or 0.0) \
        and th_tokens > tl_tokens
    chart = svg.bar_chart("Deliberation under the token clock (the live quiz)", "success rate",
                          list(CONDITIONS.values()), ["success"],
                          {(CONDITIONS[p], "success"): (s[0].mean or 0.0, s[0].se) for p, s in stats.items()})
    ours = (f"success PH {ph.text()}, TL {tl.text()}, TH {th.text()}; tokens per decision TL {tl_tokens:.0f} vs "
            f"TH {th_tokens:.0f}")
    return Outcome(ours, matches, chart, [["condition", "success", "tokens out per decision"], *rows], runs)


def no_chromium() -> str | None:
    from rtarena.envs.gui.browser import chromium_path

    try:
        chromium_path()
    except UserError as error:
        return str(error)
    return None


# -- ROAR: centralized vs decentralized ---------------------------------------------------------------
def centralized(ctx: Context) -> Outcome:
    clocks = ("turn-based", "token") if ctx.quick else ("turn-based", "token", "realtime-250ms")
    settings = load_preset("centralized-vs-decentralized").clocks
    wall_time = any(not CLOCKS[c.clock].deterministic for c in settings if c.name in clocks)
    url = ctx.server.url(plan_tokens=PLAN_TOKENS, filler_rate=PLAN_RATE if wall_time else 0.0)
    run_dir, cells = run_preset(ctx, "centralized-vs-decentralized", "centralized", params={"base_url": url},
                                envs=("arena/coop-v0",), clocks=clocks, quick_seeds=4, quick_steps=120,
                                max_steps=COOP_STEPS)
    table = [["clock", "centralized (team)", "decentralized", "difference", "combined s.e."]]
    values, signs = {}, {}
    for clock in clocks:
        team, alone = pooled(cells, "score", lineup="centralized", clock_name=clock), \
            pooled(cells, "score", lineup="decentralized", clock_name=clock)
        diff = (team.mean or 0.0) - (alone.mean or 0.0)
        se = ((team.se or 0.0) ** 2 + (alone.se or 0.0) ** 2) ** 0.5
        signs[clock] = diff
        values[(clock, "centralized")] = (team.mean or 0.0, team.se)
        values[(clock, "decentralized")] = (alone.mean or 0.0, alone.se)
        table.append([clock, team.text(), alone.text(), f"{diff:+.3f}", f"{se:.3f}"])
    matches = signs["turn-based"] > 0 and all(signs[c] < 0 for c in clocks if c != "turn-based")
    chart = svg.bar_chart("Centralized vs decentralized control (arena/coop-v0)", "score", list(clocks),
                          ["centralized", "decentralized"], values)
    ours = "; ".join(f"{row[0]}: team - decentralized = {row[3]} (s.e. {row[4]})" for row in table[1:])
    return Outcome(ours, matches, chart, table, [shown(ctx, run_dir)])


# -- OmniGameArena: the improvement curve (IDC) with rollback and transfer --------------------------------
IDC_GAMES = ("games/tilefall-v0", "games/kitchen-v0")


def idc(ctx: Context) -> Outcome:
    from rtarena.improve.commands import improve_command

    server = ctx.server
    player = "llm:scripted-skill@" + server.url(policy="skill") + ",modalities=text"
    reflector = "scripted-reflector@" + server.url(policy="reflector")
    judge = "scripted-judge@" + server.url(policy="judge")
    # quick: R0..R3, the fewest rounds that show the loop whole (the cold start, the first rule's gain, the
    # harmful rule rolled back, the best skill replayed), so the final gain is the kept skill's
    settings = ({"rounds": 4, "episodes": 2, "transfer_episodes": 1} if ctx.quick
                else {"rounds": 11, "episodes": 5, "transfer_episodes": 5})
    table = [["game", "R0", "best round", "best-round gain [95% CI]", "final gain [95% CI]", "rollbacks",
              "transfer var1 / var2 / var3"]]
    series, runs, gains = {}, [], []
    for env_id in IDC_GAMES:
        name = env_id.split("/")[1].removesuffix("-v0")
        shutil.rmtree(ctx.out / "runs" / f"idc-{name}", ignore_errors=True)
        run_dir = improve_command(env_id, player, reflector, judge, [f"{v}:variant={v}" for v in ("var1", "var2",
                                  "var3")], [], {**settings, "workers": ctx.workers, "max_steps": ctx.max_steps},
                                  ctx.out / "runs",
                                  f"idc-{name}", False, None, ctx.console)
        metrics = json.loads((run_dir / "metrics.json").read_text())
        transfer = json.loads((run_dir / "transfer.json").read_text()) if (run_dir / "transfer.json").exists() \
            else {"variants": []}
        rounds = metrics["rounds"]
        best, final = metrics["best_round_gain"], metrics["final_gain"]
        gains.append(best["mean"])
        series[name] = [(float(r), s["mean"], None) for r, s in enumerate(rounds)]
        table.append([name, f"{rounds[0]['mean']:.3f}", str(metrics["best_round"]),
                      f"{best['mean']:+.3f} [{best['lo']:+.3f}, {best['hi']:+.3f}]",
                      f"{final['mean']:+.3f} [{final['lo']:+.3f}, {final['hi']:+.3f}]", str(metrics["rollbacks"]),
                      " / ".join(f"{row['transfer']:+.3f}" for row in transfer["variants"]) or "-"])
        runs.append(shown(ctx, run_dir))
    chart = svg.line_chart("Improvement dynamics curve (scripted skill player and reflector)", "round mean score",
                           "round", series)
    ours = "; ".join(f"{row[0]}: best-round gain {row[3]}, rollbacks {row[5]}, transfer {row[6]}"
                     for row in table[1:])
    return Outcome(ours, all(g > 0 for g in gains), chart, table, runs)


# -- OmniGameArena: PDQ vs LCRT and the action budget ----------------------------------------------------
# The paper's latency-sensitive solo games (002, section 6: "实时反应的 MonsterShoot 或需要高吞吐量的
# SoloCraft"): our monsters and workshop. The stand-in plays them from the text view (`modalities=text`;
# the suite's default view is the frame and HUD, which a text player cannot read).
QUICK_SOLO = ("games/monsters-v0", "games/workshop-v0")
PROTOCOLS = {"paused-chunks": "PDQ (paused-chunks)", "measured": "LCRT (measured)"}
# "mainly": fewer decisions must account for at least half of the relative score drop. The action budget is
# decisions per unit of game time alive ("模型推理时间可能成为主要瓶颈", "需要高吞吐量": a throughput), not per
# episode: an agent that dies sooner also decides fewer times per episode, which is the outcome, not the budget.
BUDGET_SHARE = 0.5


def pdq_vs_lcrt(ctx: Context) -> Outcome:
    preset = load_preset("suite-solo")
    model = next(lu.name for lu in preset.lineups if lu.slots[0].startswith("llm:"))
    runs, cells = [], []
    # One run per protocol, so that the stand-in waits LCRT_TTFT_S only where the clock reads wall time
    # (measured): paused never does, so PDQ's records are the same without the wait, which would only slow them.
    for setting in (c for c in preset.clocks if c.name in PROTOCOLS):
        url = ctx.server.url(**({} if CLOCKS[setting.clock].deterministic else {"ttft_s": LCRT_TTFT_S}))
        run_dir, found = run_preset(ctx, "suite-solo", f"pdq-vs-lcrt-{setting.name}", params={"base_url": url},
                                    lineups=(model,), clocks=(setting.name,),
                                    envs=QUICK_SOLO if ctx.quick else (), quick_seeds=2, quick_steps=300,
                                    llm_options="modalities=text")
        runs.append(shown(ctx, run_dir))
        cells += model_cells(found)

    def row(**where: Any) -> tuple[Stat, Stat, float, float]:
        score, n, alive = (pooled(cells, m, **where) for m in ("score", "decisions", "steps_alive"))
        rate = 100 * (n.mean or 0.0) / alive.mean if alive.mean else 0.0
        return score, n, rate, (score.mean or 0.0) / n.mean if n.mean else 0.0

    table = [["game", "protocol", "score", "decisions / episode", "decisions per 100 steps alive",
              "score per 100 decisions"]]
    for level in [*sorted({c["level"] for c in cells}), "all"]:
        for clock, shown_as in PROTOCOLS.items():
            score, n, rate, per = row(clock_name=clock, **({} if level == "all" else {"level": level}))
            table.append([level, shown_as, score.text(), n.text(), f"{rate:.1f}", f"{100 * per:.3f}"])
    (pdq, pdq_n, pdq_rate, per_pdq), (lcrt, lcrt_n, lcrt_rate, per_lcrt) = (row(clock_name=c) for c in PROTOCOLS)
    score_drop = 1 - (lcrt.mean or 0.0) / pdq.mean if pdq.mean else 0.0
    budget_drop = 1 - lcrt_rate / pdq_rate if pdq_rate else 0.0
    # the paper's claim is the mechanism, not only the direction: the score falls AND mainly because there
    # are fewer decisions (score per decision roughly kept), not because each decision got worse
    matches = score_drop > 0 and budget_drop > 0 and budget_drop >= BUDGET_SHARE * score_drop
    chart = svg.bar_chart("PDQ vs LCRT (solo games): score and action budget", "relative to PDQ",
                          ["score", "decisions per step alive"], ["PDQ", "LCRT"],
                          {("score", "PDQ"): (1.0, None), ("score", "LCRT"): (1 - score_drop, None),
                           ("decisions per step alive", "PDQ"): (1.0, None),
                           ("decisions per step alive", "LCRT"): (1 - budget_drop, None)})
    mechanism = ("fewer decisions account for most of it (the budget effect)" if matches else
                 "each decision got worse too (score per decision fell more than the budget explains)"
                 if score_drop > 0 and per_lcrt < per_pdq else "no score drop to explain")
    ours = (f"LCRT score {relative(pdq.mean or 0.0, lcrt.mean or 0.0)}, decisions per 100 steps alive "
            f"{relative(pdq_rate, lcrt_rate)} (per episode {relative(pdq_n.mean or 0.0, lcrt_n.mean or 0.0)}), "
            f"score per decision {relative(per_pdq, per_lcrt)} against PDQ: {mechanism}")
    return Outcome(ours, matches, chart, table, runs)


# -- ROAR: the observation-modality ablation -------------------------------------------------------------
# The stand-in is the scripted pixel player (`policy_server/arena_pixels.py`): it reads the frame and the depth
# image, never the text, so the text part is the same in both quick conditions and only depth differs. A model
# pays for every image it reads before its first token; the stand-in is charged MEDIA_PREFILL_S per image or
# audio part (`ServerSettings.media_prefill_s`, our choice: ROAR gives no per-modality latency), so under the
# 250 ms real-time clock the depth image costs 0.1 s of every decision, and under turn-based play nothing.
MEDIA_PREFILL_S = 0.1
QUICK_SENSES = ("rgb+text", "rgb+depth+text")
# The pixel player is stateless (it reads the last message only), so past turns change none of its actions;
# without them a request is one frame, not megabytes of past screenshots to send and parse on every step
# (the prefill charge already treats earlier messages as cached).
SENSE_HISTORY = 0
SENSE_METRICS = {"score": "score", "incoming_hit_rate": "incoming hit rate", "decisions": "decisions / episode"}
BETTER = {"score": 1, "incoming_hit_rate": -1}  # the metrics the paper compares, and which way is better


# Quick seeds per clock: a hit on the pixel player is rare (0 to 2 a 30 s episode), so at 2 seeds one hit
# decides the incoming hit rate. Turn-based seeds are cheap: the paused clock charges no prefill, so its
# requests go to a server that sleeps none (the same records for the deterministic stand-in, seconds sooner);
# a real-time episode costs its 30 s of wall time.
QUICK_SENSE_SEEDS = {"turn-based": 10, "realtime-250ms": 2}


def modality(ctx: Context) -> Outcome:
    runs = []
    for setting in load_preset("modality-ablation").clocks:  # a run per clock: its own prefill and seeds
        wall_time = not CLOCKS[setting.clock].deterministic
        url = ctx.server.url(policy="pixels", media_prefill_s=MEDIA_PREFILL_S if wall_time else 0.0)
        runs.append(run_preset(ctx, "modality-ablation", f"modality-{setting.name}",
                               params={"base_url": url, "model": "scripted-pixels"},
                               envs=("arena/basic-v0",) if ctx.quick else (), clocks=(setting.name,),
                               observations=QUICK_SENSES if ctx.quick else (),
                               quick_seeds=QUICK_SENSE_SEEDS.get(setting.name, 2), quick_steps=120,
                               llm_options=f"history={SENSE_HISTORY}"))
    cells = model_cells([c for _, run_cells in runs for c in run_cells])
    clocks = list(dict.fromkeys(c["clock_name"] for c in cells))
    senses = [o for o in load_preset("modality-ablation").observations if any(c["obs"] == o.name for c in cells)]
    stats = {(clock, o.name, m): pooled(cells, m, clock_name=clock, obs=o.name)
             for clock in clocks for o in senses for m in SENSE_METRICS}
    table = [["clock", "observations", *SENSE_METRICS.values()]] + [
        [clock, o.name, *(stats[(clock, o.name, m)].text() for m in SENSE_METRICS)] for clock in clocks for o in senses]
    def delta(clock: str, metric: str) -> float:
        return (stats[(clock, "rgb+depth+text", metric)].mean or 0.0) - (stats[(clock, "rgb+text", metric)].mean or 0.0)

    gain = {clock: delta(clock, "score") for clock in clocks}
    # "gains across most metrics": of score (up) and incoming hit rate (down), more improve than worsen
    # turn-based; in real time "no benefit": none improves on balance
    net = {clock: sum(np.sign(sign * delta(clock, m)) for m, sign in BETTER.items()) for clock in clocks}
    matches = net.get("turn-based", 0) > 0 and net.get("realtime-250ms", 0) <= 0
    chart = svg.bar_chart("Observation modalities (scripted pixel player)", "score", clocks,
                          [o.name for o in senses],
                          {(clock, o.name): (stats[(clock, o.name, "score")].mean or 0.0,
                                             stats[(clock, o.name, "score")].se) for clock in clocks for o in senses})
    def change(clock: str, metric: str) -> str:
        return f"{stats[(clock, 'rgb+text', metric)].text()} -> {stats[(clock, 'rgb+depth+text', metric)].text()}"

    ours = "; ".join(f"{clock}: adding depth changes the score by {gain[clock]:+.3f} ({change(clock, 'score')}), "
                     f"incoming hit rate {change(clock, 'incoming_hit_rate')}" for clock in clocks)
    return Outcome(ours, matches, chart, table, [shown(ctx, run_dir) for run_dir, _ in runs])


FINDINGS: tuple[Finding, ...] = (
    Finding("delay-curve", "ROAR",
            "Performance degrades monotonically with injected delay",
            "the average score falls from 0.33 to 0.12, while effective action frequency drops from 0.74 to 0.08 "
            "(Qwen 3.5 27B, 250 ms steps, +250 / 1,000 / 3,000 ms, 20 seeds per level; Tables 9 and 10)",
            "preset `delay-injection` (wall clock, dt 0.25 s, 0 / 250 / 1000 / 3000 ms), the stand-in's line-ups; "
            "quick: arena/basic-v0, 2 seeds, 30 s episodes; full: every level, 20 seeds, 5 minutes",
            delay_curve),
    Finding("token-deliberation", "Realtime-Bench",
            "consuming more tokens delays execution regardless of actual inference latency",
            "with only 1 s remaining to bid, Gemini Live in TH generates 544 tokens (8.5 simulated seconds), "
            "compared with 88 tokens when 3 s remain, missing the bidding opportunity (Figure 9)",
            "presets `PH-text`, `TL-text`, `TH-text` (the page as text; the scripted server as a reasoning "
            "endpoint thinking 64 tokens at low effort, 1024 at high) on web/quiz-v0, the one web task the text "
            "stand-in plays; quick: 2 seeds; full: the presets' 5",
            token_deliberation, no_chromium),
    Finding("centralized-vs-decentralized", "ROAR",
            "their coordination and reasoning benefits can be offset by the additional latency they introduce",
            "no number in our copy of the paper (its control-mode table is not included): the direction only, "
            "centralized control helps turn-based and loses its edge in real time",
            f"preset `centralized-vs-decentralized` on arena/coop-v0, the team policy coordinating and writing "
            f"{PLAN_TOKENS} reasoning tokens per body at {PLAN_RATE:g} tokens/s (paced only when a wall-time clock "
            f"runs: turn-based and token records are the same unpaced); quick: turn-based and token, 4 "
            f"seeds, 30 s; full: turn-based, token and 250 ms real time, 10 seeds, {COOP_STEPS // 4} s",
            centralized),
    Finding("idc", "OmniGameArena",
            "all four models find skills that beat Round 0 on both games, the best round often comes early, "
            "and source gain and transfer can diverge",
            "LastStand best-round gains +0.54 to +0.70 (+130% to +437%); SharedFloor transfer 16/16 positive "
            "(Figure 5, Table 5)",
            "`rtarena improve` on games/tilefall-v0 (LastStand) and games/kitchen-v0 (SharedFloor), scripted "
            "skill player, reflector and judge, transfer to var1..var3; quick: R0..R3 x 2 episodes; full: "
            "R0..R10 x 5 episodes, 5 transfer episodes",
            idc),
    Finding("pdq-vs-lcrt", "OmniGameArena",
            "the score drop may come mainly from fewer actions (the budget effect), not from worse actions",
            "PDQ vs LCRT (Appendix A, Tables 8 and 9): no number in our copy, the direction only",
            "preset `suite-solo` from the text view, the same chunk loop (the chunk plays, the world settles, the next "
            f"observation) paused (PDQ) vs measured (LCRT: the stand-in's {LCRT_TTFT_S:g} s answer costs game time); "
            f"the direction matches only if fewer decisions per step alive explain at least {BUDGET_SHARE:.0%} of "
            "the score drop; quick: the paper's latency-sensitive solo games, "
            "monsters (MonsterShoot) and workshop (SoloCraft), 2 seeds, 30 s; full: the seven solo games, 10 seeds",
            pdq_vs_lcrt),
    Finding("modality", "ROAR",
            "under the turn-based interface, adding depth and audio produces small but consistent numerical gains "
            "across most metrics",
            "Under the 250 ms real-time setting, however, the same additions bring no benefit and even slightly "
            "worsen incoming hit rate (0.66 to 0.67) (Gemini-3.1 Pro, Basic and Cooperative levels, 20 seeds; "
            "Table 11)",
            f"preset `modality-ablation`, the scripted pixel player (frame and depth image, never the observation "
            "text; the field of view, eye height, walking and shell speeds from the prompt's level rules, as a "
            f"model reads them; {MEDIA_PREFILL_S:g} s of prefill per image it reads); the direction matches if, "
            "of score and incoming hit rate, depth improves more than it worsens turn-based and not in real time; "
            "quick: arena/basic-v0, rgb+text vs rgb+depth+text, 30 s, 10 seeds turn-based and 2 in real time; "
            "full: the preset's five combinations on basic and coop, 20 seeds",
            modality),
)


def finding_names() -> list[str]:
    return [f.name for f in FINDINGS]


def run_findings(out: Path, quick: bool = False, only: list[str] | None = None, workers: int = 2,
                 max_steps: int | None = None, console: Console | None = None) -> tuple[Path, list[str]]:
    """Run the chosen findings (all by default) and write the page; returns `findings.html` and the names of
    the findings that failed (an error while running, shown on the page)."""
    from rtarena.findings.page import Result, write_page

    unknown = [n for n in only or [] if n not in finding_names()]
    if unknown:
        raise UserError(f"unknown finding {unknown[0]!r}; findings: {', '.join(finding_names())}", field="--only")
    console = console or Console(stderr=True)
    chosen = [f for f in FINDINGS if not only or f.name in only]
    results = []
    with PolicyServer() as server:
        ctx = Context(quick, out, server, workers, console, max_steps)
        for finding in chosen:
            reason = finding.cannot_run()
            if reason:
                console.print(f"{finding.name}: skipped ({reason})", highlight=False)
                results.append(Result(finding, None, reason, 0.0))
                continue
            console.print(f"{finding.name}: running", highlight=False)
            start = time.monotonic()
            try:
                outcome = finding.run(ctx)
            except Exception as error:  # one finding's failure is its row; the others still run (exit status 1)
                console.print(traceback.format_exc(), highlight=False, markup=False)
                console.print(f"{finding.name}: failed ({type(error).__name__}: {error})", highlight=False)
                results.append(Result(finding, None, f"failed: {type(error).__name__}: {error}",
                                      time.monotonic() - start))
                continue
            results.append(Result(finding, outcome, None, time.monotonic() - start))
            console.print(f"{finding.name}: {outcome.ours} (direction {'matches' if outcome.matches else 'differs'})",
                          highlight=False)
    failed = [r.finding.name for r in results if r.verdict == "failed"]
    return write_page(out, results, quick, max_steps), failed
