"""Latency traces: what each decision of a recorded run cost in wall time, to replay under `--clock replay`.

Every `rtarena run` leaves `RUN/latency.parquet`, one row per answered decision (`TRACE_COLUMNS`): who
decided (`controller`, `spec`), its wall latency at the client (`wall_latency_s`), its time to first token
(`ttft_s`, None for agents that do not stream) and its tokens in and out. A paid wall-clock run is thereby
a latency profile that any other agent can be replayed against, deterministically and offline.

`load_trace` reads a trace from a run folder (its `latency.parquet`, or, for runs older than the trace,
its `decisions/*.parquet`) or from one Parquet file (a trace or a decisions table). `LatencyTrace.draw`
charges a decision a latency drawn from it, seeded by the decision's place in its episode (episode seed,
controller, decision number), so the draw does not depend on thread timing or on the agent's own speed:

- `empirical`: a latency of the controller's own recorded decisions (the controller of the same name in
  the trace; every decision of the trace when it has none of that name);
- `tokens`: a least-squares fit `latency = a + b x tokens_in + c x tokens_out` on the controller's
  decisions, evaluated at the replayed decision's tokens, plus a residual drawn from the fit's own
  residuals (so the spread around the fit is kept, not only its mean); never below `LEAST_LATENCY_S`.
"""

from __future__ import annotations

import functools
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np

from rtarena.errors import UserError

if TYPE_CHECKING:  # pyarrow loads where a trace is read or written, not with every clock
    import pyarrow as pa

TRACE_FILE = "latency.parquet"
TRACE_COLUMNS = (("episode", "string"), ("controller", "string"), ("spec", "string"), ("wall_latency_s", "float64"),
                 ("ttft_s", "float64"), ("tokens_in", "int64"), ("tokens_out", "int64"), ("tokens_source", "string"))
LEAST_LATENCY_S = 1e-3  # a drawn or fitted latency is never below this (some wall time always passes)
MIN_FIT_ROWS = 3  # fewer decisions than this for a controller: its tokens fit pools every controller's
LatencyModel = Literal["empirical", "tokens"]


@dataclass(frozen=True)
class DrawKey:
    """Where a decision sits in its episode: what seeds its draw (`seed`, `controller`, its `number` from 1)."""

    seed: int
    controller: str
    number: int

    def rng(self) -> np.random.Generator:
        return np.random.default_rng((self.seed, zlib.crc32(self.controller.encode()), self.number))


@dataclass(frozen=True)
class Pool:
    """One controller's recorded decisions (or every controller's): latencies and tokens, and the tokens fit."""

    latency_s: np.ndarray
    tokens_in: np.ndarray
    tokens_out: np.ndarray

    @functools.cached_property
    def fit(self) -> tuple[np.ndarray, np.ndarray]:
        """(coefficients of [1, tokens_in, tokens_out], residuals) of the least-squares fit."""
        x = np.column_stack([np.ones(len(self.latency_s)), self.tokens_in, self.tokens_out])
        coef = np.linalg.lstsq(x, self.latency_s, rcond=None)[0]
        return coef, self.latency_s - x @ coef


@dataclass(frozen=True)
class LatencyTrace:
    """A loaded trace: its source, the pooled decisions and each controller's own."""

    source: str
    pooled: Pool
    controllers: dict[str, Pool]

    @property
    def median_s(self) -> float:
        return float(np.median(self.pooled.latency_s))

    @property
    def least_s(self) -> float:
        return float(np.min(self.pooled.latency_s))

    def has_tokens(self) -> bool:
        return bool(np.any(self.pooled.tokens_in) or np.any(self.pooled.tokens_out))

    def pool(self, controller: str, model: LatencyModel) -> Pool:
        own = self.controllers.get(controller)
        fits = own is not None and (model == "empirical" or len(own.latency_s) >= MIN_FIT_ROWS)
        return own if fits else self.pooled

    def draw(self, key: DrawKey, model: LatencyModel, tokens_in: int = 0, tokens_out: int = 0) -> float:
        """The seconds charged to the decision at `key` (see the module docstring)."""
        pool = self.pool(key.controller, model)
        index = int(key.rng().integers(len(pool.latency_s)))
        if model == "empirical":
            return float(pool.latency_s[index])
        coef, residuals = pool.fit
        predicted = coef[0] + coef[1] * tokens_in + coef[2] * tokens_out + residuals[index]
        return max(LEAST_LATENCY_S, float(predicted))


