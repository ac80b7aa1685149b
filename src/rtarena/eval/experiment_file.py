"""Experiment files (TOML, JSON, or YAML with PyYAML): what to run, as data, checked before anything runs.

```toml
name = "delay-sweep"          # names the run folder: runs/<name>-<timestamp>/
seeds = 20                    # seeds 0..19 (or a list); `seed_start` shifts them
max_steps = 1200              # optional step cap; default: until the env ends the episode
video = 1                     # false | true (every episode) | N (the first N seeds of every cell)
params = { model = "qwen2.5-7b", base_url = "http://127.0.0.1:8765/v1" }   # `{model}` below; --set model=...

[[envs]]
id = "arena/coop-v0"
kwargs = { num_agents = 8 }         # env keyword arguments
overrides = { "turret.count" = 2 }   # level rule overrides (the env's `overrides` argument)

[[agents]]                          # a line-up: one spec for every slot, or one per slot
name = "model-vs-bots"
slots = ["llm:{model}@{base_url}", "heuristic", "heuristic", "heuristic"]

[[agents]]                          # every ordered pair of different specs: a-vs-b and b-vs-a (two slots)
name = "pvp"                        # envs[].lineups = ["pvp"] picks all of them
pairs = ["llm:{model}@{base_url}", "heuristic", "random"]

[[clocks]]
name = "rt-250ms"
clock = "wall"                      # wall | paused | token | measured
dt = 0.25                           # and delay_ms, kappa, overhead_s, obs_every, settle_s ...

observations = [["text"], ["rgb", "text"]]   # the env's `obs` argument, one cell each
concurrency = { "{base_url}" = 4 }           # at most 4 controllers at once on this endpoint
[endpoints."{base_url}"]                      # limits shared by every worker (agents/llm/limiter.py)
max_connections = 2                          # requests in flight per base URL; adaptive = true: a ceiling
rpm = 500                                    # requests and tokens per minute, whole endpoint
replicas = ["http://gpu-2:8000/v1"]          # more base URLs serving the model, least-loaded first
```

Short forms: `envs = ["classic/cartpole-v0"]`, `agents = ["random", "heuristic"]`, `clocks = ["paused"]`.
An env id with `*`, `?` or `[` is a pattern over the registry (`envs = ["web/*", "gui-games/*"]`: every
browser task registered, in the registry's order), so a list of tasks lives once, in the registry.
`extends = "OTHER.toml"` (a path next to the file) starts from another experiment file: its tables are
replaced by the ones this file gives, except `params`, which are merged (`name` is never inherited).
Everything is checked before anything runs, through the typed schema `ExperimentFile` (`rtarena.schema`):
a mistake is one line naming file, field and value (`exp.toml: clocks[0].delay_ms: must be >= 0 milliseconds,
got -5`); the observation names are checked against every env up front.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    field_validator,
    model_validator,
)

from rtarena.agents.llm.limiter import EndpointLimits
from rtarena.errors import UserError
from rtarena.eval.experiment import (
    CELL_OBS,
    NAME,
    ClockSetting,
    EnvEntry,
    Experiment,
    Lineup,
    Modality,
    agent_label,
    cell_slots,
    safe_name,
)
from rtarena.limits import LIMITS, check_limit, loads_json, loads_yaml, read_text_capped
from rtarena.schema import (
    Flag,
    NonNegInt,
    PosFloat,
    PosInt,
    Section,
    Seed,
    SimMilliseconds,
    at_most,
    read_toml,
    shown,
    validate,
)

show = shown
PARAM = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
# keys of a [[clocks]] entry read here (files give delay_ms, so delay_s is refused); the rest is the clock's
EXPERIMENT_CLOCK_KEYS = ("name", "clock", "dt", "delay_ms", "delay_s")


def read_file(path: Path, _seen: tuple[Path, ...] = ()) -> dict[str, Any]:
    """Parse a TOML, JSON or YAML file into a dict, its `extends` resolved; syntax errors become one line."""
    data = _parse_file(path)
    base_name = data.pop("extends", None)
    if base_name is None:
        return data
    if not isinstance(base_name, str) or not base_name:
        raise UserError(f"must name an experiment file, got {show(base_name)}", source=str(path), field="extends")
    base_path = (path.parent / base_name).resolve()
    if base_path in _seen or base_path == path.resolve():
        raise UserError(f"extends itself through {base_name!r}", source=str(path), field="extends")
    base = read_file(base_path, (*_seen, path.resolve()))
    base.pop("name", None)
    params = {**base.get("params", {}), **data.get("params", {})}
    return {**base, **data, **({"params": params} if params else {})}


def _parse_file(path: Path) -> dict[str, Any]:
    if not path.exists():
        raise UserError(f"no such experiment file: {path}", field="experiment")
    if path.suffix not in (".json", ".yaml", ".yml"):
        return read_toml(path, "experiment file")
    text = read_text_capped(path, "experiment file")
    data = (loads_json if path.suffix == ".json" else loads_yaml)(text, source=str(path))
    if not isinstance(data, dict):
        what = "a JSON object" if path.suffix == ".json" else "a mapping"
        raise UserError(f"the file must hold {what}, got {show(data)}", source=str(path))
    return data


def load_experiment(path: str | Path, params: dict[str, str] | None = None, strict: bool = True) -> Experiment:
    """Read and validate an experiment file. `params` overrides its `params` table (`--set k=v`)."""
    path = Path(path)
    data = read_file(path)
    data.setdefault("name", path.stem)
    return parse_experiment(data, source=str(path), params=params, strict=strict)


def _substitute(value: Any, params: dict[str, Any], where: str, source: str) -> Any:
    if isinstance(value, str):
        def one(match: re.Match) -> str:
            if match.group(0) == CELL_OBS:  # filled per cell by `Experiment.jobs`
                return CELL_OBS
            if match.group(1) not in params:
                raise UserError(f"unknown parameter {{{match.group(1)}}} in {show(value)}; "
                                f"declare it under [params]", source=source, field=where)
            return str(params[match.group(1)])
        return PARAM.sub(one, value)
    if isinstance(value, list):
        return [_substitute(v, params, f"{where}[{i}]", source) for i, v in enumerate(value)]
    if isinstance(value, dict):
        return {_substitute(k, params, where, source): _substitute(v, params, f"{where}.{k}", source)
                for k, v in value.items()}
    return value


def _name(value: str | None) -> str | None:
    if value is not None and not NAME.match(value):
        raise ValueError(f"must use only letters, digits, _ + -, got {show(value)}")
    return value


Name = Annotated[str | None, AfterValidator(_name)]
Text = Annotated[str, Field(min_length=1)]


def _refuse(where: str):
    def check(value: Any) -> None:
        raise ValueError(f"is set by {where}, not kwargs")
    return BeforeValidator(check)


class EnvKwargs(BaseModel):
    """An env's keyword arguments: free, except those an experiment sets elsewhere."""

    model_config = ConfigDict(extra="allow")
    dt: Annotated[None, _refuse("[[clocks]] dt")] = None
    obs: Annotated[None, _refuse("`observations`")] = None
    render_mode: Annotated[None, _refuse("--video")] = None
    overrides: Annotated[None, _refuse("the entry's own `overrides` table")] = None


