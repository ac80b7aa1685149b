"""The policy server's throughput: completed streaming chat requests per second with N concurrent clients.

`rtarena serve-policy` runs in its own process; N clients (asyncio, httpx, one keep-alive connection
each) send streaming chat completions (`stream: true`, usage included, 16 unpaced filler tokens) back to
back for `--seconds`, reading every event to `[DONE]`. The figure is completed requests per second, and
the median and 95th percentile of one request's time. Issue 46 measured it before and after the move of
every local server to Starlette + uvicorn.

    .venv/bin/python bench/policy_server_throughput.py [--clients 100] [--seconds 10]
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import statistics
import subprocess
import sys
import time

import httpx


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def client(base: str, until: float, times: list[float]) -> None:
    body = {"model": "scripted-heuristic", "stream": True, "stream_options": {"include_usage": True},
            "messages": [{"role": "user", "content": "hello"}]}
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        while time.monotonic() < until:
            started = time.monotonic()
            async with http.stream("POST", "/s/filler_tokens=16/v1/chat/completions", json=body) as reply:
                assert reply.status_code == 200, reply.status_code
                done = False
                async for line in reply.aiter_lines():
                    done = done or line == "data: [DONE]"
            assert done, "a stream ended without [DONE]"
            times.append(time.monotonic() - started)


async def measure(base: str, clients: int, seconds: float) -> list[float]:
    times: list[float] = []
    until = time.monotonic() + seconds
    await asyncio.gather(*(client(base, until, times) for _ in range(clients)))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "rtarena.cli", "serve-policy", "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(300):
            try:
                httpx.get(base + "/health", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        asyncio.run(measure(base, args.clients, 1.0))  # warm up
        started = time.monotonic()
        times = asyncio.run(measure(base, args.clients, args.seconds))
        wall = time.monotonic() - started
        times.sort()
        print(f"{args.clients} concurrent streaming clients, {wall:.1f} s: {len(times) / wall:.0f} requests/s; "
              f"one request median {statistics.median(times) * 1000:.1f} ms, "
              f"p95 {times[int(0.95 * (len(times) - 1))] * 1000:.1f} ms")
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
