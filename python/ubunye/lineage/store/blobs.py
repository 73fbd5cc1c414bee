"""The byte interface under the record store, and the one table from a store URL to a backend
(:func:`register`: each backend's module adds its schemes; this module imports none of them).

A backend knows three things: create an object only if it is absent (atomically: a
reader sees all of it or nothing, and of two writers exactly one wins), read an
object, and list one folder level. Everything about records is written once above
it (:mod:`ubunye.lineage.store.records`). No backend ever renames or overwrites.

URL forms (:func:`open_blobs`, with the built-in backends):

- a path, or ``file:///path``: :class:`~ubunye.lineage.store.posix.PosixBlobs`
  (temp file, fsync, ``link`` into place; ``EEXIST`` = already there);
- ``/Volumes/<catalog>/<schema>/<volume>/...`` and ``dbfs:/Volumes/...`` where that
  volume's folder exists (a Databricks cluster's mount): PosixBlobs in volume mode
  (``O_CREAT|O_EXCL``, no link, no rename: the FUSE mount supports neither reliably); a
  ``/Volumes/...`` path whose volume does not exist is refused (a ValueError: nothing is ever
  created under ``/Volumes`` on a machine without the mount); ``dbfs:/Volumes/...`` where it
  is not mounted and ``DATABRICKS_HOST`` is set: the Files API
  (:class:`~ubunye.lineage.store.filesapi.FilesApiBlobs`, ``overwrite=false``);
- ``s3://bucket/prefix``, ``gs://bucket/prefix``, ``az://container/prefix``,
  ``abfss://container@account.dfs.core.windows.net/prefix``: an object store through
  obstore (the optional extra ``ubunye[stores]``), with a conditional create
  (S3 ``If-None-Match: *``, GCS ``ifGenerationMatch=0``, Azure ``If-None-Match: *``).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Callable, Optional, Protocol, Union

DEFAULT_STORE = ".ubunye/lineage"  # the one default lineage folder, relative to the usecase folder
VOLUMES = "/Volumes/"
Where = Union[Path, str]  # a local path, or a URL of an object


class BlobError(OSError):
    """A backend failed (a server error, a truncated object, a refused request): never a success."""


class AlreadyExists(BlobError):
    """A create-only write found the object there already."""


class SecondExists(AlreadyExists):
    """:func:`put_new_twice`: the first name was created, the second one was already there."""


class BlobNotFound(BlobError, FileNotFoundError):
    """No object under that key."""


@dataclass(frozen=True)
class BlobInfo:
    """One listed object: its key (relative to the store), size and last modification."""

    key: str
    size: int
    modified: datetime

    @property
    def name(self) -> str:
        return self.key.rsplit("/", 1)[-1]


class Blobs(Protocol):
    """What a backend implements. Keys are ``/``-separated and relative to :attr:`root`."""

    root: Where

    def put_new(self, key: str, data: bytes) -> None:
        """Create ``key`` holding ``data`` if it is absent, atomically; raise :class:`AlreadyExists`."""

    def get(self, key: str) -> bytes:
        """The whole object; :class:`BlobNotFound` when absent, :class:`BlobError` when cut short."""

    def listdir(self, prefix: str) -> tuple[list[BlobInfo], list[str]]:
        """The objects directly under ``prefix`` (``""``: the root) and the names of its sub-folders."""

    def locate(self, key: str) -> Where:
        """Where ``key`` is, for messages and for local readers."""


def is_url(text: Union[str, Path]) -> bool:
    """True for a store URL (``scheme://`` or ``dbfs:/``); a Windows drive letter is not one."""
    value = str(text)
    scheme, sep, _ = value.partition(":")
    return bool(sep) and len(scheme) > 1 and scheme.isalnum() and (value.startswith(f"{scheme}://")
                                                                   or scheme == "dbfs")


def scheme_of(text: Union[str, Path]) -> str:
    return str(text).partition(":")[0].lower() if is_url(text) else ""


def join(base: Union[str, Path], relative: Union[str, Path, None]) -> Where:
    """``relative`` (a URL, an absolute path, or a path relative to ``base``) resolved against ``base``."""
    folder: Union[str, Path] = DEFAULT_STORE if relative is None or str(relative) == "" else relative
    if is_url(folder) or Path(folder).is_absolute():
        return folder if is_url(folder) else Path(folder)
    if is_url(base):
        return str(base).rstrip("/") + "/" + str(folder).replace(os.sep, "/").strip("/")
    return Path(base) / folder


Opener = Callable[[Union[str, Path]], "Blobs"]
_BACKENDS: dict[str, tuple[Opener, str]] = {}  # scheme ("": a path) -> (its opener, how a message shows it)


def register(scheme: str, opener: Opener, shown: str) -> None:
    """A backend joins the scheme table (when its module is imported, as fsspec's and obstore's
    do): :func:`open_blobs` hands it every location of ``scheme`` (``""``: a path). A scheme
    belongs to one module: another module's claim on it is refused."""
    held = _BACKENDS.get(scheme)
    if held is not None and held[0].__module__ != opener.__module__:
        raise ValueError(f"lineage store scheme {scheme!r} is {held[0].__module__}'s already")
    _BACKENDS[scheme] = (opener, shown)


def open_blobs(where: Union[str, Path]) -> Blobs:
    """The backend for a store location: the one scheme table (:func:`register`; the built-in
    backends join it when :mod:`ubunye.lineage.store` is imported). Unknown schemes name the known ones."""
    scheme = scheme_of(where)
    backend = _BACKENDS.get(scheme)
    if backend is None:
        known = ", ".join(shown for _, shown in _BACKENDS.values())
        raise ValueError(f"lineage store {str(where)!r}: unknown scheme {scheme!r} (known: {known})")
    return backend[0](where)


MOUNTED = "mounted"  # a Unity Catalog volume's folder that exists here (a cluster's /Volumes mount)
FILES_API = "files api"  # dbfs:/Volumes/... off a cluster, with DATABRICKS_HOST set


def check_volume(where: Union[str, Path]) -> Optional[str]:
    """How a store location reaches a Unity Catalog volume: None when it is not under ``/Volumes``
    (nor ``dbfs:/Volumes``), :data:`MOUNTED` when its volume's folder
    ``/Volumes/<catalog>/<schema>/<volume>`` exists here, :data:`FILES_API` for ``dbfs:/Volumes/...``
    off a cluster with ``DATABRICKS_HOST`` set. Anything else is refused (a ValueError, one line):
    a store is never made by creating ``/Volumes`` or a volume on a machine without the mount."""
    scheme, text = scheme_of(where), str(where)
    if scheme == "dbfs":
        local = text[len("dbfs:"):]
        if not local.startswith(VOLUMES):
            raise ValueError(f"lineage store {text!r}: only dbfs:/Volumes/... is supported (Unity Catalog volumes)")
        if volume_root(text, local).is_dir():
            return MOUNTED
        if os.environ.get("DATABRICKS_HOST"):
            return FILES_API
        raise ValueError(f"lineage store {text!r}: {local} is not mounted here (run on a Databricks cluster, "
                         "set DATABRICKS_HOST and DATABRICKS_TOKEN for the Files API, "
                         "or give the volume's cloud URL: s3://, abfss://, gs://)")
    if scheme not in ("", "file"):
        return None
    full = os.path.abspath(text[len("file://"):] if scheme == "file" else text)  # /x/../Volumes/... too
    if not (full + "/").startswith(VOLUMES):
        return None
    root = volume_root(text, full)
    if not root.is_dir():
        raise ValueError(f"lineage store {text!r}: {root} does not exist here, so it is not a mounted Unity "
                         "Catalog volume (nothing is created under /Volumes: run on a Databricks cluster where "
                         "the volume exists, or give the volume's cloud URL: s3://, abfss://, gs://)")
    return MOUNTED


def volume_root(text: str, local: str) -> Path:
    """``/Volumes/<catalog>/<schema>/<volume>`` of a store path under ``/Volumes``; a ValueError
    (one line) when the path names no volume (fewer parts, ``.`` or ``..``)."""
    parts = local.replace("\\", "/").split("/")  # "", "Volumes", catalog, schema, volume, ...
    named = [p for p in parts[2:] if p]
    if len(named) < 3 or any(p in (".", "..") for p in named):
        raise ValueError(f"lineage store {text!r}: a store under /Volumes must be in a Unity Catalog volume, "
                         "/Volumes/<catalog>/<schema>/<volume>/... (without . or ..)")
    return Path(VOLUMES, *named[:3])


def held(blobs: "Blobs", key: str) -> Optional[bytes]:
    """What the object at ``key`` holds now, or None when it is absent (a backend's read-back
    after a lost or refused create)."""
    try:
        return blobs.get(key)
    except BlobNotFound:
        return None


def put_new_twice(blobs: "Blobs", first: str, second: str, data: bytes) -> None:
    """Create ``first`` then ``second`` (one folder) holding ``data``, each only if absent:
    :class:`AlreadyExists` when ``first`` is there (nothing written), :class:`SecondExists` when
    ``second`` is. A local folder writes the bytes once and links both names (one file sync, one
    folder sync); other stores create two objects."""
    linked = getattr(blobs, "put_new_linked", None)
    if linked is not None:
        linked(first, second, data)
    else:
        put_each(blobs, first, second, data)


def put_each(blobs: "Blobs", first: str, second: str, data: bytes) -> None:
    """:func:`put_new_twice` as two objects."""
    blobs.put_new(first, data)
    try:
        blobs.put_new(second, data)
    except AlreadyExists as exc:
        raise SecondExists(*exc.args) from None
