"""The findings, one row each: the paper's claim and figure, the controlled experiment that stands in for
it offline, and its pre-registered rules (`core.Rule`).

Each finding runs a positive control (a scripted stand-in with the paper's property) and a negative control
(the same stand-in without it) on seed set A, and the negative control again on seed set B; its rules must
hold for the first and fail for both others (`core.Controlled`). Every run goes through the project's one
runner (`eval/runner.py: run_experiment` on a bundled preset, shrunk with `--quick`) or `rtarena improve`'s
own command (`improve/commands.py: improve_command`), against the scripted policy server; the numbers are read
back with DuckDB and drawn by `eval/svg.py`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import statistics
import time
import traceback
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from rich.console import Console

from rtarena.errors import UserError
from rtarena.eval import svg
from rtarena.eval.manifest import run_lock
from rtarena.eval.presets import load_preset
from rtarena.eval.query import connect
from rtarena.eval.runner import run_experiment
from rtarena.eval.tables import Stat, cell_stats, mean_of, metric_names
from rtarena.findings.core import (
    SEEDS_A,
    SEEDS_B,
    Context,
    Finding,
    Outcome,
    Result,
    Rule,
    controlled,
    paired,
)
from rtarena.findings.page import write_page
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
SMOKE_SEEDS = 2  # seeds per run in a smoke run (`--max-steps`): its rules have one degree of freedom, gating nothing
LCRT_TTFT_S = 0.3  # the stand-in's latency in the latency-charged protocol (LCRT): it answers in 0.3 s


# -- shared steps ------------------------------------------------------------------------------------
def run_preset(ctx: Context, preset: str, label: str, *, params: dict[str, str] | None = None,
               envs: tuple[str, ...] = (), lineups: tuple[str, ...] = (), clocks: tuple[str, ...] = (),
               quick_seeds: int = 2, quick_steps: int | None = None, max_steps: int | None = None,
               llm_options: str = "", observations: tuple[str, ...] = (), seed_start: int = SEEDS_A,
               effort: str | None = None, seed_sets: tuple[int, ...] = (),
               workers: int | None = None) -> tuple[Path, list[dict[str, Any]]]:
    """Run a bundled preset (restricted to some envs, line-ups and clock settings; shrunk with `--quick`)
    into the findings folder and return its run folder and its cells (`tables.cell_stats`). `llm_options`
    (`modalities=text`) are added to every model slot's spec, `effort` replaces its `reasoning_effort`.
    Seeds start at `seed_start` (`core.SEEDS_A` / `SEEDS_B`: apart from the seeds the stand-ins were built
    on), as many as the preset's and at least `quick_seeds` (the rule's n; exactly that with `--quick`);
    `seed_sets` (starts) runs that many seeds from each start in one run instead; a replication shifts every
    start by `ctx.seed_offset`. `workers` replaces the findings' own (episodes that mostly wait can all run
    at once)."""
    experiment = load_preset(preset, params={"base_url": ctx.server.base_url, **(params or {})})

    def slot(spec: str) -> str:
        if "llm:" not in spec:
            return spec
        spec = f"{spec},{llm_options}" if llm_options else spec
        return re.sub(r"reasoning_effort=\w+", f"reasoning_effort={effort}", spec) if effort else spec

    kept = tuple(replace(lu, slots=tuple(slot(s) for s in lu.slots))
                 for lu in experiment.lineups if not lineups or lu.name in lineups)
    names = {lu.name for lu in kept}
    chosen_envs = tuple(replace(e, lineups=tuple(n for n in e.lineups if n in names))
                        for e in experiment.envs if (not envs or e.id in envs) and (not e.lineups
                                                                                   or set(e.lineups) & names))
    count = quick_seeds if ctx.quick else max(quick_seeds, len(experiment.seeds))  # never fewer than a rule's n
    if ctx.max_steps is not None:  # a smoke run proves the plumbing, which two seeds on the findings' own workers
        count, workers = min(count, SMOKE_SEEDS), None  # do (it gates nothing)
    experiment = replace(experiment, envs=chosen_envs, lineups=kept,
                         clocks=tuple(c for c in experiment.clocks if not clocks or c.name in clocks),
                         observations=tuple(o for o in experiment.observations
                                            if not observations or o.name in observations),
                         seeds=tuple(s for start in seed_sets or (seed_start,)
                                     for s in range(ctx.seed(start), ctx.seed(start) + count)),
                         out=str(ctx.out / "runs"))
    if max_steps is not None:
        experiment = replace(experiment, max_steps=max_steps)
    if ctx.quick:
        experiment = replace(experiment, max_steps=quick_steps or experiment.max_steps)
    if ctx.max_steps is not None:
        experiment = replace(experiment, max_steps=min(ctx.max_steps, experiment.max_steps or ctx.max_steps))
    shutil.rmtree(ctx.out / "runs" / label, ignore_errors=True)  # a rerun into the same folder starts afresh
    result = run_experiment(experiment, run_id=label, workers=workers or ctx.workers, console=ctx.console)
    con = connect([result.run_dir])
    return result.run_dir, cell_stats(con, metric_names(con))


def per_seed(run_dir: Path, metric: str, **where: str) -> dict[int, float]:
    """The model agents' `metric` per seed (the mean over a seed's model bodies), in the cells matching
    `where` (`clock_name`, `lineup`, `obs`, `level`): the samples a rule's paired statistic is made of."""
    columns = {"clock_name": "coalesce(clock_name, clock)", "lineup": "coalesce(lineup, '')",
               "obs": "coalesce(obs, '')", "level": "coalesce(level, regexp_extract(env_id, '[^/]+$'))"}
    clauses = "".join(f" AND {columns[k]} = ?" for k in where)
    rows = connect([run_dir]).execute(
        f'SELECT seed, avg("{metric}"::DOUBLE) FROM agents WHERE agent_label LIKE \'%llm:%\'{clauses} '
        "GROUP BY seed ORDER BY seed", list(where.values())).fetchall()
    return {int(seed): float(value or 0.0) for seed, value in rows}


def machine_load() -> str:
    """The 1-minute load average against the CPUs, for rows whose clock reads wall time."""
    return f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"


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
# The paper's positive control spends the injected delay where the world keeps running (preset
# `delay-injection`: the wall clock, so a delay costs game time; reported). The negative control spends the
# same delay in real time while the world waits (preset `delay-injection-world-waits`: the paused clock holds
# each decision that long, so the delay costs no game time) and must show no drop. Held decisions cost wall
# time and no CPU: a 3000 ms hold on each of the positive's 120 decisions would take 6 minutes an episode (an
# hour at the full 5 minutes), so the negative control plays the first WORLD_WAITS_STEPS of the same episodes
# (10 s of game time; both seed sets in one run, up to eight episodes at once). At that length the delay in game time
# (`delay-injection-turn-based`) still drops the stand-in's score on these seeds (0.2-0.3 -> 0.0 on 1000-1001
# and 2000-2001, 2026-12-03), so the length can show a drop.
# The wall clock's drop moves with the machine's load, so the gate is carried by the same contrast on a
# deterministic clock (DELAY_GAME_RULE): the delay landing in simulated time under the paused clock
# (`delay-injection-turn-based`: each action lands the delay late while the world runs on, so it costs game
# time) against the world-waits control (the same delay held in real time: it costs none), the same
# line-ups, the same WORLD_WAITS_STEPS, the positive on seed set A, the world-waits control on sets A and B.
WORLD_WAITS_STEPS = 40
DELAY_RULE = Rule(
    "score falls with injected delay", "score at +0 ms minus score at +3000 ms, per seed (the model's line-ups "
    "pooled)", +1, n=2, planning_sd=0.1, pilot="the quick run of 2026-12-02 (score 0.5 -> 0.05, s.e. 0.05)",
    positive="the text stand-in under the wall clock (preset `delay-injection`: the delay costs game time)",
    negative="the same delays held in real time while the world waits (preset `delay-injection-world-waits`: "
             "the paused clock, the delay costs no game time)",
    gated=False)
DELAY_GAME_RULE = Rule(
    "score falls with delay charged in game time", f"score at +0 ms minus score at +3000 ms, per seed, the first "
    f"{WORLD_WAITS_STEPS} steps (the paused clock; the model's line-ups pooled)", +1, n=6, planning_sd=0.135,
    pilot="seeds 5000-5009 of 2026-12-03 (arena/basic-v0, the first 40 steps: +0.240, s.d. 0.135)",
    positive="the text stand-in with each action landing the delay late in simulated time (preset "
             "`delay-injection-turn-based`: the paused clock, the delay costs game time)",
    negative=DELAY_RULE.negative)


