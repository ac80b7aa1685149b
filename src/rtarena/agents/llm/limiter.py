"""Endpoint limits shared by every worker of a run: connections, request and token budgets, replica pools.

A provider limits a run, not a process: a run of eight worker processes (or eight Ray nodes) against one
endpoint must hold `max_connections=2` together. So every model call of a limited endpoint asks one
`Limiter` for a slot before it is sent and hands it back after, and a run has exactly one `Limiter`:

- in one process (`--workers 1`, a client outside a run): a `Limiter` of this process;
- a local pool: `LimiterService`, a small TCP service the driver starts on 127.0.0.1 (its address in the
  `RTARENA_LIMITER` environment variable the workers inherit, `tcp://127.0.0.1:PORT`). A slot is held by
  an open connection: a worker that dies with a slot frees it when the kernel closes its socket;
- Ray: a named Ray actor holding the `Limiter` (`RTARENA_LIMITER=ray:NAME`, set on every task), reachable
  from every node of the cluster.

The run's limits per endpoint (an experiment file's `endpoints` table merged with the specs') travel in
`RTARENA_ENDPOINT_LIMITS` (JSON), so a spec without limits of its own still asks for a slot.

The limits (`EndpointLimits`, per endpoint: a spec's `@BASE_URL`, or `@URL1|URL2|...` for a pool):

- `max_connections`: requests in flight at once on each base URL of the endpoint;
- `adaptive`: `max_connections` (default `ADAPTIVE_CEILING`) is a ceiling; the limit starts at half of it,
  halves on a 429 and grows by one after as many successes in a row as the limit (additive increase,
  multiplicative decrease, as TCP does);
- `rpm`, `tpm`: requests and tokens (in + out) started in any 60 s window, for the whole endpoint; a
  request's tokens are estimated when it starts (prompt + `max_tokens`) and corrected when it ends;
- `replicas`: more base URLs serving the same model; each request goes to the least-loaded one. A replica
  whose requests fail `DRAIN_AFTER` times in a row (connection refused, 5xx, timeout) is drained: no request
  goes to it for `DRAIN_S` seconds (doubling each time it fails again, up to `DRAIN_MAX_S`), then one probe
  request does; a success puts it back.

A grant says which base URL to use and how long the request waited for its slot (`waited_s`, recorded on
its decision as `queue_wait_s`, apart from the request's latency).
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import socket
import socketserver
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from pydantic import Field

from rtarena.schema import Flag, PosFloat, PosInt, Section

ENV_VAR = "RTARENA_LIMITER"
LIMITS_VAR = "RTARENA_ENDPOINT_LIMITS"  # the run's limits per endpoint (JSON), for specs that set none themselves
WINDOW_S = 60.0  # rpm / tpm window
ADAPTIVE_CEILING = 10  # Inspect's default max_connections: adaptive's ceiling when none is given
DRAIN_AFTER = 3  # failures in a row that drain a replica
DRAIN_S, DRAIN_MAX_S = 5.0, 120.0
SLICE_S = 0.5  # a remote acquire waits at most this long per round trip (so abandonment is seen)
LEASE_MARGIN_S = 30.0  # a slot unreleased this long past its request's deadline is taken back (Ray: a lost task)
# Outcomes that count against a replica; `lost` (the slot's holder died) says nothing about it.
FAILING = ("http_5", "connection", "timeout", "garbage", "stream_cut")


class EndpointLimits(Section):
    """The limits of one endpoint (see the module docstring); every field optional."""

    max_connections: PosInt | None = Field(None, description="requests in flight at once per base URL")
    adaptive: Flag = Field(False, description="back off on 429, grow while the endpoint keeps up")
    rpm: PosFloat | None = Field(None, description="requests started per minute, whole endpoint")
    tpm: PosFloat | None = Field(None, description="tokens (in + out) per minute, whole endpoint")
    replicas: tuple[str, ...] = Field((), description="more base URLs serving the same model")

    def merged(self, other: EndpointLimits | None) -> EndpointLimits:
        """These limits with `other`'s given fields on top (an experiment file's entry over a spec's)."""
        if other is None:
            return self
        given = other.model_dump(exclude_unset=True)
        replicas = tuple(dict.fromkeys((*self.replicas, *given.pop("replicas", ()))))
        return self.model_copy(update={**given, "replicas": replicas})

    @property
    def limited(self) -> bool:
        return bool(self.max_connections or self.adaptive or self.rpm or self.tpm or self.replicas)

    def ceiling(self) -> int | None:
        return self.max_connections or (ADAPTIVE_CEILING if self.adaptive else None)


