"""Writing a file a user names (a report page, an init script, a copied jar): the one place.

Every file the CLI writes goes through :func:`write_file`, so each gets the same rules:

- never inside a protected folder (the record store) nor onto one, wherever a symbolic
  link in the path points (the real path is checked);
- a path that exists is replaced only when it is a regular file the tool wrote itself
  (``own`` recognises its first bytes: the tool's marker or seal), holds exactly the bytes
  to write, or ``force`` is given; a symbolic link, a folder or a special file is never
  replaced, nor written through;
- the bytes go to a new temporary file in the same folder (created exclusively, so a planted
  link is never followed) that is then linked into place (a new file: ``link`` fails rather
  than replace one that appeared meanwhile) or renamed over the file it replaces (a rename
  replaces the name, never what a link points to); where a mount supports neither (FUSE
  volumes), the file is created with ``O_CREAT|O_EXCL|O_NOFOLLOW``;
- every refusal and every errno is one :class:`~ubunye.userfiles.UserFileError` naming the
  path, and nothing is left behind (the temporary file is removed).

Pure: imports nothing from ubunye but :mod:`ubunye.userfiles`, so every layer may use it.
"""
from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path
from typing import Callable, Iterable, Iterator, Optional

from ubunye.userfiles import PathLike, UserFileError, _kind, os_error

HEAD = 64 * 1024  # how much of an existing file is read to recognise the tool's marker
_NO_LINK = {errno.EPERM, errno.ENOSYS, errno.EXDEV, errno.EMLINK, getattr(errno, "ENOTSUP", errno.EPERM),
            getattr(errno, "EOPNOTSUPP", errno.EPERM)}
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _identity(path: str) -> Optional[tuple[int, int]]:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def check_not_protected(path: PathLike, protected: Iterable[PathLike] = ()) -> None:
    """Refuse ``path`` when its real location is in (or is) one of the ``protected`` folders:
    by real path, and by identity (device and inode) of every folder above it that exists, so
    another spelling of a folder (a bind mount, a case-insensitive file system) is caught too."""
    real = os.path.realpath(path)
    above = [real, *(str(p) for p in Path(real).parents)]
    seen = {i for i in (_identity(a) for a in above) if i is not None}
    for folder in protected:
        if folder is None:
            continue
        if _inside(real, os.path.realpath(folder)) or _identity(os.fspath(folder)) in seen:
            raise UserFileError(path, f"is inside {folder}, which the tool never writes into "
                                      "(the record store): give a path outside it")


def _existing_head(path: Path) -> Optional[bytes]:
    """None when nothing is at ``path``; else the first bytes of the regular file there
    (anything else, a link included, is refused)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise os_error(exc, path) from None
    if stat.S_ISLNK(info.st_mode):
        raise UserFileError(path, "is a symbolic link; it is never written through nor replaced: "
                                  "give the path of a file")
    if not stat.S_ISREG(info.st_mode):
        raise UserFileError(path, f"is {_kind(info.st_mode)}; expected a file to write")
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise os_error(exc, path) from None
    try:
        return os.read(fd, HEAD) if info.st_size else b""
    finally:
        os.close(fd)


def check_writable(path: PathLike, *, own: Callable[[bytes], bool] = lambda head: False, force: bool = False,
                   protected: Iterable[PathLike] = (), data: Optional[bytes] = None,
                   what: str = "the tool") -> Optional[bytes]:
    """Refuse ``path`` (one :class:`UserFileError`) unless :func:`write_file` may write it: the
    first bytes of the file there (None: nothing there). ``own(head)``: whether the file there,
    given its first :data:`HEAD` bytes, is this tool's own output; ``data``: a file that already
    holds exactly these bytes is accepted too."""
    check_not_protected(path, protected)
    head = _existing_head(Path(path))
    if head is None or force or own(head) or (data is not None and _same_bytes(Path(path), data)):
        return head
    raise UserFileError(path, f"exists with other content than {what} writes (another file, or one edited "
                              "since): use --force to overwrite it, or give another path")


def write_file(path: PathLike, data: bytes, *, own: Callable[[bytes], bool] = lambda head: False,
               force: bool = False, protected: Iterable[PathLike] = (), what: str = "the tool") -> bool:
    """Write ``data`` to ``path`` under the rules above; False when the same bytes are already
    there (nothing written). ``own``, ``protected``, ``what``: see :func:`check_writable`."""
    path = Path(path)
    head = check_writable(path, own=own, force=force, protected=protected, data=data, what=what)
    if head is not None and head == data[:HEAD] and _same_bytes(path, data):
        return False
    made = _missing(path.parent)
    try:
        with _ended_cleanly():
            path.parent.mkdir(parents=True, exist_ok=True)
            check_not_protected(path, protected)  # a folder just made: where it really is
            _put(path, data, replace=head is not None)
    except BaseException as exc:  # an error, a signal, Ctrl-C: no folder it made is left (deepest first)
        for folder in made:
            try:
                os.rmdir(folder)
            except OSError:
                break
        if isinstance(exc, OSError):
            raise UserFileError(path, exc.strerror or str(exc)) from None  # the path asked for, not the temp file's
        raise
    return True


@contextlib.contextmanager
def _ended_cleanly() -> Iterator[None]:
    """While a file is written, SIGTERM and SIGHUP (left at their default, which kills at once)
    end the process by ``SystemExit(128 + signal)`` instead, so the temporary file and the folders
    made are removed first; a handler someone installed is left alone (main thread only)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    taken = {}
    for name in ("SIGTERM", "SIGHUP"):
        number = getattr(signal, name, None)
        if number is not None and signal.getsignal(number) is signal.SIG_DFL:
            taken[number] = signal.signal(number, stop)
    try:
        yield
    finally:
        for number, previous in taken.items():
            signal.signal(number, previous)


def _missing(folder: Path) -> list[Path]:
    """The folders ``mkdir(parents=True)`` of ``folder`` would make, deepest first."""
    missing = []
    while not os.path.lexists(folder) and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    return missing


def _same_bytes(path: Path, data: bytes) -> bool:
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return False
    try:
        chunks = []
        size = 0
        while size <= len(data):
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks) == data
    finally:
        os.close(fd)


def _put(path: Path, data: bytes, *, replace: bool) -> None:
    fd, temp = _new_temp(path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            if replace:
                os.replace(temp, path)  # replaces the name; never follows a link planted there
            else:
                os.link(temp, path)  # fails (EEXIST) rather than replace a file made meanwhile
            return
        except FileExistsError:
            raise UserFileError(path, "appeared while it was written; nothing replaced") from None
        except OSError as exc:
            if exc.errno not in _NO_LINK:
                raise
        _put_exclusive(path, data, replace=replace)  # a mount without link or rename
    finally:
        try:
            os.unlink(temp)
        except OSError:
            pass


def _new_temp(folder: Path) -> tuple[int, str]:
    """A new file of a short name of its own (a path of the longest name a folder allows can
    still be written), created exclusively and never through a link, with the mode ``open()``
    gives (0666 less the umask, which the kernel applies: no process-wide umask change)."""
    for _ in range(100):
        temp = os.path.join(folder, f".ubunye-{os.urandom(6).hex()}.tmp")
        try:
            return os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0),
                           0o666), temp
        except FileExistsError:
            continue
    raise UserFileError(folder, "no free name for a temporary file")


def _put_exclusive(path: Path, data: bytes, *, replace: bool) -> None:
    if replace:
        os.unlink(path)  # a name, never what a link points to
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o666)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
