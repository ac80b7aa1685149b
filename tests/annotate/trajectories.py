"""Small hand-built trajectories (the record rows a run would hold) for the annotator tests."""

from __future__ import annotations

import math

from rtarena.annotate.evidence import EpisodeEvidence

DT = 0.25
WAIT = "wait()"


def decision(index: int, obs: float, commit: float, action: str = "click(1)", tokens: int = 20,
             valid: bool = True, applied: bool = True, end: float = math.inf) -> dict:
    """A decision row; it applies at the first step at or after its commit (if the episode lasts)."""
    step = math.ceil(commit / DT - 1e-9)
    lands = applied and step * DT < end - 1e-9
    return {"index": index, "controller": "user", "obs_sim_s": obs, "start_sim_s": obs, "committed_sim_s": commit,
            "delay_sim_s": round(commit - obs, 9), "applied_sim_s": step * DT if lands else None,
            "applied_step": step if lands else None, "action": action, "valid": valid,
            "tokens_out": tokens, "error": None if valid else "unparsed: no action"}


def event(step: int, kind: str, **fields) -> dict:
    return {"step": step, "sim_s": step * DT, "agent": "user", "type": kind, **fields}


def trajectory(decisions: list[dict], events: list[dict] = (), end_s: float | None = None,
               success: float | None = 0.0, rewards: dict[int, float] | None = None,
               clock: str = "token", condition: str = "token") -> EpisodeEvidence:
    """An episode that ends at `end_s` (default: one step after the last applied decision); step rows
    say which steps got a fresh (default or not) action. Its condition is by default none of the study's
    (every code applies, so each rule is tested on its own); `condition="PH"` ... applies the codebook's."""
    applied = {d["applied_step"]: d for d in decisions if d["applied_step"] is not None}
    if end_s is None:
        end_s = (max(applied, default=0) + 1) * DT
    steps = []
    for k in range(round(end_s / DT)):
        d = applied.get(k)
        steps.append({"step": k, "sim_s": k * DT, "fresh_agents": ["user"] if d else [],
                      "fresh_nondefault_agents": ["user"] if d and d["action"] != WAIT else [],
                      "rewards": {"user": (rewards or {}).get(k, 0.0)}})
    return EpisodeEvidence(episode="e", controller="user", agents=("user",), decisions=list(decisions), steps=steps,
                           events=list(events), end_s=end_s, success=success, condition=condition, agent_label="m",
                           clock=clock)


def every_step(action: str, start: int, stop: int, tokens: int = 20, first: int = 0) -> list[dict]:
    """Paused-clock decisions: one per step, applied at its own observation's time."""
    return [decision(first + i, k * DT, k * DT, action, tokens) for i, k in enumerate(range(start, stop))]
