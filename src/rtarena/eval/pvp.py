"""PvP ratings from the matches a run recorded: Bradley-Terry and Elo with bootstrap intervals, and how
far the agents' results are from a ranking at all (the share of rock-paper-scissors cycles).

A win rate matrix answers "who beat whom"; a rating answers "who is stronger overall" and needs a model.
Two are given, as chess and LLM arenas report them:

- **Bradley-Terry**: P(a beats b) = 1 / (1 + exp(r_b - r_a)), fitted by maximum likelihood with `choix`'s
  iterative Luce spectral ranking over every match at once (order does not matter). A draw counts as one
  win each way. `BT_ALPHA` regularises the fit so an agent that won (or lost) every match gets a finite
  rating. Ratings are shown on the Elo scale: 1500 + 400 / ln(10) x r, centred on the agents' mean.
- **Elo**: the online update (K = `ELO_K`, start 1500) over the matches in recorded order (run, episode).

Both come with a percentile bootstrap interval (`BOOTSTRAP` resamples of the matches with replacement,
seeded), so two agents whose intervals overlap are not told apart.

**Non-transitivity**: over every triple of agents that all met pairwise, the share whose majority results
form a cycle (a beats b, b beats c, c beats a: each pair's mean score above 0.5 for the winner). 0 for a
strict ranking, 1 when every triple is rock-paper-scissors; its interval comes from the same bootstrap.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from rtarena.errors import UserError
from rtarena.eval.query import columns

BT_ALPHA = 0.5  # choix: like half a win each way between every two agents, so an unbeaten agent stays finite
ELO_K = 16.0
ELO_START = 1500.0
ELO_SCALE = 400.0 / math.log(10.0)  # one Bradley-Terry unit (a factor e in odds) in Elo points
BOOTSTRAP = 1000
CONFIDENCE = 0.95


@dataclass(frozen=True)
class Match:
    """One PvP episode between two agents: `score` is `first`'s (1 win, 0.5 draw, 0 loss)."""

    env_id: str
    first: str
    second: str
    score: float


@dataclass(frozen=True)
class Rating:
    agent: str
    matches: int
    bradley_terry: float  # on the Elo scale
    bradley_terry_ci: tuple[float, float]
    elo: float
    elo_ci: tuple[float, float]


@dataclass(frozen=True)
class PvpRatings:
    ratings: list[Rating]  # strongest first (Bradley-Terry)
    nontransitivity: float | None  # None: no triple of agents met pairwise
    nontransitivity_ci: tuple[float, float] | None
    triples: int
    matches: int
    bootstrap: int


def pvp_matches(con: Any, env_ids: Sequence[str] | None = None) -> list[Match]:
    """Every two-player episode of the run(s) behind `con` between two different agent specs, in recorded
    order. An agent's label (its spec) is its identity; self-play episodes tell nothing and are left out."""
    if "score" not in {name for name, _ in columns(con, "agents")}:
        return []
    where, args = "", []
    if env_ids:
        where = f"AND a.env_id IN ({', '.join('?' for _ in env_ids)})"
        args = list(env_ids)
    rows = con.execute(f"""
        WITH players AS (SELECT run_id, episode, count(*) AS n FROM agents GROUP BY ALL)
        SELECT a.env_id, a.agent_label, b.agent_label, a.score::DOUBLE
        FROM agents a JOIN agents b ON a.run_id = b.run_id AND a.episode = b.episode AND a.agent < b.agent
        JOIN players p ON p.run_id = a.run_id AND p.episode = a.episode
        WHERE p.n = 2 AND a.agent_label <> b.agent_label AND a.score IS NOT NULL AND b.score IS NOT NULL
              AND a.score + b.score = 1 {where}
        ORDER BY a.run_id, a.episode
    """, args).fetchall()
    return [Match(env_id, first, second, score) for env_id, first, second, score in rows]


def _choix() -> Any:
    try:
        import choix
    except ImportError:
        raise UserError("PvP ratings need the stats extra: pip install 'rtarena[stats]'") from None
    return choix


def _bt(n: int, pairs: np.ndarray, scores: np.ndarray) -> np.ndarray:
    choix = _choix()

    wins = [(int(a), int(b)) for (a, b), s in zip(pairs, scores, strict=True) if s >= 0.5]
    wins += [(int(b), int(a)) for (a, b), s in zip(pairs, scores, strict=True) if s <= 0.5]
    params = choix.ilsr_pairwise(n, wins, alpha=BT_ALPHA)
    return ELO_START + ELO_SCALE * (params - params.mean())


def _elo(n: int, pairs: np.ndarray, scores: np.ndarray) -> np.ndarray:
    rating = np.full(n, ELO_START)
    for (a, b), s in zip(pairs, scores, strict=True):
        expected = 1.0 / (1.0 + 10.0 ** ((rating[b] - rating[a]) / 400.0))
        rating[a] += ELO_K * (s - expected)
        rating[b] -= ELO_K * (s - expected)
    return rating


def _cycles(n: int, pairs: np.ndarray, scores: np.ndarray) -> tuple[int, int]:
    """(cyclic triples, triples whose three pairs all met): a pair's winner is the one above 0.5 mean."""
    total = np.zeros((n, n))
    count = np.zeros((n, n))
    np.add.at(total, (pairs[:, 0], pairs[:, 1]), scores)
    np.add.at(total, (pairs[:, 1], pairs[:, 0]), 1.0 - scores)
    np.add.at(count, (pairs[:, 0], pairs[:, 1]), 1)
    np.add.at(count, (pairs[:, 1], pairs[:, 0]), 1)
    beats = np.zeros((n, n), dtype=bool)
    met = count > 0
    beats[met] = total[met] / count[met] > 0.5
    cyclic = considered = 0
    for a, b, c in itertools.combinations(range(n), 3):
        if met[a, b] and met[b, c] and met[a, c]:
            considered += 1
            cyclic += bool((beats[a, b] and beats[b, c] and beats[c, a]) or (beats[b, a] and beats[c, b]
                                                                              and beats[a, c]))
    return cyclic, considered


