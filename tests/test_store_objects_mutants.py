"""The object-store backend (store/objects.py) over obstore's memory:// store, with a stand-in
obstore module that fails on demand: each call's answer, its retries and its one-line refusals."""
from __future__ import annotations

import errno
import sys
from datetime import timedelta
from typing import Any

import pytest

obstore = pytest.importorskip("obstore")

from ubunye.lineage.store import objects  # noqa: E402
from ubunye.lineage.store.blobs import AlreadyExists, BlobError, BlobInfo, BlobNotFound  # noqa: E402
from ubunye.lineage.store.objects import ATTEMPTS, ObjectBlobs  # noqa: E402

E = obstore.exceptions


class Flaky:
    """obstore with a queue of failures per call (``fail["get"] = [exc, ...]``), counting calls."""

    def __init__(self) -> None:
        self.exceptions = E
        self.store = obstore.store
        self.fail: dict[str, list[BaseException]] = {}
        self.calls: dict[str, list[tuple[Any, ...]]] = {}
        self.short: int = 0  # this many gets report a size one larger than the bytes
        self.ignore_offset = False

    def _call(self, name: str, *args: Any, **kwargs: Any) -> None:
        self.calls.setdefault(name, []).append((args, kwargs))
        queue = self.fail.get(name)
        if queue:
            raise queue.pop(0)

    def put(self, store: Any, key: str, data: bytes, **kwargs: Any) -> Any:
        self._call("put", key, **kwargs)
        return obstore.put(store, key, data, **kwargs)

    def get(self, store: Any, key: str) -> Any:
        self._call("get", key)
        result = obstore.get(store, key)
        if self.short:
            self.short -= 1
            data = bytes(result.bytes())

            class Cut:
                meta = {"size": len(data) + 1}

                def bytes(self) -> bytes:
                    return data
            return Cut()
        return result

    def head(self, store: Any, key: str) -> Any:
        self._call("head", key)
        return obstore.head(store, key)

    def list_with_delimiter(self, store: Any, prefix: Any) -> Any:
        self._call("list_with_delimiter", prefix)
        return obstore.list_with_delimiter(store, prefix)

    def list(self, store: Any, prefix: Any, **kwargs: Any) -> Any:
        self._call("list", prefix, **kwargs)
        if self.ignore_offset:
            kwargs = {k: v for k, v in kwargs.items() if k != "offset"}
        return obstore.list(store, prefix, **kwargs)


@pytest.fixture
def flaky() -> tuple[ObjectBlobs, Flaky]:
    blobs = ObjectBlobs("memory:///")
    fake = Flaky()
    blobs._obs = fake
    return blobs, fake


def _refusal(exc: pytest.ExceptionInfo[BaseException], code: int, text: str, where: str) -> None:
    assert (exc.value.errno, exc.value.strerror, exc.value.filename) == (code, text, where)


def test_without_obstore_the_refusal_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "obstore", None)
    with pytest.raises(BlobError) as exc:
        objects._obstore()
    assert exc.value.errno == errno.ENOSYS and exc.value.__cause__ is None
    assert exc.value.strerror == ("an object-store lineage folder needs the optional extra: "
                                  "pip install 'ubunye[stores]' (obstore)")


