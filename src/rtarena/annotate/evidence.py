"""What an annotator judges: one controller's episode, read from a run's records with DuckDB.

`EpisodeEvidence` is plain data (decision, step and event rows as dicts, as the Parquet files hold
them), so tests can build small trajectories by hand and the model annotator can show the same rows.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtarena.eval.query import connect, run_dirs
from rtarena.eval.study_report import condition_of

EPS = 1e-9


@dataclass
class EpisodeEvidence:
    """One controller's view of one episode, and how it ended."""

    episode: str
    controller: str
    agents: tuple[str, ...]
    decisions: list[dict[str, Any]]
    steps: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    end_s: float = 0.0  # simulated seconds when the episode ended
    success: float | None = None  # the env's success metric, where it has one
    run_id: str = ""
    env_id: str = ""
    condition: str = ""  # the study condition (TL, TH, PH, WH), else the clock setting's name (`condition_of`)
    clock: str = ""  # the clock protocol: wall, paused, token, measured
    agent_label: str = ""
    files: tuple[str, ...] = ()  # screenshots and other frames, relative to the run folder

    def lost(self, failure_events: list[str]) -> bool:
        """Not won: success 0, or (without a success metric) a failure event for its agents."""
        if self.success is not None:
            return self.success < 0.5
        return any(e.get("type") in failure_events for e in self.events)

    @property
    def dt(self) -> float:
        """Simulated seconds per env step (from the step records; 0 when fewer than two)."""
        times = sorted(float(s["sim_s"]) for s in self.steps[:2])
        return times[1] - times[0] if len(times) == 2 else 0.0

    def applied(self) -> list[dict[str, Any]]:
        return [d for d in self.decisions if d.get("applied_step") is not None]

    def events_at(self, step: int) -> list[dict[str, Any]]:
        return [e for e in self.events if e.get("step") == step]

    def defaults_at(self) -> dict[int, bool]:
        """Step -> whether this controller's fresh action there was the default (steps with a fresh one)."""
        out = {}
        for s in self.steps:
            fresh = _names(s.get("fresh_agents"))
            if any(a in fresh for a in self.agents):
                out[int(s["step"])] = not any(a in _names(s.get("fresh_nondefault_agents")) for a in self.agents)
        return out

    def reward_at(self, step: int) -> float:
        for s in self.steps:
            if s.get("step") == step:
                rewards = s.get("rewards")
                rewards = json.loads(rewards) if isinstance(rewards, str) else (rewards or {})
                return float(sum(rewards.get(a, 0.0) for a in self.agents))
        return 0.0


def _names(value: Any) -> list[str]:
    if isinstance(value, str):
        return list(json.loads(value))
    return list(value or [])


def _rows(con: Any, sql: str, params: list[Any]) -> list[dict[str, Any]]:
    cursor = con.execute(sql, params)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _has_rows(con: Any, view: str) -> bool:
    return bool(con.execute(f"SELECT count(*) FROM {view}").fetchone()[0])


def load_run(run: str | Path, root: str | Path = "runs") -> tuple[Path, list[EpisodeEvidence]]:
    """The run folder and one `EpisodeEvidence` per ok episode and controller."""
    folder = run_dirs([run], root)[0]
    con = connect([folder])
    episodes = _rows(con, "SELECT * FROM episodes WHERE status = 'ok' ORDER BY episode", [])
    has_events = _has_rows(con, "events")
    has_decisions = _has_rows(con, "decisions")
    out: list[EpisodeEvidence] = []
    for line in episodes:
        key = line["episode"]
        decisions = (_rows(con, 'SELECT * EXCLUDE (run_id) FROM decisions WHERE episode = ? ORDER BY "index"', [key])
                     if has_decisions else [])
        steps = _rows(con, "SELECT * EXCLUDE (run_id) FROM steps WHERE episode = ? ORDER BY step", [key])
        events = (_rows(con, "SELECT * EXCLUDE (run_id) FROM events WHERE episode = ? ORDER BY step", [key])
                  if has_events else [])
        agents = _rows(con, "SELECT * FROM agents WHERE episode = ?", [key])
        controllers = line.get("controllers") or {}
        for controller, members in controllers.items():
            members = tuple(members)
            mine = [a for a in agents if a.get("agent") in members]
            success = [a["success"] for a in mine if a.get("success") is not None]
            out.append(EpisodeEvidence(
                episode=key, controller=controller, agents=members,
                decisions=[d for d in decisions if d.get("controller") == controller],
                steps=steps, events=[e for e in events if e.get("agent") in members],
                end_s=float(line.get("sim_seconds") or 0.0),
                success=min(success) if success else None,
                run_id=folder.name, env_id=str(line.get("env_id", "")),
                condition=condition_of(str(line.get("clock_name") or (line.get("clock") or {}).get("clock", "")),
                                       str((line.get("clock") or {}).get("clock", "")),
                                       str((line.get("slot_specs") or {}).get(members[0], "") if members else "")),
                clock=str((line.get("clock") or {}).get("clock", "")),
                agent_label=str(mine[0].get("agent_label", "")) if mine else "",
                files=tuple(line.get("files") or ()),
            ))
    return folder, out
