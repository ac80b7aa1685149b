"""What a finding is: a controlled experiment with pre-registered pass rules.

With scripted stand-ins a paper's finding is true by construction; what rtarena can honestly show offline
is that each measurement separates an agent with the paper's property (the positive control) from the same
agent without it (the negative control), and does not separate the negative control from itself. So every
finding declares its rules here, before it runs (`Rule`: the statistic, its interval, the sample size, the
smallest effect it detects with 80% power, the seeds), and its run reports one `Check` per rule and control.

A rule holds for a control when the interval of its statistic lies wholly on the predicted side of zero. A
finding *holds* when, for each of its rules, the positive control holds and the negative control fails on
both of its seed sets. Rules whose clock reads wall time are reported, never gated (`Rule.gated`): their
numbers move with the machine's load.

This module is the bottom layer of `rtarena.findings` (catalog -> page -> core; the import-linter contract
in pyproject.toml keeps it so).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from scipy import stats

if TYPE_CHECKING:
    from rich.console import Console

    from rtarena.policy_server.server import PolicyServer

CONFIDENCE = 0.95  # two-sided interval of every rule
POWER = 0.80  # the power at which a rule's smallest detectable effect is stated
# Seed sets, held apart from every seed the stand-ins were built or tuned on (0 .. 99, and improve's held-out
# 10,000 + i): set A runs the positive and the negative control, set B the negative control again (the
# measurement must not separate the negative control from itself).
SEEDS_A, SEEDS_B = 1000, 2000
# Every seed the findings, their pilots and the stand-ins' tuning play lies below this (the highest: idc's
# held-out seeds, 10,000 on from its rounds' 4000..), so a replication (`--seed-offset`) of at least this much
# plays seeds none of them has met.
REGISTERED_SEEDS_BELOW = 20_000
CONTROLS = ("positive", "negative", "negative (seed set B)")


@dataclass(frozen=True)
class Rule:
    """A pre-registered pass rule: `statistic` per seed (a paired difference), predicted to lie on the side
    `direction` (+1 above zero, -1 below); holds when the two-sided `CONFIDENCE` t-interval of its mean over
    `n` seeds excludes zero on that side. `planning_sd` (one seed's s.d. of the statistic, from the pilot
    named in `pilot`) gives the smallest effect the rule detects with `POWER`."""

    name: str
    statistic: str
    direction: int
    n: int
    planning_sd: float
    pilot: str
    positive: str  # the control with the paper's property
    negative: str  # the same without it
    gated: bool = True  # False: reported, not gated (why: `note`)
    note: str = "wall time"  # why a rule is reported: its clock reads wall time unless this says otherwise

    @property
    def mde(self) -> float:
        """The smallest true mean the rule detects with `POWER` (two-sided t-test at `CONFIDENCE`)."""
        if self.n < 2:
            return math.inf
        df = self.n - 1
        t = stats.t.ppf(1 - (1 - CONFIDENCE) / 2, df) + stats.t.ppf(POWER, df)
        return float(t * self.planning_sd / math.sqrt(self.n))

    def judge(self, samples: Sequence[float]) -> Check:
        """The rule applied to one control's per-seed statistic."""
        values = [float(v) for v in samples]
        n = len(values)
        mean = sum(values) / n if n else 0.0
        sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
        se = sd / math.sqrt(n) if n else 0.0
        half = float(stats.t.ppf(1 - (1 - CONFIDENCE) / 2, n - 1)) * se if n > 1 else math.inf
        lo, hi = mean - half, mean + half
        holds = n > 1 and (lo > 0 if self.direction > 0 else hi < 0)
        return Check(self.name, n, mean, se, lo, hi, holds)


@dataclass(frozen=True)
class Check:
    """One rule on one control: the mean of its per-seed statistic, its s.e. and interval, whether it holds."""

    rule: str
    n: int
    mean: float
    se: float
    lo: float
    hi: float
    holds: bool

    def text(self) -> str:
        return f"{self.mean:+.3f} [{self.lo:+.3f}, {self.hi:+.3f}] (n {self.n})"


@dataclass(frozen=True)
class Controlled:
    """A rule's three checks: the positive control, the negative control, the negative control on seed
    set B. The rule separates the controls when the first holds and neither of the others does. A reported
    rule (not gated: its clock reads wall time) may run the positive control only (negatives None)."""

    rule: Rule
    positive: Check
    negative: Check | None = None
    negative_b: Check | None = None

    @property
    def separates(self) -> bool:
        if self.negative is None or self.negative_b is None:
            return False
        return self.positive.holds and not self.negative.holds and not self.negative_b.holds


def controlled(rule: Rule, positive: Sequence[float], negative: Sequence[float] | None = None,
               negative_b: Sequence[float] | None = None) -> Controlled:
    return Controlled(rule, rule.judge(positive), None if negative is None else rule.judge(negative),
                      None if negative_b is None else rule.judge(negative_b))


def paired(a: dict[int, float], b: dict[int, float]) -> list[float]:
    """Per-seed differences a - b over the seeds both have (the controls play the same seeds)."""
    return [a[s] - b[s] for s in sorted(a) if s in b]


@dataclass
class Context:
    quick: bool
    out: Path
    server: PolicyServer
    workers: int
    console: Console
    max_steps: int | None = None  # a cap on every episode (a smoke run: the directions need the full lengths)
    seed_offset: int = 0  # a replication: every seed the findings play, shifted this far (0: the registered seeds)
    idc_episodes: int | None = None  # idc's episodes per round (the paper's K is 5); None: the run size's own

    def seed(self, start: int) -> int:
        """The first seed this run plays of a registered seed set (`SEEDS_A`, a rule's fresh seeds)."""
        return start + self.seed_offset


@dataclass
class Outcome:
    """What one finding measured: our figure in words, each rule's controls, a chart, a table (header row
    first) and the run folders it read."""

    ours: str
    controls: list[Controlled]
    chart: str
    table: list[list[str]]
    runs: list[str] = field(default_factory=list)
    load: str = ""  # the machine's load while it ran, for rows that read wall time

    @property
    def holds(self) -> bool:
        """Every gated rule separates its controls (vacuously true for a finding with none gated)."""
        return all(c.separates for c in self.controls if c.rule.gated)

    @property
    def gated(self) -> bool:
        return any(c.rule.gated for c in self.controls)


@dataclass(frozen=True)
class Finding:
    name: str
    paper: str
    claim: str  # the paper's words
    paper_figure: str  # the paper's numbers, quoted exactly
    design: str  # what we run (quick and full)
    rules: tuple[Rule, ...]  # pre-registered, quick sizes
    real_model: str  # the command and seeds a real-model run needs
    run: Callable[[Context], Outcome]
    cannot_run: Callable[[], str | None] = lambda: None  # why it cannot run here, else None


@dataclass
class Result:
    finding: Finding
    outcome: Outcome | None  # None: skipped or failed
    skipped: str | None
    seconds: float

    @property
    def verdict(self) -> str:
        """`holds` / `fails` (a gated rule does not separate its controls), `reported` (no gated rule),
        `skipped`, `failed` (an error while running)."""
        if self.outcome is None:
            return "failed" if (self.skipped or "").startswith("failed") else "skipped"
        if not self.outcome.gated:
            return "reported"
        return "holds" if self.outcome.holds else "fails"
