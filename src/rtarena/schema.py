"""Typed settings: the one base for every settings file and option string, and its one-line errors.

Every settings file (level rules, experiment files, task files) and option string (model-agent options,
policy-server settings, `--set`) is a pydantic model built from `Section` and the field types below, and
is read with `validate(Model, data, source=...)`, so the same mistake gives the same one line from every
entry point: `coop.toml: turret.range_m: must be > 0 metres, got -30`.

The policy, in one place:
- unknown fields are refused (`extra="forbid"`), naming the nearest known one or all of them;
- floats must be finite (`nan` and `inf` are refused), ranges are in the types (`PosFloat` ...);
- booleans are strict: `true` or `false` (any case, from text), or a real boolean. `yes`, `no`, `on`,
  `off`, `1` and `0` are refused, so `stream=yes` and `coins.enabled=yes` give the same answer;
- numbers never come from booleans (`count = true` is refused);
- a unit comes from the field name's suffix (`_m` metres, `_s` seconds, `_deg` degrees ...), the
  project's naming habit, and is said in the error.

This module imports only pydantic and `rtarena.errors`, so every layer (envs included) may use it.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Annotated, Any, TypeVar, get_args

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from rtarena.errors import UserError
from rtarena.limits import LIMITS, limit_message, loads_toml, read_text_capped

__all__ = [
    "Count",
    "Flag",
    "Float",
    "Fraction",
    "Int",
    "NonNegFloat",
    "NonNegInt",
    "PosCount",
    "PosFloat",
    "PosInt",
    "Regex",
    "Section",
    "Seed",
    "SimMilliseconds",
    "SimSeconds",
    "WaitSeconds",
    "at_most",
    "error_line",
    "model_in",
    "read_toml",
    "unit_of",
    "validate",
]

_TRUE, _FALSE = "true", "false"


def _strict_bool(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in (_TRUE, _FALSE):
        return value.strip().lower() == _TRUE
    raise ValueError("must be true or false")


def _no_bool(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError("must be a number, not true/false")
    return value


_Num = BeforeValidator(_no_bool)

Flag = Annotated[bool, BeforeValidator(_strict_bool)]
Float = Annotated[float, _Num]
PosFloat = Annotated[float, _Num, Field(gt=0)]
NonNegFloat = Annotated[float, _Num, Field(ge=0)]
Fraction = Annotated[float, _Num, Field(ge=0, le=1)]
Int = Annotated[int, _Num]
PosInt = Annotated[int, _Num, Field(gt=0)]
NonNegInt = Annotated[int, _Num, Field(ge=0)]


def _compiles(pattern: str) -> str:
    try:
        re.compile(pattern)
    except re.error as error:
        raise ValueError(f"is not a regular expression ({error})") from None
    return pattern


Regex = Annotated[str, AfterValidator(_compiles)]  # a regular expression, checked when the file is read


class Section(BaseModel):
    """A table of settings: unknown keys refused, floats finite, validated on assignment too."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, validate_assignment=True,
                              validate_default=False)


M = TypeVar("M", bound=BaseModel)

# Units by field-name suffix, longest first (`turn_deg_s` is degrees per second, not seconds).
_UNITS = (("_m_s2", "m/s^2"), ("_deg_s", "degrees per second"), ("_m_s", "metres per second"),
          ("_per_s", "per second"), ("_deg", "degrees"), ("_hz", "Hz"), ("_ms", "milliseconds"),
          ("_px", "pixels"), ("_m", "metres"), ("_s", "seconds"))


def unit_of(name: str) -> str:
    """The unit a field name declares by its suffix (`range_m` -> metres), or ''."""
    return next((unit for suffix, unit in _UNITS if str(name).endswith(suffix)), "")


def shown(value: Any) -> str:
    """A value as the user wrote it: numbers plainly (`-30`, not `-30.0`), text quoted unless numeric."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and math.isfinite(value) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        try:
            float(value)
            return value
        except ValueError:
            return repr(value)
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _path(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def model_in(annotation: Any) -> type[BaseModel] | None:
    """The settings model inside an annotation (`list[ClockItem]`, `Annotated[Turret, ...]`), if any."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return next((m for m in map(model_in, get_args(annotation)) if m is not None), None)


