"""A small OpenAI-compatible server on 127.0.0.1 that counts the requests in flight at once.

Each chat completion waits `hold_s`, then streams `reply` and a usage chunk (`tokens_in`, `tokens_out`,
`cached`). `status` answers every request with that HTTP status instead (`retry_after` on a 429), its body
`error_body` (OpenAI's shape unless given), and
`stream_error` sends an error event inside the stream, as `transformers serve` does. Not a policy:
the tests of endpoint limits need only to count and to answer.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class CountingServer:
    def __init__(self, hold_s: float = 0.2, reply: str = "ACTION: 0", tokens_in: int = 100, tokens_out: int = 10,
                 cached: int = 0, status: int = 200, stream_error: str | None = None,
                 error_body: dict | None = None) -> None:
        self.hold_s, self.reply, self.status, self.stream_error = hold_s, reply, status, stream_error
        self.error_body = error_body
        self.usage = {"prompt_tokens": tokens_in, "completion_tokens": tokens_out,
                      "total_tokens": tokens_in + tokens_out, "prompt_tokens_details": {"cached_tokens": cached}}
        self.lock = threading.Lock()
        self.in_flight = self.most = self.requests = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length") or 0))
                with outer.lock:
                    outer.in_flight += 1
                    outer.requests += 1
                    outer.most = max(outer.most, outer.in_flight)
                try:
                    time.sleep(outer.hold_s)
                    outer.answer(self)
                finally:
                    with outer.lock:
                        outer.in_flight -= 1

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def answer(self, handler: BaseHTTPRequestHandler) -> None:
        if self.status != 200:
            shape = self.error_body or {"error": {"message": f"status {self.status}", "type": "test"}}
            body = json.dumps(shape).encode()
            handler.send_response(self.status)
            handler.send_header("content-type", "application/json")
            handler.send_header("content-length", str(len(body)))
            if self.status == 429:
                handler.send_header("retry-after", "0.05")
            handler.end_headers()
            handler.wfile.write(body)
            return
        chunk = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m"}
        events = [{**chunk, "choices": [{"index": 0, "delta": {"role": "assistant", "content": self.reply},
                                         "finish_reason": None}]}]
        if self.stream_error:
            events.append({"error": self.stream_error})  # as `transformers serve` sends it (vLLM: an object)
        else:
            events += [{**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
                       {**chunk, "choices": [], "usage": self.usage}]
        body = b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events) + b"data: [DONE]\n\n"
        handler.send_response(200)
        handler.send_header("content-type", "text/event-stream")
        handler.send_header("content-length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    def __enter__(self) -> CountingServer:
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
