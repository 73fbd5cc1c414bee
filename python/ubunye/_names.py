"""The one check of usecase, package, task (and run id) names.

A name becomes one folder (or file) name of the task tree and of the record
store, so it must be exactly one path component on every platform: not empty,
no ``/`` or ``\\``, no ``..``, no drive or stream (``C:``, ``a:b``), not ``.``,
no NUL. Every entry point (``ubunye run``, ``run_task``, ``run_pipeline``,
``notebook``, ``ubunye.lineage.run``, the recorder, the store and the
``ubunye lineage`` commands) calls :func:`validate_name` before anything runs.
Imports only ``ubunye.lineage.errors`` (which imports nothing of the package).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Union

from ubunye.lineage.errors import InvalidName

TASK_KINDS = ("usecase", "package", "task")
# The record store's own folders beside its usecase folders (its SQLite index, the hashes already
# proven): defined once here, so no usecase can be given their names and its records lost in them.
INDEX_DIR = ".index"
KNOWN_DIR = ".known"
STORE_FOLDERS = (INDEX_DIR, KNOWN_DIR)

# Unicode direction controls (U+202A-E, U+2066-9, U+200E/F, U+061C): a name holding one can read
# reversed (``exe\u202etxt.sh``); the report page and the terminal show them written out, never applied.
BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"


def visible(text: str, backslash: str = "\\") -> str:
    """``text`` with every direction control (:data:`BIDI`) written out as ``\\u202e`` (its
    backslash as ``backslash``: two inside a JSON string, which then reads as one)."""
    if not any(c in text for c in BIDI):
        return text
    return "".join(f"{backslash}u{ord(c):04x}" if c in BIDI else c for c in text)


def validate_name(kind: str, name: str) -> str:
    """Return ``name`` if it can be one folder (or file) name, else raise :class:`InvalidName` (one line)."""
    if not isinstance(name, str) or not name:
        raise InvalidName(kind, "" if name is None else str(name), "it is empty")
    if "/" in name or "\\" in name or (os.altsep and os.altsep in name):
        raise InvalidName(kind, name, "it contains a path separator")
    if ".." in name:
        raise InvalidName(kind, name, "it contains '..'")
    if ":" in name:
        raise InvalidName(kind, name, "it contains ':' (a drive or a stream on Windows)")
    if name == "." or "\0" in name or not name.strip():
        raise InvalidName(kind, name, "it is not a folder name")
    if kind == "usecase" and name in STORE_FOLDERS:
        raise InvalidName(kind, name, "it is the name of the record store's own folder")
    return name


def validate_task_names(usecase: str, package: str, task: str) -> tuple[str, str, str]:
    """The three names of ``usecase/package/task``, each checked by :func:`validate_name`."""
    return (validate_name("usecase", usecase), validate_name("package", package), validate_name("task", task))


def task_folder_names(task_dir: Union[str, Path]) -> tuple[Path, str, str, str]:
    """``(usecase_dir, usecase, package, task)`` of a task folder ``<usecase_dir>/<usecase>/<package>/<task>``.

    The three names are the last three components of the path *as given* (checked
    by :func:`validate_name`, so ``.../orders/..`` is refused rather than resolved
    to another task); the usecase folder is the rest, resolved. The record of the
    task therefore lands under that usecase folder whatever the names' folders
    link to.
    """
    given = Path(task_dir)
    parts = given.parts[1:] if given.anchor else given.parts  # "/" or "C:\\" is not a name
    names = parts[-3:]
    if len(names) < 3:
        raise InvalidName("task folder", str(task_dir), "it must be <usecase_dir>/<usecase>/<package>/<task>")
    usecase, package, task = validate_task_names(*names)
    return given.parents[2].resolve(), usecase, package, task
