"""Evidence about the code, the config and the machine of a run.

Spec: ``shared/spec/run-record.md`` (sections code_hash, environment). Nothing
here imports pandas, pyarrow or pyspark; the Spark facts are read from the
session object handed in.
"""
from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
from functools import lru_cache
from importlib import import_module
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Mapping, Optional

from ubunye.userfiles import read_bytes

# Distributions that can change a result (spec), this package first.
RESULT_PACKAGES: tuple[str, ...] = (
    "ubunye",
    "pyspark",
    "delta-spark",
    "pandas",
    "pyarrow",
    "numpy",
    "narwhals",
    "scikit-learn",
    "torch",
    "mlflow",
)
CONFIG_FILE = "config.yaml"
MAX_CODE_BYTES = 256 * 1024 * 1024  # a task's code file (generated code can be large)
FALLBACK = "fallback"


def _lf(data: bytes) -> bytes:
    return data.replace(b"\r\n", b"\n")


def _code_files(task_dir: Path) -> list[tuple[tuple[str, ...], Path]]:
    found: list[tuple[tuple[str, ...], Path]] = []
    for folder, dirs, files in os.walk(task_dir):
        dirs[:] = [d for d in dirs if d != "__pycache__" and not d.startswith(".")]
        rel_folder = Path(folder).relative_to(task_dir).parts
        for name in files:
            if name.endswith(".py") and not name.startswith("."):
                found.append(((*rel_folder, name), Path(folder) / name))
    found.sort(key=lambda item: item[0])
    return found


def _code_bytes(path: Path) -> bytes:
    """A code file's bytes; a FIFO or device named ``*.py`` is an error (reading it would block or
    never end), as an unreadable file is: the hash cannot cover it."""
    return read_bytes(path, limit=MAX_CODE_BYTES)


def code_hash(task_dir: Optional[Path], ran: Optional[Mapping[tuple[str, ...], bytes]] = None) -> Optional[str]:
    """``sha256:`` over the task folder's ``.py`` files, or None when there is none.

    Files are ordered by their relative path's components; each contributes its
    relative POSIX path, NUL, its bytes with CRLF as LF, NUL. ``ran`` holds the
    bytes the run compiled for files of the folder (by relative path parts): those
    are hashed instead of the files' bytes now, so the hash covers the code that ran
    (a file the run loaded and that is gone since is still covered).
    """
    if task_dir is None or not Path(task_dir).is_dir():
        return None
    ran = dict(ran or {})
    files = {parts: path for parts, path in _code_files(Path(task_dir))}
    names = sorted({*files, *ran})
    if not names:
        return None
    digest = hashlib.sha256()
    for parts in names:
        digest.update("/".join(parts).encode("utf-8"))
        digest.update(b"\0")
        digest.update(_lf(ran[parts] if parts in ran else _code_bytes(files[parts])))
        digest.update(b"\0")
    return "sha256:" + digest.hexdigest()


def config_hash(config: Optional[Path]) -> Optional[str]:
    """``sha256:`` of the task's ``config.yaml`` bytes (CRLF as LF), or None.

    ``config`` is the config file itself or the task folder holding it.
    """
    if config is None:
        return None
    path = Path(config)
    if path.is_dir():
        path = path / CONFIG_FILE
    if not path.is_file():
        return None
    return "sha256:" + hashlib.sha256(_lf(path.read_bytes())).hexdigest()


@lru_cache(maxsize=1)
def _packages() -> tuple[tuple[str, str], ...]:
    found: list[tuple[str, str]] = []
    for name in RESULT_PACKAGES:
        try:
            found.append((name, version(name)))
        except PackageNotFoundError:
            continue
    return tuple(found)


def environment(spark: Any = None) -> dict[str, Any]:
    """The environment of a run: Python, platform and result-changing packages;
    with a Spark session also ``spark``, ``java`` and ``ubunye_spark_plugin``
    (the native plugin's version, or ``"fallback"`` when the mapInArrow fallback is used).
    """
    env: dict[str, Any] = {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": sys.platform,
        "machine": platform.machine(),
        "packages": dict(_packages()),
    }
    if spark is not None:
        env.update(spark_environment(spark))
    return env


def environment_hash(env: dict[str, Any]) -> str:
    """``sha256:`` of the environment as compact JSON with sorted keys."""
    text = json.dumps(env, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def spark_environment(spark: Any) -> dict[str, Any]:
    """``spark`` (version), ``java`` (version, None when not reachable, e.g. Spark
    Connect) and ``ubunye_spark_plugin`` of a Spark session.

    Read from the session's facts (:func:`ubunye.spark.facts.facts`): asked once per
    session, so later runs ask the JVM nothing.
    """
    try:
        known = import_module("ubunye.spark.facts").facts(spark)
    except Exception:  # noqa: BLE001 - no Spark helpers: the fallback is what would run
        return {"spark": _safe(lambda: str(spark.version)), "java": None, "ubunye_spark_plugin": FALLBACK}
    return {"spark": known.spark or None, "java": known.java,
            "ubunye_spark_plugin": _plugin_version(known) if known.native else FALLBACK}


def _safe(read: Any) -> Optional[str]:
    try:
        value = read()
    except Exception:  # noqa: BLE001 - evidence is best effort, never fails a run
        return None
    return None if value is None else str(value)


def _plugin_version(known: Any) -> str:
    """The native plugin's version: the one the driver loaded (the jar's BuildInfo), else
    the packaged jar's, else this package's (they are built together)."""
    if known.jar_version:
        return str(known.jar_version)
    try:
        packaged = _safe(lambda: import_module("ubunye.spark.jar").jar_info().version)
    except Exception:  # noqa: BLE001
        packaged = None
    return packaged or str(import_module("ubunye._version").__version__)