@pytest.mark.parametrize("name", objects._ALLOW_HTTP)
def test_plain_http_only_when_the_environment_allows_it(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    for each in ("AWS_ALLOW_HTTP", "ALLOW_HTTP", "AZURE_ALLOW_HTTP", "GOOGLE_ALLOW_HTTP", "AZURE_STORAGE_USE_EMULATOR"):
        monkeypatch.delenv(each, raising=False)
    assert objects._client_options() == {"timeout": "60s", "connect_timeout": "10s"}
    monkeypatch.setenv(name, "false")
    assert "allow_http" not in objects._client_options()
    monkeypatch.setenv(name, "TRUE")
    assert objects._client_options() == {"timeout": "60s", "connect_timeout": "10s", "allow_http": True}


def test_the_client_gets_the_retry_settings_and_the_root_without_its_slash(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[str, dict[str, Any]]] = []
    real = obstore.store.from_url

    def from_url(url: str, **kwargs: Any) -> Any:
        seen.append((url, kwargs))
        return real("memory:///")
    monkeypatch.setattr(obstore.store, "from_url", from_url)
    blobs = ObjectBlobs("s3://bucket/preX/")  # only the slash goes
    assert ObjectBlobs("s3://bucket/pre/").root == "s3://bucket/pre"
    assert blobs.root == "s3://bucket/preX" and repr(blobs) == "ObjectBlobs('s3://bucket/preX')"
    assert seen[0][0] == "s3://bucket/preX"
    assert seen[0][1]["retry_config"] == {
        "max_retries": 4, "retry_timeout": timedelta(seconds=30),
        "backoff": {"init_backoff": timedelta(milliseconds=20), "max_backoff": timedelta(seconds=2), "base": 2.0}}
    assert seen[0][1]["client_options"] == objects._client_options()
    assert blobs.locate("a/b.json") == "s3://bucket/preX/a/b.json" and blobs.locate("") == "s3://bucket/preX"


def test_a_bad_url_is_one_line_naming_the_store() -> None:
    with pytest.raises(BlobError) as exc:
        ObjectBlobs("nosuch://x/")
    _refusal(exc, errno.EINVAL, 'cannot open the object store: Generic URL error: Unable to recognise URL "nosuch://x"',
             "nosuch://x")
    assert exc.value.__cause__ is None and exc.value.__suppress_context__


def test_put_new_creates_once_without_multipart(flaky: tuple[ObjectBlobs, Flaky]) -> None:
    blobs, fake = flaky
    blobs.put_new("a/r.json", b"one")
    assert fake.calls["put"] == [(("a/r.json",), {"mode": "create", "use_multipart": False})]
    assert blobs.get("a/r.json") == b"one"
    blobs.put_new("a/r.json", b"one")  # our own bytes there already: accepted
    with pytest.raises(AlreadyExists) as exc:
        blobs.put_new("a/r.json", b"two")
    _refusal(exc, errno.EEXIST, "already stored (records are written once)", "memory:/a/r.json")
    assert exc.value.__cause__ is None and exc.value.__suppress_context__
    assert blobs.get("a/r.json") == b"one"


@pytest.mark.parametrize("refusal", [E.PreconditionError("412"), E.AlreadyExistsError("exists"),
                                     E.GenericError("409 Conflict")])
def test_a_refused_create_with_nothing_there_is_tried_again(flaky: tuple[ObjectBlobs, Flaky],
                                                             refusal: BaseException) -> None:
    blobs, fake = flaky
    fake.fail["put"] = [refusal] * (ATTEMPTS - 1)
    blobs.put_new("k", b"data")
    assert len(fake.calls["put"]) == ATTEMPTS and blobs.get("k") == b"data"


def test_a_create_refused_every_time_is_an_error(flaky: tuple[ObjectBlobs, Flaky]) -> None:
    blobs, fake = flaky
    fake.fail["put"] = [E.PreconditionError("first")] * (ATTEMPTS - 1) + [E.GenericError("409 Conflict\n again")]
    with pytest.raises(BlobError) as exc:
        blobs.put_new("k", b"data")
    assert ATTEMPTS == 4 and len(fake.calls["put"]) == 4
    _refusal(exc, errno.EIO, "refused 4 times and still absent: 409 Conflict again", "memory:/k")
    assert not isinstance(exc.value, AlreadyExists)


def test_the_last_refusal_is_named(flaky: tuple[ObjectBlobs, Flaky]) -> None:
    blobs, fake = flaky
    fake.fail["put"] = [E.PreconditionError("412 precondition failed")] * ATTEMPTS
    with pytest.raises(BlobError) as exc:
        blobs.put_new("k", b"data")
    _refusal(exc, errno.EIO, "refused 4 times and still absent: 412 precondition failed", "memory:/k")


def test_another_put_failure_is_one_line_at_once(flaky: tuple[ObjectBlobs, Flaky]) -> None:
    blobs, fake = flaky
    fake.fail["put"] = [E.GenericError("denied\n\tby policy Debug source: rust dump")]
    with pytest.raises(BlobError) as exc:
        blobs.put_new("k", b"data")
    _refusal(exc, errno.EIO, "denied by policy", "memory:/k")
    assert exc.value.__cause__ is None and exc.value.__suppress_context__
    assert len(fake.calls["put"]) == 1 and blobs.head("k") is None


@pytest.mark.parametrize("missing", [E.NotFoundError("gone"), FileNotFoundError("gone")])
def test_get_of_a_missing_object(flaky: tuple[ObjectBlobs, Flaky], missing: BaseException) -> None:
    blobs, fake = flaky
    fake.fail["get"] = [missing]
    with pytest.raises(BlobNotFound) as exc:
        blobs.get("nope")
    _refusal(exc, errno.ENOENT, "no such record", "memory:/nope")
    assert exc.value.__cause__ is None and exc.value.__suppress_context__
    with pytest.raises(BlobNotFound):  # and through the real store
        blobs.get("nope")


def test_get_retries_transient_failures_and_short_reads(flaky: tuple[ObjectBlobs, Flaky]) -> None:
    blobs, fake = flaky
    blobs.put_new("k", b"12")
    fake.fail["get"] = [E.GenericError("error decoding response body"), E.GenericError("Truncated")]
    fake.short = 1
    assert blobs.get("k") == b"12" and len(fake.calls["get"]) == 4
    fake.calls.clear()
    fake.short = ATTEMPTS
    with pytest.raises(BlobError) as exc:
        blobs.get("k")
    _refusal(exc, errno.EIO, "the object was cut short (2 of 3 bytes)", "memory:/k")
    assert len(fake.calls["get"]) == ATTEMPTS
    fake.calls.clear()
    fake.fail["get"] = [E.GenericError("409 Conflict")] * ATTEMPTS
    with pytest.raises(BlobError) as exc:
        blobs.get("k")
    _refusal(exc, errno.EIO, "409 Conflict", "memory:/k")
    assert len(fake.calls["get"]) == ATTEMPTS


def test_get_stops_at_a_lasting_failure(flaky: tuple[ObjectBlobs, Flaky]) -> None:
    blobs, fake = flaky
    blobs.put_new("k", b"12")
    fake.fail["get"] = [E.PermissionDeniedError("forbidden")]
    with pytest.raises(BlobError) as exc:
        blobs.get("k")
    _refusal(exc, errno.EIO, "forbidden", "memory:/k")
    assert exc.value.__cause__ is None and exc.value.__suppress_context__ and len(fake.calls["get"]) == 1


def test_get_without_a_size_takes_the_bytes(flaky: tuple[ObjectBlobs, Flaky]) -> None:
    blobs, fake = flaky
    blobs.put_new("k", b"12")

    class NoSize:
        meta: dict[str, Any] = {}

        def bytes(self) -> bytes:
            return b"12"
    fake.get = lambda store, key: NoSize()  # type: ignore[method-assign]
    assert blobs.get("k") == b"12"


def _gives_up(fake: Flaky, call: str, op: Any, where: str, transient: str) -> None:
    """ATTEMPTS transient failures of ``call``: refused with the last; a lasting one: refused at once."""
    fake.calls.clear()
    fake.fail[call] = [E.GenericError(transient)] * ATTEMPTS
    with pytest.raises(BlobError) as exc:
        op()
    _refusal(exc, errno.EIO, transient, where)
    assert len(fake.calls[call]) == ATTEMPTS
    fake.calls.clear()
    fake.fail[call] = [E.GenericError("denied"), E.GenericError("later")]
    with pytest.raises(BlobError) as exc:
        op()
    _refusal(exc, errno.EIO, "denied", where)
    assert len(fake.calls[call]) == 1


def test_head(flaky: tuple[ObjectBlobs, Flaky]) -> None:
    blobs, fake = flaky
    blobs.put_new("a/k", b"123")
    info = blobs.head("a/k")
    assert info is not None and (info.key, info.size, type(info.size)) == ("a/k", 3, int)
    assert info.modified == obstore.head(blobs._store, "a/k")["last_modified"]
    assert blobs.head("a/none") is None
    fake.fail["head"] = [FileNotFoundError("x")]
    assert blobs.head("a/k") is None
    fake.calls.clear()
    fake.fail["head"] = [E.GenericError("409")] * (ATTEMPTS - 1)
    assert blobs.head("a/k") == info and len(fake.calls["head"]) == ATTEMPTS
    _gives_up(fake, "head", lambda: blobs.head("a/k"), "memory:/a/k", "Conflict")


def test_listdir(flaky: tuple[ObjectBlobs, Flaky]) -> None:
    blobs, fake = flaky
    for key in ("p/b.json", "p/a.json", "p/z/1", "p/c/2", "q/x", "top"):
        blobs.put_new(key, b"xx")
    files, folders = blobs.listdir("p")
    assert [(f.key, f.size, type(f.size)) for f in files] == [("p/a.json", 2, int), ("p/b.json", 2, int)]
    assert files[0].modified == obstore.head(blobs._store, "p/a.json")["last_modified"]
    assert folders == ["c", "z"]
    files, folders = blobs.listdir("")
    assert [f.key for f in files] == ["top"] and folders == ["p", "q"]
    assert fake.calls["list_with_delimiter"][-1] == ((None,), {})
    fake.calls.clear()
    fake.fail["list_with_delimiter"] = [E.GenericError("body cut")] * (ATTEMPTS - 1)
    assert blobs.listdir("q")[0][0].key == "q/x" and len(fake.calls["list_with_delimiter"]) == ATTEMPTS
    _gives_up(fake, "list_with_delimiter", lambda: blobs.listdir("q"), "memory:/q", "body cut")


def test_listdir_folder_names_from_prefixes_with_a_slash(flaky: tuple[ObjectBlobs, Flaky]) -> None:
    blobs, fake = flaky  # obstore gives "p/c"; a server may give "p/c/"
    fake.list_with_delimiter = lambda store, prefix: {  # type: ignore[method-assign]
        "objects": [], "common_prefixes": ["p/cX/", "p/ b/", "p/d"]}
    assert blobs.listdir("p") == ([], [" b", "cX", "d"])


def test_list_after_without_stop_lists_every_key(flaky: tuple[ObjectBlobs, Flaky]) -> None:
    blobs, _ = flaky
    for key in ("XXXX", "XXXXa", "a"):
        blobs.put_new(key, b"x")
    assert [b.key for b in blobs.list_after("", "")] == ["XXXX", "XXXXa", "a"]


@pytest.mark.parametrize("ignore_offset", [False, True])
def test_list_after(flaky: tuple[ObjectBlobs, Flaky], ignore_offset: bool) -> None:
    blobs, fake = flaky
    fake.ignore_offset = ignore_offset  # a server that ignores start-after
    for key in ("m/1", "m/2", "m/3/x", "m/4", "m/5", "n/1"):
        blobs.put_new(key, b"x")
    got = blobs.list_after("m", "m/2")
    assert [(b.key, b.size, type(b.size)) for b in got] == [("m/3/x", 1, int), ("m/4", 1, int), ("m/5", 1, int)]
    assert got[0].modified == obstore.head(blobs._store, "m/3/x")["last_modified"]
    assert fake.calls["list"][-1] == (("m",), {"offset": "m/2", "chunk_size": 1000})
    assert [b.key for b in blobs.list_after("m", "m/2", stop="m/4")] == ["m/3/x"]
    assert [b.key for b in blobs.list_after("", "m/5")] == ["n/1"] and fake.calls["list"][-1][0] == (None,)
    assert [b.key for b in blobs.list_after("m", "")] == ["m/1", "m/2", "m/3/x", "m/4", "m/5"]


def test_list_after_retries_from_the_start(flaky: tuple[ObjectBlobs, Flaky]) -> None:
    blobs, fake = flaky
    for key in ("m/1", "m/2"):
        blobs.put_new(key, b"x")
    fake.fail["list"] = [E.GenericError("409")] * (ATTEMPTS - 1)
    assert [b.key for b in blobs.list_after("m", "")] == ["m/1", "m/2"] and len(fake.calls["list"]) == ATTEMPTS
    _gives_up(fake, "list", lambda: blobs.list_after("m", ""), "memory:/m", "truncated body")


@pytest.mark.parametrize(("text", "transient", "conflict"), [
    ("HTTP 409", True, True), ("Conflict", True, True), ("conflict", False, False),
    ("error reading a response Body", True, False), ("TRUNCATED", True, False), ("403 Forbidden", False, False)])
def test_which_failures_are_asked_again(text: str, transient: bool, conflict: bool) -> None:
    assert objects._transient(E.GenericError(text)) is transient
    assert objects._conflict(E.GenericError(text)) is conflict


def test_one_line_drops_the_debug_dump_masks_and_bounds() -> None:
    assert objects._one_line("a\n  b\tc Debug source: x\ny") == "a b c"
    assert objects._one_line("Debug source: all") == ""
    assert objects._one_line("x" * 500) == "x" * 400
    assert "hunter2secret" not in objects._one_line("https://user:hunter2secret@host/path failed")