class EnvItem(Section):
    """One `[[envs]]` entry (or a bare env id)."""

    id: Text
    name: Name = None
    kwargs: EnvKwargs = EnvKwargs()
    overrides: dict[str, Any] = Field(default_factory=dict, description="level rule overrides")
    lineups: list[str] = Field(default_factory=list, description="[[agents]] names (empty: every line-up)")


class LineupItem(Section):
    """One `[[agents]]` entry (or a bare spec): one spec for every slot, or one per slot."""

    name: Name = None
    slots: Annotated[list[Text], Field(min_length=1)]

    @field_validator("slots", mode="before")
    @classmethod
    def _single(cls, value: Any) -> Any:
        return value if isinstance(value, list) else [value]

    def lineups(self) -> list[Lineup]:
        return [Lineup(self.name or safe_name("+".join(dict.fromkeys(agent_label(s) for s in self.slots))),
                       tuple(self.slots))]


class PairsItem(Section):
    """A `pairs` entry of `[[agents]]`: every ordered pair of two different specs, so each meets each on
    both sides (never itself); an env picks them all by the entry's `name` (default `pairs`)."""

    name: Name = None
    pairs: Annotated[list[Text], Field(min_length=2)]

    @field_validator("pairs")
    @classmethod
    def _distinct(cls, value: list[str]) -> list[str]:
        if len(set(value)) != len(value):
            raise ValueError(f"must list two or more different specs, got {value!r}")
        return value

    def lineups(self) -> list[Lineup]:
        group = self.name or "pairs"
        return [Lineup(safe_name(f"{agent_label(a)}-vs-{agent_label(b)}"), (a, b), group)
                for a in self.pairs for b in self.pairs if a != b]


