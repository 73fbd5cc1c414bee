"""The Files API backend (store/filesapi.py) with its HTTP call replaced by a scripted volume:
the URLs it asks for, its retries, listings and one-line refusals (the local server's tests are in
integration/test_store_backends.py)."""
from __future__ import annotations

import errno
import json
import threading
import urllib.request
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from ubunye.lineage.store import filesapi
from ubunye.lineage.store.blobs import AlreadyExists, BlobError, BlobInfo, BlobNotFound
from ubunye.lineage.store.filesapi import ATTEMPTS, FilesApiBlobs

Answer = tuple[int, bytes, dict[str, str]]


class Volume:
    """A scripted Files API: ``script`` answers (or OSErrors) come first, then the files in ``files``."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.script: list[Any] = []
        self.calls: list[tuple[str, str]] = []

    def __call__(self, method: str, url: str, data: bytes | None = None) -> Answer:
        self.calls.append((method, url))
        if self.script:
            step = self.script.pop(0)
            if isinstance(step, BaseException):
                raise step
            return step
        path = url.split("/api/2.0/fs/files", 1)[-1].split("?")[0]
        if method == "PUT":
            if path in self.files:
                return 409, b'{"error_code": "ALREADY_EXISTS", "message": "exists"}', {}
            self.files[path] = data or b""
            return 204, b"", {}
        if path in self.files:
            return 200, self.files[path], {"Content-Length": str(len(self.files[path]))}
        return 404, b'{"error_code": "NOT_FOUND"}', {}


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> tuple[FilesApiBlobs, Volume]:
    monkeypatch.setenv("DATABRICKS_HOST", "https://h.example/")
    monkeypatch.setenv("DATABRICKS_TOKEN", "tok")
    pauses: list[int] = []
    monkeypatch.setattr(filesapi, "_pause", pauses.append)
    blobs = FilesApiBlobs("dbfs:/Volumes/c/s/v/lin/", "/Volumes/c/s/v/lin/")
    volume = Volume()
    monkeypatch.setattr(blobs, "_call", volume)
    return blobs, volume


def _refusal(exc: pytest.ExceptionInfo[BaseException], code: int, text: str, where: str) -> None:
    assert (exc.value.errno, exc.value.strerror, exc.value.filename) == (code, text, where)


def test_the_host_and_token_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DATABRICKS_HOST", raising=False)
    with pytest.raises(BlobError) as exc:
        FilesApiBlobs("dbfs:/Volumes/c/s/v", "/Volumes/c/s/v")
    _refusal(exc, errno.EINVAL, "the Files API needs DATABRICKS_HOST and DATABRICKS_TOKEN", "dbfs:/Volumes/c/s/v")
    monkeypatch.setenv("DATABRICKS_HOST", "/")
    with pytest.raises(BlobError):
        FilesApiBlobs("dbfs:/Volumes/c/s/v", "/Volumes/c/s/v")
    monkeypatch.setenv("DATABRICKS_HOST", "adb-1.azuredatabricks.net/")
    monkeypatch.delenv("DATABRICKS_TOKEN", raising=False)
    blobs = FilesApiBlobs("dbfs:/Volumes/c/s/v/", "Volumes/c/s/v/")
    assert (blobs.host, blobs.folder, blobs.root, blobs._token) == (
        "https://adb-1.azuredatabricks.net", "/Volumes/c/s/v", "dbfs:/Volumes/c/s/v", "")
    assert repr(blobs) == "FilesApiBlobs('dbfs:/Volumes/c/s/v')"
    assert blobs.locate("a/b") == "dbfs:/Volumes/c/s/v/a/b" and blobs.locate("") == "dbfs:/Volumes/c/s/v"
    monkeypatch.setenv("DATABRICKS_HOST", "https://hX/")
    marked = FilesApiBlobs("dbfs:/Volumes/c/s/vX/", "/Volumes/c/s/vX/")  # only slashes go
    assert (marked.host, marked.root, marked.folder) == ("https://hX", "dbfs:/Volumes/c/s/vX", "/Volumes/c/s/vX")
    assert marked._url("files", "aX") == "https://hX/api/2.0/fs/files/Volumes/c/s/vX/aX"
    monkeypatch.setenv("DATABRICKS_HOST", "http://127.0.0.1:9")
    monkeypatch.setenv("DATABRICKS_TOKEN", "t")
    blobs = FilesApiBlobs("dbfs:/Volumes/c/s/v", "/Volumes/c/s/v")
    assert (blobs.host, blobs._token) == ("http://127.0.0.1:9", "t")
    assert blobs._url("directories", "") == "http://127.0.0.1:9/api/2.0/fs/directories/Volumes/c/s/v"
    assert blobs._url("files", "a b/c", {"overwrite": "false", "x": "y"}) == \
        "http://127.0.0.1:9/api/2.0/fs/files/Volumes/c/s/v/a%20b/c?overwrite=false&x=y"


def test_put_new_creates_once(api: tuple[FilesApiBlobs, Volume]) -> None:
    blobs, volume = api
    blobs.put_new("r/1.json", b"one")
    assert volume.calls == [("PUT", "https://h.example/api/2.0/fs/files/Volumes/c/s/v/lin/r/1.json?overwrite=false")]
    assert blobs.get("r/1.json") == b"one"
    blobs.put_new("r/1.json", b"one")  # our bytes there already
    with pytest.raises(AlreadyExists) as exc:
        blobs.put_new("r/1.json", b"two")
    _refusal(exc, errno.EEXIST, "already stored (records are written once)", "dbfs:/Volumes/c/s/v/lin/r/1.json")


@pytest.mark.parametrize("status", [200, 201, 204])
def test_put_new_accepts_each_success(api: tuple[FilesApiBlobs, Volume], status: int) -> None:
    blobs, volume = api
    volume.script = [(status, b"", {})]
    blobs.put_new("k", b"x")
    assert len(volume.calls) == 1


@pytest.mark.parametrize("lost", [OSError("reset"), (409, b"", {}), (412, b"", {}), (500, b"", {}), (503, b"", {})])
def test_a_lost_or_refused_create_with_nothing_there_is_tried_again(api: tuple[FilesApiBlobs, Volume], lost: Any,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    blobs, volume = api
    pauses: list[int] = []
    monkeypatch.setattr(filesapi, "_pause", pauses.append)
    volume.script = [lost, (404, b"", {})]  # the create, then the read-back
    blobs.put_new("k", b"x")
    assert [c[0] for c in volume.calls] == ["PUT", "GET", "PUT"] and pauses == [0]
    assert volume.files["/Volumes/c/s/v/lin/k"] == b"x"


def test_a_create_lost_every_time_names_the_error(api: tuple[FilesApiBlobs, Volume]) -> None:
    blobs, volume = api
    volume.script = [OSError("connection reset"), (404, b"", {})] * ATTEMPTS
    with pytest.raises(BlobError) as exc:
        blobs.put_new("k", b"x")
    _refusal(exc, errno.EIO, "refused 4 times and still absent: connection reset", "dbfs:/Volumes/c/s/v/lin/k")


def test_a_lost_create_that_landed_is_accepted(api: tuple[FilesApiBlobs, Volume]) -> None:
    blobs, volume = api
    volume.files["/Volumes/c/s/v/lin/k"] = b"x"
    volume.script = [OSError("timed out")]
    blobs.put_new("k", b"x")
    assert [c[0] for c in volume.calls] == ["PUT", "GET"]


def test_a_create_refused_every_time(api: tuple[FilesApiBlobs, Volume]) -> None:
    blobs, volume = api
    volume.script = [(409, b"", {}), (404, b"", {})] * (ATTEMPTS - 1) + \
        [(502, b'{"error_code": "BAD", "message": "gate\\n way"}', {}), (404, b"", {})]
    with pytest.raises(BlobError) as exc:
        blobs.put_new("k", b"x")
    _refusal(exc, errno.EIO, "refused 4 times and still absent: HTTP 502: BAD gate way", "dbfs:/Volumes/c/s/v/lin/k")
    assert ATTEMPTS == 4 and [c[0] for c in volume.calls].count("PUT") == 4


@pytest.mark.parametrize(("status", "body", "text"), [
    (403, b'{"error_code": "PERMISSION_DENIED", "message": "no"}', "HTTP 403: PERMISSION_DENIED no"),
    (400, b"plain\ttext", "HTTP 400: plain text"), (499, b"[1]", "HTTP 499: [1]"),
    (401, b'{"message": "who"}', "HTTP 401: who")])
def test_another_refusal_of_a_create_is_one_line_at_once(api: tuple[FilesApiBlobs, Volume], status: int,
                                                         body: bytes, text: str) -> None:
    blobs, volume = api
    volume.script = [(status, body, {})]
    with pytest.raises(BlobError) as exc:
        blobs.put_new("k", b"x")
    _refusal(exc, errno.EIO, text, "dbfs:/Volumes/c/s/v/lin/k")
    assert len(volume.calls) == 1 and not isinstance(exc.value, AlreadyExists)


def _refused(volume: Volume, script: list[Any], op: Any, text: str, where: str) -> int:
    """``op`` meeting ``script`` is refused with EIO and ``text`` at ``where``; the calls it made."""
    volume.calls.clear()
    volume.script = script
    with pytest.raises(BlobError) as exc:
        op()
    _refusal(exc, errno.EIO, text, where)
    return len(volume.calls)


def test_get(api: tuple[FilesApiBlobs, Volume], monkeypatch: pytest.MonkeyPatch) -> None:
    blobs, volume = api
    pauses: list[int] = []
    monkeypatch.setattr(filesapi, "_pause", pauses.append)
    with pytest.raises(BlobNotFound) as exc:
        blobs.get("none")
    _refusal(exc, errno.ENOENT, "no such record", "dbfs:/Volumes/c/s/v/lin/none")
    assert volume.calls == [("GET", "https://h.example/api/2.0/fs/files/Volumes/c/s/v/lin/none")]
    volume.files["/Volumes/c/s/v/lin/k"] = b"12"
    volume.script = [OSError("reset"), (500, b"", {}), (200, b"1", {"content-length": "2"})]
    assert blobs.get("k") == b"12" and pauses == [0, 1]
    volume.script = [(200, b"12", {})]  # no length: the bytes as they are
    assert blobs.get("k") == b"12"
    _refused(volume, [(200, b"1", {"Content-Length": "2"})] * ATTEMPTS, lambda: blobs.get("k"),
             "the file was cut short (1 of 2 bytes)", "dbfs:/Volumes/c/s/v/lin/k")
    _refused(volume, [OSError("conn\nreset")] * ATTEMPTS, lambda: blobs.get("k"), "conn reset",
             "dbfs:/Volumes/c/s/v/lin/k")
    assert _refused(volume, [(403, b"{}", {}), (200, b"12", {})], lambda: blobs.get("k"), "HTTP 403:",
                    "dbfs:/Volumes/c/s/v/lin/k") == 1


def _listing(*entries: dict[str, Any], token: str = "") -> Answer:
    return 200, json.dumps({"contents": list(entries), "next_page_token": token}).encode(), {}


def test_listdir_pages_and_names(api: tuple[FilesApiBlobs, Volume]) -> None:
    blobs, volume = api
    volume.script = [
        _listing({"path": "/Volumes/c/s/v/lin/p/b.json", "name": "b.json", "file_size": 5, "last_modified": 1500},
                 {"path": "/Volumes/c/s/v/lin/p/z/", "is_directory": True}, token="t 2"),
        _listing({"path": "/Volumes/c/s/v/lin/p/a.json"}, {"name": "c", "is_directory": True})]
    files, folders = blobs.listdir("p")
    assert files == [BlobInfo("p/a.json", 0, datetime.fromtimestamp(0, timezone.utc)),
                     BlobInfo("p/b.json", 5, datetime.fromtimestamp(1.5, timezone.utc))]
    assert folders == ["c", "z"]
    assert volume.calls == [("GET", "https://h.example/api/2.0/fs/directories/Volumes/c/s/v/lin/p"),
                            ("GET", "https://h.example/api/2.0/fs/directories/Volumes/c/s/v/lin/p?page_token=t+2")]
    volume.script = [_listing({"name": "top", "file_size": 1})]
    assert [f.key for f in blobs.listdir("")[0]] == ["top"]
    volume.script = [_listing({"path": "plain", "file_size": 1}, {"path": "/V/dX/", "is_directory": True},
                              {"is_directory": True})]
    assert blobs.listdir("q") == ([BlobInfo("q/plain", 1, datetime.fromtimestamp(0, timezone.utc))], ["", "dX"])
    volume.script = [(200, b'{"contents": null}', {})]
    assert blobs.listdir("x") == ([], [])


def test_listdir_of_a_missing_folder_is_empty(api: tuple[FilesApiBlobs, Volume]) -> None:
    blobs, volume = api
    volume.script = [(404, b"", {})]
    assert blobs.listdir("none") == ([], [])
    volume.script = [_listing({"name": "a", "file_size": 1}, token="more"), (404, b"", {})]
    assert [f.key for f in blobs.listdir("p")[0]] == ["p/a"]


def test_listdir_retries_and_refusals(api: tuple[FilesApiBlobs, Volume], monkeypatch: pytest.MonkeyPatch) -> None:
    blobs, volume = api
    pauses: list[int] = []
    monkeypatch.setattr(filesapi, "_pause", pauses.append)
    volume.script = [OSError("reset"), (200, b"{cut", {}), (500, b"busy", {}), _listing({"name": "a"})]
    assert [f.key for f in blobs.listdir("p")[0]] == ["p/a"] and pauses == [0, 2]
    _refused(volume, [(200, b"{cut", {})] * ATTEMPTS, lambda: blobs.listdir("p"),
             "the listing is not JSON (cut short?)", "dbfs:/Volumes/c/s/v/lin/p")
    _refused(volume, [OSError("gone")] * ATTEMPTS, lambda: blobs.listdir("p"), "gone",
             "dbfs:/Volumes/c/s/v/lin/p")
    assert _refused(volume, [(403, b"no", {}), _listing()], lambda: blobs.listdir("p"), "HTTP 403: no",
                    "dbfs:/Volumes/c/s/v/lin/p") == 1


def test_pause_backs_off_up_to_two_seconds(monkeypatch: pytest.MonkeyPatch) -> None:
    slept: list[float] = []
    monkeypatch.setattr(filesapi.time, "sleep", slept.append)
    for attempt in (0, 1, 3, 6, 7, 20):
        filesapi._pause(attempt)
    assert slept == [0.02, 0.04, 0.16, 1.28, 2.0, 2.0]


def test_message_and_one_line() -> None:
    assert filesapi._message(0, b"lost\n answer") == "lost answer"
    assert filesapi._message(500, b"\xff" + b"x" * 300) == "HTTP 500: \ufffd" + "x" * 199
    assert filesapi._one_line("y" * 500) == "y" * 400
    assert "hunter2secret" not in filesapi._one_line("https://u:hunter2secret@h/x")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    seen: list[tuple[str, str, dict[str, str], bytes]] = []

    def log_message(self, *args: Any) -> None:
        pass

    def _answer(self) -> None:
        size = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(size) if size else b""
        self.seen.append((self.command, self.path, dict(self.headers), body))
        if self.path.endswith("/cut"):
            self.send_response(200)
            self.send_header("Content-Length", "10")
            self.end_headers()
            self.wfile.write(b"abc")
            self.wfile.flush()
            self.close_connection = True
            return
        status, text = (404, b'{"error_code": "NOT_FOUND"}') if self.path.endswith("/none") else (200, b"hello")
        self.send_response(status)
        self.send_header("Content-Length", str(len(text)))
        self.send_header("X-Kind", "test")
        self.end_headers()
        self.wfile.write(text)

    do_GET = do_PUT = _answer


def test_call_over_http(monkeypatch: pytest.MonkeyPatch) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        monkeypatch.setenv("DATABRICKS_HOST", f"http://127.0.0.1:{server.server_address[1]}")
        monkeypatch.setenv("DATABRICKS_TOKEN", "tok")
        timeouts: list[Any] = []
        real = urllib.request.urlopen

        def urlopen(request: Any, timeout: Any = None) -> Any:
            timeouts.append(timeout)
            return real(request, timeout=timeout)
        monkeypatch.setattr(urllib.request, "urlopen", urlopen)
        blobs = FilesApiBlobs("dbfs:/Volumes/c/s/v", "/Volumes/c/s/v")
        _Handler.seen.clear()
        status, body, headers = blobs._call("PUT", blobs._url("files", "k", {"overwrite": "false"}), b"data")
        assert (status, body, headers["X-Kind"]) == (200, b"hello", "test")
        method, path, sent, got = _Handler.seen[-1]
        assert (method, path, got) == ("PUT", "/api/2.0/fs/files/Volumes/c/s/v/k?overwrite=false", b"data")
        assert sent["Authorization"] == "Bearer tok" and sent["Content-Type"] == "application/octet-stream"
        status, body, headers = blobs._call("GET", blobs._url("files", "none"))
        assert (status, body, headers["X-Kind"]) == (404, b'{"error_code": "NOT_FOUND"}', "test")
        method, path, sent, got = _Handler.seen[-1]
        assert (method, path, got) == ("GET", "/api/2.0/fs/files/Volumes/c/s/v/none", b"")
        assert sent["Authorization"] == "Bearer tok" and "Content-Type" not in sent
        with pytest.raises(BlobError) as exc:
            blobs._call("GET", blobs._url("files", "cut"))
        assert (exc.value.errno, exc.value.strerror) == (errno.EIO, "the body of the answer was cut short (3 bytes)")
        assert exc.value.__cause__ is None and exc.value.__suppress_context__
        assert timeouts == [60.0, 60.0, 60.0] and filesapi.TIMEOUT == 60.0
    finally:
        server.shutdown()
        server.server_close()