def _known_fields(model: type[BaseModel] | None, loc: tuple[Any, ...]) -> list[str]:
    """The field names of the model that holds `loc[-1]` (walking nested models), for 'unknown key' hints."""
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        if model is None or part not in model.model_fields:
            return []
        model = model_in(model.model_fields[part].annotation)
    return list(model.model_fields) if model is not None else []


def _user_loc(loc: tuple[Any, ...]) -> tuple[Any, ...]:
    """A location without pydantic's union-member tags (`int`, `function-after[...]`, `literal[...]`)."""
    tags = ("int", "float", "str", "bool", "list", "dict", "tuple", "none")
    return tuple(p for p in loc if isinstance(p, int) or not ("[" in p or "(" in p or p in tags))


def _reason(error: dict[str, Any], unit: str, known: list[str]) -> str:
    kind, ctx = error["type"], error.get("ctx") or {}
    tail = f" {unit}" if unit else ""
    bounds = {"greater_than": ("> ", "gt"), "greater_than_equal": (">= ", "ge"),
              "less_than": ("< ", "lt"), "less_than_equal": ("<= ", "le")}
    if kind in bounds:
        op, key = bounds[kind]
        return f"must be {op}{shown(ctx.get(key))}{tail}"
    if kind == "extra_forbidden":
        import difflib

        close = difflib.get_close_matches(str(error["loc"][-1]), known, n=1)
        if close:
            return f"unknown field; did you mean {close[0]!r}?"
        return "unknown field" + (f"; fields are: {', '.join(known)}" if known else "")
    if kind == "missing":
        return "is required"
    if kind == "finite_number":
        return "must be a finite number" + (f" of {unit}" if unit else "")
    if kind in ("int_parsing", "int_type", "int_from_float", "int_parsing_size"):
        return "must be a whole number"
    if kind in ("float_parsing", "float_type"):
        return "must be a number" + (f" of {unit}" if unit else "")
    if kind in ("bool_parsing", "bool_type"):
        return "must be true or false"
    if kind == "literal_error":
        return f"must be one of {ctx.get('expected')}"
    if kind in ("string_type",):
        return "must be text"
    if kind == "value_error":
        return str(ctx.get("error", error["msg"])).rstrip(".")
    if kind in ("model_type", "dict_type"):
        return "must be a table of settings"
    message = str(error["msg"])
    return message[:1].lower() + message[1:]


def error_line(error: ValidationError, model: type[BaseModel] | None = None, prefix: str = "") -> str:
    """The first problem of a `ValidationError` as `field: reason, got value` (one line)."""
    errors = error.errors(include_url=False)
    first = errors[0]
    loc = _user_loc(first["loc"])
    places = {_user_loc(e["loc"]) for e in errors}  # a union reports one error per member: count places
    field = _path(((prefix,) if prefix else ()) + loc)
    last = next((p for p in reversed(loc) if isinstance(p, str)), "")
    reason = _reason(first, unit_of(last), _known_fields(model, loc) if first["type"] == "extra_forbidden" else [])
    given = f", got {shown(first.get('input'))}"
    if first["type"] in ("missing", "extra_forbidden") or (not loc and first["type"] == "value_error"):
        given = ""  # nothing was given, or a rule across fields that names its own values
    elif first["type"] == "value_error" and ("got " in reason or isinstance(first.get("input"), dict)):
        given = ""  # the validator's message shows the values (or a rule across a table's fields does)
    more = f" (and {len(places) - 1} more)" if len(places) > 1 else ""
    return (f"{field}: " if field else "") + reason + given + more


def validate(model: type[M], data: Any, source: str | None = None, prefix: str = "",
             context: dict[str, Any] | None = None) -> M:
    """`model.model_validate(data)`, with a failure turned into the project's one-line `UserError`; `context`
    reaches the model's validators and `model_post_init` (what a model is read against, e.g. an env's
    declared condition)."""
    try:
        return model.model_validate(data, context=context)
    except ValidationError as error:
        raise UserError(error_line(error, model, prefix), source=source) from None