def _interval(samples: np.ndarray) -> tuple[float, float]:
    tail = (1.0 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(samples, [tail, 100 - tail], axis=0)
    return float(low), float(high)


def rate(matches: Sequence[Match], bootstrap: int = BOOTSTRAP, seed: int = 0) -> PvpRatings:
    """Bradley-Terry and Elo ratings of every agent in `matches`, with bootstrap intervals, and the
    non-transitivity score. Raises `UserError` when there are no matches to rate."""
    _choix()
    if not matches:
        raise UserError("no PvP matches to rate: the run holds no two-player episode between two different agents")
    agents = sorted({m.first for m in matches} | {m.second for m in matches})
    index = {a: i for i, a in enumerate(agents)}
    pairs = np.array([(index[m.first], index[m.second]) for m in matches], dtype=np.int64)
    scores = np.array([m.score for m in matches], dtype=np.float64)
    n = len(agents)
    bt, elo = _bt(n, pairs, scores), _elo(n, pairs, scores)
    cyclic, triples = _cycles(n, pairs, scores)
    rng = np.random.default_rng(seed)
    bt_samples, elo_samples, cycle_samples = np.empty((bootstrap, n)), np.empty((bootstrap, n)), []
    for k in range(bootstrap):
        pick = np.sort(rng.integers(0, len(matches), len(matches)))  # kept in recorded order for Elo
        bt_samples[k] = _bt(n, pairs[pick], scores[pick])
        elo_samples[k] = _elo(n, pairs[pick], scores[pick])
        c, t = _cycles(n, pairs[pick], scores[pick])
        if t:
            cycle_samples.append(c / t)
    played = np.bincount(pairs.ravel(), minlength=n)
    ratings = [Rating(a, int(played[i]), float(bt[i]), _interval(bt_samples[:, i]), float(elo[i]),
                      _interval(elo_samples[:, i])) for i, a in enumerate(agents)]
    ratings.sort(key=lambda r: -r.bradley_terry)
    score = cyclic / triples if triples else None
    ci = _interval(np.array(cycle_samples)) if triples and cycle_samples else None
    return PvpRatings(ratings, score, ci, triples, len(matches), bootstrap)


def to_markdown(result: PvpRatings, title: str = "PvP ratings") -> list[str]:
    lines = [f"{title}: {result.matches} matches, {CONFIDENCE:.0%} bootstrap intervals ({result.bootstrap} "
             "resamples).", "",
             "| agent | matches | Bradley-Terry (Elo scale) | interval | Elo | interval |", "|---|---|---|---|---|---|"]
    for r in result.ratings:
        lines.append(f"| {r.agent} | {r.matches} | {r.bradley_terry:.0f} | [{r.bradley_terry_ci[0]:.0f}, "
                     f"{r.bradley_terry_ci[1]:.0f}] | {r.elo:.0f} | [{r.elo_ci[0]:.0f}, {r.elo_ci[1]:.0f}] |")
    lines.append("")
    if result.nontransitivity is None:
        lines.append("Non-transitivity: no three agents all met each other.")
    else:
        low, high = result.nontransitivity_ci or (math.nan, math.nan)
        lines.append(f"Non-transitivity: {result.nontransitivity:.2f} of {result.triples} triples are cycles "
                     f"[{low:.2f}, {high:.2f}].")
    return lines


def pvp_section(con: Any, section_type: type, env_ids: Sequence[str] | None = None, seed: int = 0) -> list[Any]:
    """The report's PvP ratings section (`section_type(title, markdown, html)`), none without PvP matches."""
    from html import escape

    from rtarena.eval import svg

    matches = pvp_matches(con, env_ids)
    if not matches:
        return []
    try:
        result = rate(matches, seed=seed)
    except UserError as missing:  # the stats extra is not installed: say so, keep the rest of the report
        return [section_type("PvP ratings", [str(missing)], [f"<p>{escape(str(missing))}</p>"])]
    md = to_markdown(result)
    rows = "".join(
        f'<tr data-agent="{escape(r.agent)}" data-bt="{r.bradley_terry!r}" data-bt-low="{r.bradley_terry_ci[0]!r}" '
        f'data-bt-high="{r.bradley_terry_ci[1]!r}" data-elo="{r.elo!r}"><td class="key">{escape(r.agent)}</td>'
        f"<td>{r.matches}</td><td>{r.bradley_terry:.0f} [{r.bradley_terry_ci[0]:.0f}, {r.bradley_terry_ci[1]:.0f}]"
        f"</td><td>{r.elo:.0f} [{r.elo_ci[0]:.0f}, {r.elo_ci[1]:.0f}]</td></tr>" for r in result.ratings)
    chart = svg.dot_interval_chart("PvP ratings: Bradley-Terry on the Elo scale", "rating",
                                   {r.agent: (r.bradley_terry, *r.bradley_terry_ci) for r in result.ratings})
    html = [f'<p class="muted">{escape(md[0])}</p><table class="pvp-ratings"'
            f' data-nontransitivity="{result.nontransitivity!r}"><thead><tr><th class="key">agent</th>'
            "<th>matches</th><th>Bradley-Terry [95%]</th><th>Elo [95%]</th></tr></thead>"
            f"<tbody>{rows}</tbody></table><p>{escape(md[-1])}</p><div class='plots'>{chart}</div>"]
    return [section_type("PvP ratings", md, html)]