def delay_curve(ctx: Context) -> Outcome:
    lineups = ("model", "model-vs-heuristic", "model-team-vs-heuristic")
    envs = ("arena/basic-v0",) if ctx.quick else ()
    run_dir, cells = run_preset(ctx, "delay-injection", "delay-curve", lineups=lineups, envs=envs,
                                quick_seeds=DELAY_RULE.n, quick_steps=120)
    load = machine_load()
    # the gated positive control: the two delays the rules compare landing in simulated time (deterministic)
    held = ("delay-0ms", "delay-3000ms")
    n = max(DELAY_RULE.n, DELAY_GAME_RULE.n)
    charged, charged_cells = run_preset(ctx, "delay-injection-turn-based", "delay-curve-turn-based", lineups=lineups,
                            envs=envs, clocks=held, quick_seeds=DELAY_GAME_RULE.n, max_steps=WORLD_WAITS_STEPS)
    # the negative control: the same delays held in wall time while the world waits; both seed sets in one
    # run, every episode at once (a held decision only waits)
    waits, _ = run_preset(ctx, "delay-injection-world-waits", "delay-curve-world-waits", lineups=lineups,
                          envs=envs, clocks=held, quick_seeds=n, max_steps=WORLD_WAITS_STEPS,
                          seed_sets=(SEEDS_A, SEEDS_B), workers=2 * len(held) * n)
    cells = model_cells(cells)
    delays = sorted({c["delay_ms"] for c in cells})
    score = {d: pooled(cells, "score", delay_ms=d) for d in delays}
    freq = {d: pooled(cells, "effective_action_frequency", delay_ms=d) for d in delays}
    first, last = delays[0], delays[-1]

    def drop(run: Path, seed_set: int | None = None) -> list[float]:
        """Per seed, the score at the first delay minus at the last (of one seed set: A below SEEDS_B)."""
        before = {s: v for s, v in seed_delay(run, first).items()
                  if seed_set is None or (s >= ctx.seed(SEEDS_B)) == (seed_set == SEEDS_B)}
        return paired(before, seed_delay(run, last))

    negatives = (drop(waits, SEEDS_A), drop(waits, SEEDS_B))
    checks = [controlled(DELAY_GAME_RULE, drop(charged), *negatives),
              controlled(DELAY_RULE, drop(run_dir), *negatives)]
    chart = svg.line_chart("Delay injection (wall clock, dt 0.25 s)", "mean over levels", "injected delay (ms)",
                           {"score": [(d, score[d].mean, score[d].se) for d in delays],
                            "effective action frequency": [(d, freq[d].mean, freq[d].se) for d in delays]})
    table = [["injected delay (ms)", "score", "effective action frequency"]] + [
        [f"{d:g}", score[d].text(), freq[d].text()] for d in delays]
    in_game = {d: pooled(model_cells(charged_cells), "score", delay_ms=d) for d in (first, last)}
    ours = (f"wall clock: score {score[first].text()} -> {score[last].text()}, effective action frequency "
            f"{freq[first].text()} -> {freq[last].text()} ({first:g} -> {last:g} ms; {load}); the delay in game "
            f"time (paused, the first {WORLD_WAITS_STEPS} steps): score {in_game[first].text()} -> "
            f"{in_game[last].text()}")
    return Outcome(ours, checks, chart, table, [shown(ctx, r) for r in (run_dir, charged, waits)], load)


def seed_delay(run_dir: Path, delay_ms: float) -> dict[int, float]:
    """The model's score per seed at one injected delay."""
    rows = connect([run_dir]).execute(
        "SELECT seed, avg(score::DOUBLE) FROM agents WHERE agent_label LIKE '%llm:%' "
        "AND coalesce(delay_ms, 0) = ? GROUP BY seed", [delay_ms]).fetchall()
    return {int(seed): float(value or 0.0) for seed, value in rows}


# -- Realtime-Bench: the token cost of deliberation on web tasks ----------------------------------------
# The text stand-in plays one web task, the live quiz (policy_server/gui_text.py), from the page as text: the
# `-text` ablation of the paper's TL/TH conditions (token clock, 64 tokens per page second), swept over the
# effort levels. The positive control is the reasoning endpoint: it thinks `reasoning.EFFORT_TOKENS[effort]`
# tokens (the paper's lengths: high 512, 8 s, against the quiz's 8 s answer window). The negative control
# thinks the same `CONSTANT_EFFORT_TOKENS` whatever the effort (a non-reasoning endpoint with filler tokens).
WEB_TASKS = ("web/quiz-v0",)
EFFORTS = ("minimal", "low", "medium", "high")
CONSTANT_EFFORT_TOKENS = 128  # medium's length, for every effort
DELIBERATION_RULE = Rule(
    "more effort, later answers, fewer successes", "success at effort `minimal` minus success at effort `high`, "
    "per seed (web/quiz-v0, token clock)", +1, n=3, planning_sd=0.3,
    pilot="the quick run of 2026-12-03 (docs/findings.md)",
    positive="a reasoning endpoint whose reasoning tokens follow the effort (8 / 32 / 128 / 512 tokens)",
    negative=f"the same endpoint thinking {CONSTANT_EFFORT_TOKENS} tokens whatever the effort (constant effort)")


def token_deliberation(ctx: Context) -> Outcome:
    from rtarena.policy_server.reasoning import EFFORT_TOKENS

    n = DELIBERATION_RULE.n
    swept = {e: run_preset(ctx, "TL-text", f"deliberation-{e}", envs=WEB_TASKS, quick_seeds=n, effort=e,
                           params={"base_url": ctx.server.url(reasoning_model=True)}) for e in EFFORTS}
    constant = ctx.server.url(filler_tokens=CONSTANT_EFFORT_TOKENS)
    flat = {(e, start): run_preset(ctx, "TL-text", f"deliberation-constant-{e}-{ctx.seed(start)}", envs=WEB_TASKS,
                                   quick_seeds=n, effort=e, seed_start=start, params={"base_url": constant})[0]
            for e in (EFFORTS[0], EFFORTS[-1]) for start in (SEEDS_A, SEEDS_B)}

    def success(run: Path) -> dict[int, float]:
        return per_seed(run, "success")

    check = controlled(DELIBERATION_RULE, paired(success(swept[EFFORTS[0]][0]), success(swept[EFFORTS[-1]][0])),
                       *(paired(success(flat[(EFFORTS[0], s)]), success(flat[(EFFORTS[-1], s)]))
                         for s in (SEEDS_A, SEEDS_B)))
    rows, values = [], {}
    for effort, (_, cells) in swept.items():
        cells = model_cells(cells)
        tokens, decisions, ok = pooled(cells, "tokens_out"), pooled(cells, "decisions"), pooled(cells, "success")
        per_decision = (tokens.mean or 0.0) / decisions.mean if decisions.mean else 0.0
        values[(effort, "success")] = (ok.mean or 0.0, ok.se)
        rows.append([effort, str(EFFORT_TOKENS[effort]), f"{EFFORT_TOKENS[effort] / 64:g}", f"{per_decision:.0f}",
                     ok.text()])
    chart = svg.bar_chart("Deliberation swept under the token clock (the live quiz)", "success rate", list(EFFORTS),
                          ["success"], values)
    ours = "; ".join(f"{r[0]} ({r[1]} tokens, {r[2]} s): success {r[4]}" for r in rows)
    table = [["effort", "reasoning tokens", "simulated seconds (64 tokens/s)", "tokens out per decision",
              "success"], *rows]
    return Outcome(ours, [check], chart, table, [shown(ctx, r) for r, _ in swept.values()]
                   + [shown(ctx, r) for r in flat.values()])


def no_chromium() -> str | None:
    from rtarena.envs.gui.browser import chromium_path

    try:
        chromium_path()
    except UserError as error:
        return str(error)
    return None