class ClockItem(Section):
    """One `[[clocks]]` entry (or a bare clock name). Its other keys are the clock's own settings, which
    the clock class declares and validates (`runtime/clocks.py`); times in seconds unless named `_ms`."""

    model_config = ConfigDict(extra="allow")

    clock: str = Field(description="a name of runtime.clocks.CLOCKS")
    name: Name = None
    dt: Annotated[PosFloat, at_most("step.dt_s")] | None = Field(None, description="simulated seconds per env step")
    delay_ms: SimMilliseconds = Field(0.0, description="injected delay per decision, milliseconds")


# An `[[agents]]` entry is a line-up (`slots`) or a `pairs` group, told apart by its key (the tags are
# bracketed so that error locations leave them out: `schema._user_loc`).
AgentsItem = Annotated[Annotated[LineupItem, Tag("[line-up]")] | Annotated[PairsItem, Tag("[pairs]")],
                       Discriminator(lambda v: "[pairs]" if isinstance(v, dict) and "pairs" in v else "[line-up]")]


def _listed(value: Any) -> Any:
    return value if isinstance(value, list) else [value]


class ExperimentFile(Section):
    """An experiment file's tables, typed (see the module docstring); `Experiment` is built from it."""

    name: Name = None
    description: str = ""
    params: dict[str, Any] = Field(default_factory=dict, description="`{name}` placeholders; --set name=value")
    seeds: Annotated[PosInt, at_most("run.seeds")] | Annotated[list[Seed], Field(max_length=int(
        LIMITS["run.seeds"].value))] = Field(1, description="a count (seeds seed_start..) or a list of seeds")
    seed_start: Seed = 0
    max_steps: Annotated[PosInt, at_most("episode.steps")] | None = None  # None: until the env ends the episode
    out: Text = Field("runs", description="folder the run folder goes in")
    workers: PosInt | None = None
    video: Flag | NonNegInt = Field(False, description="false | true (every episode) | N (the first N seeds)")
    envs: Annotated[list[EnvItem], Field(min_length=1)]
    agents: Annotated[list[AgentsItem], Field(min_length=1)]
    clocks: Annotated[list[ClockItem], Field(min_length=1)]
    observations: list[Annotated[list[Annotated[str, Field(pattern=NAME.pattern)]], Field(min_length=1)]] = Field(
        default_factory=list, description="the env's `obs` argument, one cell each")

    @model_validator(mode="before")
    @classmethod
    def _defaults(cls, data: Any) -> Any:
        """Line-ups and clocks default to `random` and `token`, validated like written ones."""
        if isinstance(data, dict):
            data = {"agents": ["random"], "clocks": ["token"], **data}
        return data
    concurrency: dict[str, PosInt] = Field(default_factory=dict, description="controllers at once per endpoint")
    endpoints: dict[str, EndpointLimits] = Field(default_factory=dict, description="limits per endpoint: "
                                                 "max_connections, adaptive, rpm, tpm, replicas")

    @field_validator("envs", mode="before")
    @classmethod
    def _env_ids(cls, value: Any) -> Any:
        return [{"id": v} if isinstance(v, str) else v for v in _listed(value)]

    @field_validator("agents", mode="before")
    @classmethod
    def _bare_specs(cls, value: Any) -> Any:
        return [{"slots": [v]} if isinstance(v, str) else v for v in _listed(value)]

    @field_validator("clocks", mode="before")
    @classmethod
    def _bare_clocks(cls, value: Any) -> Any:
        return [{"clock": v} if isinstance(v, str) else v for v in _listed(value)]

    @field_validator("observations", mode="before")
    @classmethod
    def _joined(cls, value: Any) -> Any:
        return [v.split("+") if isinstance(v, str) else v for v in _listed(value)]

    @field_validator("seeds")
    @classmethod
    def _distinct(cls, value: Any) -> Any:
        if isinstance(value, list) and len(set(value)) != len(value):
            raise ValueError(f"lists a seed twice: {show(value)}")
        if isinstance(value, list) and not value:
            raise ValueError("must be a count or a non-empty list of seeds")
        return value


