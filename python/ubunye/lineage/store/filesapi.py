"""Unity Catalog volumes through the Databricks Files API, where ``/Volumes`` is not mounted.

``dbfs:/Volumes/<catalog>/<schema>/<volume>/...`` off a cluster (no FUSE mount) with
``DATABRICKS_HOST`` and ``DATABRICKS_TOKEN`` set. The documented endpoints (REST API 2.0,
"Files"):

- ``PUT /api/2.0/fs/files/Volumes/...?overwrite=false``: upload a whole file, create-only
  (409 Conflict when the file exists): :meth:`FilesApiBlobs.put_new`;
- ``GET /api/2.0/fs/files/Volumes/...``: download (404 when absent);
- ``GET /api/2.0/fs/directories/Volumes/...``: list a directory
  (``contents[]``: ``path``, ``name``, ``is_directory``, ``file_size``, ``last_modified`` in
  milliseconds; ``next_page_token``).

Failures as for the object stores (:mod:`.objects`): a 5xx, a dropped connection or a timeout is
retried; a create whose answer was lost, or that meets a file, reads the file back and succeeds
only when it holds exactly these bytes; a file shorter than its ``Content-Length`` is read again.
Tested against a local server implementing these endpoints (``integration/files_api_server.py``);
the real API was not reached from this project's tests.
"""
from __future__ import annotations

import errno
import json
import os
import time
import urllib.parse
from datetime import datetime, timezone
from pathlib import Path
from typing import Union

from ubunye.lineage.store.blobs import (FILES_API, AlreadyExists, BlobError, BlobInfo, BlobNotFound, check_volume, held,
                                        register)
from ubunye.lineage.store.posix import PosixBlobs
from ubunye.masking import mask

ATTEMPTS = 4
TIMEOUT = 60.0