# -- ROAR: centralized vs decentralized ---------------------------------------------------------------
# The team policy thinks PLAN_TOKENS per body it decides for (`reasoning.py: plan_tokens`), so its reply grows
# with the team. The token rule's negative control removes that extra cost from the contrast: the decentralized
# bodies are padded with reasoning filler to the team's tokens per decision (measured in the same run: the
# team's mean tokens per decision minus the bodies'), so every decision of both arms takes the same token-clock
# time and the team's reply costs it nothing extra. Its first negative control (a team reply thinking
# PLAN_TOKENS once per request, 2026-12-03) was not constant-cost: the reply still writes a plan line and an
# action per body, which the token clock charges, and it lost as the positive control did (-0.188 on sets A
# and B), so the rule was reported. The padded control was piloted on seeds 5000-5005 (2026-12-04: team minus
# padded bodies +0.000, s.d. 0.037, 217 and 219 tokens per decision; team minus unpadded bodies -0.312, s.d.
# 0.090) and committed before it ran on sets A and B; the rule's statistic, sign and n are the ones registered
# before the first run.
COORDINATION_RULE = Rule(
    "coordination helps turn-based", "team score minus decentralized score, per seed (arena/coop-v0, turn-based)",
    +1, n=40, planning_sd=0.122, pilot="seeds 1000-1010 of 2026-12-03 (paired: +0.053, s.d. 0.122)",
    positive="the team policy pooling what every body sees and giving each body its own coin",
    negative="a team reply whose bodies decide independently, as separate models would (`policy=independent`)")
COST_RULE = Rule(
    "the team's longer reply costs it the edge under the token clock", "team score minus decentralized score, "
    "per seed (arena/coop-v0, token clock)", -1, n=6, planning_sd=0.084,
    pilot="seeds 1000-1010 of 2026-12-03 (paired: -0.239, s.d. 0.084)",
    positive=f"a reply that grows with the team ({PLAN_TOKENS} plan tokens per body)",
    negative="the same team against decentralized bodies padded with reasoning filler to the team's tokens per "
             "decision (both arms' decisions cost the same time)")


def padding(run_dir: Path) -> int:
    """Reasoning filler tokens that bring a decentralized body's decision to the team's cost: the team's mean
    tokens per decision minus the bodies', in this run (the token clock charges every token)."""
    def per_decision(lineup: str) -> float:
        tokens, decisions = (per_seed(run_dir, metric, clock_name="token", lineup=lineup)
                             for metric in ("tokens_out", "decisions"))
        return statistics.fmean(tokens[s] / decisions[s] for s in tokens if decisions.get(s))
    return max(0, round(per_decision("centralized") - per_decision("decentralized")))


def centralized(ctx: Context) -> Outcome:
    clocks = ("turn-based", "token") if ctx.quick else ("turn-based", "token", "realtime-250ms")
    settings = load_preset("centralized-vs-decentralized").clocks
    wall_time = any(not CLOCKS[c.clock].deterministic for c in settings if c.name in clocks)
    rate = PLAN_RATE if wall_time else 0.0
    # each clock its own seed count: the rule it carries (turn-based: a small gain, many seeds)
    seeds = {"turn-based": COORDINATION_RULE.n, "token": COST_RULE.n, "realtime-250ms": COST_RULE.n}

    def run(label: str, url: str, lineups: tuple[str, ...], clock: str,
            start: int = SEEDS_A) -> tuple[Path, list[dict[str, Any]]]:
        return run_preset(ctx, "centralized-vs-decentralized", f"{label}-{clock}", params={"base_url": url},
                          envs=("arena/coop-v0",), lineups=lineups, clocks=(clock,), quick_seeds=seeds[clock],
                          quick_steps=COOP_STEPS, max_steps=COOP_STEPS, seed_start=start)

    main_url = ctx.server.url(plan_tokens=PLAN_TOKENS, filler_rate=rate)
    main = {clock: run("centralized", main_url, ("decentralized", "centralized"), clock) for clock in clocks}
    cells = [c for _, found in main.values() for c in found]
    load = machine_load()
    # Decentralized bodies are the same under every server of the turn-based rule (each request is one body:
    # the single-body heuristic), so its negative control plays the team line-up only, against the
    # decentralized runs of its seed set: set A's from the main runs, set B's from a run here. The token rule's
    # negative control is the main team against bodies padded to its tokens per decision (set B's team: a run).
    alone = {SEEDS_A: main["turn-based"][0],
             SEEDS_B: run("centralized-decentralized-b", main_url, ("decentralized",), "turn-based", SEEDS_B)[0]}
    independent = {s: run(f"centralized-independent-{ctx.seed(s)}", ctx.server.url(policy="independent"),
                          ("centralized",), "turn-based", s)[0] for s in (SEEDS_A, SEEDS_B)}
    teams = {SEEDS_A: main["token"][0],
             SEEDS_B: run("centralized-team-b", main_url, ("centralized",), "token", SEEDS_B)[0]}
    pad = padding(main["token"][0])
    padded_url = ctx.server.url(plan_tokens=PLAN_TOKENS, filler_tokens=pad, filler_rate=rate)
    padded = {s: run(f"centralized-padded-{ctx.seed(s)}", padded_url, ("decentralized",), "token", s)[0]
              for s in (SEEDS_A, SEEDS_B)}

    def diff(team_dir: Path, clock: str, alone_dir: Path) -> list[float]:
        return paired(per_seed(team_dir, "score", clock_name=clock, lineup="centralized"),
                      per_seed(alone_dir, "score", clock_name=clock, lineup="decentralized"))

    checks = [controlled(COORDINATION_RULE, diff(main["turn-based"][0], "turn-based", main["turn-based"][0]),
                         *(diff(independent[s], "turn-based", alone[s]) for s in (SEEDS_A, SEEDS_B))),
              controlled(COST_RULE, diff(main["token"][0], "token", main["token"][0]),
                         *(diff(teams[s], "token", padded[s]) for s in (SEEDS_A, SEEDS_B)))]
    if "realtime-250ms" in clocks:
        checks.append(controlled(replace(COST_RULE, name="the edge lost in 250 ms real time", gated=False,
                                         statistic="team score minus decentralized score, per seed (250 ms real "
                                         "time)"), diff(main["realtime-250ms"][0], "realtime-250ms",
                                                        main["realtime-250ms"][0])))
    table = [["clock", "centralized (team)", "decentralized", "difference", "combined s.e."]]
    values = {}
    for clock in clocks:
        team, bodies = pooled(cells, "score", lineup="centralized", clock_name=clock), \
            pooled(cells, "score", lineup="decentralized", clock_name=clock)
        se = ((team.se or 0.0) ** 2 + (bodies.se or 0.0) ** 2) ** 0.5
        values[(clock, "centralized")] = (team.mean or 0.0, team.se)
        values[(clock, "decentralized")] = (bodies.mean or 0.0, bodies.se)
        gap = (team.mean or 0.0) - (bodies.mean or 0.0)
        table.append([clock, team.text(), bodies.text(), f"{gap:+.3f}", f"{se:.3f}"])
    chart = svg.bar_chart("Centralized vs decentralized control (arena/coop-v0)", "score", list(clocks),
                          ["centralized", "decentralized"], values)
    ours = "; ".join(f"{row[0]}: team - decentralized = {row[3]} (s.e. {row[4]})" for row in table[1:])
    ours += f"; the padded bodies' negative control: {pad} filler tokens per decision"
    runs = [*(d for d, _ in main.values()), alone[SEEDS_B], *independent.values(), teams[SEEDS_B], *padded.values()]
    return Outcome(ours, checks, chart, table, [shown(ctx, r) for r in runs], load if wall_time else "")


# -- OmniGameArena: the improvement curve (IDC) with rollback and transfer --------------------------------
# The measurement is the held-out gain: the game played with the run's final skill against without it on
# held-out seeds (improve's transfer, variant `base`), paired per seed: a best-round gain on the seeds the
# rounds chose it on would favour any reflector whose rounds differ by chance. The variants' transfer is
# reported per variant with its interval (the positive control's run), not gated.
IDC_GAMES = ("games/tilefall-v0", "games/kitchen-v0")
VARIANTS = ("var1", "var2", "var3")
# The scripted reflector reads the step tables through its tools, never a frame, so its rounds record no
# video (`frames` 0): improve's default (4 frames per episode, cut from an MP4) is for a model that looks, and
# the real-model command keeps it. Kitchen's round episodes took about 30 s each with the video, 9 s without.
IDC_QUICK = {"rounds": 4, "episodes": 2, "transfer_episodes": 6, "frames": 0}
IDC_FULL = {"rounds": 11, "episodes": 5, "transfer_episodes": 20, "frames": 0}


