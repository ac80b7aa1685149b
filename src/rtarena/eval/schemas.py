"""Declared Arrow schemas of the record tables, so that writing an episode never depends on its values.

Letting Arrow infer column types from the rows failed whole runs: an event field holding a player id in
one event and a turret number in the next (`by`, who killed whom) cannot be one inferred column, and an
episode without rows gave a file with no columns that broke every query of the run folder. Each table
therefore has fixed column types:

| table       | columns                                                                                   |
|-------------|-------------------------------------------------------------------------------------------|
| `decisions` | one per `DecisionRecord` field, typed from its annotation; tuples, dicts, `action` as JSON  |
| `steps`     | one per `StepRecord` field, the same way                                                   |
| `events`    | `step`, `sim_s`, `agent`, `type`, `t_s` typed; any other field as text (JSON if not text) |
| `agents`    | the identity and cell columns typed; each metric by its kind (int, float, bool), text when kinds mix |

Every table starts with `episode`. Empty tables keep their columns.
"""

from __future__ import annotations

import json
from dataclasses import fields
from typing import Any

import pyarrow as pa

from rtarena.redact import redact
from rtarena.runtime.records import DecisionRecord, StepRecord, jsonable

JSON = pa.string()  # nested values (tuples, dicts, actions) are stored as JSON text

ANNOTATION_TYPES = {"int": pa.int64(), "float": pa.float64(), "bool": pa.bool_(), "str": pa.string()}


def _annotation_type(annotation: str) -> pa.DataType:
    """`int | None` -> int64 and so on; anything nested or `Any` is JSON text."""
    kinds = [part.strip() for part in str(annotation).split("|") if part.strip() != "None"]
    return ANNOTATION_TYPES.get(kinds[0], JSON) if len(kinds) == 1 else JSON


def record_schema(record_type: type) -> pa.Schema:
    """The schema of a record dataclass's table: `episode`, then one column per field."""
    return pa.schema([("episode", pa.string())] + [(f.name, _annotation_type(f.type)) for f in fields(record_type)])


DECISIONS = record_schema(DecisionRecord)
STEPS = record_schema(StepRecord)
EVENT_CORE = pa.schema([("episode", pa.string()), ("step", pa.int64()), ("sim_s", pa.float64()),
                        ("agent", pa.string()), ("type", pa.string()), ("t_s", pa.float64())])
AGENT_CORE = pa.schema([("episode", pa.string()), ("env_id", pa.string()), ("seed", pa.int64()),
                        ("clock", pa.string()), ("run_id", pa.string()), ("level", pa.string()),
                        ("lineup", pa.string()), ("clock_name", pa.string()), ("delay_ms", pa.float64()),
                        ("obs", pa.string()), ("agent", pa.string()), ("controller", pa.string()),
                        ("spec", pa.string()), ("agent_label", pa.string()), ("sim_seconds", pa.float64()),
                        ("steps", pa.int64())])


def as_json(value: Any) -> str | None:
    return None if value is None else json.dumps(jsonable(value), sort_keys=True)


def as_text(value: Any) -> str | None:
    """Text stays text; any other value becomes its JSON (`3`, `25.0`, `true`, `[1, 2]`). Credentials are
    masked (`rtarena.redact`)."""
    return None if value is None else redact(value if isinstance(value, str) else as_json(value))


# values `jsonable` returns as they are (exact types: numpy's scalars subclass float and int)
_PLAIN = frozenset((int, float, str, bool, type(None)))


def _column(values: list[Any], kind: pa.DataType) -> list[Any]:
    """A column's values as its type takes them (text as text, numbers as floats in a float column, anything else
    JSON-able), the type's case chosen once per column: a run writes a cell per field of every record."""
    plain = [v if type(v) in _PLAIN else jsonable(v) for v in values]
    if pa.types.is_string(kind):
        return [as_text(v) for v in plain]
    if pa.types.is_floating(kind):
        return [float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v for v in plain]
    return plain


def table(rows: list[dict[str, Any]], schema: pa.Schema) -> pa.Table:
    """Rows as a table of exactly `schema` (a value that cannot take its column's type raises)."""
    columns = {f.name: _column([row.get(f.name) for row in rows], f.type) for f in schema}
    return pa.Table.from_pydict(columns, schema=schema)


def _kind(values: list[Any]) -> pa.DataType:
    """One type for a column of open-ended values: bool, int64, float64, or text when kinds mix. A column
    of nulls only (a latency percentile of an agent that never decided) is float64, the type it has when
    it holds values, so that episodes read together keep it numeric."""
    kinds = {type(v) for v in values if v is not None}
    if not kinds:
        return pa.float64()
    if kinds == {bool}:
        return pa.bool_()
    if kinds and kinds <= {int}:
        return pa.int64()
    if kinds and kinds <= {int, float}:
        return pa.float64()
    return pa.string()


def open_schema(core: pa.Schema, rows: list[dict[str, Any]], rest: str) -> pa.Schema:
    """`core` plus a column per other name seen in `rows`: all text (`rest="text"`) or by kind (`"kind"`)."""
    names = [n for n in dict.fromkeys(name for row in rows for name in row) if n not in core.names]
    extra = [(n, pa.string() if rest == "text" else _kind([jsonable(r.get(n)) for r in rows])) for n in names]
    return pa.schema(list(core) + [pa.field(n, t) for n, t in extra])


def events_schema(names: Any) -> pa.Schema:
    """The events table's schema for events with these field names (in order of first appearance)."""
    return pa.schema(list(EVENT_CORE) + [pa.field(n, pa.string()) for n in dict.fromkeys(names)
                                         if n not in EVENT_CORE.names])


def events_table(rows: list[dict[str, Any]]) -> pa.Table:
    return table(rows, events_schema(name for row in rows for name in row))


def agents_table(rows: list[dict[str, Any]]) -> pa.Table:
    return table(rows, open_schema(AGENT_CORE, rows, "kind"))
