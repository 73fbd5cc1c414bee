"""Spark-style file layout for backends that are not Spark.

An output path is a folder of part files (``part-00000-<uuid>.<ext>``) plus a
``_SUCCESS`` marker, as Spark writes it, so the same path can be read by
either backend. An input path may be a single file or such a folder (files
whose names start with ``_`` or ``.`` are skipped).
"""
from __future__ import annotations

import shutil
import uuid
from pathlib import Path
from typing import Any, Optional

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


def prepare_output(path: Path, mode: str, what: str) -> bool:
    """Apply a write mode to an output folder; False when nothing is to be written."""
    exists = has_data(path)
    if exists and mode == "errorifexists":
        raise IOSpecError(f"{what}: {path} already exists (mode errorifexists)")
    if exists and mode == "ignore":
        return False
    if mode == "overwrite" and path.exists():
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()
    if path.is_file():
        raise IOSpecError(f"{what}: {path} is a file; an output path is a folder of part files")
    path.mkdir(parents=True, exist_ok=True)
    return True


def new_part(path: Path, fmt: str, index: int = 0) -> Path:
    """A fresh part file name inside an output folder."""
    return path / f"part-{index:05d}-{uuid.uuid4()}-c000{EXTENSIONS[fmt]}"


def mark_success(path: Path) -> None:
    (path / "_SUCCESS").write_bytes(b"")


def local_path(location: Optional[str], what: str) -> Path:
    if location is None:
        raise IOSpecError(f"{what}: no path")
    if "://" in location and not location.startswith("file://"):
        raise IOSpecError(f"{what}: {location!r} is not a local path; this backend reads local files only")
    return Path(location[7:] if location.startswith("file://") else location)
