"""What a run folder says about itself: the resolved config, the package versions, the machine.

`config.json` is written once, when the run starts, and is what `--resume` checks the experiment
against. `run.json` gains one entry under `sessions` per start or resume (when, which backend, which
command line), so a run resumed on another machine still says where each part ran.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import socket
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from rtarena.errors import UserError
from rtarena.eval.store import write_bytes
from rtarena.redact import redact_all

PACKAGES = ("rtarena", "numpy", "gymnasium", "pettingzoo", "pyarrow", "duckdb", "rich", "typer", "ray",
            "openai", "pygame-ce", "numba", "imageio-ffmpeg", "playwright")
CONFIG, RUN, LOCK = "config.json", "run.json", ".lock"


def package_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return versions


def machine_info() -> dict[str, Any]:
    memory = None
    with contextlib.suppress(ValueError, OSError, AttributeError):
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    cpu = platform.processor()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"hostname": socket.gethostname(), "platform": platform.platform(), "machine": platform.machine(),
            "cpu": cpu, "cpu_count": os.cpu_count(), "memory_bytes": memory, "python": sys.executable}


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _write_json(path: Path, data: dict[str, Any]) -> None:
    write_bytes(path, (json.dumps(redact_all(data), indent=2, sort_keys=True, default=str) + "\n").encode())


def read_json(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {}


def comparable(job: dict[str, Any]) -> dict[str, Any]:
    """What makes two episodes the same episode (whether a video is recorded does not)."""
    return {k: v for k, v in job.items() if k != "video"}


def start_session(run_dir: Path, run_id: str, config: dict[str, Any], jobs: list[dict[str, Any]],
                  backend: dict[str, Any], resume: bool) -> None:
    """Write `config.json` (new run) or check it (resume), and add this session to `run.json`."""
    config_path = run_dir / CONFIG
    stored = read_json(config_path)
    if resume and stored.get("jobs"):
        before = {j["key"]: comparable(j) for j in stored["jobs"]}
        for job in jobs:
            if job["key"] in before and before[job["key"]] != comparable(job):
                raise UserError(f"{run_dir} was started with a different experiment (episode {job['key']} "
                                "differs); run without --resume to start a new run", field="--resume")
        known = {j["key"] for j in jobs}
        jobs = jobs + [j for j in stored["jobs"] if j["key"] not in known]
    _write_json(config_path, {"run_id": run_id, "experiment": config, "jobs": jobs})
    manifest = read_json(run_dir / RUN) or {"run_id": run_id, "created": now(), "sessions": []}
    manifest.update(status="running", episodes_total=len(jobs), pid=os.getpid(), host=socket.gethostname())
    manifest["sessions"].append({"started": now(), "resume": resume, "backend": backend, "argv": sys.argv,
                                 "versions": package_versions(), "machine": machine_info()})
    manifest["versions"] = manifest["sessions"][-1]["versions"]
    manifest["machine"] = manifest["sessions"][-1]["machine"]
    manifest["experiment"] = config.get("name")
    _write_json(run_dir / RUN, manifest)


def finish_session(run_dir: Path, counts: dict[str, int], status: str) -> None:
    """Close this session in `run.json`: `status` is `finished` (every episode recorded) or `interrupted`."""
    manifest = read_json(run_dir / RUN)
    if manifest.get("sessions"):
        manifest["sessions"][-1].update({"finished": now(), "status": status, **counts})
        manifest["status"] = status
        _write_json(run_dir / RUN, manifest)


def run_state(run_dir: Path, recorded: int) -> str | None:
    """A line saying a run is incomplete ("stopped after N of M episodes"), or None when it is whole.

    A run whose `run.json` still says `running` is reported as running only while its process lives on
    this host; otherwise it was killed (SIGKILL, power loss) and stopped where its episodes end."""
    manifest = read_json(run_dir / RUN)
    total = manifest.get("episodes_total")
    if not isinstance(total, int) or recorded >= total:
        return None
    if still_running(manifest):
        return f"running: {recorded} of {total} episodes so far"
    return f"stopped after {recorded} of {total} episodes" + (
        " (interrupted)" if manifest.get("status") == "interrupted" else "")


def still_running(manifest: dict[str, Any]) -> bool:
    """Whether the run's driver is alive: `run.json` says `running` and its process lives on this host."""
    return (manifest.get("status") == "running" and manifest.get("host") == socket.gethostname()
            and _alive(manifest.get("pid")))


def _alive(pid: Any) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextlib.contextmanager
def run_lock(run_dir: Path, field: str = "--resume") -> Iterator[None]:
    """Hold the run folder's lock file while episodes are written, so that a second `rtarena run ...
    --resume` of the same run (or a second `rtarena findings` into the same `--out`: `field`) refuses with
    one line instead of racing on its files. The lock (`flock`) goes with the process, so a killed run
    leaves no stale lock behind."""
    import fcntl

    run_dir.mkdir(parents=True, exist_ok=True)
    handle = open(run_dir / LOCK, "a+")  # noqa: SIM115 (held open for the lock's lifetime)
    try:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise UserError(f"another rtarena process is writing {run_dir} (lock {run_dir / LOCK}); wait for it "
                            "to finish, or stop it", field=field) from None
        yield
    finally:
        handle.close()
