"""Local folders (and Unity Catalog volumes mounted at ``/Volumes``) as a create-only byte store.

``put_new`` writes a temporary file in the target folder, flushes and syncs it, then
``link``\\ s it to the final name: the link either creates the whole file or fails with
``EEXIST``, so a reader never sees half an object and of two writers exactly one wins.
Where ``link`` is not supported (FUSE mounts such as ``/Volumes``: "Function not
implemented"), and always in volume mode, the file is created with ``O_CREAT|O_EXCL``
(exclusive, but a reader may see it while it is being written: the record store
treats such a file as damaged and never passes over it). Before its first such create a store
checks that the mount honours it (a second exclusive create of one probe file must fail with
``EEXIST``); a mount that lets both succeed is refused, never written to.
"""
from __future__ import annotations

import errno
import os
import stat
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Optional, Union

from ubunye.lineage.store.blobs import AlreadyExists, BlobInfo, BlobNotFound, SecondExists
from ubunye.lineage.store.blobs import MOUNTED, check_volume, put_each, register, scheme_of

TEMP_SUFFIX = ".tmp"
# a record is at most 10 MB (userfiles.MAX_BYTES); its envelope holds it in base64 (4/3) with a few
# fields: nothing the store writes is larger, and a planted sparse file is never read into memory
MAX_OBJECT = 32 << 20
_NO_LINK = {errno.EPERM, errno.ENOSYS, errno.EXDEV, errno.EMLINK, getattr(errno, "ENOTSUP", errno.EPERM),
            getattr(errno, "EOPNOTSUPP", errno.EPERM)}
_NO_SYNC = {errno.EINVAL, errno.ENOSYS, getattr(errno, "ENOTSUP", errno.EINVAL),
            getattr(errno, "EOPNOTSUPP", errno.EINVAL)}


class PosixBlobs:
    """Objects as files under ``root``; ``volume=True`` never links or renames."""

    def __init__(self, root: Path, *, volume: bool = False) -> None:
        self.root = Path(root)
        self.volume = volume
        self._exclusive_checked = False

    def __repr__(self) -> str:
        return f"PosixBlobs({str(self.root)!r}{', volume=True' if self.volume else ''})"

    def locate(self, key: str) -> Path:
        return self.root / key if key else self.root

    def put_new(self, key: str, data: bytes) -> None:
        path = self.locate(key)
        _make_folders(path.parent)
        if self.volume or self._put_linked(path, data) is None:
            if not self._exclusive_checked:
                _check_exclusive(path.parent)
                self._exclusive_checked = True
            _put_exclusive(path, data)
        _sync_folder(path.parent)

    def put_new_linked(self, first: str, second: str, data: bytes) -> None:
        """:func:`.blobs.put_new_twice` for two names of one folder: the bytes written and synced
        once, linked at ``first`` then ``second``, then one sync of the folder."""
        path, other = self.locate(first), self.locate(second)
        if path.parent != other.parent or self.volume:
            return put_each(self, first, second, data)
        _make_folders(path.parent)
        try:
            linked = self._put_linked(path, data, other)
            if linked is None:
                return put_each(self, first, second, data)
            if linked is False:
                raise SecondExists(errno.EEXIST, "already stored (records are written once)", str(other))
        finally:
            _sync_folder(path.parent)

    def _put_linked(self, path: Path, data: bytes, also: Optional[Path] = None) -> Optional[bool]:
        """Write a synced temp file and link it at ``path`` (then at ``also``): True when linked,
        False when ``also`` was already there, None when links are not supported."""
        fd, temp = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=TEMP_SUFFIX, dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                if hasattr(os, "fchmod"):
                    os.fchmod(handle.fileno(), 0o644)  # mkstemp makes 0600; records are shared
                handle.write(data)
                handle.flush()
                _sync(handle.fileno())
            try:
                os.link(temp, path)
            except FileExistsError:
                raise AlreadyExists(errno.EEXIST, "already stored (records are written once)", str(path)) from None
            except OSError as exc:
                if exc.errno in _NO_LINK:
                    return None
                raise
            if also is not None:
                try:
                    os.link(temp, also)
                except FileExistsError:
                    return False
            return True
        finally:
            try:
                os.unlink(temp)
            except OSError:
                pass

    def get(self, key: str) -> bytes:
        """The bytes of the regular file at ``key``; a FIFO, a device or a folder planted there (or
        a link to one: ``/dev/zero``), or a file over :data:`MAX_OBJECT`, is an :class:`OSError`
        naming it, never a read that blocks, never ends or fills memory."""
        path = self.locate(key)
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
        except FileNotFoundError:
            raise BlobNotFound(errno.ENOENT, "no such record", str(path)) from None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise OSError(errno.EINVAL, "not a regular file", str(path))
            if info.st_size > MAX_OBJECT:
                raise OSError(errno.EFBIG, f"is {info.st_size} bytes; an object of the store is at most "
                                           f"{MAX_OBJECT // (1 << 20)} MB", str(path))
            chunks = []
            size = 0
            while size <= MAX_OBJECT:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    return b"".join(chunks)
                chunks.append(chunk)
                size += len(chunk)
            raise OSError(errno.EFBIG, f"grew past {MAX_OBJECT // (1 << 20)} MB while read", str(path))
        finally:
            os.close(fd)

    def listdir(self, prefix: str) -> tuple[list[BlobInfo], list[str]]:
        folder = self.locate(prefix)
        files: list[BlobInfo] = []
        folders: list[str] = []
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except (FileNotFoundError, NotADirectoryError):
            return files, folders
        base = f"{prefix}/" if prefix else ""
        for entry in entries:
            kind = _entry_kind(entry)
            if kind == "folder":
                folders.append(entry.name)
            elif kind != "other":  # a file, or a link no one can follow (listed: reading it names it damaged)
                st = entry.stat(follow_symlinks=kind == "file")
                files.append(BlobInfo(base + entry.name, st.st_size,
                                      datetime.fromtimestamp(st.st_mtime_ns / 1e9, timezone.utc)))
        return files, folders


    def holds_any(self, prefix: str, suffix: str, folder: str) -> bool:
        """Whether ``prefix`` holds a ``*suffix`` file (not a dot file) or the sub-folder ``folder``,
        reading only as far as the first one."""
        try:
            with os.scandir(self.locate(prefix)) as entries:
                for entry in entries:
                    kind = _entry_kind(entry)
                    if entry.name == folder and kind == "folder":
                        return True
                    if entry.name.endswith(suffix) and not entry.name.startswith(".") and kind in ("file", "broken"):
                        return True
        except (FileNotFoundError, NotADirectoryError):
            return False
        return False