def parse_experiment(data: dict[str, Any], source: str = "<experiment>", params: dict[str, str] | None = None,
                     strict: bool = True) -> Experiment:
    """Validate a parsed experiment table. `strict` also checks env ids and agent kinds against the
    registries and slot counts against the envs (off only to check presets whose envs are not built)."""
    if not isinstance(data, dict):
        raise UserError(f"the file must hold a table, got {show(data)}", source=source)
    declared = data.get("params", {})
    if not isinstance(declared, dict):
        raise UserError(f"must be a table, got {show(declared)}", source=source, field="params")
    for key, value in (params or {}).items():
        if key not in declared:
            raise UserError(f"--set {key}={value}: the experiment declares no parameter {key!r} "
                            f"(it has: {', '.join(declared) or 'none'})", source=source, field=f"params.{key}")
    merged = {**declared, **(params or {})}
    body = {k: (_substitute(v, merged, k, source) if k != "params" else v) for k, v in data.items()}
    typed = validate(ExperimentFile, body, source=source)
    if not isinstance(typed.seeds, list):  # the last seed too (docs/limits.md)
        check_limit("run.seed", typed.seed_start + typed.seeds - 1, field="seed_start + seeds - 1", source=source)
    seeds = (tuple(typed.seeds) if isinstance(typed.seeds, list)
             else tuple(range(typed.seed_start, typed.seed_start + typed.seeds)))
    lineups = tuple(lineup for item in typed.agents for lineup in item.lineups())
    groups = {lu.name: (lu.name,) for lu in lineups}  # a line-up's name, or a `pairs` group's name
    for lu in lineups:
        if lu.group:
            groups[lu.group] = (*groups.get(lu.group, ()), lu.name)
    envs = []
    for i, item in enumerate(typed.envs):
        for j, lineup in enumerate(item.lineups):
            if lineup not in groups:
                raise UserError(f"no [[agents]] entry is named {show(lineup)} (known: {', '.join(sorted(groups))})",
                                source=source, field=f"envs[{i}].lineups[{j}]")
        chosen = tuple(dict.fromkeys(member for lineup in item.lineups for member in groups[lineup]))
        ids = registered_matches(item.id, source, f"envs[{i}].id")
        if item.name and ids != [item.id]:
            raise UserError(f"a pattern names many envs: leave out `name` (got {item.name!r})", source=source,
                            field=f"envs[{i}].name")
        envs += [EnvEntry(item.name or safe_name(env_id.split("/")[-1]), env_id,
                          dict(item.kwargs.model_extra or {}), item.overrides, chosen) for env_id in ids]
    experiment = Experiment(
        name=typed.name or "experiment", description=typed.description, envs=tuple(envs), lineups=lineups,
        clocks=tuple(_clock(i, item, source) for i, item in enumerate(typed.clocks)), seeds=seeds,
        observations=tuple(Modality("+".join(obs), tuple(obs)) for obs in typed.observations),
        max_steps=typed.max_steps, out=typed.out, workers=typed.workers, video=typed.video,
        concurrency=dict(typed.concurrency), params=merged, source=source,
        endpoints={k: v.model_dump(exclude_unset=True) for k, v in typed.endpoints.items()},
    )
    for what in ("envs", "lineups", "clocks", "observations"):
        entries = [e.name for e in getattr(experiment, what)]
        twice = next((n for n in entries if entries.count(n) > 1), None)
        if twice is not None:
            field = "agents" if what == "lineups" else what
            raise UserError(f"two entries are named {twice!r}; give them distinct `name`s", source=source,
                            field=field)
    if strict:
        check_against_registries(experiment)
    return experiment


def registered_matches(env_id: str, source: str, field: str) -> list[str]:
    """The env ids an `envs` entry stands for: itself, or the registered ids its pattern matches (in the
    registry's order); a pattern that matches nothing is a one-line error."""
    if not any(c in env_id for c in "*?["):
        return [env_id]
    import fnmatch

    from rtarena.envs.registry import registry_ids

    ids = fnmatch.filter(registry_ids(), env_id)
    if not ids:
        raise UserError(f"the pattern {env_id!r} matches no registered env (see `rtarena list`)", source=source,
                        field=field)
    return ids


