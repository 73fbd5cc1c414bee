"""A local server for the Databricks Files API endpoints the record store uses, on 127.0.0.1.

It implements what the public REST reference documents (REST API 2.0, "Files"), over a temp
folder; the real API was never reached from these tests:

- ``PUT /api/2.0/fs/files/<path>?overwrite=false|true``: the body becomes the file, whole
  (written aside, then linked into place); with ``overwrite=false`` an existing file answers
  409 ``ALREADY_EXISTS``; parent directories are created; 204 on success;
- ``GET /api/2.0/fs/files/<path>``: the bytes (``Content-Length``), 404 ``NOT_FOUND``;
- ``GET /api/2.0/fs/directories/<path>[?page_token=]``: ``{"contents": [{"path", "name",
  "is_directory", "file_size", "last_modified"}], "next_page_token"}``, :data:`PAGE` entries a
  page, 404 for a missing directory.

Every request must carry ``Authorization: Bearer <token>`` (else 401).
"""
from __future__ import annotations

import json
import os
import tempfile
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

PAGE = 7  # small, so the tests page through listings
FILES, DIRS = "/api/2.0/fs/files/", "/api/2.0/fs/directories/"


class FilesApiServer:
    def __init__(self, root: Path, token: str = "local-token") -> None:
        self.root, self.token = root, token
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                server.handle(self)

            do_PUT = do_GET

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.http.daemon_threads = True
        self.port = int(self.http.server_address[1])
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    @property
    def host(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        self.http.shutdown()
        self.http.server_close()

    def handle(self, h: BaseHTTPRequestHandler) -> None:
        length = int(h.headers.get("Content-Length") or 0)
        body = h.rfile.read(length) if length else b""
        if h.headers.get("Authorization") != f"Bearer {self.token}":
            return _json(h, 401, {"error_code": "UNAUTHENTICATED", "message": "bad token"})
        parts = urllib.parse.urlsplit(h.path)
        query = dict(urllib.parse.parse_qsl(parts.query))
        path = urllib.parse.unquote(parts.path)
        for api in (FILES, DIRS):
            if path.startswith(api):
                local = self.root / path[len(api):].strip("/")
                if ".." in Path(path).parts:
                    return _json(h, 400, {"error_code": "INVALID_PARAMETER_VALUE", "message": "bad path"})
                if api == FILES and h.command == "PUT":
                    return self._put(h, local, body, query.get("overwrite", "false") == "true")
                if api == FILES:
                    return self._get(h, local)
                return self._list(h, path[len(api) - 1:].rstrip("/"), local, query.get("page_token", ""))
        _json(h, 404, {"error_code": "ENDPOINT_NOT_FOUND", "message": path})

    def _put(self, h: BaseHTTPRequestHandler, local: Path, body: bytes, overwrite: bool) -> None:
        local.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=local.parent, prefix=".upload-")
        with os.fdopen(fd, "wb") as handle:
            handle.write(body)
        try:
            if overwrite:
                os.replace(temp, local)
            else:
                os.link(temp, local)  # whole or not at all; of two uploads exactly one wins
        except FileExistsError:
            return _json(h, 409, {"error_code": "ALREADY_EXISTS", "message": "The file being created already exists."})
        finally:
            if os.path.exists(temp):
                os.unlink(temp)
        h.send_response(204)
        h.send_header("Content-Length", "0")
        h.end_headers()

    def _get(self, h: BaseHTTPRequestHandler, local: Path) -> None:
        if not local.is_file():
            return _json(h, 404, {"error_code": "NOT_FOUND", "message": "The file does not exist."})
        data = local.read_bytes()
        h.send_response(200)
        h.send_header("Content-Type", "application/octet-stream")
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)

    def _list(self, h: BaseHTTPRequestHandler, path: str, local: Path, token: str) -> None:
        if not local.is_dir():
            return _json(h, 404, {"error_code": "NOT_FOUND", "message": "The directory does not exist."})
        names = sorted(n for n in os.listdir(local) if not n.startswith(".upload-"))
        start = int(token or 0)
        contents = []
        for name in names[start:start + PAGE]:
            st = (local / name).stat()
            directory = (local / name).is_dir()
            entry: dict[str, Any] = {"path": f"{path}/{name}" + ("/" if directory else ""), "name": name,
                                     "is_directory": directory}
            if not directory:
                entry.update(file_size=st.st_size, last_modified=st.st_mtime_ns // 1_000_000)
            contents.append(entry)
        doc: dict[str, Any] = {"contents": contents}
        if start + PAGE < len(names):
            doc["next_page_token"] = str(start + PAGE)
        _json(h, 200, doc)


def _json(h: BaseHTTPRequestHandler, status: int, doc: dict[str, Any]) -> None:
    data = json.dumps(doc).encode()
    h.send_response(status)
    h.send_header("Content-Type", "application/json")
    h.send_header("Content-Length", str(len(data)))
    h.end_headers()
    h.wfile.write(data)