def _entry_kind(entry: "os.DirEntry[str]") -> str:
    """``folder``, ``file``, ``broken`` (a link that cannot be followed: a loop of links, a name
    too long; ``is_dir`` raises for it) or ``other`` (a FIFO, a device, a dangling link)."""
    try:
        if entry.is_dir():
            return "folder"
        return "file" if entry.is_file() else "other"
    except OSError:
        return "broken"


def _check_exclusive(folder: Path) -> None:
    """Refuse a mount where ``O_CREAT|O_EXCL`` does not refuse a file that exists (records there
    could be overwritten): create a probe file twice; the second create must fail with EEXIST."""
    probe = folder / f".ubunye-exclusive-{os.getpid()}-{os.urandom(6).hex()}{TEMP_SUFFIX}"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
    os.close(os.open(probe, flags, 0o644))
    try:
        try:
            fd = os.open(probe, flags, 0o644)
        except FileExistsError:
            return
        os.close(fd)
        raise OSError(errno.ENOTSUP, "this mount does not refuse a second exclusive create (O_EXCL), so a record "
                      "could be overwritten: keep records on the volume through the Files API "
                      "(DATABRICKS_HOST) or on its cloud URL", str(folder))
    finally:
        try:
            os.unlink(probe)
        except OSError:
            pass


def _put_exclusive(path: Path, data: bytes) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        raise AlreadyExists(errno.EEXIST, "already stored (records are written once)", str(path)) from None
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        _sync(handle.fileno())


def _make_folders(folder: Path) -> None:
    """Make ``folder`` and its missing parents, each new name durable: the folder above each one
    missing here is synced (made by this writer or by another at the same time), else a power loss
    could drop a new folder and every record written into it after this returns."""
    missing = []
    probe = folder
    while not probe.exists() and probe.parent != probe:
        missing.append(probe)
        probe = probe.parent
    folder.mkdir(parents=True, exist_ok=True)  # (a file in the way raises, naming it)
    for new in reversed(missing):
        _sync_folder(new.parent)


def _sync_folder(folder: Path) -> None:
    """Make the new names in ``folder`` durable where the platform allows it (a platform that
    cannot open a folder, or sync one, is passed over; a failed sync is raised)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        _sync(fd)
    finally:
        os.close(fd)


def _sync(fd: int) -> None:
    """``fsync``, the one rule: where it is not supported (some FUSE mounts, a folder on some
    platforms: EINVAL, ENOTSUP, ENOSYS) it is passed over (the close still flushes); any other
    failure (EIO, ENOSPC) is raised: what it was to make durable may be lost after a power loss, so
    the write is not reported as done."""
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in _NO_SYNC:
            raise


def open_local(where: Union[str, Path]) -> PosixBlobs:
    """A path or ``file:///path``: a local folder; in volume mode under a mounted ``/Volumes``."""
    path = Path(str(where)[len("file://"):]) if scheme_of(where) == "file" else Path(where)
    return PosixBlobs(path, volume=check_volume(where) == MOUNTED)


register("", open_local, "a path")
register("file", open_local, "file://")
