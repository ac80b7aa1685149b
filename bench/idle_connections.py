"""How the dashboard answers while N clients hold connections open doing nothing (issue 29).

N connections are opened to a dashboard over an empty root; half of them send the start of a request and
stop (slow clients), half send nothing. The figures: the time of a normal page request and of an API
request made then, the process's thread count and the connections the server holds. Before the shared
server base each connection held a thread; 1,000 idle connections held 1,993. Now each is a socket on
uvicorn's event loop (`webapp.py`).

    .venv/bin/python bench/idle_connections.py [--connections 1000]
"""

from __future__ import annotations

import argparse
import socket
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from rtarena.dashboard.server import make_app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as root, make_app(Path(root)) as app:
        idle = [socket.create_connection(("127.0.0.1", app.port)) for _ in range(args.connections)]
        for sock in idle[: len(idle) // 2]:
            sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1")
        time.sleep(0.5)
        started = time.monotonic()
        with urllib.request.urlopen(app.url, timeout=5) as answer:
            answer.read()
        page_s = time.monotonic() - started
        started = time.monotonic()
        request = urllib.request.Request(app.url + "api/runs", headers={"X-Rtarena-Token": app.token})
        with urllib.request.urlopen(request, timeout=5) as answer:
            answer.read()
        api_s = time.monotonic() - started
        print(f"{args.connections} idle connections (half mid-request): page {page_s * 1000:.1f} ms, "
              f"API {api_s * 1000:.1f} ms; {threading.active_count()} threads in the process")
        for sock in idle:
            sock.close()


if __name__ == "__main__":
    main()
