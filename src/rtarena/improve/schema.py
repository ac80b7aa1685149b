"""OpenAI tool schemas from documented functions: the signature gives the parameters, the docstring the
descriptions, so what the reflector is told can never drift from what the code does.

A tool's docstring is a summary paragraph, then an `Args:` section with one `name: description` line per
parameter. Annotations map to JSON Schema: `str` string, `int` integer, `float` number, `bool` boolean,
`list[str]` array of strings, `dict` object.
"""

from __future__ import annotations

import inspect
import re
import typing
from collections.abc import Callable
from typing import Any

JSON_TYPES = {str: {"type": "string"}, int: {"type": "integer"}, float: {"type": "number"},
              bool: {"type": "boolean"}, dict: {"type": "object"}, list: {"type": "array"}}


def _json_type(annotation: Any) -> dict[str, Any]:
    if typing.get_origin(annotation) is list:
        (item,) = typing.get_args(annotation) or (str,)
        return {"type": "array", "items": _json_type(item)}
    if annotation in JSON_TYPES:
        return dict(JSON_TYPES[annotation])
    raise TypeError(f"no JSON Schema type for {annotation!r}")


def _arg_docs(doc: str) -> dict[str, str]:
    _, _, args = doc.partition("Args:")
    found: dict[str, str] = {}
    name = None
    for line in args.splitlines():
        match = re.match(r"^\s{4}(\w+):\s*(.*)$", line)
        if match:
            name = match.group(1)
            found[name] = match.group(2).strip()
        elif name and line.strip():
            found[name] += " " + line.strip()
    return found


def tool_schema(function: Callable[..., Any]) -> dict[str, Any]:
    """The `tools` entry of one documented function (a bound method's `self` is left out)."""
    doc = inspect.cleandoc(function.__doc__ or "")
    summary = doc.split("Args:")[0].strip()
    described = _arg_docs(doc)
    hints = typing.get_type_hints(function)
    properties: dict[str, Any] = {}
    required = []
    for name, parameter in inspect.signature(function).parameters.items():
        if name == "self":
            continue
        if name not in described:
            raise TypeError(f"{function.__name__}: parameter {name!r} is not documented under Args:")
        properties[name] = {**_json_type(hints[name]), "description": described[name]}
        if parameter.default is inspect.Parameter.empty:
            required.append(name)
        else:
            properties[name]["default"] = parameter.default
    return {"type": "function", "function": {"name": function.__name__, "description": summary,
                                             "parameters": {"type": "object", "properties": properties,
                                                            "required": required}}}
