"""`rtarena leaderboard`: agents ranked across runs by one metric.

An agent's rating is the mean over levels of its per-level mean (each level counts the same, however many
episodes it has); its standard error combines the per-level ones, `sqrt(sum se_i^2) / k`. Only levels an
agent played count for it, and a rating over fewer levels is not comparable to one over more: agents that
played more of the levels rank first, then by rating.

`games="solo"` (or `"pvp"`, `"coop"`) keeps only the game suite's games of that mode (their variants
included): with `solo` the rating is the suite's solo mean. The suite is never ranked over clock settings
pooled: `rtarena leaderboard --games MODE` without `--clock` gives one table per clock setting
(`suite_settings`), as the paper reports PDQ and LCRT apart.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rtarena.errors import UserError
from rtarena.eval.query import connect, run_dirs
from rtarena.eval.tables import CELL_SQL, _q, main_metric, metric_names


@dataclass(frozen=True)
class Row:
    rank: int
    agent: str
    rating: float
    se: float | None
    levels: dict[str, float]
    episodes: int
    cost_usd: float | None = None  # mean model cost of one of its bodies in one episode; None: never priced


GAME_MODES = ("solo", "pvp", "coop")


def leaderboard(runs: list[str | Path] = (), root: str | Path = "runs", metric: str | None = None,
                clock: str | None = None, games: str | None = None) -> tuple[str, list[Row]]:
    con = connect(run_dirs(runs, root))
    metrics = metric_names(con)
    if not metrics:
        raise UserError("the runs hold no finished episodes", field="RUN")
    metric = metric or main_metric(metrics)
    if metric not in metrics:
        raise UserError(f"no metric {metric!r} in these runs; they have: {', '.join(metrics)}", field="--metric")
    where = "coalesce(clock_name, clock) = ?" if clock else "true"
    params: list[Any] = [clock] if clock else []
    if games is not None:
        if games not in GAME_MODES:
            raise UserError(f"--games must be one of {', '.join(GAME_MODES)}, got {games!r}", field="--games")
        from rtarena.envs.games.ratings import suite_ratings

        ids = [r.env_id for r in suite_ratings() if r.mode == games]
        where += f" AND regexp_replace(env_id, '-var[0-9]+-v0$', '-v0') IN ({', '.join('?' for _ in ids)})"
        params += ids
    cost = "avg(cost_usd::DOUBLE)" if "cost_usd" in {r[0] for r in con.execute("DESCRIBE agents").fetchall()} \
        else "NULL::DOUBLE"
    rows = con.execute(f"""
        WITH per_episode AS (
            SELECT run_id, episode, {CELL_SQL["agent"]}, {CELL_SQL["level"]}, {CELL_SQL["clock_name"]},
                   avg({_q(metric)}::DOUBLE) AS v, {cost} AS c
            FROM agents WHERE {where} GROUP BY ALL)
        SELECT agent, level, count(v), avg(v), stddev_samp(v) / sqrt(count(v)), sum(c), count(c)
        FROM per_episode GROUP BY agent, level ORDER BY agent, level
    """, params).fetchall()
    if not rows:
        raise UserError(f"no episodes with clock setting {clock!r}" if clock else f"no {games} games in these runs",
                        field="--clock" if clock else "--games")
    by_agent: dict[str, list[tuple[str, int, float, Any]]] = {}
    costs: dict[str, list[float]] = {}
    for agent, level, n, mean, se, spent, priced in rows:
        if mean is not None:
            by_agent.setdefault(agent, []).append((level, n, mean, se))
        if priced:
            found = costs.setdefault(agent, [0.0, 0])
            found[0], found[1] = found[0] + spent, found[1] + priced
    table = []
    for agent, levels in by_agent.items():
        rating = sum(m for _, _, m, _ in levels) / len(levels)
        ses = [se for *_, se in levels if se is not None and math.isfinite(se)]
        se = math.sqrt(sum(s * s for s in ses)) / len(levels) if len(ses) == len(levels) else None
        table.append((rating, agent, se, {lv: m for lv, _, m, _ in levels}, sum(n for _, n, _, _ in levels)))
    table.sort(key=lambda r: (-len(r[3]), -r[0], r[1]))
    return metric, [Row(i + 1, agent, rating, se, levels, n,
                        costs[agent][0] / costs[agent][1] if agent in costs else None)
                    for i, (rating, agent, se, levels, n) in enumerate(table)]


def suite_settings(runs: list[str | Path] = (), root: str | Path = "runs") -> list[str]:
    """The clock settings the suite's games were played under in these runs."""
    from rtarena.eval.tables import suite_clock_settings

    return suite_clock_settings(connect(run_dirs(runs, root)))


def to_markdown(metric: str, rows: list[Row]) -> str:
    levels = list(dict.fromkeys(lv for r in rows for lv in r.levels))
    priced = any(r.cost_usd is not None for r in rows)
    head = ["rank", "agent", f"{metric} (mean over levels)", "episodes", *(["USD / episode"] if priced else []),
            *levels]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        rating = f"{r.rating:.4g}" + (f" ± {r.se:.2g}" if r.se is not None else "")
        cells = [f"{r.levels[lv]:.4g}" if lv in r.levels else "—" for lv in levels]
        cost = ["—" if r.cost_usd is None else f"{r.cost_usd:.4g}"] if priced else []
        lines.append("| " + " | ".join([str(r.rank), r.agent, rating, str(r.episodes), *cost, *cells]) + " |")
    return "\n".join(lines) + "\n"