# Tilefall is reported, not gated: the quick run of 2026-12-03 (held-out seeds 11000-11005) showed its positive
# control does not hold once the cold start is the project's text stand-in (`safest`): the kept skill (`still`,
# which won the two training episodes, 0.93 -> 1.0) gains -0.017 on held-out seeds. The cold start scores 0.93
# on the training seeds and 0.91 on the held-out ones (four of six at 1.0 or 0.94), which leaves no headroom:
# the kept skill can only tie or lose there, so the control lacks the property at this n. (On set B's training
# seeds, 2000-2001, the cold start scores 0.12: the ceiling is the seeds', not the game's.) We report it rather
# than tune the game, the stand-in or the seeds.
IDC_REPORTED = {"tilefall": "the positive control lacks the property: the cold start (the text stand-in) "
                            "scores 0.91 on the held-out seeds, no headroom for a rulebook skill"}
# Kitchen's rule was pre-registered after a pilot. The quick run of 2026-12-03 gave the positive control
# +0.202 on held-out seeds 11000-11005 and the negative control the same +0.202: `reflector-irrelevant` had
# written workshop's bench rule, which is kitchen's bullet word for word (fixed: it writes no rule this game's
# player recognises, and its skill plays exactly as none). The pilot, the positive control's kept skill
# (bench) against none on held-out seeds 11000-11017: +0.183, s.d. 0.149 (n 18); at s.d. 0.15, n = 12 detects
# +0.133 with 80% power (about 3/4 of the pilot's gain: a pilot's mean is itself noisy, and the fresh seeds'
# rounds choose their own kept skill). The rule runs on seeds never used before: rounds on 3000..,
# held-out 13000.. (the negative control's set B: 4000.., 14000..). Its one run (2026-12-03, under heavy load;
# the variants' transfer left out for time): the rounds kept bench again, held-out gain +0.202 [+0.047,
# +0.358] (n 12): holds; the negative control's rounds scored the same with and without its three foreign
# rules (0.5 and 0.43 every round), so it kept round 0's empty skill: +0.000 (n 12) on sets A and B. Separates.
@dataclass(frozen=True)
class IdcPlan:
    """A game's pre-registered idc rule: its seed sets (A, B), held-out episodes per arm at the quick size, and
    the planning s.d. with the pilot it came from."""

    seeds: tuple[int, int] = (SEEDS_A, SEEDS_B)
    n: int = IDC_QUICK["transfer_episodes"]
    planning_sd: float = 0.22
    pilot: str = "the quick run of 2026-12-03, kitchen's held-out seeds (+0.202, s.d. 0.22)"


IDC_PLANS = {"kitchen": IdcPlan(
    seeds=(3000, 4000), n=12, planning_sd=0.15,
    pilot="kitchen's kept skill (bench) against none, held-out seeds 11000-11017 of 2026-12-03 (+0.183, s.d. 0.149)")}


def idc_plan(game: str) -> IdcPlan:
    return IDC_PLANS.get(game, IdcPlan())


def idc_rule(game: str) -> Rule:
    plan = idc_plan(game)
    return Rule(f"the reflector's skill helps on held-out {game} seeds",
                f"score with the final skill minus without, per held-out seed (games/{game}-v0)", +1,
                n=plan.n, planning_sd=plan.planning_sd, pilot=plan.pilot,
                positive="the scripted reflector: it greps every rule's evidence in the round's step tables, adds "
                         "the most frequent failure's rule, and drops a rule after which the round's score fell",
                negative="a reflector making the same tool calls and writing well-formed skills the evidence does "
                         "not call for (another game's rules, none this game's player recognises; "
                         "`policy=reflector-irrelevant`)",
                gated=game not in IDC_REPORTED, note=IDC_REPORTED.get(game, ""))


IDC_RULES = tuple(idc_rule(g.split("/")[1].removesuffix("-v0")) for g in IDC_GAMES)


def held_out(run_dir: Path) -> dict[str, list[float]]:
    """Per variant, with minus without the final skill per held-out seed (`transfer/episodes.jsonl`)."""
    from rtarena.improve.loop import episode_score, resolve_metric

    rows = [json.loads(line) for line in (run_dir / "transfer" / "episodes.jsonl").read_text().splitlines()
            if line.strip()]
    metric = resolve_metric(rows, None)  # the improve run's own score: the mean of `score` over the player's slots
    scores: dict[tuple[str, str], dict[int, float]] = {}
    for row in (r for r in rows if r.get("status") == "ok"):
        variant, _, condition = str(row["label"]).rpartition("__")
        scores.setdefault((variant, condition), {})[int(row["seed"])] = episode_score(row, metric)
    variants = dict.fromkeys(v for v, _ in scores)
    return {v: paired(scores.get((v, "with"), {}), scores.get((v, "without"), {})) for v in variants}


def idc_settings(ctx: Context, rule: Rule, seed_start: int) -> dict[str, Any]:
    """One `rtarena improve` run's settings: the run size's rounds and episodes (idc's K: `ctx.idc_episodes`
    where given), at least the rule's n held-out episodes per arm, from a registered seed set's first seed."""
    sizes = IDC_QUICK if ctx.quick else IDC_FULL
    return {**sizes, "episodes": ctx.idc_episodes or sizes["episodes"],
            "transfer_episodes": max(sizes["transfer_episodes"], rule.n),  # the rule's n where the size has fewer
            "seed_start": ctx.seed(seed_start), "workers": ctx.workers, "max_steps": ctx.max_steps}


def idc(ctx: Context) -> Outcome:
    from rtarena.improve.commands import improve_command

    server = ctx.server
    player = "llm:scripted-skill@" + server.url(policy="skill") + ",modalities=text"
    judge = "scripted-judge@" + server.url(policy="judge")
    table = [["game", "reflector", "R0", "best round", "final gain [95% CI]", "rollbacks",
              "held-out gain [95% CI]", *(f"transfer {v} [95% CI]" for v in VARIANTS)]]
    series, runs, checks = {}, [], []
    for env_id, rule in zip(IDC_GAMES, IDC_RULES, strict=True):
        name = env_id.split("/")[1].removesuffix("-v0")
        seeds_a, seeds_b = idc_plan(name).seeds
        gains = {}
        for label, policy, start, variants in (("positive", "reflector", seeds_a, ("base", *VARIANTS)),
                                               ("negative", "reflector-irrelevant", seeds_a, ("base",)),
                                               ("negative-b", "reflector-irrelevant", seeds_b, ("base",))):
            run_id = f"idc-{name}-{label}"
            shutil.rmtree(ctx.out / "runs" / run_id, ignore_errors=True)
            reflector = f"scripted-{policy}@" + server.url(policy=policy)
            run_dir = improve_command(env_id, player, reflector, judge,
                                      [f"{v}:" if v == "base" else f"{v}:variant={v}" for v in variants], [],
                                      idc_settings(ctx, rule, start), ctx.out / "runs", run_id, False, None,
                                      ctx.console)
            metrics = json.loads((run_dir / "metrics.json").read_text())
            gains[label] = held_out(run_dir)
            rounds, final = metrics["rounds"], metrics["final_gain"]
            if label == "positive":
                series[name] = [(float(r), s["mean"], None) for r, s in enumerate(rounds)]
            variant_text = [rule.judge(gains[label][v]).text() if v in gains[label] else "-" for v in VARIANTS]
            table.append([name, policy, f"{rounds[0]['mean']:.3f}", str(metrics["best_round"]),
                          f"{final['mean']:+.3f} [{final['lo']:+.3f}, {final['hi']:+.3f}]", str(metrics["rollbacks"]),
                          rule.judge(gains[label]["base"]).text(), *variant_text])
            runs.append(shown(ctx, run_dir))
        checks.append(controlled(rule, gains["positive"]["base"], gains["negative"]["base"],
                                 gains["negative-b"]["base"]))
    chart = svg.line_chart("Improvement dynamics curve (scripted skill player and reflector)", "round mean score",
                           "round", series)
    ours = "; ".join(f"{row[0]}: held-out gain {row[6]}, transfer {' / '.join(row[7:])}, rollbacks {row[5]}"
                     for row in table[1:] if row[1] == "reflector")
    return Outcome(ours, checks, chart, table, runs)


