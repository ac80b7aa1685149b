"""Running the episodes of a plain `rtarena run` (one env, agent specs per slot, a clock, N seeds)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtarena.agents.specs import AgentSpec, build_agent, parse_spec
from rtarena.envs.registry import env_spec, make
from rtarena.eval.store import episode_key, write_episode
from rtarena.runtime.clocks import make_clock
from rtarena.runtime.match import run_match


@dataclass(frozen=True)
class EpisodeJob:
    """Everything one episode needs, as plain data (so it can travel to a worker process)."""

    env_id: str
    agent_specs: tuple[str, ...]
    clock: str
    seed: int
    max_steps: int
    clock_settings: dict[str, Any] = field(default_factory=dict)
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    label: str = ""

    @property
    def key(self) -> str:
        return episode_key(self.env_id, self.seed, self.label)


def controllers_for(env: Any, specs: list[AgentSpec], family: str) -> dict[Any, Any]:
    """Assign specs to env agents: one spec applies to every slot, otherwise one per slot in order.

    Consecutive slots given the same `team:` spec form one team controller.
    """
    agents = list(env.possible_agents)
    if len(specs) == 1:
        specs = specs * len(agents)
    if len(specs) != len(agents):
        from rtarena.errors import UserError

        raise UserError(f"{len(specs)} --agent specs for {len(agents)} slots of {getattr(env, 'spec_id', env)}; "
                        "give one (for every slot) or one per slot", field="--agent")
    groups: list[tuple[list[str], AgentSpec]] = []
    for agent, spec in zip(agents, specs, strict=True):
        if spec.team and groups and groups[-1][1].text == spec.text:
            groups[-1][0].append(agent)
        else:
            groups.append(([agent], spec))
    return {
        (tuple(ids) if spec.team else ids[0]): build_agent(spec, family)
        for ids, spec in groups
    }


def run_episode(job: EpisodeJob, out_dir: Path | None = None,
                on_result: Callable[[Any], None] | None = None) -> dict[str, Any]:
    """Play one episode; write it to `out_dir` when given; return its `episodes.jsonl` line."""
    spec = env_spec(job.env_id)
    env = make(job.env_id, **job.env_kwargs)
    try:
        controllers = controllers_for(env, [parse_spec(s) for s in job.agent_specs], spec.family)
        clock = make_clock(job.clock, **job.clock_settings)
        result = run_match(env, controllers, clock=clock, seed=job.seed, max_steps=job.max_steps, env_id=job.env_id)
        for agent in controllers.values():
            agent.close()
    finally:
        env.close()
    if on_result is not None:
        on_result(result)
    extra = {"agent_specs": list(job.agent_specs), "env_kwargs": job.env_kwargs, "label": job.label}
    if out_dir is None:
        return {"episode": job.key, **result.summary(), **extra}
    return write_episode(Path(out_dir), job.key, result, extra)
