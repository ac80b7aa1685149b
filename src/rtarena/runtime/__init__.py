"""ONE match: env + controllers + clock protocol -> records (DESIGN.md, "The time model")."""

from rtarena.runtime.clocks import (
    CLOCKS,
    Clock,
    MeasuredClock,
    PausedClock,
    ReplayClock,
    TokenClock,
    WallClock,
    make_clock,
)
from rtarena.runtime.match import run_match
from rtarena.runtime.records import DecisionRecord, MatchResult, StepRecord

__all__ = [
    "CLOCKS", "Clock", "DecisionRecord", "MatchResult", "MeasuredClock", "PausedClock", "ReplayClock",
    "StepRecord", "TokenClock", "WallClock", "make_clock", "run_match",
]
