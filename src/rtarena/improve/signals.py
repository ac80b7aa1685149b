"""Pre-reflection signals, written to the round's `lints.md` and given to reflector and judge.

| code | when |
|---|---|
| `major_regression` | the round mean < best - (1 - alpha) x abs(best) (alpha x best for a positive best) |
| `rollback` | the same: the next round's player starts from the best skill (see `loop.py`) |
| `empty_skill` | the round was played with an empty skill (round 0 always is) |
| `stagnation` | the last three round means lie within 10 % of the largest of them in absolute value |
| `bimodal` | >= 4 episodes; split at the largest gap of the sorted scores: each side >= a quarter of them, |
| | and the gap > 0 and > twice the wider side's own range |
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise


@dataclass(frozen=True)
class Signal:
    code: str
    detail: str


def threshold(best: float, alpha: float) -> float:
    """The score below which a round is a major regression (alpha x best for a positive best)."""
    return best - (1.0 - alpha) * abs(best)


def stagnating(means: list[float], within: float = 0.10) -> bool:
    if len(means) < 3:
        return False
    last = means[-3:]
    scale = max(abs(m) for m in last)
    return (max(last) - min(last)) <= within * scale if scale > 0 else True


def bimodal(scores: list[float]) -> bool:
    """Two separated groups of episodes (with three, any spread would look like two groups)."""
    n = len(scores)
    if n < 4:
        return False
    ordered = sorted(scores)
    spread = ordered[-1] - ordered[0]
    if spread <= 0:
        return False
    gaps = [b - a for a, b in pairwise(ordered)]
    split = max(range(n - 1), key=lambda i: gaps[i]) + 1  # episodes below the largest gap
    low, high = ordered[:split], ordered[split:]
    inner = max(low[-1] - low[0], high[-1] - high[0])
    return min(split, n - split) >= n / 4 and gaps[split - 1] > 2 * inner


def round_signals(round_index: int, scores: list[float], means: list[float], best_mean: float, best_round: int,
                  alpha: float, skill: str) -> list[Signal]:
    """The signals of a finished round; `means` holds every round mean up to and including this one."""
    found = []
    mean = means[-1]
    if round_index > 0 and mean < threshold(best_mean, alpha):
        found.append(Signal("major_regression", f"round mean {mean:.4g} is below {threshold(best_mean, alpha):.4g} "
                            f"(alpha {alpha:g} of the best, round {best_round}: {best_mean:.4g})"))
        found.append(Signal("rollback", f"the next round's player starts from the best skill (round {best_round})"))
    if not skill.strip():
        found.append(Signal("empty_skill", "this round was played without a skill"))
    if stagnating(means):
        found.append(Signal("stagnation", "the last three round means are within 10 % of each other: "
                            + ", ".join(f"{m:.4g}" for m in means[-3:])))
    if bimodal(scores):
        found.append(Signal("bimodal", "episode scores split into two groups: "
                            + ", ".join(f"{s:.4g}" for s in sorted(scores))))
    return found


def lints_markdown(round_index: int, found: list[Signal]) -> str:
    lines = [f"# Signals after round {round_index}", ""]
    lines += [f"- {s.code}: {s.detail}" for s in found] or ["(none)"]
    return "\n".join(lines) + "\n"
