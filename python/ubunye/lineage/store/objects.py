"""S3, Google Cloud Storage and Azure Blob/ADLS as a create-only byte store, through obstore.

obstore (arrow-rs ``object_store``) is the optional extra ``ubunye[stores]``, imported
only when a store URL names an object store. Its ``put(mode="create")`` is a
conditional PUT enforced by the server (S3 ``If-None-Match: *``, GCS
``ifGenerationMatch=0``, Azure ``If-None-Match: *``), and a PUT is atomic: no partial
object is ever visible. Credentials and endpoints come from each cloud's standard
environment (``AWS_ENDPOINT_URL``, ``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``,
``AWS_REGION``, ``AWS_ALLOW_HTTP``; ``GOOGLE_APPLICATION_CREDENTIALS``, ``GOOGLE_SERVICE_ACCOUNT``, ``GOOGLE_BASE_URL``,
``GOOGLE_BEARER_TOKEN``...;
``AZURE_STORAGE_ACCOUNT_NAME``, ``AZURE_STORAGE_ACCOUNT_KEY``, ``AZURE_STORAGE_USE_EMULATOR``...).

Failures: server errors (5xx), dropped connections and timeouts are retried by obstore
with backoff, a bounded number of times. A retried create can meet its own earlier
attempt (the first PUT landed, its answer was lost): the object is then read back and
accepted only when it holds exactly the bytes being written; anything else there is
:class:`AlreadyExists`. A create that ends in any other error is read back the same way:
success only when it landed with exactly these bytes. A refusal (412, 409) while nothing is there is retried: a
create-only PUT can never overwrite, so trying again is always safe; an object shorter than its listed
size is read again, then reported. Nothing here ever reports success for a write that
did not land, or overwrites one that did.
"""
from __future__ import annotations

import errno
import os
from datetime import timedelta
from pathlib import Path
from typing import Any, Union

from ubunye.lineage.store.blobs import AlreadyExists, BlobError, BlobInfo, BlobNotFound, held, register
from ubunye.masking import mask

ATTEMPTS = 4  # our own attempts on a conflict or a truncated read (obstore retries 5xx itself)
_RETRY = {"max_retries": 4, "retry_timeout": timedelta(seconds=30),
          "backoff": {"init_backoff": timedelta(milliseconds=20), "max_backoff": timedelta(seconds=2),
                      "base": 2.0}}


def _obstore() -> Any:
    try:
        import obstore
    except ImportError:
        raise BlobError(errno.ENOSYS, "an object-store lineage folder needs the optional extra: "
                                      "pip install 'ubunye[stores]' (obstore)") from None
    return obstore


def _client_options() -> dict[str, Any]:
    """Timeouts, and plain HTTP when the environment allows it (a local test server): passing
    client options replaces the ones obstore would read from the environment."""
    options: dict[str, Any] = {"timeout": "60s", "connect_timeout": "10s"}
    if any(os.environ.get(name, "").lower() == "true" for name in _ALLOW_HTTP):
        options["allow_http"] = True
    return options


_ALLOW_HTTP = ("AWS_ALLOW_HTTP", "ALLOW_HTTP", "AZURE_ALLOW_HTTP", "GOOGLE_ALLOW_HTTP", "AZURE_STORAGE_USE_EMULATOR")


