"""The numbers of an improvement run, with bootstrap confidence intervals over episodes.

S_r is round r's mean score over its episodes (r = 0 .. N). Every round plays the same seeds, so the
bootstrap is paired: one resample draws K seed indices and applies them to every round (rounds with a
failed episode use the mean of what they have).

| metric | formula |
|---|---|
| round mean | S_r, with a percentile bootstrap interval |
| final gain | S_N - S_0 |
| AUC gain | mean over r = 1..N of (S_r - S_0) |
| regression rate | share of rounds r >= 1 with S_r < S_(r-1) |
| best-round gain | S_b - S_0, b the best round chosen below |
| rollbacks | rounds after which the runner rolled back to the best skill |

Best round (not the raw argmax of noisy means): among the rounds whose upper bound reaches the highest
lower bound (those not clearly worse than the most reliable one), the one with the highest lower bound;
ties go to the earlier round.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

BOOTSTRAP_SEED = 0  # intervals are reproducible: the same scores give the same bounds


@dataclass(frozen=True)
class Interval:
    mean: float
    lo: float
    hi: float
    se: float | None
    n: int


def _resamples(n: int, count: int) -> np.ndarray:
    return np.random.default_rng(BOOTSTRAP_SEED).integers(0, n, size=(count, n))


def _bounds(samples: np.ndarray, confidence: float) -> tuple[float, float]:
    tail = (1.0 - confidence) / 2.0 * 100.0
    return float(np.nanpercentile(samples, tail)), float(np.nanpercentile(samples, 100.0 - tail))


def interval(values: list[float], count: int = 2000, confidence: float = 0.95) -> Interval:
    """Mean of `values` with a percentile bootstrap interval and the standard error."""
    data = np.asarray([v for v in values if v is not None and math.isfinite(v)], dtype=float)
    if data.size == 0:
        return Interval(math.nan, math.nan, math.nan, None, 0)
    if data.size == 1:
        return Interval(float(data[0]), float(data[0]), float(data[0]), None, 1)
    lo, hi = _bounds(data[_resamples(data.size, count)].mean(axis=1), confidence)
    return Interval(float(data.mean()), lo, hi, float(data.std(ddof=1) / math.sqrt(data.size)), int(data.size))


def best_round(intervals: list[Interval]) -> int:
    """The best round by the interval rule above."""
    usable = [(i, s) for i, s in enumerate(intervals) if s.n and math.isfinite(s.mean)]
    if not usable:
        return 0
    top_lo = max(s.lo for _, s in usable)
    candidates = [(i, s) for i, s in usable if s.hi >= top_lo]
    return max(candidates, key=lambda pair: (pair[1].lo, pair[1].mean, -pair[0]))[0]


def _matrix(scores: list[list[float]]) -> np.ndarray:
    width = max(len(s) for s in scores)
    out = np.full((len(scores), width), np.nan)
    for r, row in enumerate(scores):
        out[r, : len(row)] = row
    return out


def gain_interval(scores: list[list[float]], statistic: Any, count: int, confidence: float) -> Interval:
    """A statistic of the round means (a function of a vector of S_r) with a paired bootstrap interval."""
    matrix = _matrix(scores)
    point = float(statistic(np.nanmean(matrix, axis=1)))
    idx = _resamples(matrix.shape[1], count)
    with warnings.catch_warnings():  # a resample of only failed episodes is NaN, not an error
        warnings.simplefilter("ignore", RuntimeWarning)
        means = np.nanmean(matrix[:, idx], axis=2)  # rounds x resamples
    samples = np.array([statistic(means[:, b]) for b in range(count)])
    lo, hi = _bounds(samples, confidence)
    se = float(np.nanstd(samples, ddof=1)) if count > 1 else None
    return Interval(point, lo, hi, se, matrix.shape[1])


def curve_metrics(scores: list[list[float]], rollbacks: list[int], count: int = 2000, confidence: float = 0.95,
                  selection: list[list[float]] | None = None) -> dict[str, Any]:
    """Every metric of the table above from the per-round episode scores; `selection` (held-out scores
    per round), when given, is what the best round is chosen on."""
    rounds = [interval(s, count, confidence) for s in scores]
    means = [r.mean for r in rounds]
    best = best_round([interval(s, count, confidence) for s in selection] if selection else rounds)
    last = len(scores) - 1
    out: dict[str, Any] = {"rounds": [asdict(r) for r in rounds], "best_round": best, "rollbacks": len(rollbacks),
                           "rollback_after": list(rollbacks),
                           "regression_rate": (sum(means[r] < means[r - 1] for r in range(1, len(means))) / last
                                               if last else None)}
    if last:
        out["final_gain"] = asdict(gain_interval(scores, lambda m: m[-1] - m[0], count, confidence))
        out["auc_gain"] = asdict(gain_interval(scores, lambda m: float(np.mean(m[1:] - m[0])), count, confidence))
        out["best_round_gain"] = asdict(gain_interval(scores, lambda m: m[best] - m[0], count, confidence))
    return out


def peak_passed(holdout: list[list[float]], count: int = 2000, confidence: float = 0.95) -> tuple[bool, int, Interval]:
    """The pre-registered stop rule `peak` on held-out round scores (same held-out seeds every round, so
    paired): the peak is the best round so far (`best_round`); it is passed when the latest round's paired
    difference to it (latest - peak) has an interval entirely below 0. Returns (passed, peak, difference)."""
    peak = best_round([interval(s, count, confidence) for s in holdout])
    last = len(holdout) - 1
    diff = gain_interval([holdout[peak], holdout[last]], lambda m: m[1] - m[0], count, confidence)
    return last != peak and diff.hi < 0, peak, diff


def stop_summary(holdout: list[list[float]], stopped_after: int | None, count: int = 2000,
                 confidence: float = 0.95) -> dict[str, Any]:
    """What the stop rule did: where it stopped (None: it never fired), the round it keeps (the peak), and its
    regret against the best round played: max over rounds of the held-out mean - the kept round's."""
    means = [interval(s, count, confidence).mean for s in holdout]
    peak = best_round([interval(s, count, confidence) for s in holdout])
    best = int(np.nanargmax(means))
    return {"rule": "peak", "stopped_after": stopped_after, "kept_round": peak, "best_round": best,
            "regret": float(means[best] - means[peak]), "regret_last": float(means[best] - means[-1])}


def variant_curve(variant_scores: list[dict[str, list[float]]], count: int = 2000,
                  confidence: float = 0.95) -> dict[str, Any]:
    """The transfer-aware curve (`transfer_every_round`): per round the mean over variants of each variant's
    held-out mean (`variant_rounds`, the interval from the pooled episodes), and the same gains as the source
    curve (`variant_final_gain`, `variant_auc_gain`) on it, paired over the held-out seeds."""
    names = sorted({name for scores in variant_scores for name in scores})
    pooled = [[v for name in names for v in scores.get(name, [])] for scores in variant_scores]
    out: dict[str, Any] = {"variant_names": names, "variant_rounds": [asdict(interval(p, count, confidence))
                                                                      for p in pooled]}
    if len(pooled) > 1:
        out["variant_final_gain"] = asdict(gain_interval(pooled, lambda m: m[-1] - m[0], count, confidence))
        out["variant_auc_gain"] = asdict(gain_interval(pooled, lambda m: float(np.mean(m[1:] - m[0])), count,
                                                       confidence))
    return out