def trace_table(rows: pa.Table, specs: dict[tuple[str, str], str] | None = None) -> pa.Table:
    """A trace from decision records (a `decisions` table): answered decisions only (an abandoned one's
    latency is the episode's end, not the model's), their time to first token read from `extra`."""
    import json

    import pyarrow as pa

    data = rows.to_pylist()
    out = []
    for row in data:
        if row.get("delay_sim_s") is None or row.get("wall_latency_s") is None:
            continue
        extra = row.get("extra")
        extra = json.loads(extra) if isinstance(extra, str) else (extra or {})
        ttft = extra.get("ttft_s") if isinstance(extra, dict) else None
        out.append({"episode": row.get("episode"), "controller": row.get("controller"),
                    "spec": (specs or {}).get((row.get("episode"), row.get("controller"))),
                    "wall_latency_s": float(row["wall_latency_s"]),
                    "ttft_s": float(ttft) if isinstance(ttft, (int, float)) else None,
                    "tokens_in": int(row.get("tokens_in") or 0), "tokens_out": int(row.get("tokens_out") or 0),
                    "tokens_source": row.get("tokens_source")})
    schema = pa.schema([(name, getattr(pa, kind)()) for name, kind in TRACE_COLUMNS])
    return pa.Table.from_pylist(out, schema=schema)


def _read(path: Path) -> pa.Table:
    """The trace's rows: a trace file, a decisions file, or a run folder's trace (or decisions)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if path.is_dir():
        if (path / TRACE_FILE).is_file():
            return pq.read_table(path / TRACE_FILE)
        files = sorted((path / "decisions").glob("*.parquet"))
        if not files:
            raise UserError(f"{path}: neither {TRACE_FILE} nor decisions/*.parquet: not a run folder with a "
                            "latency trace", field="--latency-trace")
        return pa.concat_tables([pq.read_table(f) for f in files], promote_options="default")
    if not path.is_file():
        raise UserError(f"{path}: no such run folder or Parquet file", field="--latency-trace")
    try:
        return pq.read_table(path)
    except (pa.ArrowInvalid, OSError) as error:
        raise UserError(f"{path}: not a Parquet file ({str(error).splitlines()[0]})", field="--latency-trace") \
            from None


@functools.lru_cache(maxsize=8)
def _load(path: str, stamp: tuple[int, int]) -> LatencyTrace:
    table = _read(Path(path))
    if "wall_latency_s" not in table.column_names:
        raise UserError(f"{path}: has no wall_latency_s column: a trace needs each decision's latency",
                        field="--latency-trace")
    if "delay_sim_s" in table.column_names:  # a decisions table: keep answered decisions, as a trace does
        table = trace_table(table)
    latency = np.array([v if v is not None else np.nan for v in table.column("wall_latency_s").to_pylist()], float)
    keep = np.isfinite(latency) & (latency > 0)
    if not keep.any():
        raise UserError(f"{path}: holds no decision latencies (wall_latency_s is empty, missing or 0)",
                        field="--latency-trace")
    names = table.column_names

    def column(name: str) -> np.ndarray:
        values = table.column(name).to_pylist() if name in names else [0] * len(latency)
        return np.array([v or 0 for v in values], float)[keep]

    controllers = np.array([str(c) for c in (table.column("controller").to_pylist() if "controller" in names
                                              else [""] * len(latency))])[keep]
    tin, tout, latency = column("tokens_in"), column("tokens_out"), latency[keep]
    own = {str(c): Pool(latency[controllers == c], tin[controllers == c], tout[controllers == c])
           for c in sorted(set(controllers.tolist()))}
    return LatencyTrace(path, Pool(latency, tin, tout), own)


def load_trace(path: str | Path) -> LatencyTrace:
    """The trace at `path` (a run folder or a Parquet file), read once per version of the file; a path
    without decision latencies is a one-line `UserError`."""
    resolved = Path(path).expanduser().resolve()
    target = resolved / TRACE_FILE if (resolved / TRACE_FILE).is_file() else resolved
    try:
        info = target.stat()
        stamp = (info.st_mtime_ns, info.st_size)
    except OSError:
        stamp = (0, 0)
    return _load(str(resolved), stamp)
