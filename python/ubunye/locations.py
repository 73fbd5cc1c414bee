"""Where a location is: one parse for every path, URL and table name a config holds.

Pure (imports nothing from ubunye), so every layer can use it. A location is
``(scheme, authority, path)``:

- a plain path or a ``file:`` URL is scheme ``file``, its path absolute against
  ONE base (the usecase folder, ``-d``), ``..`` normalised and symlinks resolved
  (``os.path.realpath``: the folder the operating system would write);
- a URL keeps its scheme (``s3a``/``s3n`` are ``s3``, ``abfss`` is ``abfs``,
  ``wasbs`` is ``wasb``, ``gs`` is ``gcs``), its host or bucket lower-cased
  without the userinfo (``user:password@``), and its path normalised (``..`` and
  ``.`` removed, no trailing ``/``);
- a catalog table is scheme ``table``: its qualified name lower-cased (Spark
  compares names without case), back quotes removed.

Two locations overlap when one contains the other (:meth:`Location.contains`):
same scheme and authority, and one path a prefix of the other on a ``/`` boundary
(``/data/in`` contains ``/data/in/x`` but not ``/data/input``); for local places also when
the file system says an existing folder is the other or one of its parents (its device and
inode: ``Data`` and ``data`` on a case-insensitive file system, a bind mount). Table names
contain each other when they are equal, or when one is a shorter qualification
of the other (``t`` and ``main.sales.t``: the run's current catalog and schema
may make them one table).
"""
from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Union
from urllib.parse import unquote, urlsplit

GLOB_CHARS = "*?[{"
# URL schemes that name one store under several names.
_SAME_STORE = {"s3a": "s3", "s3n": "s3", "abfss": "abfs", "wasbs": "wasb", "gs": "gcs"}


class EmptyLocation(ValueError):
    """A location that is empty or blank (``Path("")`` is the working directory)."""


@dataclass(frozen=True)
class Location:
    """One place: ``scheme`` (``file``, ``s3``, ``hdfs``, ``table`` ...), ``authority``
    (host or bucket, lower-cased, no userinfo; empty for files and tables) and ``path``
    (absolute and normalised; for a table its dotted name)."""

    scheme: str
    authority: str
    path: str

    def contains(self, other: "Location") -> bool:
        """True when ``other`` is this place or inside it."""
        if (self.scheme, self.authority) != (other.scheme, other.authority):
            return False
        if self.scheme == "table":
            mine, theirs = self.path.split("."), other.path.split(".")
            n = min(len(mine), len(theirs))
            return mine[-n:] == theirs[-n:]
        if self.path == other.path or other.path.startswith(self.path.rstrip("/") + "/"):
            return True
        return self.scheme == "file" and _is_below(other.path, self.path)

    def overlaps(self, other: "Location") -> bool:
        return self.contains(other) or other.contains(self)

    def __str__(self) -> str:
        if self.scheme == "table":
            return self.path
        if self.scheme == "file":
            return self.path
        return f"{self.scheme}://{self.authority}{self.path}"


def _identity(path: str) -> Optional[tuple[int, int]]:
    """The file system's own name for an existing file or folder (device, inode), else None."""
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return None
    return (found.st_dev, found.st_ino) if found.st_ino else None  # 0: a file system without inodes


def _is_below(inner: str, outer: str) -> bool:
    """True when the existing folder ``outer`` is ``inner`` or one of its parents by the file
    system's identity: two spellings of one folder (case on a case-insensitive file system, a
    bind mount) that the text comparison tells apart."""
    mine = _identity(outer)
    if mine is None:
        return False
    return any(_identity(str(p)) == mine for p in (Path(inner), *Path(inner).parents))


def is_url(text: str) -> bool:
    """True for ``scheme:...`` text whose scheme is longer than one letter (``C:`` is a drive)."""
    scheme = urlsplit(text).scheme
    return bool(scheme) and len(scheme) > 1


def local_path(text: str) -> Optional[str]:
    """The local path of a plain path or a ``file:`` URL (as written, not resolved), else None."""
    if text.startswith("file:"):
        parts = urlsplit(text)
        return parts.path or "/"
    return None if is_url(text) else text


