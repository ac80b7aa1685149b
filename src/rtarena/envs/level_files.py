"""Level files, one reader for every env family: `extends`, `variants` and dotted overrides.

`read_level("coop.toml", LevelRules, overrides={"turret.range_m": 30})` and
`read_level("tilefall.toml", TilefallRules, variant="var2")` are the same function. It

1. finds the file: a path, or a name in the schema's `home` folder (`envs/arena/levels/`,
   `envs/games/levels/`, `envs/gui/tasks/`);
2. resolves `extends = "coop.toml"` (the parent's tables, the child's keys win; a name is looked up next to
   the child, then in `home`);
3. applies the chosen variant (`[variants.var2]`: `about = "..."` plus tables of overrides) and then the
   caller's overrides, both as dotted `section.key = value` keys. Nested tables (a variant's
   `drops = { pattern = "cluster" }`, a caller's `{"game": {"time_limit_s": 1}}`) are converted to dotted
   keys at this boundary, so there is one override form. A key that names no field of the schema is
   refused with the list of keys (`unknown rule 'turret.rang'; rules are: ...`);
4. validates the whole against the schema (`rtarena.schema`): unknown keys, wrong types, values out of range
   and missing fields are one-line `UserError`s naming the file and the field. Game schemas carry no Python
   defaults, so a level file that lacks a number is an error, not a silent fallback.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from pydantic import ConfigDict, Field

from rtarena.errors import UserError
from rtarena.schema import Section, model_in, read_toml, validate

# Keys every level file may carry that are about the file, not rules: they are not override targets.
META = ("extends", "source", "summary", "variants")


class Variant(Section):
    """A variant: what it changes (`about`) and its overrides of the base tables (any keys)."""

    model_config = ConfigDict(extra="allow")
    about: str


class LevelFile(Section):
    """What every game and arena level file shares: its summary, inheritance, variants and source."""

    home: ClassVar[Path | None] = None  # the folder a bare file name is looked up in
    summary: str = Field(min_length=1)  # one line: the registry row and `rtarena list` show it
    extends: str | None = None  # the level file this one starts from ("coop.toml")
    variants: dict[str, Variant] = Field(default_factory=dict)
    source: str = ""  # the file read (set by the reader, for messages)


M = TypeVar("M", bound=Section)


def level_path(file: str | Path, home: Path | None = None, relative_to: Path | None = None) -> Path:
    """A level name (next to `relative_to`, else in `home`), or a path."""
    path = Path(file)
    if path.is_absolute() or path.exists():
        return path
    if relative_to is not None and (relative_to / path).exists():
        return relative_to / path
    return (home / path) if home is not None else path


def display(path: Path, home: Path | None) -> str:
    """How messages name a level file: its name when it is in `home`, else the path given."""
    return path.name if home is not None and path.parent == home else str(path)


def read_tables(file: str | Path, home: Path | None = None, _seen: tuple[Path, ...] = ()) -> dict[str, Any]:
    """A level file's tables with its `extends` chain resolved (the child's keys win), not yet validated."""
    path = level_path(file, home, _seen[-1].parent if _seen else None)
    if not path.exists():
        raise UserError(f"no such level file: {file}", source=display(_seen[-1], home) if _seen else None)
    data = read_toml(path, "level file")
    if path.resolve() in (p.resolve() for p in _seen):
        raise UserError(f"extends {file!r} in a loop", source=display(path, home))
    parent = data.get("extends")
    if parent is None:
        return data
    if not isinstance(parent, str):
        raise UserError(f"extends: must be a level file name, got {parent!r}", source=display(path, home))
    merged = read_tables(parent, home, (*_seen, path))
    for table, values in data.items():
        if isinstance(values, dict) and isinstance(merged.get(table), dict):
            merged[table] = {**merged[table], **values}
        else:
            merged[table] = values
    return merged


def rule_keys(schema: type[Section]) -> list[str]:
    """Every dotted key an override may name (`turret.range_m`), in schema order."""
    keys = []
    for name, info in schema.model_fields.items():
        if name in META:
            continue
        sub = model_in(info.annotation)
        keys += [f"{name}.{key}" for key in rule_keys(sub)] if sub is not None else [name]
    return keys


def dotted(overrides: Mapping[str, Any], schema: type[Section], prefix: str = "") -> dict[str, Any]:
    """Overrides as dotted keys: nested tables that stand for the schema's sections are flattened."""
    out: dict[str, Any] = {}
    for key, value in overrides.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping) and _section_at(schema, name) is not None:
            out.update(dotted(value, schema, name + "."))
        else:
            out[name] = value
    return out