# -- OmniGameArena: PDQ vs LCRT and the action budget ----------------------------------------------------
# The paper's latency-sensitive solo games (002, section 6: "实时反应的 MonsterShoot 或需要高吞吐量的
# SoloCraft"): our monsters and workshop. The stand-in plays them from the text view (`modalities=text`;
# the suite's default view is the frame and HUD, which a text player cannot read). LCRT's clock
# (`measured`) reads wall time, so that row is reported with its s.e. and the machine's load, not gated.
# The gate is carried by `lcrt-300ms` (preset `suite-solo-lcrt-300ms`, a named ablation of suite-solo's LCRT,
# so suite-solo's default run stays the paper's two protocols): the paused clock with a 0.3 s delay landing in simulated
# time. It runs the scheduler `measured` runs (runtime/scheduler.py: the world runs default actions until the
# decision commits, then the chunk plays and the world settles); only the charge differs, the stand-in's
# 0.3 s answer fixed instead of measured, so its meaning is exactly "the answer's time costs game time",
# deterministically. (The replay clock would say the same with a one-latency trace file; a declared delay
# needs no file.) Its negative control answers in the same 0.3 s of real time under PDQ, where the world
# waits for it (as `delay-injection-world-waits` holds the delay curve's): the same answer time, not charged.
QUICK_SOLO = ("games/monsters-v0", "games/workshop-v0")
PROTOCOLS = {"paused-chunks": "PDQ (paused-chunks)", "measured": "LCRT (measured)",
             "lcrt-300ms": "LCRT, 0.3 s charged (lcrt-300ms)"}
# the preset each protocol's clock setting comes from (suite-solo's own two, and the fixed charge's ablation)
PRESET_OF = {"paused-chunks": "suite-solo", "measured": "suite-solo", "lcrt-300ms": "suite-solo-lcrt-300ms"}
PDQ_SEEDS = 2  # quick seeds per game of the reported measured rule
CHARGED_SEEDS = 10  # quick seeds per game of the gated rules (the score rule needs n = 20: its pilot below)
BUDGET_RULE = Rule(
    "LCRT costs decisions", "decisions per 100 steps alive under LCRT minus under PDQ, per seed and game", -1,
    n=PDQ_SEEDS * len(QUICK_SOLO), planning_sd=3.0, pilot="the quick run of 2026-12-02 (31.4 -> 14.0)",
    positive=f"the stand-in answering in {LCRT_TTFT_S:g} s, charged under LCRT",
    negative="the same stand-in answering at once (no added answer time), charged under LCRT: only its own "
             "compute time costs game time (seed sets A and B)",
    gated=False)
CHARGED_BUDGET_RULE = Rule(
    "the answer's time charged costs decisions", "decisions per 100 steps alive with 0.3 s charged in game time "
    "(`lcrt-300ms`) minus under PDQ, per seed and game", -1, n=CHARGED_SEEDS * len(QUICK_SOLO),
    planning_sd=2.81, pilot="seeds 5000-5004 of 2026-12-03 (monsters and workshop, 300 steps: -13.5, s.d. 2.81)",
    positive=f"the stand-in's {LCRT_TTFT_S:g} s answer charged in game time (`lcrt-300ms`, preset "
             "suite-solo-lcrt-300ms: the paused clock, each decision landing 0.3 s of game time late)",
    negative=f"the same stand-in answering in {LCRT_TTFT_S:g} s of real time under PDQ, which waits for it (the "
             "answer's time costs no game time), against PDQ answering at once (seed sets A and B)")
CHARGED_SCORE_RULE = replace(
    CHARGED_BUDGET_RULE, name="the answer's time charged lowers the score", statistic="score with 0.3 s charged "
    "in game time (`lcrt-300ms`) minus under PDQ, per seed and game", planning_sd=0.205,
    pilot="seeds 5000-5004 of 2026-12-03 (monsters and workshop, 300 steps: -0.155, s.d. 0.205; n = 20 detects 0.135)")
# The paper's mechanism ("not from worse actions") is a claim of no difference in score per decision, which a
# sign rule cannot pass; the table reports score per 100 decisions under every protocol.


def pdq_vs_lcrt(ctx: Context) -> Outcome:
    presets = {name: load_preset(name) for name in set(PRESET_OF.values())}
    model = next(lu.name for lu in presets["suite-solo"].lineups if lu.slots[0].startswith("llm:"))
    settings = {c.name: c for name, preset in presets.items() for c in preset.clocks if PRESET_OF.get(c.name) == name}
    seeds = {"paused-chunks": max(PDQ_SEEDS, CHARGED_SEEDS), "measured": PDQ_SEEDS, "lcrt-300ms": CHARGED_SEEDS}
    runs, cells = [], []

    def protocol(clock: str, ttft_s: float, start: int, label: str) -> tuple[Path, list[dict[str, Any]]]:
        """One run of the stand-in under one protocol, answering in `ttft_s` of real time (the main runs
        wait only where the clock reads wall time: the deterministic clocks' records are the same without
        the wait, which would only slow them). A deterministic clock's episodes that wait all run at once (a
        wait costs no CPU); the measured clock's keep the findings' workers (its charge is their wall time)."""
        url = ctx.server.url(**({"ttft_s": ttft_s} if ttft_s else {}))
        waits = ttft_s and CLOCKS[settings[clock].clock].deterministic
        run_dir, found = run_preset(ctx, PRESET_OF[clock], f"pdq-vs-lcrt-{label}", params={"base_url": url},
                                    lineups=(model,), clocks=(clock,), envs=QUICK_SOLO if ctx.quick else (),
                                    quick_seeds=seeds[clock], quick_steps=300, llm_options="modalities=text",
                                    seed_start=start, workers=2 * seeds[clock] if waits else None)
        runs.append(shown(ctx, run_dir))
        return run_dir, found

    dirs = {}
    for name, setting in settings.items():
        wall = not CLOCKS[setting.clock].deterministic
        dirs[name], found = protocol(name, LCRT_TTFT_S if wall else 0.0, SEEDS_A, name)
        cells += model_cells(found)
    pdq_b = protocol("paused-chunks", 0.0, SEEDS_B, "paused-chunks-b")[0]
    # the measured rule's negative control: LCRT with no answer time added, on set A (against the PDQ run
    # above) and set B
    at_once = {SEEDS_A: (dirs["paused-chunks"], protocol("measured", 0.0, SEEDS_A, "measured-at-once")[0]),
               SEEDS_B: (pdq_b, protocol("measured", 0.0, SEEDS_B, "measured-at-once-b")[0])}
    # the charged rules' negative control: the same 0.3 s answer under PDQ, which waits for it
    waits = {SEEDS_A: (dirs["paused-chunks"], protocol("paused-chunks", LCRT_TTFT_S, SEEDS_A, "pdq-waits")[0]),
             SEEDS_B: (pdq_b, protocol("paused-chunks", LCRT_TTFT_S, SEEDS_B, "pdq-waits-b")[0])}
    load = machine_load()

    def row(**where: Any) -> tuple[Stat, Stat, float, float]:
        score, n, alive = (pooled(cells, m, **where) for m in ("score", "decisions", "steps_alive"))
        rate = 100 * (n.mean or 0.0) / alive.mean if alive.mean else 0.0
        return score, n, rate, (score.mean or 0.0) / n.mean if n.mean else 0.0

    levels = sorted({c["level"] for c in cells})

    def per_step(run_dir: Path, level: str) -> dict[int, float]:
        decisions, alive = (per_seed(run_dir, m, level=level) for m in ("decisions", "steps_alive"))
        return {s: 100 * decisions[s] / alive[s] if alive.get(s) else 0.0 for s in decisions}

    def budget(pdq_dir: Path, lcrt_dir: Path) -> list[float]:
        """Per seed and game: decisions per 100 steps alive under LCRT minus under PDQ."""
        return [d for level in levels for d in paired(per_step(lcrt_dir, level), per_step(pdq_dir, level))]

    def score(pdq_dir: Path, lcrt_dir: Path) -> list[float]:
        """Per seed and game: the score under LCRT minus under PDQ."""
        return [d for level in levels for d in paired(per_seed(lcrt_dir, "score", level=level),
                                                       per_seed(pdq_dir, "score", level=level))]
    table = [["game", "protocol", "score", "decisions / episode", "decisions per 100 steps alive",
              "score per 100 decisions"]]
    for level in [*levels, "all"]:
        for clock, shown_as in PROTOCOLS.items():
            mean, n, rate, per = row(clock_name=clock, **({} if level == "all" else {"level": level}))
            table.append([level, shown_as, mean.text(), n.text(), f"{rate:.1f}", f"{100 * per:.3f}"])
    measured = {c: row(clock_name=c) for c in PROTOCOLS}
    pdq, pdq_n, pdq_rate, per_pdq = measured["paused-chunks"]

    def against_pdq(clock: str) -> str:
        lcrt, lcrt_n, lcrt_rate, per_lcrt = measured[clock]
        return (f"score {relative(pdq.mean or 0.0, lcrt.mean or 0.0)}, decisions per 100 steps alive "
                f"{relative(pdq_rate, lcrt_rate)} (per episode {relative(pdq_n.mean or 0.0, lcrt_n.mean or 0.0)}), "
                f"score per decision {relative(per_pdq, per_lcrt)}")

    def kept(clock: str, what: str) -> float:
        stat, _, rate, _ = measured[clock]
        base = {"score": pdq.mean or 0.0, "rate": pdq_rate}[what]
        return ({"score": stat.mean or 0.0, "rate": rate}[what] / base) if base else 0.0

    chart = svg.bar_chart("PDQ vs LCRT (solo games): score and action budget", "relative to PDQ",
                          ["score", "decisions per step alive"], ["PDQ", "LCRT, 0.3 s charged", "LCRT (measured)"],
                          {(what, name): (kept(clock, key), None) for what, key in
                           (("score", "score"), ("decisions per step alive", "rate"))
                           for name, clock in (("PDQ", "paused-chunks"), ("LCRT, 0.3 s charged", "lcrt-300ms"),
                                               ("LCRT (measured)", "measured"))})
    ours = (f"0.3 s charged (lcrt-300ms): {against_pdq('lcrt-300ms')}; measured (LCRT): {against_pdq('measured')}; "
            f"against PDQ ({load})")
    negatives = [budget(*at_once[start]) for start in (SEEDS_A, SEEDS_B)]
    ours += (f"; answering at once, measured minus PDQ decisions per 100 steps alive: "
             f"{', '.join(f'{statistics.fmean(n):+.1f}' for n in negatives if n)} (sets A, B)")
    charged = (dirs["paused-chunks"], dirs["lcrt-300ms"])
    checks = [controlled(CHARGED_BUDGET_RULE, budget(*charged), *(budget(*waits[s]) for s in (SEEDS_A, SEEDS_B))),
              controlled(CHARGED_SCORE_RULE, score(*charged), *(score(*waits[s]) for s in (SEEDS_A, SEEDS_B))),
              controlled(BUDGET_RULE, budget(dirs["paused-chunks"], dirs["measured"]), *negatives)]
    return Outcome(ours, checks, chart, table, runs, load)