def _clock(i: int, item: ClockItem, source: str) -> ClockSetting:
    """A clock entry, its own settings validated by the clock class (the same policy as the CLI's)."""
    import difflib

    from rtarena.runtime.clocks import CLOCKS, build_clock

    known = sorted({name for cls in CLOCKS.values() for name in cls.setting_names()} - set(EXPERIMENT_CLOCK_KEYS))
    own = dict(item.model_extra or {})
    for key in own:
        if key not in known:
            close = difflib.get_close_matches(key, [*known, *ClockItem.model_fields], n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f"; known: {', '.join(known)}"
            raise UserError(f"unknown field{hint}", source=source, field=f"clocks[{i}].{key}")
    delay = {"delay_s": item.delay_ms / 1000.0} if item.delay_ms else {}  # the file's milliseconds, in seconds
    made = build_clock(item.clock, {**delay, **own}, source=source, field=f"clocks[{i}]")
    default = item.clock + (f"-dt{item.dt * 1000:g}ms" if item.dt else "") + (
        f"-delay{item.delay_ms:g}ms" if item.delay_ms else "")
    return ClockSetting(item.name or safe_name(default), made, item.dt)


def refuse_people(experiment: Experiment) -> None:
    """`rtarena run` plays no experiment with a person in it (the `humans` preset): one line naming `play`."""
    for i, lineup in enumerate(experiment.lineups):
        for j, spec in enumerate(lineup.slots):
            if parse_spec_kind(spec).interactive:
                raise UserError(f"{spec!r} is a person: play this experiment with `rtarena play --preset "
                                f"{experiment.name} --web`", source=experiment.source, field=f"agents[{i}].slots[{j}]")


def parse_spec_kind(spec: str) -> Any:
    from rtarena.agents.specs import parse_spec

    return parse_spec(spec).kind


def check_against_registries(experiment: Experiment) -> None:
    """Env ids registered, agent specs known, each line-up's slot count matching its env."""
    from rtarena.agents.specs import check_spec, parse_spec
    from rtarena.envs.registry import env_spec, make

    source = experiment.source
    first = experiment.observations[0] if experiment.observations else None
    for i, lineup in enumerate(experiment.lineups):
        for j, spec in enumerate(cell_slots(lineup.slots, first)):
            try:
                parse_spec(spec)
            except UserError as error:
                message = str(error).removeprefix("--agent: ")
                raise UserError(message, source=source, field=f"agents[{i}].slots[{j}]") from None
    slot_counts: dict[str, int] = {}
    for i, env in enumerate(experiment.envs):
        try:
            env_spec(env.id)
        except UserError as error:
            raise UserError(str(error).removeprefix("env_id: "), source=source, field=f"envs[{i}].id") from None
        try:
            instance = make(env.id, **env.env_kwargs())
        except UserError as error:
            raise UserError(str(error), source=source, field=f"envs[{i}]") from None
        except TypeError as error:
            raise UserError(f"the env does not accept these arguments: {error}", source=source,
                            field=f"envs[{i}].kwargs") from None
        slot_counts[env.name] = len(instance.possible_agents)
        instance.close()
        for k, modality in enumerate(experiment.observations):
            try:
                make(env.id, **env.env_kwargs(), obs=list(modality.obs)).close()
            except (UserError, TypeError, KeyError, ValueError) as error:
                raise UserError(f"{env.id} cannot observe {modality.name!r}: {error}", source=source,
                                field=f"observations[{k}]") from None
    checked: set[tuple[str, str]] = set()
    for env, lineup, _, modality in experiment.cells():
        family = env_spec(env.id).family
        for j, spec in enumerate(cell_slots(lineup.slots, modality)):
            if (spec, family) in checked:
                continue
            checked.add((spec, family))
            try:
                # builds the agent once: fails before any episode (a person's slot: `rtarena play --preset`)
                check_spec(spec, family, command="" if parse_spec(spec).kind.interactive else "run")
            except UserError as error:
                message = str(error).removeprefix("--agent: ")
                raise UserError(message, source=source,
                                field=f"agents[{experiment.lineups.index(lineup)}].slots[{j}]") from None
        count = slot_counts[env.name]
        if len(lineup.slots) not in (1, count):
            index = experiment.lineups.index(lineup)
            raise UserError(f"{len(lineup.slots)} specs for the {count} slots of {env.id}; give one (for every "
                            f"slot) or one per slot, or restrict envs[].lineups", source=source,
                            field=f"agents[{index}].slots")
