"""Experiment files (TOML, or YAML with PyYAML): what to run, as data, checked before anything runs.

```toml
name = "delay-sweep"          # names the run folder: runs/<name>-<timestamp>/
seeds = 20                    # seeds 0..19 (or a list); `seed_start` shifts them
max_steps = 1200
video = 1                     # false | true (every episode) | N (the first N seeds of every cell)
params = { model = "qwen2.5-7b", base_url = "http://127.0.0.1:8765/v1" }   # `{model}` below; --set model=...

[[envs]]
id = "arena/coop-v0"
kwargs = { num_agents = 8 }         # env keyword arguments
overrides = { "turret.count" = 2 }   # level rule overrides (the env's `overrides` argument)

[[agents]]                          # a line-up: one spec for every slot, or one per slot
name = "model-vs-bots"
slots = ["llm:{model}@{base_url}", "heuristic", "heuristic", "heuristic"]

[[clocks]]
name = "rt-250ms"
clock = "wall"                      # wall | paused | token | measured
dt = 0.25                           # and delay_ms, kappa, overhead_s, obs_every ...

observations = [["text"], ["rgb", "text"]]   # the env's `obs` argument, one cell each
concurrency = { "{base_url}" = 4 }           # at most 4 controllers at once on this endpoint
```

Short forms: `envs = ["classic/cartpole-v0"]`, `agents = ["random", "heuristic"]`, `clocks = ["paused"]`.
Everything is checked before anything runs; a mistake is one line naming file, field and value.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from rtarena.errors import UserError
from rtarena.eval.experiment import NAME, ClockSetting, EnvEntry, Experiment, Lineup, Modality, agent_label, safe_name
from rtarena.eval.fields import Fields, show
from rtarena.schema import read_toml

PARAM = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
# keys of a [[clocks]] entry read here (files give delay_ms, so delay_s is refused); the rest is the clock's
EXPERIMENT_CLOCK_KEYS = ("name", "clock", "dt", "delay_ms", "delay_s")


def read_file(path: Path) -> dict[str, Any]:
    """Parse a TOML or YAML file into a dict; syntax errors become one line with the position."""
    if not path.exists():
        raise UserError(f"no such experiment file: {path}", field="experiment")
    if path.suffix not in (".yaml", ".yml"):
        return read_toml(path, "experiment file")
    if path.is_dir():
        raise UserError("is a folder, not an experiment file", source=str(path))
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise UserError("not a text experiment file (not UTF-8)", source=str(path)) from None
    if path.suffix in (".yaml", ".yml"):
        try:
            import yaml
        except ImportError:
            raise UserError("reading YAML needs PyYAML (pip install pyyaml); or write the file as TOML",
                            source=str(path)) from None
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as error:
            mark = getattr(error, "problem_mark", None)
            where = f" (at line {mark.line + 1}, column {mark.column + 1})" if mark else ""
            raise UserError(f"invalid YAML: {getattr(error, 'problem', None) or error}{where}",
                            source=str(path)) from None
        if not isinstance(data, dict):
            raise UserError(f"the file must hold a mapping, got {show(data)}", source=str(path))
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


def parse_experiment(data: dict[str, Any], source: str = "<experiment>", params: dict[str, str] | None = None,
                     strict: bool = True) -> Experiment:
    """Validate a parsed experiment table. `strict` also checks env ids and agent kinds against the
    registries and slot counts against the envs (off only to check presets whose envs are not built)."""
    top = Fields(data, "", source)
    declared = top.sub("params", {})
    for key, value in (params or {}).items():
        if key not in declared:
            raise UserError(f"--set {key}={value}: the experiment declares no parameter {key!r} "
                            f"(it has: {', '.join(declared) or 'none'})", source=source, field=f"params.{key}")
    merged = {**declared, **(params or {})}
    body = {k: (_substitute(v, merged, k, source) if k != "params" else v) for k, v in data.items()}
    top = Fields(body, "", source)
    top.sub("params", {})
    name = top.str("name", "experiment")
    if not NAME.match(name):
        top.fail("name", f"must use only letters, digits, _ + -, got {show(name)}")
    seeds_value = top.get("seeds", 1)
    seed_start = top.int("seed_start", 0)
    if isinstance(seeds_value, list):
        if not seeds_value or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in seeds_value):
            top.fail("seeds", f"must be a count or a list of whole numbers >= 0, got {show(seeds_value)}")
        if len(set(seeds_value)) != len(seeds_value):
            top.fail("seeds", f"lists a seed twice: {show(seeds_value)}")
        seeds = tuple(seeds_value)
    else:
        count = top.int("seeds", 1, minimum=1)
        seeds = tuple(range(seed_start, seed_start + count))
    lineups = _lineups(top, source)
    experiment = Experiment(
        name=name,
        description=top.str("description", ""),
        envs=_envs(top, source, {lu.name for lu in lineups}),
        lineups=lineups,
        clocks=_clocks(top, source),
        seeds=seeds,
        observations=_observations(top, source),
        max_steps=top.int("max_steps", 500, minimum=1),
        out=top.str("out", "runs"),
        workers=top.int("workers", None, minimum=1),
        video=top.bool_or_int("video", False),
        concurrency=_concurrency(top),
        params=merged,
        source=source,
    )
    top.done()
    if strict:
        check_against_registries(experiment)
    return experiment


def _unique(entries: list[Any], what: str, fields: Fields) -> None:
    names = [e.name for e in entries]
    for n in names:
        if names.count(n) > 1:
            fields.fail(what, f"two entries are named {n!r}; give them distinct `name`s")


def _envs(top: Fields, source: str, lineup_names: set[str]) -> tuple[EnvEntry, ...]:
    entries = []
    for i, raw in enumerate(top.list("envs")):
        if isinstance(raw, str):
            raw = {"id": raw}
        f = Fields(raw, f"envs[{i}]", source)
        env_id = f.str("id")
        name = f.str("name", safe_name(env_id.split("/")[-1]))
        if not NAME.match(name):
            f.fail("name", f"must use only letters, digits, _ + -, got {show(name)}")
        kwargs = f.sub("kwargs", {})
        for reserved, where in (("dt", "[[clocks]] dt"), ("obs", "`observations`"), ("render_mode", "--video"),
                                ("overrides", "the entry's own `overrides` table")):
            if reserved in kwargs:
                f.fail(f"kwargs.{reserved}", f"is set by {where}, not kwargs")
        overrides = f.sub("overrides", {})
        chosen = f.list("lineups", [])
        for j, lineup in enumerate(chosen):
            if lineup not in lineup_names:
                f.fail(f"lineups[{j}]", f"no [[agents]] entry is named {show(lineup)} "
                                        f"(known: {', '.join(sorted(lineup_names))})")
        f.done()
        entries.append(EnvEntry(name, env_id, kwargs, overrides, tuple(chosen)))
    _unique(entries, "envs", top)
    return tuple(entries)


def _lineups(top: Fields, source: str) -> tuple[Lineup, ...]:
    entries = []
    for i, raw in enumerate(top.list("agents", ["random"])):
        if isinstance(raw, str):
            raw = {"slots": [raw]}
        f = Fields(raw, f"agents[{i}]", source)
        slots = f.list("slots")
        for j, spec in enumerate(slots):
            if not isinstance(spec, str) or not spec:
                f.fail(f"slots[{j}]", f"must be an agent spec string, got {show(spec)}")
        name = f.str("name", safe_name("+".join(dict.fromkeys(agent_label(s) for s in slots))))
        if not NAME.match(name):
            f.fail("name", f"must use only letters, digits, _ + -, got {show(name)}")
        f.done()
        entries.append(Lineup(name, tuple(slots)))
    _unique(entries, "agents", top)
    return tuple(entries)


def _clocks(top: Fields, source: str) -> tuple[ClockSetting, ...]:
    from rtarena.runtime.clocks import CLOCKS, build_clock

    entries = []
    for i, raw in enumerate(top.list("clocks", ["token"])):
        if isinstance(raw, str):
            raw = {"clock": raw}
        f = Fields(raw, f"clocks[{i}]", source)
        clock = f.str("clock", choices=tuple(CLOCKS))
        dt = f.number("dt", None, positive=True)
        delay_ms = f.number("delay_ms", 0.0)
        # a setting of any clock is the clock's to validate (runtime/clocks.py); other keys are typos
        known = {name for cls in CLOCKS.values() for name in cls.setting_names()}
        own = {k: v for k, v in f.table.items() if k in known and k not in EXPERIMENT_CLOCK_KEYS}
        f.seen.update(own)
        made = build_clock(clock, {"delay_s": delay_ms / 1000.0, **own}, source=source, field=f"clocks[{i}]")
        numbers = {k: float(v) for k, v in own.items() if k != "obs_every"}
        default = clock + (f"-dt{dt * 1000:g}ms" if dt else "") + (f"-delay{delay_ms:g}ms" if delay_ms else "")
        name = f.str("name", safe_name(default))
        if not NAME.match(name):
            f.fail("name", f"must use only letters, digits, _ + -, got {show(name)}")
        f.done()
        entries.append(ClockSetting(name, clock, dt, delay_ms, made.obs_every, numbers))
    _unique(entries, "clocks", top)
    return tuple(entries)


def _observations(top: Fields, source: str) -> tuple[Modality, ...]:
    entries = []
    for i, raw in enumerate(top.list("observations", [])):
        obs = raw.split("+") if isinstance(raw, str) else raw
        if not isinstance(obs, list) or not obs or not all(isinstance(m, str) and NAME.match(m) for m in obs):
            top.fail(f"observations[{i}]", f"must be a list of modality names like ['rgb', 'text'], got {show(raw)}")
        entries.append(Modality("+".join(obs), tuple(obs)))
    _unique(entries, "observations", top)
    return tuple(entries)


def _concurrency(top: Fields) -> dict[str, int]:
    table = top.sub("concurrency", {})
    for key, value in table.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            top.fail(f"concurrency.{key}", f"must be a whole number >= 1, got {show(value)}")
    return dict(table)


def check_against_registries(experiment: Experiment) -> None:
    """Env ids registered, agent specs known, each line-up's slot count matching its env."""
    from rtarena.agents.specs import check_spec, parse_spec
    from rtarena.envs.registry import env_spec, make

    source = experiment.source
    for i, lineup in enumerate(experiment.lineups):
        for j, spec in enumerate(lineup.slots):
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
    for env, lineup, _, _ in experiment.cells():
        family = env_spec(env.id).family
        for j, spec in enumerate(lineup.slots):
            if (spec, family) in checked:
                continue
            checked.add((spec, family))
            try:
                check_spec(spec, family, command="run")  # builds the agent once: a bad option fails before any episode
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
