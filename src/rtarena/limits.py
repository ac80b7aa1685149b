"""The documented limits, as data: one table, checked where each value enters, with one line of error.

Every count, size and time a user can type, write in a file or send to a server is bounded, so that no input
can take unbounded memory or time (a `--seeds 1e12`, a 30,000-obstacle map, `/dev/zero` as a map file, a
TOML nested a thousand deep). The table below is the only place the numbers live; `docs/limits.md` lists
them (a test checks the page against this table), and every entry point (CLI flag, file field, API
argument, JSON endpoint) refuses a value past its limit with the same line:

    seeds: must be at most 10000 (limit run.seeds, docs/limits.md), got 1000000000000

Files are read with `read_capped` (regular files only, a size check before a byte is parsed), and every
settings format is parsed by one function of this module (`loads_toml`, `loads_json`, `loads_yaml`), each
refusing nesting deeper than `nesting.depth` and more than `nesting.nodes` values (a YAML alias counts as
the values it stands for, so a 500-byte alias bomb is refused before it is built).

This module imports only `rtarena.errors`, so every layer may use it.
"""

from __future__ import annotations

import json
import math
import os
import stat
import sys
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rtarena.errors import UserError

__all__ = ["LIMITS", "Limit", "check_limit", "limit_message", "loads_json", "loads_toml", "loads_yaml",
           "read_capped", "read_text_capped"]


@dataclass(frozen=True)
class Limit:
    """One documented bound: its name, its value, the unit, and what it bounds."""

    name: str
    value: float
    unit: str
    what: str

    def shown(self) -> str:
        return f"{self.value:,.0f}".replace(",", "") if float(self.value).is_integer() else f"{self.value:g}"


_TABLE = (
    Limit("map.obstacles", 10_000, "obstacles", "obstacles in one map (file, editor, `--map`)"),
    Limit("map.points", 2_000, "points", "entries of one point list of a map (spawns, coins, turrets, ammo, chickens)"),
    Limit("map.size_m", 1_000, "metres", "side of an arena (map `size_m`, level `arena.size_m`)"),
    Limit("env.agents", 1_024, "agents", "agents in one env (`num_agents`, `players.count`; the benchmarks step 512)"),
    Limit("level.count", 1_000, "objects", "objects of one kind a level places (`turret.count`, `coins.count`, "
          "`layout.walls` ...)"),
    Limit("run.seeds", 10_000, "seeds", "seeds (episodes per cell) of one run (`--seeds`, `seeds =`)"),
    Limit("run.seed", 2**32 - 1, "", "a seed: `--seed`, `--seed-start` + `--seeds` - 1, a seed "
          "list's entries, `seed=` of a model agent or the policy server (numpy's range)"),
    Limit("episode.steps", 1_000_000, "steps", "steps of one episode (`--max-steps`, `max_steps =`)"),
    Limit("episode.sim_s", 86_400, "simulated seconds", "simulated length of one episode (steps x dt, a level's "
          "`time_limit_s`)"),
    Limit("step.dt_s", 60, "seconds", "simulated seconds of one step (`--dt`, `dt =`)"),
    Limit("step.substeps", 1_000, "sub-steps", "physics sub-steps of one arena step (dt / `arena.substep_s`)"),
    Limit("step.every", 1_000_000, "steps", "steps between observations (`--obs-every`, `obs_every =`)"),
    Limit("wait.s", 86_400, "seconds", "one wall-clock wait: a model call's `timeout=`, the policy server's "
          "`ttft_s`, `slow_s` and other delays"),
    Limit("image.px", 4_096, "pixels", "side of an image made or sent (`image_size=`, `map render`, `play --scale`)"),
    Limit("option.count", 1_000_000, "", "any other count in an option or setting (`max_tokens=`, `history=`, "
          "`retries=`, `rounds=`, the policy server's token counts)"),
    Limit("query.rows", 100_000, "rows", "rows of one `rtarena query` result (it is printed)"),
    Limit("file.bytes", 16 << 20, "bytes", "size of a file read as settings, map, skill, codebook or experiment"),
    Limit("request.bytes", 1 << 20, "bytes", "body of one request to a local page's API (dashboard, editor, review)"),
    Limit("model_request.bytes", 64 << 20, "bytes", "body of one chat request to the policy server (a screenshot "
          "history: Realtime-Bench's 21 retained images)"),
    Limit("nesting.depth", 64, "levels", "nesting of tables and lists in one TOML, JSON or YAML document"),
    Limit("nesting.nodes", 1_000_000, "values", "values (tables, lists, numbers, strings) in one TOML, JSON or "
          "YAML document, a YAML alias counted as all it stands for"),
    Limit("policy.tokens", 1_000_000, "tokens", "tokens the policy server writes for one reply (`filler_tokens`, "
          "`plan_tokens`, `after_tokens`, a reasoning effort's tokens)"),
    Limit("policy.delay_s", 3_600, "seconds", "a wait the policy server is asked for (`ttft_s`, `media_prefill_s`, "
          "`slow_s`, `retry_after_s`)"),
    Limit("websocket.bytes", 16 << 20, "bytes", "one WebSocket message to a local server (a Realtime event with "
          "its screenshot)"),
    Limit("websocket.idle_s", 300, "seconds", "a Realtime session with no event for this long is closed"),
)
LIMITS: dict[str, Limit] = {limit.name: limit for limit in _TABLE}