class ObjectBlobs:
    """Objects under one bucket (or container) and prefix."""

    parallel_reads = 16  # the record store reads this many objects at once

    def __init__(self, url: str) -> None:
        self.root = url.rstrip("/")
        obs = _obstore()
        try:
            self._store = obs.store.from_url(self.root, retry_config=_RETRY, client_options=_client_options())
        except Exception as exc:  # noqa: BLE001 - obstore raises its own types for a bad URL or config
            raise BlobError(errno.EINVAL, f"cannot open the object store: {_one_line(exc)}", self.root) from None
        self._obs = obs

    def __repr__(self) -> str:
        return f"ObjectBlobs({self.root!r})"

    def locate(self, key: str) -> str:
        return f"{self.root}/{key}" if key else self.root

    def put_new(self, key: str, data: bytes) -> None:
        errors = self._obs.exceptions
        last: Exception | None = None
        for _ in range(ATTEMPTS):
            try:
                self._obs.put(self._store, key, data, mode="create", use_multipart=False)
                return
            except (errors.AlreadyExistsError, errors.PreconditionError) as exc:
                there = self._there(key)
                if there == data:  # our own earlier attempt landed; its answer was lost
                    return
                if there is not None:
                    raise AlreadyExists(errno.EEXIST, "already stored (records are written once)",
                                        self.locate(key)) from None
                last = exc  # refused, yet nothing is there (a 409 conflict in flight): try again
            except errors.BaseError as exc:
                if not _conflict(exc):
                    if self._landed(key, data):  # it landed; only its answer was an error
                        return
                    raise BlobError(errno.EIO, _one_line(exc), self.locate(key)) from None
                last = exc  # 409: another request on the key was in flight; try again
        raise BlobError(errno.EIO, f"refused {ATTEMPTS} times and still absent: {_one_line(last)}",
                        self.locate(key))

    def _there(self, key: str) -> bytes | None:
        return held(self, key)

    def _landed(self, key: str, data: bytes) -> bool:
        """Whether a create answered with an error landed all the same (the answer was lost after
        the object was stored): the object holds exactly ``data``. A read that fails too: not proven."""
        try:
            return self._there(key) == data
        except BlobError:
            return False

    def get(self, key: str) -> bytes:
        errors = self._obs.exceptions
        problem = ""
        for _ in range(ATTEMPTS):
            try:
                result = self._obs.get(self._store, key)
                data = bytes(result.bytes())
            except (errors.NotFoundError, FileNotFoundError):  # obstore raises the builtin for a 404
                raise BlobNotFound(errno.ENOENT, "no such record", self.locate(key)) from None
            except errors.BaseError as exc:
                problem = _one_line(exc)
                if _transient(exc):
                    continue
                raise BlobError(errno.EIO, problem, self.locate(key)) from None
            size = result.meta.get("size")
            if size is None or len(data) == size:
                return data
            problem = f"the object was cut short ({len(data)} of {size} bytes)"
        raise BlobError(errno.EIO, problem, self.locate(key))

    def head(self, key: str) -> BlobInfo | None:
        """The object's listing entry, or None when it is absent."""
        errors = self._obs.exceptions
        problem = ""
        for _ in range(ATTEMPTS):
            try:
                meta = self._obs.head(self._store, key)
                return BlobInfo(key, int(meta["size"]), meta["last_modified"])
            except (errors.NotFoundError, FileNotFoundError):
                return None
            except errors.BaseError as exc:
                problem = _one_line(exc)
                if not _transient(exc):
                    break
        raise BlobError(errno.EIO, problem, self.locate(key))

    def listdir(self, prefix: str) -> tuple[list[BlobInfo], list[str]]:
        listed = None
        problem = ""
        for _ in range(ATTEMPTS):
            try:
                listed = self._obs.list_with_delimiter(self._store, prefix or None)
                break
            except self._obs.exceptions.BaseError as exc:
                problem = _one_line(exc)
                if not _transient(exc):
                    break
        if listed is None:
            raise BlobError(errno.EIO, problem, self.locate(prefix))
        files = [BlobInfo(str(o["path"]), int(o["size"]), o["last_modified"]) for o in listed["objects"]]
        folders = [str(p).rstrip("/").rsplit("/", 1)[-1] for p in listed["common_prefixes"]]
        return sorted(files, key=lambda b: b.key), sorted(folders)


    def list_after(self, prefix: str, after: str, *, stop: str = "") -> list[BlobInfo]:
        """The objects under ``prefix`` (at any depth) whose keys sort after ``after``, in key
        order; with ``stop``, only up to the first key starting with it. Pages (1,000 keys
        a request) are asked for only while needed. S3 and GCS start at ``after`` (``start-after``);
        obstore lists Azure whole and drops the keys before it (Azure's ``marker`` is opaque)."""
        problem = ""
        for _ in range(ATTEMPTS):
            found: list[BlobInfo] = []
            try:
                for chunk in self._obs.list(self._store, prefix or None, offset=after, chunk_size=1000):
                    for o in chunk:
                        key = str(o["path"])
                        if stop and key.startswith(stop):
                            return found
                        if key <= after:  # a server that ignores start-after (fake-gcs-server)
                            continue
                        found.append(BlobInfo(key, int(o["size"]), o["last_modified"]))
                return found
            except self._obs.exceptions.BaseError as exc:
                problem = _one_line(exc)
                if not _transient(exc):
                    break
        raise BlobError(errno.EIO, problem, self.locate(prefix))


def _transient(exc: BaseException) -> bool:
    """A conflict or an answer cut short: asking again is safe."""
    text = str(exc)
    return _conflict(exc) or "body" in text.lower() or "truncat" in text.lower()


def _conflict(exc: BaseException) -> bool:
    text = str(exc)
    return "409" in text or "Conflict" in text


def _one_line(exc: object) -> str:
    text = str(exc).split("Debug source:")[0]  # obstore appends its Rust debug dump
    return mask(" ".join(text.split()))[:400]


OBJECT_SCHEMES = ("s3", "s3a", "gs", "az", "azure", "abfs", "abfss")


def open_objects(where: Union[str, Path]) -> ObjectBlobs:
    """An object store's URL (``s3://bucket/prefix``, ...)."""
    return ObjectBlobs(str(where))


for _scheme in OBJECT_SCHEMES:
    register(_scheme, open_objects, f"{_scheme}://")