class FilesApiBlobs:
    """Files under one volume folder, through the Files API."""

    parallel_reads = 8

    def __init__(self, url: str, folder: str) -> None:
        host = os.environ.get("DATABRICKS_HOST", "").rstrip("/")
        if not host:
            raise BlobError(errno.EINVAL, "the Files API needs DATABRICKS_HOST and DATABRICKS_TOKEN", url)
        self.root = url.rstrip("/")
        self.folder = "/" + folder.strip("/")
        self.host = host if "://" in host else f"https://{host}"
        self._token = os.environ.get("DATABRICKS_TOKEN", "")

    def __repr__(self) -> str:
        return f"FilesApiBlobs({self.root!r})"

    def locate(self, key: str) -> str:
        return f"{self.root}/{key}" if key else self.root

    def _url(self, kind: str, key: str, query: dict[str, str] | None = None) -> str:
        path = urllib.parse.quote(f"{self.folder}/{key}".rstrip("/"))
        return f"{self.host}/api/2.0/fs/{kind}{path}" + (f"?{urllib.parse.urlencode(query)}" if query else "")

    def _call(self, method: str, url: str, data: bytes | None = None) -> tuple[int, bytes, dict[str, str]]:
        """(status, body, headers); raises OSError for a dropped connection or a timeout."""
        import http.client  # here, not at the top: every store imports this backend (blobs.register)
        import urllib.error
        import urllib.request

        headers = {"Authorization": f"Bearer {self._token}"}
        if data is not None:
            headers["Content-Type"] = "application/octet-stream"
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
                return answer.status, answer.read(), dict(answer.headers)
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read(), dict(exc.headers or {})
        except http.client.IncompleteRead as exc:
            raise BlobError(errno.EIO, f"the body of the answer was cut short ({len(exc.partial)} bytes)") from None

    def put_new(self, key: str, data: bytes) -> None:
        problem = ""
        for attempt in range(ATTEMPTS):
            try:
                status, body, _ = self._call("PUT", self._url("files", key, {"overwrite": "false"}), data)
            except OSError as exc:  # the answer was lost: did the file land?
                status, body = 0, str(exc).encode()
            if status in (200, 201, 204):
                return
            if status in (0, 409, 412) or status >= 500:  # lost, or refused: is the file there?
                there = self._there(key)
                if there == data:  # ours (an earlier attempt landed; its answer was lost)
                    return
                if there is not None:
                    raise AlreadyExists(errno.EEXIST, "already stored (records are written once)", self.locate(key))
                problem = _message(status, body)
                _pause(attempt)
                continue
            raise BlobError(errno.EIO, _message(status, body), self.locate(key))
        raise BlobError(errno.EIO, f"refused {ATTEMPTS} times and still absent: {problem}", self.locate(key))

    def _there(self, key: str) -> bytes | None:
        return held(self, key)

    def get(self, key: str) -> bytes:
        problem = ""
        for attempt in range(ATTEMPTS):
            try:
                status, body, headers = self._call("GET", self._url("files", key))
            except OSError as exc:
                problem = _one_line(exc)
                _pause(attempt)
                continue
            if status == 404:
                raise BlobNotFound(errno.ENOENT, "no such record", self.locate(key))
            if status != 200:
                problem = _message(status, body)
                if status >= 500:
                    _pause(attempt)
                    continue
                break
            size = {k.lower(): v for k, v in headers.items()}.get("content-length")
            if size is None or len(body) == int(size):
                return body
            problem = f"the file was cut short ({len(body)} of {size} bytes)"
        raise BlobError(errno.EIO, problem, self.locate(key))

    def listdir(self, prefix: str) -> tuple[list[BlobInfo], list[str]]:
        files: list[BlobInfo] = []
        folders: list[str] = []
        token = ""
        base = f"{prefix}/" if prefix else ""
        while True:
            doc = self._page(prefix, token)
            if doc is None:
                return files, folders
            for entry in doc.get("contents") or []:
                name = str(entry.get("name") or str(entry.get("path", "")).rstrip("/").rsplit("/", 1)[-1])
                if entry.get("is_directory"):
                    folders.append(name)
                else:
                    moment = datetime.fromtimestamp(int(entry.get("last_modified") or 0) / 1000, timezone.utc)
                    files.append(BlobInfo(base + name, int(entry.get("file_size") or 0), moment))
            token = str(doc.get("next_page_token") or "")
            if not token:
                return sorted(files, key=lambda b: b.key), sorted(folders)

    def _page(self, prefix: str, token: str) -> dict | None:
        problem = ""
        for attempt in range(ATTEMPTS):
            try:
                status, body, _ = self._call("GET", self._url("directories", prefix,
                                                             {"page_token": token} if token else None))
            except OSError as exc:
                problem = _one_line(exc)
                _pause(attempt)
                continue
            if status == 404:
                return None
            if status == 200:
                try:
                    return json.loads(body)
                except ValueError:
                    problem = "the listing is not JSON (cut short?)"
                    continue
            problem = _message(status, body)
            if status < 500:
                break
            _pause(attempt)
        raise BlobError(errno.EIO, problem, self.locate(prefix))


def _pause(attempt: int) -> None:
    time.sleep(min(0.02 * 2 ** attempt, 2.0))  # backoff between retries of a failed request


def _message(status: int, body: bytes) -> str:
    try:
        doc = json.loads(body)
        text = f"{doc.get('error_code', '')} {doc.get('message', '')}".strip()
    except (ValueError, AttributeError):
        text = body[:200].decode("utf-8", "replace")
    return _one_line(f"HTTP {status}: {text}" if status else text)


def _one_line(exc: object) -> str:
    return mask(" ".join(str(exc).split()))[:400]


def open_dbfs(where: Union[str, Path]) -> Union[FilesApiBlobs, PosixBlobs]:
    """``dbfs:/Volumes/...``: the volume's mount on a cluster, else (``DATABRICKS_HOST`` set) the Files API."""
    text = str(where)
    local = text[len("dbfs:"):]
    if check_volume(where) == FILES_API:  # off a cluster: the Files API
        return FilesApiBlobs(text, local)
    return PosixBlobs(Path(local), volume=True)


register("dbfs", open_dbfs, "dbfs:/Volumes")