def limit_message(name: str) -> str:
    """`must be at most 10000 seeds (limit run.seeds, docs/limits.md)`: the words every entry point uses."""
    limit = LIMITS[name]
    unit = f" {limit.unit}" if limit.unit else ""
    return f"must be at most {limit.shown()}{unit} (limit {name}, docs/limits.md)"


def check_limit(name: str, value: Any, field: str | None = None, source: str | None = None) -> Any:
    """`value` when it is within the limit `name`; otherwise the one-line `UserError`."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and (
            (isinstance(value, float) and not math.isfinite(value)) or value > LIMITS[name].value):
        raise UserError(f"{limit_message(name)}, got {_plain(value)}", field=field, source=source)
    return value


def _plain(value: float) -> str:
    if isinstance(value, float) and math.isfinite(value) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return str(value)


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


_KINDS = ((stat.S_ISFIFO, "a named pipe"), (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"),
          (stat.S_ISSOCK, "a socket"))


def read_capped(path: str | Path, what: str = "file", limit: str = "file.bytes") -> bytes:
    """A regular file's bytes, refused with one line when it is larger than the limit.

    Only regular files are read: a named pipe, a device or a socket is refused at once (opened without
    blocking, so a pipe with no writer cannot hang the command), and at most limit + 1 bytes are read."""
    path = Path(path)
    cap = int(LIMITS[limit].value)
    try:
        if path.is_dir():
            raise UserError(f"is a folder, not {_article(what)} {what}", source=str(path))
        handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        try:
            mode = os.fstat(handle).st_mode
            if not stat.S_ISREG(mode):
                kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
                raise UserError(f"is {kind}, not a regular {what}; only regular files are read, at most {cap} bytes "
                                f"(limit {limit}, docs/limits.md)", source=str(path))
            os.set_blocking(handle, True)
            with os.fdopen(handle, "rb", closefd=True) as stream:
                handle = -1
                data = stream.read(cap + 1)
        finally:
            if handle >= 0:
                os.close(handle)
    except FileNotFoundError:
        raise UserError(f"no such {what}: {path}") from None
    except OSError as error:
        raise UserError(f"cannot read {what}: {error.strerror or error}", source=str(path)) from None
    if len(data) > cap:
        raise UserError(f"{what} is larger than {cap} bytes (limit {limit}, docs/limits.md)", source=str(path))
    return data


def read_text_capped(path: str | Path, what: str = "file") -> str:
    """`read_capped` decoded as UTF-8 (a leading byte-order mark, as some Windows editors write, dropped), or
    one line saying the file is not text."""
    try:
        return read_capped(path, what).decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UserError(f"not a text {what} (not UTF-8)", source=str(path)) from None


def _depth_error(source: str | None) -> UserError:
    depth = LIMITS["nesting.depth"]
    return UserError(f"nested deeper than {depth.shown()} levels (limit nesting.depth, docs/limits.md)",
                     source=source)


def _nodes_error(source: str | None, count: int | None = None) -> UserError:
    nodes = LIMITS["nesting.nodes"]
    more = f" (at least {count})" if count else ""
    return UserError(f"holds more than {nodes.shown()} values{more} (limit nesting.nodes, docs/limits.md)",
                     source=source)


_INT_RANGE = 2**63  # TOML's integers are 64-bit; a larger one (4,000 digits) breaks every float conversion


def check_depth(value: Any, source: str | None = None) -> Any:
    """`value` (a parsed document) when its tables and lists nest at most `nesting.depth` deep, it holds at
    most `nesting.nodes` values, and its integers are 64-bit."""
    cap, most = int(LIMITS["nesting.depth"].value), int(LIMITS["nesting.nodes"].value)
    level, depth, count = [value], 0, 0
    while level:  # breadth first, no recursion: the check itself cannot overflow the stack
        depth += 1
        count += len(level)
        if depth > cap + 1:
            raise _depth_error(source)
        if count > most:
            raise _nodes_error(source, count)
        huge = next((item for item in level if type(item) is int and not -_INT_RANGE <= item < _INT_RANGE), None)
        if huge is not None:
            digits = len(str(abs(huge)))
            raise UserError(f"holds an integer of {digits} digits; settings hold 64-bit integers (as TOML does), "
                            f"at most {_INT_RANGE - 1}", source=source)
        level = [sub for item in level for sub in (item.values() if isinstance(item, dict) else
                                                   item if isinstance(item, list) else ())]
    return value


def _value_line(kind: str, error: ValueError) -> str:
    text = str(error).splitlines()[0] if str(error) else type(error).__name__
    if "integer string conversion" in text:
        return (f"holds an integer of more than {sys.get_int_max_str_digits()} digits; settings hold 64-bit "
                f"integers (as TOML does), at most {_INT_RANGE - 1}")
    return f"invalid {kind}: {text}"


@contextmanager
def _parse_errors(kind: str, source: str | None) -> Iterator[None]:
    """The one-line errors every reader shares: too deep, or a value Python cannot hold (an integer past its
    4,300-digit conversion limit; JSON's syntax errors are ValueErrors too)."""
    try:
        yield
    except RecursionError:
        raise _depth_error(source) from None
    except UserError:
        raise
    except ValueError as error:
        raise UserError(_value_line(kind, error), source=source) from None


def loads_toml(text: str, source: str | None = None) -> dict[str, Any]:
    """TOML text parsed (nesting checked); a syntax error is one line naming `source`."""
    with _parse_errors("TOML", source):
        try:
            return check_depth(tomllib.loads(text), source)
        except tomllib.TOMLDecodeError as error:
            raise UserError(f"invalid TOML: {error}", source=source) from None


def loads_json(text: str | bytes, source: str | None = None, **kwargs: Any) -> Any:
    """JSON text parsed (nesting checked); a syntax error is one line naming `source`."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise UserError("not UTF-8 text", source=source) from None
    with _parse_errors("JSON", source):
        return check_depth(json.loads(text, **kwargs), source)


def _yaml_shape(text: str, source: str | None) -> None:
    """Walk a YAML document's events (libyaml's parser: flat, no recursion) and refuse it before anything is
    built when it nests deeper than `nesting.depth` or holds more than `nesting.nodes` values, an alias
    counted as every value of the node it names (the alias bomb: nine lines that stand for 10^9 values)."""
    import yaml

    cap, most = int(LIMITS["nesting.depth"].value), int(LIMITS["nesting.nodes"].value)
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    anchors: dict[str, tuple[int, int]] = {}  # anchor -> (values, depth below it)
    # one frame per open collection: [values so far, deepest depth below it, anchor]
    stack: list[list[Any]] = [[0, 0, None]]
    total = 0
    for event in yaml.parse(text, Loader=loader):
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            stack.append([1, 0, event.anchor])
            if len(stack) - 1 > cap:
                raise _depth_error(source)
            total += 1
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            count, deep, anchor = stack.pop()
            if anchor is not None:
                anchors[anchor] = (count, deep + 1)
            stack[-1][0] += count
            stack[-1][1] = max(stack[-1][1], deep + 1)
        elif isinstance(event, (yaml.ScalarEvent, yaml.AliasEvent)):
            count, deep = (1, 0) if isinstance(event, yaml.ScalarEvent) else anchors.get(event.anchor, (1, 0))
            if isinstance(event, yaml.ScalarEvent) and event.anchor is not None:
                anchors[event.anchor] = (1, 0)
            if len(stack) - 1 + deep > cap:
                raise _depth_error(source)
            stack[-1][0] += count
            stack[-1][1] = max(stack[-1][1], deep)
            total += count
        if total > most:
            raise _nodes_error(source)


def loads_yaml(text: str, source: str | None = None) -> Any:
    """YAML text parsed safely (no Python tags), within the same depth and value limits as TOML and JSON,
    checked on the parser's events before a value is built; a syntax error is one line naming `source`."""
    try:
        import yaml
    except ImportError:
        raise UserError("reading YAML needs PyYAML (pip install pyyaml); or write the file as TOML",
                        source=source) from None
    with _parse_errors("YAML", source):
        try:
            _yaml_shape(text, source)
            return check_depth(yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)), source)
        except yaml.YAMLError as error:
            if "nesting depth" in str(getattr(error, "problem", "")):  # libyaml's own bound (1,000), past ours
                raise _depth_error(source) from None
            mark = getattr(error, "problem_mark", None)
            where = f" (at line {mark.line + 1}, column {mark.column + 1})" if mark else ""
            raise UserError(f"invalid YAML: {getattr(error, 'problem', None) or error}{where}",
                            source=source) from None
