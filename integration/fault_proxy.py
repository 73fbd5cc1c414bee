"""An HTTP proxy on 127.0.0.1 that puts real faults between a client and an object-store server.

``proxy.inject(method, fault, times=1)`` makes the next ``times`` requests with that method
fail one way:

- ``"412"``, ``"409"``, ``"500"``: answer with that status, the request never reaches the server;
- ``"500-after"``: forward the request (it lands), then answer 500 (the answer is lost);
- ``"truncated"``: forward, then send the full headers and half of the body, and close.

Everything else is forwarded unchanged. ``proxy.seen`` counts the faults served;
``proxy.requests`` lists every request (method, path) in the order received.
"""
from __future__ import annotations

import http.client
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

HOP = {"connection", "keep-alive", "transfer-encoding", "proxy-connection", "upgrade"}


class FaultProxy:
    def __init__(self, upstream_port: int) -> None:
        self.upstream = upstream_port
        self.faults: list[tuple[str, str]] = []
        self.seen: Counter[str] = Counter()
        self.requests: list[tuple[str, str]] = []
        self._lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def _any(self) -> None:
                proxy._handle(self)

            do_GET = do_PUT = do_POST = do_HEAD = do_DELETE = _any

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = int(self.server.server_address[1])
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def inject(self, method: str, fault: str, times: int = 1) -> None:
        with self._lock:
            self.faults.extend([(method, fault)] * times)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _take(self, method: str) -> str | None:
        with self._lock:
            for i, (m, fault) in enumerate(self.faults):
                if m == method:
                    del self.faults[i]
                    self.seen[fault] += 1
                    return fault
        return None

    def _handle(self, h: BaseHTTPRequestHandler) -> None:
        length = int(h.headers.get("Content-Length") or 0)
        body = h.rfile.read(length) if length else b""
        with self._lock:
            self.requests.append((h.command, h.path))
        fault = self._take(h.command)
        if fault in ("412", "409", "500"):
            _answer(h, int(fault), b"<Error><Code>Injected</Code></Error>")
            return
        conn = http.client.HTTPConnection("127.0.0.1", self.upstream, timeout=30)
        headers = {k: v for k, v in h.headers.items() if k.lower() not in HOP}
        conn.request(h.command, h.path, body=body if body or h.command in ("PUT", "POST") else None,
                     headers=headers)
        answer = conn.getresponse()
        data = answer.read()
        conn.close()
        if fault == "500-after":
            _answer(h, 500, b"<Error><Code>InternalError</Code></Error>")
            return
        h.send_response(answer.status)
        for k, v in answer.getheaders():
            if k.lower() not in HOP and k.lower() != "content-length":
                h.send_header(k, v)
        h.send_header("Content-Length", str(len(data)))
        if fault == "truncated" and len(data) > 1:
            h.send_header("Connection", "close")
            h.end_headers()
            h.wfile.write(data[: len(data) // 2])
            h.wfile.flush()
            h.close_connection = True
            return
        h.end_headers()
        if h.command != "HEAD":
            h.wfile.write(data)


def _answer(h: BaseHTTPRequestHandler, status: int, body: bytes) -> None:
    h.send_response(status)
    h.send_header("Content-Type", "application/xml")
    h.send_header("Content-Length", str(len(body)))
    h.end_headers()
    h.wfile.write(body)
