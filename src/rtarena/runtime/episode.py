"""The bookkeeping both time loops share: the versioned observation, drafts of decisions, env steps.

`Episode` is not thread-safe by itself; the wall loop guards it with its own lock, the scheduler runs it
from one thread.
"""

from __future__ import annotations

import math
import time
import traceback
from dataclasses import dataclass, field
from typing import Any

from rtarena.contract import Decision
from rtarena.runtime.clocks import Clock
from rtarena.runtime.controllers import ControllerSlot, is_default, snapshot, split_steps
from rtarena.runtime.latency_trace import DrawKey
from rtarena.runtime.records import (
    DecisionRecord,
    MatchResult,
    Recording,
    RecordSink,
    StepRecord,
    jsonable,
    percentile,
)

SIM_DECIMALS = 9  # sim times are rounded so that k * dt and sums of delays compare exactly


def sim_round(t: float) -> float:
    return round(t, SIM_DECIMALS)


@dataclass
class Published:
    """One joint observation: its version, the sim time it shows, the agents alive in it, and the world
    snapshots of privileged slots taken with it (slot name -> agent -> `privileged_state`, copies)."""

    version: int
    sim_s: float
    observations: dict[str, Any]
    alive: tuple[str, ...]
    privileged: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass
class Pending:
    """An action committed but not yet applied: one step of a decision (`position` within its chunk)."""

    draft: int
    actions: dict[str, Any]
    committed_sim_s: float
    position: int = 0
    at_s: float = 0.0  # seconds into its step at which it applies (0: at the step's start)


def timed_act(slot: ControllerSlot, seen: Published) -> tuple[Decision, float, float, str | None]:
    """Call the agent on its view of `seen` (a privileged agent's feed set to that observation's snapshots),
    timing it; an exception becomes an invalid decision with its error recorded."""
    observation = slot.observation(seen.observations, seen.alive)
    if slot.feed is not None:
        slot.feed.put(seen.privileged.get(slot.name, {}))
    wall_start = time.perf_counter()
    try:
        decision = slot.agent.act(observation)
        if not isinstance(decision, Decision):
            decision = Decision(action=decision)
        error = decision.error
    except Exception as exc:  # a failing agent must not stop the match
        error = f"{type(exc).__name__}: {exc}"
        decision = Decision(action=None, valid=False, error=error, text=traceback.format_exc(limit=3))
    return decision, wall_start, time.perf_counter(), error


