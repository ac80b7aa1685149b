"""An experiment: a matrix of levels x agent line-ups x clock settings x observation modalities x seeds.

`Experiment.jobs()` lists its episodes (`EpisodeJob`s); `to_dict()` is the resolved config written to the
run folder. Experiment files are read and checked by `experiment_file.py`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from rtarena.eval.episodes import EpisodeJob
from rtarena.runtime.clocks import Clock

NAME = re.compile(r"^[A-Za-z0-9_+-]+$")
# In a slot spec, `{obs}` is the cell's observation modalities `+`-joined, so that a model agent is sent
# what the env makes (`llm:M@URL,modalities={obs}`): without it the agent would stay on its default (text).
CELL_OBS = "{obs}"


def cell_slots(slots: tuple[str, ...], modality: Modality | None) -> tuple[str, ...]:
    """A line-up's slot specs for one cell: `{obs}` replaced by the cell's modalities."""
    return tuple(s.replace(CELL_OBS, modality.name) for s in slots) if modality else slots


def safe_name(text: str) -> str:
    """A label usable in file names: runs of other characters become one `-`."""
    return re.sub(r"[^A-Za-z0-9_+-]+", "-", text).strip("-") or "x"


def agent_label(spec: str) -> str:
    """How an agent spec is shown in tables: without its endpoint (`llm:qwen@http://...` -> `llm:qwen`)."""
    return spec.split("@", 1)[0]


def endpoint_of(spec: str) -> str | None:
    """The model endpoint a spec talks to (`llm:MODEL@BASE_URL,k=v` -> BASE_URL), or None for local agents."""
    return spec.split("@", 1)[1].split(",", 1)[0] if "@" in spec else None


@dataclass(frozen=True)
class EnvEntry:
    name: str
    id: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    overrides: dict[str, Any] = field(default_factory=dict)
    lineups: tuple[str, ...] = ()  # empty: every line-up

    def env_kwargs(self) -> dict[str, Any]:
        return {**self.kwargs, **({"overrides": self.overrides} if self.overrides else {})}


@dataclass(frozen=True)
class Lineup:
    name: str
    slots: tuple[str, ...]
    group: str = ""  # the `pairs` entry that made it (every pair of specs, on both sides), if any


@dataclass(frozen=True)
class ClockSetting:
    """One clock of an experiment: its name in reports, the `Clock` with its settings (built once, where the
    file or the flags were read; seconds inside, a file's `delay_ms` and `--delay-ms` converted there) and the
    env's step `dt` (None: the env's own)."""

    name: str
    run_clock: Clock
    dt: float | None = None

    @property
    def clock(self) -> str:
        """The protocol's name (a name of `CLOCKS`)."""
        return self.run_clock.name

    @property
    def delay_ms(self) -> float:
        """The delay as stored forms keep it (the `delay_ms` record column, an experiment file's key)."""
        return self.run_clock.delay_s * 1000.0

    def to_dict(self) -> dict[str, Any]:
        """The entry as an experiment file writes it (`delay_ms`, the clock's other settings by their names)."""
        given = self.run_clock.given()
        given.pop("delay_s", None)
        return {"name": self.name, "clock": self.clock, "dt": self.dt, "delay_ms": self.delay_ms,
                "obs_every": self.run_clock.obs_every, **given}


@dataclass(frozen=True)
class Modality:
    name: str
    obs: tuple[str, ...]


@dataclass(frozen=True)
class Experiment:
    """A validated experiment; `jobs()` lists its episodes, `to_dict()` is the resolved config."""

    name: str
    envs: tuple[EnvEntry, ...]
    lineups: tuple[Lineup, ...]
    clocks: tuple[ClockSetting, ...]
    seeds: tuple[int, ...]
    observations: tuple[Modality, ...] = ()
    max_steps: int | None = None  # None: every episode runs until its env ends it
    out: str = "runs"
    workers: int | None = None
    video: bool | int = False
    concurrency: dict[str, int] = field(default_factory=dict)
    endpoints: dict[str, dict[str, Any]] = field(default_factory=dict)  # limits per endpoint (agents/llm/limiter.py)
    params: dict[str, Any] = field(default_factory=dict)
    description: str = ""
    source: str = "<experiment>"

    def cells(self) -> list[tuple[EnvEntry, Lineup, ClockSetting, Modality | None]]:
        by_name = {lineup.name: lineup for lineup in self.lineups}
        out = []
        for env in self.envs:
            lineups = [by_name[n] for n in env.lineups] if env.lineups else list(self.lineups)
            for lineup in lineups:
                for clock in self.clocks:
                    for modality in self.observations or (None,):
                        out.append((env, lineup, clock, modality))
        return out

    def jobs(self) -> list[EpisodeJob]:
        """Every episode, seed-major so that a partial run covers every cell evenly."""
        jobs = []
        for index, seed in enumerate(self.seeds):
            for env, lineup, clock, modality in self.cells():
                env_kwargs = env.env_kwargs()
                if clock.dt is not None:
                    env_kwargs["dt"] = clock.dt
                if modality is not None:
                    env_kwargs["obs"] = list(modality.obs)
                parts = [env.name, lineup.name, clock.name] + ([modality.name] if modality else [])
                tags = {"level": env.name, "lineup": lineup.name, "clock_name": clock.name,
                        "delay_ms": clock.delay_ms, "obs": modality.name if modality else ""}
                video = self.video is True or (not isinstance(self.video, bool) and index < self.video)
                jobs.append(EpisodeJob(env.id, cell_slots(lineup.slots, modality), clock.run_clock, seed,
                                       self.max_steps, env_kwargs, ".".join(parts), tags, video))
        return jobs

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "description": self.description, "source": self.source,
            "seeds": list(self.seeds), "max_steps": self.max_steps, "out": self.out, "workers": self.workers,
            "video": self.video, "params": self.params, "concurrency": self.concurrency,
            "endpoints": self.endpoints,
            "envs": [{"name": e.name, "id": e.id, "kwargs": e.kwargs, "overrides": e.overrides,
                      "lineups": list(e.lineups)}
                     for e in self.envs],
            "agents": [{"name": lu.name, "slots": list(lu.slots)} for lu in self.lineups],
            "clocks": [c.to_dict() for c in self.clocks],
            "observations": [list(m.obs) for m in self.observations],
        }


def experiment_from_flags(env_id: str, specs: tuple[str, ...], clock: Clock, dt: float | None,
                          seeds: tuple[int, ...], max_steps: int | None, out: str) -> Experiment:
    """The experiment a plain `rtarena run ENV_ID --agent ...` describes (one cell), its clock as the flags
    built it (`eval/flags.py: RunFlags.run_clock`)."""
    name = clock.name + (f"-delay{clock.delay_s * 1000:g}ms" if clock.delay_s else "")
    return Experiment(
        name="run",
        envs=(EnvEntry(safe_name(env_id.split("/")[-1]), env_id),),
        lineups=(Lineup(safe_name("+".join(dict.fromkeys(agent_label(s) for s in specs))), specs),),
        clocks=(ClockSetting(safe_name(name), clock, dt),),
        seeds=seeds, max_steps=max_steps, out=out, source="<command line>",
    )


def plain_keys(jobs: list[EpisodeJob]) -> list[EpisodeJob]:
    """Jobs keyed `ENV__seedNNNNN` like the first `rtarena run` wrote (one cell, no label)."""
    return [replace(job, label="") for job in jobs]