def read_toml(path: str | Path, what: str = "file") -> dict[str, Any]:
    """A TOML file's tables, or a one-line `UserError` naming the path (missing, a folder, not TOML, larger
    than the `file.bytes` limit, nested deeper than `nesting.depth`)."""
    path = Path(path)
    return loads_toml(read_text_capped(path, what), source=str(path))


def at_most(limit: str, scale: float = 1.0, unit: str = "") -> AfterValidator:
    """A field bounded by a documented limit (`rtarena.limits`): the same words as every entry point.
    `scale` and `unit` say how the field's own unit relates to the limit's (`delay_ms`: 1000 milliseconds
    per second of `episode.sim_s`)."""

    def check(value: Any) -> Any:
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > LIMITS[limit].value * scale:
            if scale == 1.0:
                raise ValueError(limit_message(limit))
            bound = LIMITS[limit]
            raise ValueError(f"must be at most {bound.value * scale:g} {unit} ({bound.shown()} {bound.unit}: limit "
                             f"{limit}, docs/limits.md)")
        return value

    return AfterValidator(check)


# Bounded kinds of value (docs/limits.md), for the fields of every settings model: a wall-clock wait, a
# length of simulated time, a count, a seed.
WaitSeconds = Annotated[NonNegFloat, at_most("wait.s")]
SimSeconds = Annotated[NonNegFloat, at_most("episode.sim_s")]
SimMilliseconds = Annotated[NonNegFloat, at_most("episode.sim_s", 1000.0, "milliseconds")]
Count = Annotated[NonNegInt, at_most("option.count")]
PosCount = Annotated[PosInt, at_most("option.count")]
Seed = Annotated[NonNegInt, at_most("run.seed")]


def writable_folder(path: str | Path, field: str, given: str | Path | None = None) -> Path:
    """An output folder that exists or can be made: not a file, under no file, in a writable place.

    Checked before anything runs, so a bad `--out` costs one line and leaves nothing behind."""
    import os

    path = Path(path)
    given = path if given is None else given
    if path.exists() and not path.is_dir():
        raise UserError(f"is a file, not a folder, got {given}", field=field)
    probe = path
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        raise UserError(f"cannot make a folder under the file {probe}, got {given}", field=field)
    if not os.access(probe, os.W_OK | os.X_OK):
        raise UserError(f"{probe} is not writable, got {given}", field=field)
    import tempfile

    try:  # the real test (root passes os.access everywhere; /proc, read-only mounts and full disks do not)
        with tempfile.TemporaryFile(dir=probe):
            pass
    except OSError as error:
        raise UserError(f"cannot write in {probe}: {error.strerror or error}, got {given}", field=field) from None
    return path


def writable_file(path: str | Path, field: str, suffixes: tuple[str, ...]) -> Path:
    """An output file with one of `suffixes` whose folder exists or can be made (see `writable_folder`)."""
    path = Path(path)
    if path.suffix.lower() not in suffixes:
        raise UserError(f"must end in {' or '.join(suffixes)}, got {path}", field=field)
    if path.is_dir():
        raise UserError(f"is a folder, not a file, got {path}", field=field)
    writable_folder(path.parent, field, given=path)
    return path


def new_file(path: str | Path, field: str, suffixes: tuple[str, ...], force: bool = False) -> Path:
    """`writable_file`, and not an existing file unless `force`: an output never replaces a file the user
    did not ask to replace (`map render`, `leaderboard --markdown`)."""
    path = writable_file(path, field, suffixes)
    if path.exists() and not force:
        raise UserError(f"{path} exists; add --force to overwrite it", field=field)
    return path


def run_name(name: str | None, field: str = "--run-id") -> str | None:
    """A run id is a folder name under the output folder, never a path: letters, digits, `_ . + -`, not
    starting with a dot (no `..`, no `/abs`), at most 128 characters. None stays None."""
    import re

    if name is not None and not re.fullmatch(r"[A-Za-z0-9_+-][A-Za-z0-9_.+-]{0,127}", name):
        raise UserError(f"must be a name (letters, digits, _ . + -; no / or leading dot), got {name!r}", field=field)
    return name


def check_port(port: int, field: str = "--port") -> int:
    """A TCP port number for 127.0.0.1 (0: any free port)."""
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise UserError(f"must be a port from 0 to 65535 (0: any free port), got {port}", field=field)
    return port
