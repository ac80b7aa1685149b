"""Where episode jobs run: in this process, in a local process pool, or on a Ray cluster.

A backend takes jobs (`submit`) and hands back `(job, payload)` pairs as they finish (`poll`); a payload
is what `execute_job` returns. Backends never write to the run folder: the driver does, one episode at
a time, so a worker that dies (or a Ray node on another machine) cannot leave half an episode behind.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from rtarena.errors import UserError
from rtarena.eval.episodes import EpisodeJob, execute_job

Finished = list[tuple[EpisodeJob, dict[str, Any]]]


def execute_with(job: EpisodeJob, env: dict[str, str]) -> dict[str, Any]:
    """A Ray task: the job, run with the driver's variables for it (a node does not inherit its environment)."""
    os.environ.update(env)
    payload = execute_job(job)
    if payload.get("ok"):
        payload["outcome"].records_as_files(job.key)
    return payload


def crashed(job: EpisodeJob, error: str) -> dict[str, Any]:
    return {"key": job.key, "ok": False, "error": error, "traceback": "", "worker": {}}


class InlineBackend:
    """One job at a time in this process (`--workers 1`): simplest to debug, no start-up cost."""

    name = "inline"

    def __init__(self) -> None:
        self.queue: list[EpisodeJob] = []
        self.workers = 1

    def describe(self) -> dict[str, Any]:
        return {"backend": self.name, "workers": 1}

    def submit(self, job: EpisodeJob) -> None:
        self.queue.append(job)

    def poll(self, timeout: float) -> Finished:
        if not self.queue:
            return []
        job = self.queue.pop(0)
        return [(job, execute_job(job))]

    def close(self) -> None:
        self.queue.clear()


PR_SET_PDEATHSIG = 1  # linux/prctl.h


def die_with_parent(parent_pid: int) -> None:
    """Pool worker initializer: end this worker when the driver ends, however it ends (even SIGKILL).

    On Linux the kernel sends SIGKILL when the parent dies (`prctl(PR_SET_PDEATHSIG)`); everywhere a
    daemon thread also polls the parent's pid and exits the process when it has changed."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent_pid:  # the parent died before the line above ran
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent_pid,), name="rtarena-parent-watch", daemon=True).start()


def _watch_parent(parent_pid: int, every_s: float = 1.0) -> None:
    while os.getppid() == parent_pid:
        time.sleep(every_s)
    os._exit(1)


class PoolBackend:
    """A local pool of worker processes (spawned, so no thread or lock of the driver leaks into them)."""

    name = "pool"

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.context = multiprocessing.get_context("spawn")
        self.pool = self._new_pool()
        self.futures: dict[Future, EpisodeJob] = {}

    def describe(self) -> dict[str, Any]:
        return {"backend": self.name, "workers": self.workers}

    def submit(self, job: EpisodeJob) -> None:
        self.futures[self.pool.submit(execute_job, job)] = job

    def poll(self, timeout: float) -> Finished:
        if not self.futures:
            return []
        done, _ = wait(list(self.futures), timeout=timeout, return_when=FIRST_COMPLETED)
        out: Finished = []
        broken = False
        for future in done:
            job = self.futures.pop(future)
            try:
                out.append((job, future.result()))
            except BrokenProcessPool as error:
                broken = True
                out.append((job, crashed(job, f"worker process died: {error}")))
            except Exception as error:  # e.g. a payload that could not be pickled back
                out.append((job, crashed(job, f"{type(error).__name__}: {error}")))
        if broken:  # every job still in the broken pool is lost with it: record them, start a new pool
            for job in list(self.futures.values()):
                out.append((job, crashed(job, "worker process died (pool broken by another episode)")))
            self.futures.clear()
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = self._new_pool()
        return out

    def _new_pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=self.workers, mp_context=self.context,
                                   initializer=die_with_parent, initargs=(os.getpid(),))

    def close(self) -> None:
        """Shut the pool down; episodes still in flight (an interrupted run) are stopped now, not awaited:
        a wall-clock episode could otherwise hold the exit for minutes."""
        workers = list((getattr(self.pool, "_processes", None) or {}).values()) if self.futures else []
        self.pool.shutdown(wait=False, cancel_futures=True)
        for process in workers:
            process.terminate()
        self.futures.clear()


class RayBackend:
    """The same jobs as Ray tasks. `address="local"` starts a private local cluster; anything else
    (`auto`, `HOST:PORT`, `ray://HOST:PORT`) joins an existing one."""

    name = "ray"

    def __init__(self, address: str = "local", workers: int | None = None) -> None:
        try:
            import ray
        except ImportError:
            raise UserError("--ray needs Ray (pip install 'rtarena[ray]')", field="--ray") from None
        self.ray = ray
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        kwargs: dict[str, Any] = {"log_to_driver": False, "configure_logging": False}
        if address == "local":
            kwargs.update(num_cpus=workers or os.cpu_count(), include_dashboard=False,
                          object_store_memory=256 * 1024 * 1024)
        try:
            ray.init(address=address, **kwargs)
        except (ConnectionError, ValueError, RuntimeError) as error:
            raise UserError(f"cannot reach a Ray cluster at {address!r}: {error}".splitlines()[0],
                            field="--ray") from None
        self.address = address
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.workers = workers or max(1, cpus)
        self.remote = ray.remote(num_cpus=1, max_retries=0)(execute_with)
        self.refs: dict[Any, EpisodeJob] = {}
        self.env: dict[str, str] = {}  # set on every task (the run's shared limiter, eval/endpoints.py)

    def describe(self) -> dict[str, Any]:
        nodes = [n for n in self.ray.nodes() if n.get("Alive")]
        return {"backend": self.name, "address": self.address, "workers": self.workers, "nodes": len(nodes),
                "cluster_cpus": self.ray.cluster_resources().get("CPU")}

    def submit(self, job: EpisodeJob) -> None:
        self.refs[self.remote.remote(job, self.env)] = job

    def poll(self, timeout: float) -> Finished:
        if not self.refs:
            return []
        ready, _ = self.ray.wait(list(self.refs), num_returns=1, timeout=timeout)
        out: Finished = []
        for ref in ready:
            job = self.refs.pop(ref)
            try:
                out.append((job, self.ray.get(ref)))
            except Exception as error:  # a node or worker lost under the task
                out.append((job, crashed(job, f"{type(error).__name__}: {str(error).splitlines()[0]}")))
        return out

    def close(self) -> None:
        for ref in self.refs:
            self.ray.cancel(ref, force=True)
        self.refs.clear()
        self.ray.shutdown()


def make_backend(workers: int, ray_address: str | None) -> Any:
    if ray_address is not None:
        return RayBackend(ray_address, workers if workers > 0 else None)
    workers = workers if workers > 0 else (os.cpu_count() or 1)
    return InlineBackend() if workers == 1 else PoolBackend(workers)
