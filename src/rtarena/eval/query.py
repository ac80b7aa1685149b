"""DuckDB over run folders: one view per kind of record, across every run at once.

Views (each with a `run_id` column taken from the folder name):

| view        | one row per                      | from                          |
|-------------|----------------------------------|-------------------------------|
| `episodes`  | episode (ok or error)            | `*/episodes.jsonl`            |
| `agents`    | env agent of an ok episode       | `*/agents/*.parquet`          |
| `decisions` | decision                         | `*/decisions/*.parquet`       |
| `steps`     | env step                         | `*/steps/*.parquet`           |
| `events`    | env event                        | `*/events/*.parquet`          |

Parquet views read only the files of episodes whose `episodes.jsonl` line is written (the commit).
| `runs`      | run                              | `*/run.json`                  |

    rtarena query "SELECT agent_label, level, avg(score) FROM agents GROUP BY ALL"
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rtarena.errors import UserError
from rtarena.eval.store import read_episodes

PARQUET_VIEWS = ("agents", "decisions", "steps", "events")
RUN_ID_SQL = "regexp_extract(filename, '([^/]+)/{sub}[^/]+$', 1)"


def _quote(path: Path | str) -> str:
    return "'" + str(path).replace("'", "''") + "'"


def is_run(path: Path) -> bool:
    """A run folder: it has episodes (`episodes.jsonl`) or was at least started (`run.json`)."""
    return (path / "episodes.jsonl").exists() or (path / "run.json").exists()


def run_dirs(runs: Iterable[str | Path] = (), root: str | Path = "runs") -> list[Path]:
    """Run folders named by path or by id under `root`; with none named, every run under `root`."""
    named = list(runs)
    if not named:
        found = sorted(p for p in Path(root).glob("*/") if is_run(p) and not p.is_symlink())  # not runs/latest
        if not found:
            raise UserError(f"no runs under {root}/ (a run folder holds episodes.jsonl)", field="--root")
        return found
    out = []
    for run in named:
        path = Path(run)
        if not is_run(path) and is_run(Path(root) / str(run)):
            path = Path(root) / str(run)
        if not is_run(path):
            raise UserError(f"{run} is not a run folder (no episodes.jsonl there or under {root}/)", field="RUN")
        out.append(path)
    return out


def committed_keys(run_dir: Path) -> list[str]:
    """Episodes whose line is written: only their Parquet files are read (a file without its line is half
    an episode, from a run killed mid-commit or still running)."""
    return sorted({line["episode"] for line in read_episodes(run_dir)
                   if line.get("status", "ok") == "ok" and isinstance(line.get("episode"), str)})


def connect(dirs: list[Path]) -> Any:
    """An in-memory DuckDB connection with the views above over the given run folders."""
    import duckdb

    con = duckdb.connect()
    for d in dirs:  # a file that holds no episode line is not a run's: one line, not a DuckDB error
        path = d / "episodes.jsonl"
        if path.exists() and path.stat().st_size and not read_episodes(d):
            raise UserError("holds no episode lines (not the episodes.jsonl of an rtarena run)", source=str(path))
    lines = [d.resolve() / "episodes.jsonl" for d in dirs]
    files = ", ".join(_quote(f) for f in lines if f.exists() and f.stat().st_size)
    if not files:  # runs stopped before their first episode
        con.execute("CREATE VIEW episodes AS SELECT NULL::VARCHAR AS run_id, NULL::VARCHAR AS episode, "
                    "NULL::VARCHAR AS status, NULL::VARCHAR AS error WHERE false")
    else:
        con.execute(f"""
            CREATE VIEW episodes AS
            SELECT regexp_extract(filename, '([^/]+)/episodes.jsonl$', 1) AS run_id, * EXCLUDE (filename)
            FROM read_json([{files}], format='newline_delimited', union_by_name=true, ignore_errors=true,
                           filename=true, maximum_object_size=67108864)
            WHERE episode IS NOT NULL
        """)
    committed = {d: committed_keys(d) for d in dirs}
    for view in PARQUET_VIEWS:
        files = [d.resolve() / view / f"{key}.parquet" for d in dirs for key in committed[d]]
        files = [f for f in files if f.exists()]
        if files:
            run_id = RUN_ID_SQL.format(sub=f"{view}/")
            sources = ", ".join(_quote(f) for f in files)
            con.execute(f"""
                CREATE VIEW {view} AS
                SELECT {run_id} AS run_id, * EXCLUDE (filename{', run_id' if view == 'agents' else ''})
                FROM read_parquet([{sources}], union_by_name=true, filename=true)
            """)
        else:
            con.execute(f"CREATE VIEW {view} AS SELECT NULL::VARCHAR AS run_id, NULL::VARCHAR AS episode WHERE false")
    manifests = [d.resolve() / "run.json" for d in dirs if (d / "run.json").exists()]
    if manifests:
        con.execute(f"""
            CREATE VIEW runs AS SELECT * FROM read_json([{', '.join(_quote(m) for m in manifests)}],
                                                        union_by_name=true, maximum_object_size=67108864)
        """)
    else:
        con.execute("CREATE VIEW runs AS SELECT NULL::VARCHAR AS run_id WHERE false")
    return con


def columns(con: Any, view: str) -> list[tuple[str, str]]:
    """(name, type) of a view's columns."""
    return [(row[0], row[1]) for row in con.execute(f"DESCRIBE {view}").fetchall()]


def run_query(sql: str, runs: Iterable[str | Path] = (), root: str | Path = "runs") -> tuple[list[str], list[tuple]]:
    """Column names and rows of `sql` over the views; SQL mistakes are user errors with DuckDB's line."""
    import duckdb

    from rtarena.limits import LIMITS, limit_message

    con = connect(run_dirs(runs, root))
    cap = int(LIMITS["query.rows"].value)
    try:
        cursor = con.execute(sql)
        names = [d[0] for d in cursor.description or []]
        rows = cursor.fetchmany(cap + 1)  # never more than the limit in memory: a cross join prints one line
    except duckdb.Error as error:
        raise UserError(str(error).splitlines()[0], field="SQL") from None
    if len(rows) > cap:
        raise UserError(f"the result {limit_message('query.rows')}; add LIMIT, or aggregate", field="SQL")
    return names, rows