def _section_at(schema: type[Section], key: str) -> type[Section] | None:
    model: Any = schema
    for part in key.split("."):
        if model is None or part in META or part not in model.model_fields:
            return None
        model = model_in(model.model_fields[part].annotation)
    return model


def apply(data: dict[str, Any], overrides: Mapping[str, Any], schema: type[Section], source: str) -> dict[str, Any]:
    """`data` with each dotted override set (a copy); a key that names no rule is a one-line error."""
    data = dict(data)
    for key, value in dotted(overrides, schema).items():
        *sections, name = str(key).split(".")
        model = _section_at(schema, ".".join(sections)) if sections else schema
        if model is None or name not in model.model_fields or (not sections and name in META):
            raise UserError(f"unknown rule {key!r}; rules are: {', '.join(rule_keys(schema))}", source=source)
        node = data
        for part in sections:
            node[part] = node = dict(node.get(part) or {})
        node[name] = value
    return data


def read_level(path: str | Path, schema: type[M], variant: str | None = None,
               overrides: Mapping[str, Any] | None = None) -> M:
    """The validated rules of a level file, with a variant's and then the caller's overrides applied."""
    home = getattr(schema, "home", None)
    file = level_path(path, home)
    source = display(file, home)
    data = read_tables(path, home)
    if "source" in schema.model_fields:
        if "source" in data:
            raise UserError("unknown field (it is set from the file read)", source=source, field="source")
        data["source"] = source
    if variant:
        variants = data.get("variants") or {}
        found = variants.get(variant)
        if not isinstance(found, dict):
            known = ", ".join(variants) or "none"
            raise UserError(f"unknown variant {variant!r} (this level has: {known})", source=source, field="variant")
        source = f"{source} [{variant}]"
        data = apply(data, {k: v for k, v in found.items() if k != "about"}, schema, source)
    if overrides:
        data = apply(data, overrides, schema, source)
    return validate(schema, data, source=source)


__all__ = ["LevelFile", "Variant", "apply", "dotted", "fill_doc", "read_level", "read_tables", "rule_keys"]


# ---- docstrings that render a level's numbers ---------------------------------------------------------------

_VARIANTS = re.compile(r"^(?P<indent>[ \t]*)\{variants\}$", re.M)


def fill_doc(template: str, rules: LevelFile) -> str:
    """A docstring template filled from a level's `rules`: `{section.key}` (booleans as on/off; `:g` writes
    `60.0` as `60`), and a line `{variants}` as one bullet per variant with its `about` line. A level's
    numbers live in its file; a docstring that states one renders it from there, so the two cannot drift."""

    def bullets(m: re.Match[str]) -> str:
        lines = [f"- `{name}`: {variant.about}." for name, variant in rules.variants.items()]
        return "\n".join(m["indent"] + line.replace("{", "{{").replace("}", "}}") for line in lines)

    return _VARIANTS.sub(bullets, template).format_map(_DocRules(rules))


class _DocRules:
    """A level's rules as `str.format_map` sees them: each table by its name."""

    def __init__(self, rules: Any) -> None:
        self._rules = rules

    def __getitem__(self, name: str) -> _DocTable:
        return _DocTable(getattr(self._rules, name))


class _DocTable:
    """A rules table as `str.format` sees it: numbers as they are, booleans as on/off."""

    def __init__(self, table: Any) -> None:
        self._table = table

    def __getattr__(self, key: str) -> Any:
        value = getattr(self._table, key)
        return ("on" if value else "off") if isinstance(value, bool) else value
