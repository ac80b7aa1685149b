"""The documented limits, as data: one table, checked where each value enters, with one line of error.

Every count, size and time a user can type, write in a file or send to a server is bounded, so that no input
can take unbounded memory or time (a `--seeds 1e12`, a 30,000-obstacle map, `/dev/zero` as a map file, a
TOML nested a thousand deep). The table below is the only place the numbers live; `docs/limits.md` lists
them (a test checks the page against this table), and every entry point (CLI flag, file field, API
argument, JSON endpoint) refuses a value past its limit with the same line:

    seeds: must be at most 10000 (limit run.seeds, docs/limits.md), got 1000000000000

Files are read with `read_capped` (a size check before a byte is parsed), and TOML/JSON are parsed with
`loads_toml` / `loads_json`, which refuse nesting deeper than `nesting.depth`.

This module imports only `rtarena.errors`, so every layer may use it.
"""

from __future__ import annotations

import json
import math
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rtarena.errors import UserError

__all__ = ["LIMITS", "Limit", "check_limit", "limit_message", "loads_json", "loads_toml", "read_capped",
           "read_text_capped"]


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
    Limit("episode.steps", 1_000_000, "steps", "steps of one episode (`--max-steps`, `max_steps =`)"),
    Limit("episode.sim_s", 86_400, "simulated seconds", "simulated length of one episode (steps x dt, a level's "
          "`time_limit_s`)"),
    Limit("step.dt_s", 60, "seconds", "simulated seconds of one step (`--dt`, `dt =`)"),
    Limit("step.substeps", 1_000, "sub-steps", "physics sub-steps of one arena step (dt / `arena.substep_s`)"),
    Limit("file.bytes", 16 << 20, "bytes", "size of a file read as settings, map, skill, codebook or experiment"),
    Limit("request.bytes", 1 << 20, "bytes", "body of one request to a local page's API (dashboard, editor, review)"),
    Limit("model_request.bytes", 64 << 20, "bytes", "body of one chat request to the policy server (a screenshot "
          "history: Realtime-Bench's 21 retained images)"),
    Limit("nesting.depth", 64, "levels", "nesting of tables and lists in one TOML or JSON document"),
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
    return f"must be at most {limit.shown()} {limit.unit} (limit {name}, docs/limits.md)"


def check_limit(name: str, value: Any, field: str | None = None, source: str | None = None) -> Any:
    """`value` when it is within the limit `name`; otherwise the one-line `UserError`."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and (
            not math.isfinite(value) or value > LIMITS[name].value):
        raise UserError(f"{limit_message(name)}, got {_plain(value)}", field=field, source=source)
    return value


def _plain(value: float) -> str:
    if isinstance(value, float) and math.isfinite(value) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return str(value)


def read_capped(path: str | Path, what: str = "file", limit: str = "file.bytes") -> bytes:
    """A file's bytes, refused with one line when it is larger than the limit (or endless: `/dev/zero`).

    Reads at most limit + 1 bytes, so a device or a pipe that never ends costs no more than the limit."""
    path = Path(path)
    cap = int(LIMITS[limit].value)
    try:
        if path.is_dir():
            raise UserError(f"is a folder, not a {what}", source=str(path))
        with path.open("rb") as handle:
            data = handle.read(cap + 1)
    except FileNotFoundError:
        raise UserError(f"no such {what}: {path}") from None
    except OSError as error:
        raise UserError(f"cannot read {what}: {error.strerror or error}", source=str(path)) from None
    if len(data) > cap:
        raise UserError(f"{what} is larger than {cap} bytes (limit {limit}, docs/limits.md)", source=str(path))
    return data


def read_text_capped(path: str | Path, what: str = "file") -> str:
    """`read_capped` decoded as UTF-8, or one line saying the file is not text."""
    try:
        return read_capped(path, what).decode("utf-8")
    except UnicodeDecodeError:
        raise UserError(f"not a text {what} (not UTF-8)", source=str(path)) from None


def _depth_error(source: str | None) -> UserError:
    depth = LIMITS["nesting.depth"]
    return UserError(f"nested deeper than {depth.shown()} levels (limit nesting.depth, docs/limits.md)",
                     source=source)


def check_depth(value: Any, source: str | None = None) -> Any:
    """`value` (parsed TOML/JSON) when its tables and lists nest at most `nesting.depth` deep."""
    cap = int(LIMITS["nesting.depth"].value)
    level, depth = [value], 0
    while level:  # breadth first, no recursion: the check itself cannot overflow the stack
        depth += 1
        if depth > cap + 1:
            raise _depth_error(source)
        level = [sub for item in level for sub in (item.values() if isinstance(item, dict) else
                                                   item if isinstance(item, list) else ())]
    return value


def loads_toml(text: str, source: str | None = None) -> dict[str, Any]:
    """TOML text parsed (nesting checked); a syntax error is one line naming `source`."""
    try:
        return check_depth(tomllib.loads(text), source)
    except tomllib.TOMLDecodeError as error:
        raise UserError(f"invalid TOML: {error}", source=source) from None
    except RecursionError:
        raise _depth_error(source) from None


def loads_json(text: str | bytes, source: str | None = None, **kwargs: Any) -> Any:
    """JSON text parsed (nesting checked); a syntax error is one line naming `source`."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise UserError("not UTF-8 text", source=source) from None
    try:
        return check_depth(json.loads(text, **kwargs), source)
    except RecursionError:
        raise _depth_error(source) from None
    except ValueError as error:
        raise UserError(f"invalid JSON: {str(error).splitlines()[0]}", source=source) from None