# -- ROAR: the observation-modality ablation -------------------------------------------------------------
# The stand-in is the scripted pixel player (`policy_server/arena_pixels.py`): it reads the frame and the depth
# image, never the text, so the text part is the same in both quick conditions and only depth differs. The
# negative control is the same player ignoring the depth image it is sent (`policy=pixels-flat`); it plays
# both conditions on seed sets A and B. A model pays for every image it reads before its first token; the
# stand-in is charged MEDIA_PREFILL_S per image or audio part (`ServerSettings.media_prefill_s`, our choice:
# ROAR gives no per-modality latency), so under the 250 ms real-time clock the depth image costs 0.1 s of every
# decision, and under turn-based play nothing. The real-time half reads wall time: reported.
MEDIA_PREFILL_S = 0.1
QUICK_SENSES = ("rgb+text", "rgb+depth+text")
# The pixel player is stateless (it reads the last message only), so past turns change none of its actions;
# without them a request is one frame, not megabytes of past screenshots to send and parse on every step
# (the prefill charge already treats earlier messages as cached).
SENSE_HISTORY = 0
SENSE_METRICS = {"score": "score", "incoming_hit_rate": "incoming hit rate", "decisions": "decisions / episode"}
# The statistic is the score: what the player uses depth for is finding coins (the nearest by distance,
# a long open way to run down when none is in view, a crate to step round before its coin). History: a hit-rate
# rule pre-registered at n = 10 did not hold on seeds 1000-1009 (-0.022 [-0.176, +0.133], s.d. 0.22, 14:25
# run), and a score rule pre-registered in its place at 30 s (n = 21 from a pilot on seeds 1000-1009: +0.070,
# s.d. 0.106) did not hold on its fresh seeds 3000-3020 (2026-12-03: +0.010 [-0.087, +0.106], s.d. 0.21). The
# records showed why: at 30 s both players mostly walk to coins already in view (without depth, "nearest" is
# the lowest on screen, which a flat floor makes nearly as good), and the depth player used depth to strafe
# *less* from turrets, which cost it coins. What depth fixes is the frame-only player circling on the spot with
# no coin in view, which matters once the coins in view are gone: in longer episodes (the paper's levels run
# 5 minutes). So, on pilot seeds 6000-6009 no rule had used (2026-12-04, `score` with minus without depth,
# turn-based): at 30 / 60 / 120 s +0.050 / +0.180 / +0.190 (s.d. 0.29 / 0.36 / 0.39) with the strafe-less
# rule, and +0.100 / +0.240 / +0.200 (s.d. 0.28 / 0.35 / 0.36) with it removed (the player strafing from every
# lit lamp with or without depth, depth only choosing the open side). The gain grows from 30 s to 60 s and
# stops there (both players collect most of the 10 coins by 2 minutes), so the rule reads 60 s
# (`MODALITY_STEPS`), the player no longer strafes less with depth (`arena_pixels.py`), and the rule was
# pre-registered as gated, committed before it ran, on fresh seeds 7000.. with n = 40: 80% power at +0.16
# (two thirds of the pilot's +0.24) at a planning s.d. of 0.35. Most of the gain comes from a few seeds where
# the frame-only player circles or dies (+0.7 to +1.0), the rest small (0 to +0.2): a skewed sample, which is
# why the planned effect is well under the pilot's. The 250 ms real-time half stays at 30 s (wall time: a
# 60 s episode is 60 s of real time per seed and condition). Its one run (2026-12-04 02:36-02:46 UTC, commit
# 40bc768, seeds 7000-7039) did not hold: +0.040 [-0.010, +0.090], s.d. 0.155. The pilot's +0.24 came from
# two of its ten seeds (the frame-only player killed by the turrets in its first 10 s on one, 2 coins against
# 9 on the other: +1.0, +0.7); on the forty fresh seeds such a seed came up once (7032: 0 coins against 5),
# and at 60 s both players collect most of the coins (8.3 and 8.7 of 10 on average), which leaves depth
# little to add. So the rule is reported; we did not tune the player, the length or the statistic again.
# One more pilot looked for a level where depth decides more: arena/coop-v0, the paper's other level (four
# bodies, a 100 m arena; seeds 8000-8005, 60 s, turn-based, 2026-12-04): +0.069, s.d. 0.134 (coins +0.42 a
# body), no larger than on basic-v0. 80% power there needs about 32 seeds of a level whose episode costs four
# basic ones, so no rule was registered on it.
# The third registration (2026-12-04, evening): the same player, length and statistic, with the sample size the
# second registration's own run says it needs. That run is now the pilot: +0.040, s.d. 0.155 over 40 fresh
# seeds, an estimate no choice was tuned on (the pilots before it were the ones the player and the length were
# chosen from, and overstated the gain). n = 120 gives 80% power at +0.040 itself at that s.d. (`Rule.mde`),
# on fresh seeds 9000-9119 that no pilot, rule or stand-in has played. Nothing else changed: the player, the
# 60 s, the statistic and the interval are the ones registered at 7000. Planned at the estimate, not below it:
# if depth's true gain is smaller than +0.04, the rule is likely to fail again, and is then reported. This is
# the third test of one hypothesis (30 s on 3000.., 60 s on 7000.., and this), which the page says. Its one run
# (2026-12-04 19:54-20:28 UTC) held: +0.063 [+0.027, +0.098], and again on seeds 39000.. (`--seed-offset
# 30000`): +0.063 [+0.030, +0.097] (docs/findings.md).
# (The quick run keeps the registered 60 s and n: the page reports what was registered.)
MODALITY_SEEDS = 9000  # the score rule's fresh seeds (9000 .. 9000 + n - 1); its earlier registrations ran on
# 3000-3020 (30 s) and 7000-7039 (60 s)
MODALITY_STEPS = 240  # 60 s of arena/basic-v0 at 0.25 s a step: the turn-based runs and the negative control
REALTIME_STEPS = 120  # 30 s: the reported real-time half (it plays in real time)
# The negative control plays the same seeds the same way with and without depth (it ignores it: every paired
# difference is exactly 0), so 10 seeds per set show it; at the rule's 40 per set the quick run would take
# 2 x 60 more 60 s episodes.
NEGATIVE_SEEDS = 10
SCORE_RULE = Rule(
    "depth helps turn-based", f"score with depth minus without, per seed (arena/basic-v0, turn-based, "
    f"{MODALITY_STEPS // 4} s, seeds {MODALITY_SEEDS}..)", +1, n=120, planning_sd=0.155,
    pilot="the second registration's run, seeds 7000-7039 of 2026-12-04, 60 s (+0.040, s.d. 0.155; it did not "
          "hold at n 40: [-0.010, +0.090]); the third registration of this hypothesis, after 30 s on 3000-3020 "
          "(+0.010 [-0.087, +0.106])",
    positive="the pixel player using the depth image (nearest coin, open ways, crates, the open side to "
             "strafe to)",
    negative="the same player ignoring the depth image it is sent (`policy=pixels-flat`)")