class Episode:
    """One episode's env, observations and records, driven by a time loop.

    Its records go to a `Recording` as they are made (in memory, or streamed to a sink). A decision is held
    as a draft while actions of it may still apply (its applied step and count change until then); it is
    recorded once none is left, in index order: the time loops say when they drop a replaced action
    (`dropped`), and the episode's end records whatever is left."""

    def __init__(self, env: Any, env_id: str, slots: list[ControllerSlot], clock: Clock, seed: int,
                 sink: RecordSink | None = None, batch_rows: int | None = None) -> None:
        self.env = env
        self.env_id = env_id
        self.slots = slots
        self.clock = clock
        self.seed = seed
        self.dt = float(env.dt)
        # the finest time inside a step the env can apply an action at (contract.EnvCapabilities.substep_s);
        # None: only at step boundaries
        self.substep_s = env.capabilities.substep_s
        self.drafts: dict[int, dict[str, Any]] = {}  # decisions not yet recorded, by index
        self._next_draft = 0
        self._next_record = 0  # the first draft not yet recorded
        self._outstanding: dict[int, int] = {}  # draft index -> its actions neither applied nor dropped yet
        # draft index -> (slot index, that slot's decision number from 1), to tell an agent which of its
        # decisions was applied (`Agent.applied`): model agents keep a ledger of executed actions
        self._decided: dict[int, tuple[int, int]] = {}
        self._counts: dict[int, int] = {}
        self.recording = Recording(list(env.possible_agents), sink, batch_rows)
        self.alive_steps: dict[str, int] = {a: 0 for a in env.possible_agents}
        self.step_index = 0
        self.wall_origin = time.perf_counter()
        observations, infos = env.reset(seed=seed)
        self.latest = Published(0, 0.0, observations, tuple(env.agents))
        self._collect_events(infos, step=-1, sim_s=0.0)

    # -- decisions ---------------------------------------------------------------------------------
    def record_decision(
        self,
        slot_index: int,
        seen: Published,
        start_sim_s: float,
        decision: Decision,
        wall_start: float,
        wall_end: float,
    ) -> tuple[int, list[Pending], float]:
        """Draft a record for a finished decision; returns its index, its per-step pending actions (one,
        or one per chunk step) and its commit sim time."""
        slot = self.slots[slot_index]
        steps, valid = split_steps(slot, decision, self.env, seen.alive)
        index = self._next_draft
        self._next_draft += 1
        self._outstanding[index] = len(steps)
        self._counts[slot_index] = self._counts.get(slot_index, 0) + 1
        self._decided[index] = (slot_index, self._counts[slot_index])
        key = DrawKey(self.seed, slot.name, self._counts[slot_index])  # seeds a clock's drawn latency
        delay = sim_round(self.clock.decision_delay_s(decision, wall_end - wall_start, key))
        committed = sim_round(start_sim_s + delay)
        self.drafts[index] = {
            "index": index,
            "controller": slot.name,
            "agents": slot.agent_ids,
            "obs_version": seen.version,
            "obs_sim_s": seen.sim_s,
            "start_sim_s": sim_round(start_sim_s),
            "committed_sim_s": committed,
            "delay_sim_s": delay,
            "applied_sim_s": None,
            "applied_step": None,
            "action": self._action_json(slot, steps[0]),
            "chunk": [self._action_json(slot, s) for s in steps] if decision.chunk else None,
            "chunk_steps": len(steps),
            "applied_steps": 0,
            "valid": bool(valid),
            "tokens_in": int(decision.tokens_in),
            "tokens_out": int(decision.tokens_out),
            "tokens_source": decision.tokens_source,
            "text": decision.text,
            "error": decision.error,
            "wall_start_s": wall_start - self.wall_origin,
            "wall_end_s": wall_end - self.wall_origin,
            "wall_latency_s": wall_end - wall_start,
            "extra": jsonable(decision.extra) or None,
        }
        return index, [Pending(index, s, committed, position=p) for p, s in enumerate(steps)], committed

    @staticmethod
    def _action_json(slot: ControllerSlot, actions: dict[str, Any]) -> Any:
        return jsonable(actions if slot.is_team else next(iter(actions.values()), None))

    # -- steps -------------------------------------------------------------------------------------
    def apply_step(self, ready: list[Pending], wall_start: float, period_error_s: float | None) -> Published | None:
        """Step the env once with the given fresh actions (defaults elsewhere); publish when due."""
        k = self.step_index
        sim_s = sim_round(k * self.dt)
        alive = list(self.env.agents)
        joint = {a: self.env.default_action(a) for a in alive}
        fresh, nondefault, sources, at_s = [], [], {}, {}
        for pending in ready:
            draft = self.drafts[pending.draft]
            if draft["applied_step"] is None:
                draft["applied_sim_s"], draft["applied_step"] = sim_round(sim_s + pending.at_s), k
                slot_index, number = self._decided[pending.draft]
                self.slots[slot_index].agent.applied(number)
            draft["applied_steps"] += 1
            self._outstanding[pending.draft] -= 1
            for agent, action in pending.actions.items():
                if agent in joint:
                    joint[agent] = action
                    fresh.append(agent)
                    sources[agent] = {"decision": pending.draft, "chunk_step": pending.position}
                    if pending.at_s:  # applied inside the step, at its commit time
                        sources[agent]["at_s"] = at_s[agent] = pending.at_s
                    if not is_default(self.env, agent, action):
                        nondefault.append(agent)
        for agent in alive:
            self.alive_steps[agent] += 1
        if at_s:
            self.env.set_action_times(at_s)
        observations, rewards, _, _, infos = self.env.step(joint)
        self.step_index = k + 1
        next_sim = sim_round(self.step_index * self.dt)
        self._collect_events(infos, step=k, sim_s=sim_s)
        published = None
        if self.step_index % self.clock.obs_every == 0 and self.env.agents:
            published = Published(self.latest.version + 1, next_sim, observations, tuple(self.env.agents),
                                  self.snapshots())
            self.latest = published
        self.recording.add_step(StepRecord(
            step=k,
            sim_s=sim_s,
            fresh_agents=tuple(sorted(fresh)),
            fresh_nondefault_agents=tuple(sorted(nondefault)),
            rewards={a: float(r) for a, r in rewards.items()},
            actions={a: jsonable(joint[a]) for a in sorted(joint)},
            sources=dict(sorted(sources.items())),
            obs_version=published.version if published else None,
            wall_step_start_s=wall_start - self.wall_origin,
            period_error_s=period_error_s,
        ))
        self._record_decisions()
        return published

    def dropped(self, pendings: Any) -> None:
        """The loop dropped these actions unapplied (a newer decision replaced them): their decisions may be
        final now."""
        for pending in pendings:
            if pending.draft in self._outstanding:
                self._outstanding[pending.draft] -= 1

    def _record_decisions(self, everything: bool = False) -> None:
        """Record the drafts, in index order, that no action is left of (`everything`: all, at the end)."""
        frame_s = self.dt * self.clock.obs_every
        while (first := self._next_record) in self.drafts and (everything or self._outstanding[first] <= 0):
            d = self.drafts.pop(first)
            self._outstanding.pop(first)
            self._decided.pop(first, None)
            extra = d.get("extra") or {}
            late = None if d["committed_sim_s"] is None else (
                d["committed_sim_s"] > sim_round(d["obs_sim_s"] + frame_s) + 1e-9)
            self.recording.add_decision(DecisionRecord(**d, late=late, queue_wait_s=extra.get("queue_wait_s"),
                                                       cost_usd=extra.get("cost_usd")))
            self._next_record = first + 1

    def apply_point(self, committed_sim_s: float) -> tuple[int, float]:
        """Where an action committed at `committed_sim_s` applies: a step and the seconds into it. The env
        advances to the commit time and applies it there where it can stop inside a step (`substep_s`: the
        commit time rounded up to it); elsewhere, and for a commit inside a step already played, at the
        first step that starts at or after the commit time (Realtime-Bench: "the environment advances from
        t_i to t_i^act before the action is applied")."""
        boundary = max(self.step_index, math.ceil(committed_sim_s / self.dt - 1e-9))
        if self.substep_s is None:
            return boundary, 0.0
        step = math.floor(committed_sim_s / self.dt + 1e-9)
        if step < self.step_index:
            return boundary, 0.0
        at = sim_round(math.ceil((committed_sim_s - step * self.dt) / self.substep_s - 1e-6) * self.substep_s)
        return (step + 1, 0.0) if at >= self.dt - 1e-9 else (step, at)

    def snapshots(self) -> dict[str, dict[str, Any]]:
        """The privileged slots' world snapshots as the env is now (none without a privileged slot)."""
        return {slot.name: snapshot(self.env, slot) for slot in self.slots if slot.feed is not None}

    def done(self) -> bool:
        return not self.env.agents

    def _collect_events(self, infos: dict[str, dict], step: int, sim_s: float) -> None:
        for agent in sorted(infos):
            for event in infos[agent].get("events", []):
                self.recording.add_event({"step": step, "sim_s": sim_s, "agent": agent, **jsonable(event)})

    # -- result ------------------------------------------------------------------------------------
    def result(self, wall_seconds: float) -> MatchResult:
        self._record_decisions(everything=True)
        recording = self.recording
        env_metrics = self.env.episode_metrics()
        digest, files = recording.finish()
        return MatchResult(
            env_id=self.env_id,
            seed=self.seed,
            clock=self.clock.settings(),
            controllers={s.name: s.agent_ids for s in self.slots},
            steps=recording.steps,
            decisions=recording.decisions,
            events=recording.events,
            agents=recording.agent_metrics(self.alive_steps, env_metrics),
            sim_seconds=sim_round(recording.step_count * self.dt),
            wall_seconds=wall_seconds,
            period_error_p50_s=percentile(recording.period_errors, 50),
            period_error_p99_s=percentile(recording.period_errors, 99),
            step_count=recording.step_count,
            decision_count=recording.decision_count,
            records_sha256=digest,
            totals=recording.totals(),
            record_files=files,
        )
