"""Wall clock: the env loop's period error at dt = 40 ms while 16 controllers each wait on a real HTTP
request to a local server (20-120 ms per answer).

    .venv/bin/python bench/runtime_wall_jitter.py [--controllers 16] [--dt 0.04] [--steps 750]
"""

from __future__ import annotations

import argparse
import random
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np

import rtarena
from _envs import IdleEnv


class SlowHandler(BaseHTTPRequestHandler):
    def do_GET(self):
        time.sleep(random.uniform(0.02, 0.12))
        body = b"2"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class HttpController(rtarena.Agent):
    """Decides by asking the local server, like a model client waiting on its endpoint."""

    def __init__(self, url: str) -> None:
        self.url = url

    def act(self, observation):
        with urllib.request.urlopen(self.url, timeout=5) as answer:
            return rtarena.Decision(action=int(answer.read()))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--controllers", type=int, default=16)
    parser.add_argument("--dt", type=float, default=0.04)
    parser.add_argument("--steps", type=int, default=750)
    args = parser.parse_args()

    server = ThreadingHTTPServer(("127.0.0.1", 0), SlowHandler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/act"

    env = IdleEnv(args.controllers, args.dt)
    agents = [HttpController(url) for _ in range(args.controllers)]
    result = rtarena.run_match(env, agents, clock="wall", max_steps=args.steps)
    server.shutdown()

    errors_ms = np.array([s.period_error_s for s in result.steps]) * 1000
    latencies = np.array([d.wall_latency_s for d in result.decisions]) * 1000
    print(f"wall clock, dt = {args.dt * 1000:.0f} ms, {args.controllers} HTTP controllers, {args.steps} steps "
          f"({result.wall_seconds:.1f} s)")
    print(f"  period error  P50 {np.percentile(errors_ms, 50):.3f} ms   P99 {np.percentile(errors_ms, 99):.3f} ms"
          f"   max {errors_ms.max():.3f} ms   (target P99 < 2 ms)")
    print(f"  decisions     {len(result.decisions)} ({len(result.decisions) / result.wall_seconds:.0f}/s), "
          f"HTTP latency P50 {np.percentile(latencies, 50):.0f} ms")
    overrun = (result.wall_seconds - args.steps * args.dt) * 1000
    print(f"  episode wall time - steps x dt: {overrun:+.1f} ms (reset, thread start and shutdown included)")


if __name__ == "__main__":
    main()
