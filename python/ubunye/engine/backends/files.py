"""Spark-style file layout for backends that are not Spark.

An output path is a folder of part files (``part-00000-<uuid>.<ext>``) plus a
``_SUCCESS`` marker, as Spark writes it, so the same path can be read by
either backend. An input path may be a single file or such a folder (files
whose names start with ``_`` or ``.`` are skipped).
"""
from __future__ import annotations

import os
import shutil
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Optional

from ubunye.engine.errors import IOSpecError

EXTENSIONS = {"parquet": ".parquet", "csv": ".csv", "json": ".json"}


def has_data(path: Path) -> bool:
    """True when ``path`` is a file or a folder holding any visible file."""
    if path.is_file():
        return True
    if not path.is_dir():
        return False
    return any(True for _ in _visible(path))


def _visible(folder: Path) -> Any:
    for p in folder.rglob("*"):
        rel = p.relative_to(folder).parts
        if p.is_file() and not any(part.startswith(("_", ".")) for part in rel):
            yield p


@contextmanager
def staged_output(path: Path, mode: str, what: str) -> Iterator[Optional[Path]]:
    """Write an output beside its folder, then put it in place: yields a staging folder (a
    hidden sibling in the same parent) to write the part files into, or None when the mode
    says nothing is to be written (:func:`ubunye.engine.outputs.write_action`).

    When the block ends without an error the staged files replace the folder (overwrite:
    the old folder is renamed aside, the new one renamed in, then the old one deleted) or
    join it (append: each part file renamed in); when it raises, the staging folder is
    removed and the folder is as it was. A symlinked output is written where it points."""
    from ubunye.engine.outputs import ADD, SKIP, write_action

    target = Path(os.path.realpath(path))
    if os.path.lexists(target) and not target.is_dir():  # never replaced by a folder, whatever the mode
        raise IOSpecError(f"{what}: {path} is a file; an output path is a folder of part files")
    action = write_action(has_data(target), mode, what, str(path))
    if action == SKIP:
        yield None
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    stage = target.parent / f".{target.name}.ubunye-new-{uuid.uuid4().hex[:12]}"
    stage.mkdir()  # as every folder of the write, with the umask's mode (tempfile's would be 0700)
    try:
        yield stage
        if action == ADD:
            _add(stage, target)
        else:
            mark_success(stage)
            _swap(stage, target)
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def _swap(stage: Path, target: Path) -> None:
    """Put ``stage`` at ``target``; an old ``target`` is deleted only once ``stage`` is in."""
    if not os.path.lexists(target):
        os.rename(stage, target)
        return
    old = target.parent / f".{target.name}.ubunye-old-{uuid.uuid4().hex[:12]}"
    os.rename(target, old)
    try:
        os.rename(stage, target)
    except BaseException:
        os.rename(old, target)
        raise
    if old.is_dir() and not old.is_symlink():
        shutil.rmtree(old)
    else:
        old.unlink()


def _add(stage: Path, target: Path) -> None:
    """Move every staged part file into ``target`` (append), then mark it written."""
    target.mkdir(parents=True, exist_ok=True)
    for part in sorted(p for p in stage.rglob("*") if p.is_file()):
        dest = target / part.relative_to(stage)
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.rename(part, dest)
    mark_success(target)


def new_part(path: Path, fmt: str, index: int = 0) -> Path:
    """A fresh part file name inside an output folder."""
    return path / f"part-{index:05d}-{uuid.uuid4()}-c000{EXTENSIONS[fmt]}"


def mark_success(path: Path) -> None:
    (path / "_SUCCESS").write_bytes(b"")


def local_path(location: Optional[str], what: str) -> Path:
    """The local folder or file of a plain path or ``file:`` URL (:mod:`ubunye.locations`)."""
    from ubunye.locations import local_path as local

    if location is None or not location.strip():
        raise IOSpecError(f"{what}: no path")
    path = local(location)
    if path is None:
        raise IOSpecError(f"{what}: {location!r} is not a local path; this backend reads local files only")
    return Path(path)


def folder_partitions(location: Optional[str], options: Any = None) -> list[str]:
    """The partition columns of an input read from local ``key=value`` folders (none for a
    file, a plain folder, a path that is not local, or a layout the reader refuses)."""
    from ubunye.io.partitions import PartitionError, discover
    from ubunye.locations import local_path as local

    path = local(location) if location else None
    if path is None or not Path(path).is_dir():
        return []
    base = {str(k).lower(): v for k, v in dict(options or {}).items()}.get("basepath")
    try:
        return list(discover(Path(path), base).names)
    except (PartitionError, OSError, ValueError):
        return []


class PartitionedFrames:
    """Frames read from ``key=value`` folders and their partition columns, by identity (the
    frame is kept, so its id cannot be reused while the backend lives)."""

    def __init__(self) -> None:
        self._frames: dict[int, tuple[Any, list[str]]] = {}

    def note(self, frame: Any, location: Optional[str], options: Any = None) -> None:
        columns = folder_partitions(location, options)
        if columns:
            self._frames[id(frame)] = (frame, columns)

    def columns(self, frame: Any) -> Optional[list[str]]:
        known = self._frames.get(id(frame))
        return known[1] if known is not None and known[0] is frame else None
