"""A small HTTP server bound to 127.0.0.1 that serves the task pages bundled in the package.

One server per process, started on first use in a daemon thread on a free port. Pages load their
scripts by relative URL, so the same files also open in a person's browser from this server.
"""

from __future__ import annotations

import functools
import http.server
import os
import threading
from pathlib import Path
from typing import ClassVar

PAGES_DIR = Path(__file__).with_name("pages")


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args) -> None:
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()


class PageServer:
    """Serves `PAGES_DIR`; `url(path)` is the address of one page."""

    _instance: ClassVar[PageServer | None] = None
    _lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, root: Path = PAGES_DIR) -> None:
        handler = functools.partial(_QuietHandler, directory=str(root))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.pid = os.getpid()
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="rtarena-pages", daemon=True)
        self.thread.start()

    @classmethod
    def shared(cls) -> PageServer:
        """The process's server; a forked worker starts its own (the parent's thread did not come along)."""
        with cls._lock:
            if cls._instance is None or cls._instance.pid != os.getpid():
                cls._instance = cls()
            return cls._instance

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}/{path.lstrip('/')}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
