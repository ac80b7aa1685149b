"""An experiment: a matrix of levels x agent line-ups x clock settings x observation modalities x seeds.

`Experiment.jobs()` lists its episodes (`EpisodeJob`s); `to_dict()` is the resolved config written to the
run folder. Experiment files are read and checked by `experiment_file.py`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from rtarena.eval.episodes import EpisodeJob

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
    """One clock of an experiment: a name of `CLOCKS` and its settings, in seconds (the file's `delay_ms` and
    the CLI's `--delay-ms` are converted where they are read)."""

    name: str
    clock: str
    dt: float | None = None
    delay_s: float = 0.0
    obs_every: int = 1
    numbers: dict[str, float | str] = field(default_factory=dict)  # kappa, overhead_s, latency ...

    @property
    def delay_ms(self) -> float:
        """The delay as stored forms keep it (the `delay_ms` record column, an experiment file's key)."""
        return self.delay_s * 1000.0

    def clock_settings(self) -> dict[str, Any]:
        return {"delay_s": self.delay_s, "obs_every": self.obs_every, **self.numbers}


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
                jobs.append(EpisodeJob(env.id, cell_slots(lineup.slots, modality), clock.clock, seed, self.max_steps,
                                       clock.clock_settings(), env_kwargs, ".".join(parts), tags, video))
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
            "clocks": [{"name": c.name, "clock": c.clock, "dt": c.dt, "delay_ms": c.delay_ms,
                        "obs_every": c.obs_every, **c.numbers} for c in self.clocks],
            "observations": [list(m.obs) for m in self.observations],
        }


def experiment_from_flags(env_id: str, specs: tuple[str, ...], clock: str, settings: dict[str, Any],
                          env_kwargs: dict[str, Any], seeds: tuple[int, ...], max_steps: int | None,
                          out: str) -> Experiment:
    """The experiment a plain `rtarena run ENV_ID --agent ...` describes (one cell)."""
    # the flags were validated by the clock (`make_clock`) already: a paused clock given a kappa was refused
    numbers: dict[str, float | str] = {k: float(settings[k]) for k in ("kappa", "overhead_s", "settle_s")
                                       if settings.get(k) is not None}
    numbers.update({k: str(settings[k]) for k in ("latency", "latency_model") if settings.get(k) is not None})
    if settings.get("latency_trace") is not None:  # absolute: a resumed run (or a worker) may start elsewhere
        numbers["latency_trace"] = str(Path(settings["latency_trace"]).resolve())
    delay_s = float(settings.get("delay_s") or 0.0)
    dt = env_kwargs.get("dt")
    name = clock + (f"-delay{delay_s * 1000:g}ms" if delay_s else "")
    return Experiment(
        name="run",
        envs=(EnvEntry(safe_name(env_id.split("/")[-1]), env_id),),
        lineups=(Lineup(safe_name("+".join(dict.fromkeys(agent_label(s) for s in specs))), specs),),
        clocks=(ClockSetting(safe_name(name), clock, dt, delay_s, int(settings.get("obs_every") or 1), numbers),),
        seeds=seeds, max_steps=max_steps, out=out, source="<command line>",
    )


def plain_keys(jobs: list[EpisodeJob]) -> list[EpisodeJob]:
    """Jobs keyed `ENV__seedNNNNN` like the first `rtarena run` wrote (one cell, no label)."""
    return [replace(job, label="") for job in jobs]