DEPTH_RULE = replace(
    SCORE_RULE, name="depth spares the player shots turn-based", statistic="incoming hit rate with depth minus "
    f"without, per seed (arena/basic-v0, turn-based, {MODALITY_STEPS // 4} s)", direction=-1, planning_sd=0.22,
    pilot="seeds 1000-1009, the quick run of 2026-12-03 14:25 (-0.022, s.d. 0.216)", gated=False,
    note="pre-registered at n = 10 (s.d. 0.1) it did not hold on seeds 1000-1009 (-0.022 [-0.176, +0.133]): a "
         "ratio of small counts (s.d. 0.22), and depth changes where the player walks more than how it dodges")
REALTIME_DEPTH_RULE = replace(DEPTH_RULE, name="depth in 250 ms real time (the paper: no benefit)", n=2,
                              statistic=f"incoming hit rate with depth minus without, per seed (250 ms real "
                              f"time, {REALTIME_STEPS // 4} s)", direction=1, gated=False, negative="none run",
                              note="wall time")
MODALITY_RULES = (SCORE_RULE, DEPTH_RULE, REALTIME_DEPTH_RULE)


def modality(ctx: Context) -> Outcome:
    runs: dict[str, tuple[Path, list[dict[str, Any]]]] = {}
    for setting in load_preset("modality-ablation").clocks:  # a run per clock: its own prefill and seeds
        wall_time = not CLOCKS[setting.clock].deterministic
        url = ctx.server.url(policy="pixels", media_prefill_s=MEDIA_PREFILL_S if wall_time else 0.0)
        runs[setting.name] = run_preset(
            ctx, "modality-ablation", f"modality-{setting.name}", params={"base_url": url, "model": "scripted-pixels"},
            envs=("arena/basic-v0",) if ctx.quick else (), clocks=(setting.name,),
            observations=QUICK_SENSES if ctx.quick else (), quick_steps=REALTIME_STEPS if wall_time else MODALITY_STEPS,
            llm_options=f"history={SENSE_HISTORY}",
            quick_seeds=REALTIME_DEPTH_RULE.n if wall_time else SCORE_RULE.n,
            seed_start=SEEDS_A if wall_time else MODALITY_SEEDS)
    load = machine_load()
    flat = ctx.server.url(policy="pixels-flat")
    negatives = {start: run_preset(ctx, "modality-ablation", f"modality-flat-{ctx.seed(start)}",
                                   params={"base_url": flat, "model": "scripted-pixels-flat"},
                                   envs=("arena/basic-v0",), clocks=("turn-based",), quick_steps=MODALITY_STEPS,
                                   observations=QUICK_SENSES, llm_options=f"history={SENSE_HISTORY}",
                                   quick_seeds=NEGATIVE_SEEDS, seed_start=start)[0] for start in (SEEDS_A, SEEDS_B)}

    def depth_gain(run: Path, clock: str, metric: str) -> list[float]:
        return paired(per_seed(run, metric, clock_name=clock, obs=QUICK_SENSES[1]),
                      per_seed(run, metric, clock_name=clock, obs=QUICK_SENSES[0]))

    turn = runs["turn-based"][0]
    checks = [controlled(rule, depth_gain(turn, "turn-based", metric),
                         *(depth_gain(negatives[s], "turn-based", metric) for s in (SEEDS_A, SEEDS_B)))
              for rule, metric in ((SCORE_RULE, "score"), (DEPTH_RULE, "incoming_hit_rate"))]
    if "realtime-250ms" in runs:
        real = runs["realtime-250ms"][0]
        checks.append(controlled(REALTIME_DEPTH_RULE, depth_gain(real, "realtime-250ms", "incoming_hit_rate")))
    cells = model_cells([c for _, run_cells in runs.values() for c in run_cells])
    clocks = list(dict.fromkeys(c["clock_name"] for c in cells))
    senses = [o for o in load_preset("modality-ablation").observations if any(c["obs"] == o.name for c in cells)]
    stats = {(clock, o.name, m): pooled(cells, m, clock_name=clock, obs=o.name)
             for clock in clocks for o in senses for m in SENSE_METRICS}
    table = [["clock", "observations", *SENSE_METRICS.values()]] + [
        [clock, o.name, *(stats[(clock, o.name, m)].text() for m in SENSE_METRICS)] for clock in clocks for o in senses]
    chart = svg.bar_chart("Observation modalities (scripted pixel player)", "score", clocks,
                          [o.name for o in senses],
                          {(clock, o.name): (stats[(clock, o.name, "score")].mean or 0.0,
                                             stats[(clock, o.name, "score")].se) for clock in clocks for o in senses})

    def change(clock: str, metric: str) -> str:
        return f"{stats[(clock, 'rgb+text', metric)].text()} -> {stats[(clock, 'rgb+depth+text', metric)].text()}"

    ours = "; ".join(f"{clock}: adding depth takes the score {change(clock, 'score')}, the incoming hit rate "
                     f"{change(clock, 'incoming_hit_rate')}" for clock in clocks) + f" ({load})"
    return Outcome(ours, checks, chart, table, [shown(ctx, r) for r, _ in runs.values()]
                   + [shown(ctx, r) for r in negatives.values()], load)