def absolute(text: str, base: Union[str, Path]) -> str:
    """``text`` with a relative plain path (or ``file:`` URL) made absolute against ``base``
    (other text as it is)."""
    local = local_path(text)
    if local is None or os.path.isabs(local):
        return text
    return os.path.join(os.path.abspath(base), local)


def static_prefix(path: str) -> str:
    """The part of a path before its first glob character, cut to its last folder
    (``/data/2024-*/x.csv`` -> ``/data``): the folder a glob reads from."""
    cut = min((path.find(c) for c in GLOB_CHARS if c in path), default=-1)
    if cut < 0:
        return path
    return path[:cut].rsplit("/", 1)[0] or "/"


def parse(text: str, *, base: Union[str, Path]) -> Location:
    """The place a path or URL names; relative paths against ``base``. A glob names the
    folder it reads from (:func:`static_prefix`). Empty or blank text is refused."""
    if text is None or not str(text).strip():
        raise EmptyLocation("empty location")
    text = str(text)
    local = local_path(text)
    if local is not None:
        if not local.strip():
            raise EmptyLocation("empty location")
        full = static_prefix(absolute(local, base))  # made absolute first: a relative glob reads from base
        return Location("file", "", os.path.realpath(full))
    scheme, _, rest = text.partition(":")
    scheme = _SAME_STORE.get(scheme.lower(), scheme.lower())
    authority, path = authority_and_path(rest[2:] if rest.startswith("//") else rest)
    path = posixpath.normpath("/" + static_prefix(path).lstrip("/"))
    return Location(scheme, authority, "/" + path.lstrip("/"))  # normpath keeps a leading "//"


def authority_and_path(rest: str) -> tuple[str, str]:
    """``host[:port]`` (lower-cased, userinfo dropped) and the path of what follows ``scheme://``.
    A password may hold ``/`` or ``@`` (AWS secret keys): ``user:pa/ss@host`` drops up to the
    last ``@`` when what precedes its first ``/`` is ``user:password`` (not ``host:port``)."""
    rest = rest.split("?", 1)[0].split("#", 1)[0]
    rest = rest[_userinfo_end(rest) + 1:]
    authority, slash, path = rest.partition("/")
    return authority.rpartition("@")[2].lower(), slash + path


def _userinfo_end(rest: str) -> int:
    """The index of the ``@`` that ends the userinfo of what follows ``scheme://`` (-1: none):
    the last ``@`` when what precedes its first ``/`` is ``user:password`` (not ``host:port``),
    or when no ``/`` precedes it."""
    head, at, _ = rest.rpartition("@")
    first = head.split("/", 1)[0]
    if at and ((":" in first and not first.rpartition(":")[2].isdigit()) or "/" not in head):
        return len(head)
    return -1


def split_userinfo(url: str) -> tuple[str, Optional[str], Optional[str]]:
    """``(url without its userinfo, user, password)`` (percent-decoded; None when absent): what a
    sender hands a third-party client, which may print a URL it cannot parse, password and all.
    The password may hold ``/``, ``@``, ``?``, ``#`` and spaces (the rule of :func:`authority_and_path`)."""
    scheme, sep, rest = url.partition("://")
    end = _userinfo_end(rest) if sep else -1
    if end < 0:
        return url, None, None
    user, colon, password = rest[:end].partition(":")
    return f"{scheme}://{rest[end + 1:]}", unquote(user), unquote(password) if colon else None


def file(path: str) -> Location:
    """A local file or folder named as the operating system opens it (relative to the working
    directory, symlinks resolved), not as a config location (no ``file:``, no glob)."""
    return Location("file", "", os.path.realpath(path))


def table(name: str) -> Location:
    """A catalog table by its qualified name (case ignored, back quotes dropped)."""
    if name is None or not str(name).strip():
        raise EmptyLocation("empty table name")
    parts = [p.strip().strip("`").lower() for p in str(name).split(".")]
    return Location("table", "", ".".join(parts))
