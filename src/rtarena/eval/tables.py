"""The numbers of reports and leaderboards, computed by DuckDB over the runs' Parquet files.

The unit of a standard error is the episode: an agent spec that drives several bodies in one episode
(four `heuristic` bots in a coop match) is first averaged over its bodies, then over episodes, and the
standard error is `stddev_samp / sqrt(n)` over those per-episode values (none for n = 1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from rtarena.eval.query import columns

# The research system's headline metrics, in the order reports show them (those an env does not
# produce are skipped); every other numeric column is listed under "all metrics".
MAIN_METRICS = ("score", "return", "result", "coins", "kills", "deaths", "accuracy", "survival",
                "incoming_hit_rate", "effective_action_frequency", "wall_latency_p50_s", "wall_latency_p90_s",
                "decision_delay_p50_s", "tokens_out", "invalid_decisions")
NOT_METRICS = {"seed", "delay_ms", "steps", "team"}
# What a report shows as its own tables (the rest go under "all metrics"); `result` is 1 win, 0.5 draw, 0 loss.
REPORT_METRICS = ("score", "result", "coins", "kills", "accuracy", "survival", "incoming_hit_rate",
                  "effective_action_frequency", "wall_latency_p50_s", "tokens_out")
NUMERIC = ("DOUBLE", "FLOAT", "BIGINT", "INTEGER", "HUGEINT", "SMALLINT", "TINYINT", "UBIGINT", "UINTEGER",
           "BOOLEAN", "DECIMAL", "REAL")
CELL = ("agent", "lineup", "level", "clock_name", "obs")
CELL_SQL = {"agent": "agent_label AS agent", "lineup": "coalesce(lineup, '') AS lineup",
            "level": "coalesce(level, regexp_extract(env_id, '[^/]+$')) AS level",
            "clock_name": "coalesce(clock_name, clock) AS clock_name", "obs": "coalesce(obs, '') AS obs"}


@dataclass(frozen=True)
class Stat:
    n: int
    mean: float | None
    se: float | None

    def text(self) -> str:
        if self.mean is None:
            return "—"
        return fmt(self.mean) + (f" ± {self.se:.2g}" if self.se is not None else "")


def fmt(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return "—"
    return f"{value:.4g}"


def metric_names(con: Any) -> list[str]:
    """Numeric columns of the `agents` view, headline metrics first."""
    numeric = [name for name, kind in columns(con, "agents")
               if kind.split("(")[0] in NUMERIC and name not in NOT_METRICS]
    return [m for m in MAIN_METRICS if m in numeric] + sorted(m for m in numeric if m not in MAIN_METRICS)


def main_metric(metrics: list[str]) -> str:
    for name in ("score", "return"):
        if name in metrics:
            return name
    return metrics[0]


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def cell_stats(con: Any, metrics: list[str], where: str = "true") -> list[dict[str, Any]]:
    """One dict per cell (agent, line-up, level, clock setting, modality): its keys, `delay_ms`, and a `Stat`
    per metric. The same spec in two line-ups of a level (a bot against bots, a bot against a model) is two
    cells."""
    per_episode = ", ".join(f"avg({_q(m)}::DOUBLE) AS {_q(m)}" for m in metrics)
    stats = ", ".join(f"count({_q(m)}) AS {_q('n_' + m)}, avg({_q(m)}) AS {_q('mean_' + m)}, "
                      f"stddev_samp({_q(m)}) / sqrt(count({_q(m)})) AS {_q('se_' + m)}" for m in metrics)
    sql = f"""
        WITH per_episode AS (
            SELECT run_id, episode, {', '.join(CELL_SQL.values())}, any_value(coalesce(delay_ms, 0)) AS delay_ms,
                   {per_episode}
            FROM agents WHERE {where} GROUP BY ALL)
        SELECT {', '.join(CELL)}, any_value(delay_ms) AS delay_ms, {stats}
        FROM per_episode GROUP BY {', '.join(CELL)}
        ORDER BY level, agent, lineup, any_value(delay_ms), clock_name, obs
    """
    cursor = con.execute(sql)
    names = [d[0] for d in cursor.description]
    out = []
    for row in cursor.fetchall():
        data = dict(zip(names, row, strict=True))
        cell = {k: data[k] for k in (*CELL, "delay_ms")}
        for m in metrics:
            se = data[f"se_{m}"]
            cell[m] = Stat(int(data[f"n_{m}"]), data[f"mean_{m}"], se if se is not None and math.isfinite(se) else None)
        out.append(cell)
    return out


def latency_boxes(con: Any) -> dict[str, tuple[float, ...]]:
    """Per agent: P5, P25, P50, P75, P95 of decision wall latency in milliseconds."""
    names = {name for name, _ in columns(con, "decisions")}
    if "wall_latency_s" not in names:
        return {}
    rows = con.execute("""
        WITH ctl AS (SELECT DISTINCT run_id, episode, controller, agent_label FROM agents)
        SELECT ctl.agent_label, quantile_cont(d.wall_latency_s * 1000, [0.05, 0.25, 0.5, 0.75, 0.95])
        FROM decisions d JOIN ctl USING (run_id, episode, controller)
        GROUP BY 1 ORDER BY 1
    """).fetchall()
    return {label: tuple(q) for label, q in rows if q is not None}


def episode_counts(con: Any) -> list[tuple[str, int, int]]:
    """Per run: episodes ok and failed."""
    return con.execute("""
        SELECT run_id, count(*) FILTER (WHERE coalesce(status, 'ok') = 'ok'),
               count(*) FILTER (WHERE status = 'error')
        FROM episodes GROUP BY run_id ORDER BY run_id
    """).fetchall()


# -- the game suite ----------------------------------------------------------------------------------
# A clock setting (an experiment's `[[clocks]] name`, else the clock): the suite's tables are one per setting,
# never pooled (the paper reports PDQ and LCRT side by side).
SETTING_SQL = "coalesce(clock_name, clock)"


def suite_clock_settings(con: Any) -> list[str]:
    """The clock settings the suite's games were played under, in name order."""
    if "env_id" not in {name for name, _ in columns(con, "agents")}:
        return []
    return [r[0] for r in con.execute(f"SELECT DISTINCT {SETTING_SQL} FROM agents WHERE env_id LIKE 'games/%' "
                                      "ORDER BY 1").fetchall()]