FINDINGS: tuple[Finding, ...] = (
    Finding("delay-curve", "ROAR",
            "Performance degrades monotonically with injected delay",
            "the average score falls from 0.33 to 0.12, while effective action frequency drops from 0.74 to 0.08 "
            "(Qwen 3.5 27B, 250 ms steps, +250 / 1,000 / 3,000 ms, 20 seeds per level; Tables 9 and 10)",
            "preset `delay-injection` (wall clock, dt 0.25 s, 0 / 250 / 1000 / 3000 ms), the stand-in's line-ups; "
            "quick: arena/basic-v0, 2 seeds, 30 s episodes; full: every level, 20 seeds, 5 minutes (reported); the "
            "gated positive control: preset `delay-injection-turn-based` (the delay lands in simulated time under "
            f"the paused clock), 0 and 3000 ms, {DELAY_GAME_RULE.n} seeds, the first {WORLD_WAITS_STEPS // 4} s; the "
            "negative control: preset `delay-injection-world-waits` (the same delays held in real time under the "
            f"paused clock, which waits for them), 0 and 3000 ms, seed sets A and B, the first "
            f"{WORLD_WAITS_STEPS // 4} s",
            (DELAY_GAME_RULE, DELAY_RULE),
            "rtarena run --preset delay-injection --set model=MODEL --set base_url=URL --seeds 20 --seed-start 1000 "
            "(and --preset delay-injection-turn-based, the gated positive control, and --preset "
            "delay-injection-world-waits, the negative control)",
            delay_curve),
    Finding("token-deliberation", "Realtime-Bench",
            "consuming more tokens delays execution regardless of actual inference latency",
            "with only 1 s remaining to bid, Gemini Live in TH generates 544 tokens (8.5 simulated seconds), "
            "compared with 88 tokens when 3 s remain, missing the bidding opportunity (Figure 9)",
            "preset `TL-text` (token clock, 64 tokens per page second; the page as text) on web/quiz-v0, the one web "
            "task the text stand-in plays, swept over the efforts minimal / low / medium / high; quick: 3 seeds; "
            "full: the preset's 5",
            (DELIBERATION_RULE,),
            "rtarena run --preset TL-text --set model=MODEL --set base_url=URL --seeds 5 --seed-start 1000, once per "
            "reasoning_effort (minimal, low, medium, high); the negative control: the same model with its effort "
            "fixed",
            token_deliberation, no_chromium),
    Finding("centralized-vs-decentralized", "ROAR",
            "their coordination and reasoning benefits can be offset by the additional latency they introduce",
            "no number in our copy of the paper (its control-mode table is not included): the direction only, "
            "centralized control helps turn-based and loses its edge in real time",
            f"preset `centralized-vs-decentralized` on arena/coop-v0, the team policy coordinating and writing "
            f"{PLAN_TOKENS} reasoning tokens per body at {PLAN_RATE:g} tokens/s (paced only when a wall-time clock "
            f"runs: turn-based and token records are the same unpaced); quick: turn-based ({COORDINATION_RULE.n} "
            f"seeds) and token ({COST_RULE.n} seeds), {COOP_STEPS // 4} s; full: also 250 ms real time (reported)",
            (COORDINATION_RULE, COST_RULE),
            "rtarena run --preset centralized-vs-decentralized --set model=MODEL --set base_url=URL --seeds 40 "
            "--seed-start 1000",
            centralized),
    Finding("idc", "OmniGameArena",
            "all four models find skills that beat Round 0 on both games, the best round often comes early, "
            "and source gain and transfer can diverge",
            "LastStand best-round gains +0.54 to +0.70 (+130% to +437%); SharedFloor transfer 16/16 positive "
            "(Figure 5, Table 5)",
            "`rtarena improve` on games/tilefall-v0 (LastStand) and games/kitchen-v0 (SharedFloor), the scripted "
            "skill player (cold start: the project's text stand-in), reflector and judge, held-out seeds of the "
            f"base game and var1..var3; quick: R0..R{IDC_QUICK['rounds'] - 1} x {IDC_QUICK['episodes']} episodes, "
            f"{IDC_QUICK['transfer_episodes']} held-out episodes per arm on tilefall (seeds {SEEDS_A}.. and "
            f"{SEEDS_B}..), {IDC_PLANS['kitchen'].n} on kitchen (fresh seeds {IDC_PLANS['kitchen'].seeds[0]}.. and "
            f"{IDC_PLANS['kitchen'].seeds[1]}..); full: R0..R10 x 5 episodes, {IDC_FULL['transfer_episodes']} per arm",
            IDC_RULES,
            "rtarena improve games/tilefall-v0 --player llm:MODEL@URL --reflector MODEL@URL --variant base: "
            "--variant var1:variant=var1 --variant var2:variant=var2 --variant var3:variant=var3 --rounds 11 "
            f"--episodes 5 --transfer 20 --setting seed_start={SEEDS_A} (and kitchen-v0 with "
            f"--setting seed_start={IDC_PLANS['kitchen'].seeds[0]})",
            idc),
    Finding("pdq-vs-lcrt", "OmniGameArena",
            "the score drop may come mainly from fewer actions (the budget effect), not from worse actions",
            "PDQ vs LCRT (Appendix A, Tables 8 and 9): no number in our copy, the direction only",
            "preset `suite-solo` from the text view, the same chunk loop (the chunk plays, the world settles, the next "
            "observation) paused (PDQ) vs `lcrt-300ms` (preset `suite-solo-lcrt-300ms`: the stand-in's "
            f"{LCRT_TTFT_S:g} s answer charged as game "
            f"time, deterministic: gated) and measured (LCRT: the answer's wall time charged: reported); the "
            f"negative controls answer in {LCRT_TTFT_S:g} s under PDQ, which waits (gated rules), and at once under "
            "measured (the reported rule); quick: the paper's latency-sensitive solo games, monsters (MonsterShoot) "
            f"and workshop (SoloCraft), {CHARGED_SEEDS} seeds ({PDQ_SEEDS} under measured), 30 s; full: the seven "
            "solo games, 10 seeds",
            (CHARGED_BUDGET_RULE, CHARGED_SCORE_RULE, BUDGET_RULE),
            "rtarena run --preset suite-solo --set model=MODEL --set base_url=URL --seeds 10 --seed-start 1000 "
            "(PDQ and LCRT; the fixed 0.3 s charge is the stand-in's control, --preset suite-solo-lcrt-300ms)",
            pdq_vs_lcrt),
    Finding("modality", "ROAR",
            "under the turn-based interface, adding depth and audio produces small but consistent numerical gains "
            "across most metrics",
            "Under the 250 ms real-time setting, however, the same additions bring no benefit and even slightly "
            "worsen incoming hit rate (0.66 to 0.67) (Gemini-3.1 Pro, Basic and Cooperative levels, 20 seeds; "
            "Table 11)",
            f"preset `modality-ablation`, the scripted pixel player (frame and depth image, never the observation "
            "text; the field of view and eye height from the prompt's level rules, as a "
            f"model reads them; {MEDIA_PREFILL_S:g} s of prefill per image it reads); quick: arena/basic-v0, "
            f"rgb+text vs rgb+depth+text, {SCORE_RULE.n} seeds turn-based ({MODALITY_STEPS // 4} s, from "
            f"{MODALITY_SEEDS}) and {REALTIME_DEPTH_RULE.n} in real time ({REALTIME_STEPS // 4} s); the negative "
            f"control {NEGATIVE_SEEDS} seeds per set ({MODALITY_STEPS // 4} s); full: the "
            "preset's five combinations on basic and coop, 20 seeds",
            MODALITY_RULES,
            f"rtarena run --preset modality-ablation --set model=MODEL --set base_url=URL --seeds {SCORE_RULE.n} "
            "--seed-start "
            f"{MODALITY_SEEDS} (the score rule's seeds; the negative control: the same with depth ignored)",
            modality),
)


def finding_names() -> list[str]:
    return [f.name for f in FINDINGS]


def run_findings(out: Path, quick: bool = False, only: list[str] | None = None, workers: int = 2,
                 max_steps: int | None = None, console: Console | None = None, seed_offset: int = 0,
                 idc_episodes: int | None = None) -> tuple[Path, list[str]]:
    """Run the chosen findings (all by default) and write the page; returns `findings.html` and the names of
    the findings that failed: an error while running, or a gated rule that does not separate its controls
    (`core.Result.verdict`: `failed`, `fails`). A smoke run (`max_steps`) gates nothing: its episodes are too
    short for the rules. A replication (`seed_offset`) plays every seed set that much further on, the same
    rules at the same n on seeds none of them was registered on; `idc_episodes` sets idc's episodes per round
    (the paper's K = 5)."""
    unknown = [n for n in only or [] if n not in finding_names()]
    if unknown:
        raise UserError(f"unknown finding {unknown[0]!r}; findings: {', '.join(finding_names())}", field="--only")
    console = console or Console(stderr=True)
    chosen = [f for f in FINDINGS if not only or f.name in only]
    results = []
    # one run at a time into a folder: a second one refuses with one line instead of mixing their runs
    with run_lock(out, field="--out"), PolicyServer() as server:
        ctx = Context(quick, out, server, workers, console, max_steps, seed_offset, idc_episodes)
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
            result = Result(finding, outcome, None, time.monotonic() - start)
            results.append(result)
            console.print(f"{finding.name}: {outcome.ours} ({result.verdict})", highlight=False)
            for c in outcome.controls:
                console.print(f"  {c.rule.name}: positive {c.positive.text()}"
                              + "".join(f", {label} {check.text()}" for label, check in
                                        (("negative", c.negative), ("negative B", c.negative_b)) if check)
                              + (f" -> {'separates' if c.separates else 'does not separate'}" if c.negative
                                 else f" -> {'holds' if c.positive.holds else 'fails'} (reported)"), highlight=False)
        gate = {"failed"} if max_steps is not None else {"failed", "fails"}
        failed = [r.finding.name for r in results if r.verdict in gate]
        return write_page(out, results, quick, max_steps, seed_offset, idc_episodes), failed
