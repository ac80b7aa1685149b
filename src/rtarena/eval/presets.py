"""Presets: experiment files bundled with the package (`rtarena presets`, `rtarena run --preset NAME`).

Each is an ordinary experiment file in `eval/presets/`; copy one to start your own. `rtarena presets NAME`
prints what one would run (`preset_plan`): one row per cell, nothing run.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rtarena.errors import UserError
from rtarena.eval.experiment import Experiment
from rtarena.eval.experiment_file import load_experiment, read_file

FOLDER = Path(__file__).parent / "presets"


def preset_names() -> list[str]:
    return sorted(path.stem for path in FOLDER.glob("*.toml"))


def preset_path(name: str) -> Path:
    path = FOLDER / f"{name}.toml"
    if not path.exists():
        close = difflib.get_close_matches(name, preset_names(), n=2)
        hint = f"did you mean {', '.join(close)}?" if close else f"presets: {', '.join(preset_names())}"
        raise UserError(f"unknown preset {name!r}; {hint}", field="--preset")
    return path


def preset_summary(name: str) -> tuple[str, dict]:
    """A preset's description and its declared parameters, without validating it."""
    data = read_file(preset_path(name))
    return data.get("description", ""), data.get("params", {})


def load_preset(name: str, params: dict[str, str] | None = None, strict: bool = True) -> Experiment:
    return load_experiment(preset_path(name), params=params, strict=strict)


@dataclass(frozen=True)
class CellPlan:
    """One cell of a preset as it would run: the env, its agents, the clock as the env sets it up, and what
    each slot is sent (a model slot's modalities; "-" for agents that read the env themselves)."""

    env_id: str
    lineup: str
    slots: tuple[str, ...]
    clock: str
    modalities: tuple[str, ...]
    seeds: tuple[int, ...]


def preset_plan(name: str, params: dict[str, str] | None = None) -> tuple[Experiment, list[CellPlan]]:
    """A preset's cells, resolved against the registry (env ids, each env's clock defaults, each model
    slot's default view), without running anything: a study's size before it starts."""
    from rtarena.agents.specs import build_agent
    from rtarena.envs.registry import env_spec, make
    from rtarena.eval.experiment import cell_slots

    experiment = load_preset(name, params)  # strict: unknown env ids and bad specs are one line here
    envs: dict[tuple[str, str], Any] = {}
    options: dict[tuple[str, str], Any] = {}  # (spec, family) -> the model options of its agent, or None
    plan = []
    try:
        for env_entry, lineup, setting, modality in experiment.cells():
            kwargs = {**env_entry.env_kwargs(), **({"dt": setting.dt} if setting.dt else {}),
                      **({"obs": list(modality.obs)} if modality else {})}
            key = (env_entry.id, repr(sorted(kwargs.items())))
            if key not in envs:
                envs[key] = make(env_entry.id, **kwargs)
            env = envs[key]
            clock = setting.run_clock.for_env(env)
            numbers = ", ".join(f"{k}={v:g}" for k, v in clock.model_dump(exclude_defaults=True).items()
                                if isinstance(v, (int, float)))
            slots = cell_slots(lineup.slots, modality)
            seen = []
            for i, spec in enumerate(slots):
                family = env_spec(env_entry.id).family
                if (spec, family) not in options:
                    agent = build_agent(spec, family)
                    options[(spec, family)] = getattr(agent, "options", None)
                    agent.close()
                space = env.observation_space(env.possible_agents[i % len(env.possible_agents)])
                seen.append(_view(options[(spec, family)], space))
            plan.append(CellPlan(env_entry.id, lineup.name, slots,
                                 f"{setting.name}: {clock.name}, dt={env.dt:g}" + (f", {numbers}" if numbers else ""),
                                 tuple(seen), experiment.seeds))
    finally:
        for env in envs.values():
            env.close()
    return experiment, plan


def _view(options: Any, space: Any) -> str:
    """What a model agent is sent on this observation space (its default view filled in), else "-"."""
    if options is None or not hasattr(options, "for_observation"):
        return "-"
    return "+".join(options.for_observation(space).modalities)