def game_scores(con: Any, setting: str | None = None) -> list[tuple[str, str, Stat]]:
    """(env id, agent, score) per suite game an agent played (under one clock setting when given); a spec in
    several seats of one episode (co-op self-play) is averaged over its seats first, so every seat of a team
    counts once per episode."""
    if "score" not in {name for name, _ in columns(con, "agents")}:
        return []
    rows = con.execute(f"""
        WITH per_episode AS (
            SELECT run_id, episode, env_id, agent_label AS agent, avg(score::DOUBLE) AS v
            FROM agents WHERE env_id LIKE 'games/%' AND (? IS NULL OR {SETTING_SQL} = ?) GROUP BY ALL)
        SELECT env_id, agent, count(v), avg(v), stddev_samp(v) / sqrt(count(v))
        FROM per_episode GROUP BY env_id, agent ORDER BY env_id, agent
    """, [setting, setting]).fetchall()
    return [(env_id, agent, Stat(n, mean, se if se is not None and math.isfinite(se) else None))
            for env_id, agent, n, mean, se in rows]


def decisions_per_episode(con: Any, setting: str) -> dict[tuple[str, str], Stat]:
    """(env id, agent) -> decisions per episode and seat under one clock setting: the action budget."""
    rows = con.execute(f"""
        WITH per_episode AS (
            SELECT run_id, episode, env_id, agent_label AS agent, avg(decisions::DOUBLE) AS v
            FROM agents WHERE env_id LIKE 'games/%' AND {SETTING_SQL} = ? GROUP BY ALL)
        SELECT env_id, agent, count(v), avg(v), stddev_samp(v) / sqrt(count(v)) FROM per_episode GROUP BY ALL
    """, [setting]).fetchall()
    return {(e, a): Stat(n, m, se if se is not None and math.isfinite(se) else None) for e, a, n, m, se in rows}


def win_rates(con: Any, env_ids: list[str],
              setting: str | None = None) -> list[tuple[str, str, str, int, float, float]]:
    """(env id, row agent, column agent, episodes, win rate, draw rate) of the row agent against the column
    agent over every seat either held (a PvP score is 1 win, 0.5 draw, 0 loss), under one clock setting when
    given."""
    if not env_ids or "score" not in {name for name, _ in columns(con, "agents")}:
        return []
    marks = ", ".join("?" for _ in env_ids)
    return con.execute(f"""
        SELECT a.env_id, a.agent_label, b.agent_label, count(*),
               avg(CASE WHEN a.score = 1 THEN 1.0 ELSE 0.0 END), avg(CASE WHEN a.score = 0.5 THEN 1.0 ELSE 0.0 END)
        FROM agents a JOIN agents b ON a.run_id = b.run_id AND a.episode = b.episode AND a.agent <> b.agent
        WHERE a.env_id IN ({marks}) AND a.agent_label <> b.agent_label
              AND (? IS NULL OR coalesce(a.clock_name, a.clock) = ?)
        GROUP BY ALL ORDER BY 1, 2, 3
    """, [*env_ids, setting, setting]).fetchall()


def mean_of(stats: list[Stat]) -> Stat:
    """The mean of per-game means (each game counts the same); its standard error sqrt(sum se^2) / k."""
    means = [s for s in stats if s.mean is not None]
    if not means:
        return Stat(0, None, None)
    ses = [s.se for s in means if s.se is not None]
    se = math.sqrt(sum(v * v for v in ses)) / len(means) if len(ses) == len(means) else None
    return Stat(sum(s.n for s in means), sum(s.mean for s in means) / len(means), se)


def capability_profile(scores: dict[str, float], ratings: dict[str, dict[str, int]]) -> dict[str, float]:
    """Per capability: the agent's game scores weighted by each game's rating of it,
    sum(rating x score) / sum(rating) over the games it played (None-free; 0 where no game rates it)."""
    profile = {}
    for capability in next(iter(ratings.values()), {}):
        weights = {g: ratings[g][capability] for g in scores if g in ratings}
        total = sum(weights.values())
        profile[capability] = sum(w * scores[g] for g, w in weights.items()) / total if total else 0.0
    return profile