@dataclass
class Replica:
    url: str
    limit: int | None  # current connection limit (None: unlimited)
    ceiling: int | None
    adaptive: bool = False
    in_flight: int = 0
    served: int = 0
    successes: int = 0  # in a row, for adaptive growth
    failures: int = 0  # in a row, for draining
    drains: int = 0
    drained_until: float = 0.0
    probing: bool = False

    def usable(self, now: float) -> bool:
        if self.drained_until > now:
            return False
        if self.drains and self.failures >= DRAIN_AFTER:  # past its drain: one probe at a time
            return not self.probing
        return self.limit is None or self.in_flight < self.limit


@dataclass
class Endpoint:
    limits: EndpointLimits
    replicas: dict[str, Replica]
    window: deque = field(default_factory=deque)  # (started_at, ticket, tokens)
    waiting: int = 0
    grants: int = 0
    waited_s: float = 0.0  # summed over its grants


@dataclass(frozen=True)
class Grant:
    """A slot: which base URL to use, how long the request waited for it, and the ticket to release."""

    url: str
    waited_s: float
    ticket: int
    endpoint: str = ""
    held: Any = field(default=None, compare=False)  # the remote transport's open connection


class Limiter:
    """The shared state of every limited endpoint of a run (thread-safe; one per run)."""

    def __init__(self, configured: dict[str, EndpointLimits] | None = None) -> None:
        self.configured = dict(configured or {})
        self.endpoints: dict[str, Endpoint] = {}
        self.tickets: dict[int, tuple[str, str, int]] = {}  # ticket -> endpoint, url, tokens estimated
        self.leases: dict[int, float] = {}  # ticket -> when it is taken back unreleased (its holder is gone)
        self.next_ticket = 1
        self.cond = threading.Condition()

    def _endpoint(self, key: str, urls: tuple[str, ...], limits: EndpointLimits) -> Endpoint:
        found = self.endpoints.get(key)
        if found is None:
            limits = limits.merged(self.configured.get(key))
            ceiling = limits.ceiling()
            start = max(1, ceiling // 2) if limits.adaptive and ceiling else ceiling
            every = tuple(dict.fromkeys((*urls, *limits.replicas)))
            found = Endpoint(limits, {u: Replica(u, start, ceiling, limits.adaptive) for u in every})
            self.endpoints[key] = found
        return found

    def acquire(self, key: str, urls: tuple[str, ...], limits: EndpointLimits, tokens: int = 0,
                timeout: float | None = None, lease_s: float | None = None) -> Grant | None:
        """Wait for a slot (at most `timeout` seconds; None: as long as it takes); None when none came. A slot
        not released within `lease_s` (the request's own deadline, with a margin) is taken back: its holder
        died (a Ray node lost with its task)."""
        start = time.monotonic()
        deadline = start + timeout if timeout is not None else None
        with self.cond:
            endpoint = self._endpoint(key, urls, limits)
            endpoint.waiting += 1
            try:
                while True:
                    now = time.monotonic()
                    for ticket in [t for t, until in self.leases.items() if until < now]:
                        self.release(ticket, "lost")
                    replica, wait = self._choose(endpoint, tokens, now)
                    if replica is not None:
                        grant = self._grant(key, endpoint, replica, tokens, start, now)
                        if lease_s is not None:
                            self.leases[grant.ticket] = now + lease_s
                        return grant
                    if deadline is not None:
                        if now >= deadline:
                            return None
                        wait = min(wait, deadline - now)
                    self.cond.wait(wait)
            finally:
                endpoint.waiting -= 1

    def _choose(self, endpoint: Endpoint, tokens: int, now: float) -> tuple[Replica | None, float]:
        """The least-loaded usable replica if the budgets allow a request now, else how long to wait."""
        window = endpoint.window
        while window and window[0][0] <= now - WINDOW_S:
            window.popleft()
        limits = endpoint.limits
        budget_wait = window[0][0] + WINDOW_S - now if window else 1.0
        if limits.rpm and len(window) >= limits.rpm:
            return None, budget_wait
        if limits.tpm and window and sum(t for _, _, t in window) + tokens > limits.tpm:
            return None, budget_wait
        usable = [r for r in endpoint.replicas.values() if r.usable(now)]
        if not usable:
            drained = [r.drained_until - now for r in endpoint.replicas.values() if r.drained_until > now]
            return None, max(0.01, min(drained, default=1.0))
        return min(usable, key=lambda r: (r.in_flight / (r.limit or 1), r.in_flight, r.served)), 1.0

    def _grant(self, key: str, endpoint: Endpoint, replica: Replica, tokens: int, start: float,
               now: float) -> Grant:
        ticket = self.next_ticket
        self.next_ticket += 1
        replica.in_flight += 1
        replica.served += 1
        if replica.drains and replica.failures >= DRAIN_AFTER:
            replica.probing = True
        endpoint.window.append((now, ticket, tokens))
        self.tickets[ticket] = (key, replica.url, tokens)
        waited = now - start
        endpoint.grants += 1
        endpoint.waited_s += waited
        return Grant(replica.url, waited, ticket, key)

    def release(self, ticket: int, outcome: str = "ok", tokens: int | None = None) -> None:
        """Hand a slot back with the request's outcome (`ok` or its failure kind) and its actual tokens."""
        with self.cond:
            held = self.tickets.pop(ticket, None)
            self.leases.pop(ticket, None)
            if held is None:
                return
            key, url, estimated = held
            endpoint = self.endpoints[key]
            replica = endpoint.replicas[url]
            replica.in_flight -= 1
            replica.probing = False
            if tokens is not None and tokens != estimated:
                endpoint.window = deque((t, k, tokens if k == ticket else n) for t, k, n in endpoint.window)
            self._learn(replica, outcome, time.monotonic())
            self.cond.notify_all()

    @staticmethod
    def _learn(replica: Replica, outcome: str, now: float) -> None:
        if outcome == "ok":
            replica.failures = 0
            replica.drains = 0
            replica.successes += 1
            if replica.adaptive and replica.limit and replica.ceiling and replica.successes >= replica.limit:
                replica.limit = min(replica.ceiling, replica.limit + 1)
                replica.successes = 0
            return
        replica.successes = 0
        if outcome.startswith("http_429"):
            if replica.adaptive and replica.limit:
                replica.limit = max(1, replica.limit // 2)
            return
        if outcome.startswith(FAILING):
            replica.failures += 1
            if replica.failures >= DRAIN_AFTER:
                replica.drained_until = now + min(DRAIN_MAX_S, DRAIN_S * 2 ** replica.drains)
                replica.drains += 1

    def stats(self) -> dict[str, Any]:
        """Per endpoint: each replica's state and the waits so far (for a run's report and the tests)."""
        with self.cond:
            return {key: {"replicas": {u: {"limit": r.limit, "in_flight": r.in_flight, "served": r.served,
                                           "drains": r.drains} for u, r in e.replicas.items()},
                          "grants": e.grants, "waited_s": e.waited_s}
                    for key, e in self.endpoints.items()}


# -- the local service -------------------------------------------------------------------------------

class _Handler(socketserver.StreamRequestHandler):
    """One connection: `acquire` (held until `release` or the connection ends), or `stats`."""

    def handle(self) -> None:
        limiter: Limiter = self.server.limiter  # type: ignore[attr-defined]
        line = self.rfile.readline()
        if not line:
            return
        ask = json.loads(line)
        if ask.get("op") == "stats":
            self._send(limiter.stats())
            return
        grant = limiter.acquire(ask["key"], tuple(ask["urls"]), EndpointLimits(**ask["limits"]),
                                int(ask.get("tokens") or 0), ask.get("timeout"))  # held by the connection
        if grant is None:
            self._send({"grant": None})
            return
        try:
            self._send({"grant": {"url": grant.url, "waited_s": grant.waited_s, "ticket": grant.ticket}})
            done = self.rfile.readline()  # blocks while the request runs; EOF: the worker went away
            report = json.loads(done) if done else {"outcome": "lost"}
        except (OSError, ValueError):
            report = {"outcome": "lost"}
        limiter.release(grant.ticket, report.get("outcome", "ok"), report.get("tokens"))

    def _send(self, data: Any) -> None:
        self.wfile.write(json.dumps(data).encode() + b"\n")
        self.wfile.flush()


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


class LimiterService:
    """The run's `Limiter` behind a TCP port on 127.0.0.1, for the worker processes of a local pool."""

    def __init__(self, configured: dict[str, EndpointLimits] | None = None) -> None:
        self.limiter = Limiter(configured)
        self.server = _Server(("127.0.0.1", 0), _Handler)
        self.server.limiter = self.limiter  # type: ignore[attr-defined]
        self.address = f"tcp://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, name="rtarena-limiter", daemon=True)

    def __enter__(self) -> LimiterService:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()


class RemoteLimiter:
    """A worker's handle on the run's `LimiterService`."""

    def __init__(self, address: str) -> None:
        host, _, port = address.removeprefix("tcp://").rpartition(":")
        self.where = (host, int(port))

    def acquire(self, key: str, urls: tuple[str, ...], limits: EndpointLimits, tokens: int = 0,
                timeout: float | None = None, lease_s: float | None = None) -> Grant | None:
        conn = socket.create_connection(self.where)
        try:
            ask = {"op": "acquire", "key": key, "urls": list(urls), "limits": limits.model_dump(exclude_unset=True),
                   "tokens": tokens, "timeout": timeout}
            conn.sendall(json.dumps(ask).encode() + b"\n")
            reply = json.loads(conn.makefile("rb").readline() or b"{}").get("grant")
        except BaseException:
            conn.close()
            raise
        if reply is None:
            conn.close()
            return None
        return Grant(reply["url"], reply["waited_s"], reply["ticket"], key, held=conn)

    def release_grant(self, grant: Grant, outcome: str, tokens: int | None) -> None:
        with contextlib.suppress(OSError):
            grant.held.sendall(json.dumps({"outcome": outcome, "tokens": tokens}).encode() + b"\n")
        with contextlib.suppress(OSError):
            grant.held.close()

    def stats(self) -> dict[str, Any]:
        with socket.create_connection(self.where) as conn:
            conn.sendall(b'{"op": "stats"}\n')
            return json.loads(conn.makefile("rb").readline())


class RayLimiter:
    """A task's handle on the run's limiter actor (Ray runs): the same calls, through the actor."""

    def __init__(self, name: str) -> None:
        import ray

        self.ray = ray
        self.actor = ray.get_actor(name)

    def acquire(self, key: str, urls: tuple[str, ...], limits: EndpointLimits, tokens: int = 0,
                timeout: float | None = None, lease_s: float | None = None) -> Grant | None:
        reply = self.ray.get(self.actor.acquire.remote(key, urls, limits.model_dump(exclude_unset=True), tokens,
                                                       timeout, lease_s))
        return None if reply is None else Grant(reply[0], reply[1], reply[2], key)

    def release_grant(self, grant: Grant, outcome: str, tokens: int | None) -> None:
        self.actor.release.remote(grant.ticket, outcome, tokens)  # no need to wait for it

    def stats(self) -> dict[str, Any]:
        return self.ray.get(self.actor.stats.remote())


class LimiterActor:
    """The Ray actor's body (started by the Ray backend with enough concurrency for every waiting call)."""

    def __init__(self, configured: dict[str, dict[str, Any]]) -> None:
        self.limiter = Limiter({k: EndpointLimits(**v) for k, v in configured.items()})

    def acquire(self, key: str, urls: tuple[str, ...], limits: dict[str, Any], tokens: int,
                timeout: float | None, lease_s: float | None = None) -> tuple[str, float, int] | None:
        grant = self.limiter.acquire(key, tuple(urls), EndpointLimits(**limits), tokens, timeout, lease_s)
        return None if grant is None else (grant.url, grant.waited_s, grant.ticket)

    def release(self, ticket: int, outcome: str, tokens: int | None) -> None:
        self.limiter.release(ticket, outcome, tokens)

    def stats(self) -> dict[str, Any]:
        return self.limiter.stats()


class LocalLimiter(Limiter):
    """This process's limiter (no service running): grants are released in place."""

    def release_grant(self, grant: Grant, outcome: str, tokens: int | None) -> None:
        self.release(grant.ticket, outcome, tokens)


_local = LocalLimiter()
_remote: dict[str, Any] = {}


def run_limits_for(key: str) -> EndpointLimits | None:
    """The run's limits of one endpoint (`RTARENA_ENDPOINT_LIMITS`), or None."""
    found = _run_limits(os.environ.get(LIMITS_VAR, "")).get(key)
    return None if found is None else EndpointLimits(**found)


@functools.cache
def _run_limits(text: str) -> dict[str, Any]:
    return json.loads(text) if text else {}


def shared_limiter() -> Any:
    """The run's limiter as this process reaches it: `RTARENA_LIMITER`'s service or actor, else this
    process's own."""
    address = os.environ.get(ENV_VAR, "")
    if not address:
        return _local
    if address not in _remote:
        _remote[address] = RayLimiter(address.removeprefix("ray:")) if address.startswith("ray:") \
            else RemoteLimiter(address)
    return _remote[address]
