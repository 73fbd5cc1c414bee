"""Ubunye: the proof of what a data pipeline run read and wrote.

Public API (imported lazily so that ``import ubunye`` never starts a JVM and
never imports pandas or pyspark by itself):

- :func:`fingerprint` / :class:`Fingerprint`: the rows-v1 content hash of a frame.
- :class:`Task`, :func:`run_task`, :func:`run_pipeline`, :func:`notebook`: run task folders;
  :class:`UbunyeError` (0.8.0's name of the engine's error base, :class:`ubunye.engine.errors.EngineError`).
- :mod:`ubunye.lineage`: run records, the store and the recorder.
- :mod:`ubunye.spark`: the native plugin jar and the Spark helpers.
"""
from __future__ import annotations

from ubunye._lazy import lazy_getattr

from typing import TYPE_CHECKING

from ubunye._version import __version__
from ubunye._legacy import install as _install_legacy_refusals

_install_legacy_refusals()  # 0.8.0 module names: one-line ImportErrors saying what to use

if TYPE_CHECKING:  # pragma: no cover
    from ubunye.engine.errors import UbunyeError
    from ubunye.engine.runner import notebook, run_pipeline, run_task
    from ubunye.engine.task import Task
    from ubunye.hashing import Fingerprint, canonical_kinds, canonical_line, fingerprint

__all__ = [
    "__version__",
    "Fingerprint",
    "fingerprint",
    "canonical_kinds",
    "canonical_line",
    "Task",
    "run_task",
    "run_pipeline",
    "notebook",
    "UbunyeError",
]

_LAZY = {
    "Fingerprint": "ubunye.hashing",
    "fingerprint": "ubunye.hashing",
    "canonical_kinds": "ubunye.hashing",
    "canonical_line": "ubunye.hashing",
    "Task": "ubunye.engine.task",
    "run_task": "ubunye.engine.runner",
    "run_pipeline": "ubunye.engine.runner",
    "notebook": "ubunye.engine.runner",
    "UbunyeError": "ubunye.engine.errors",
}


__getattr__ = lazy_getattr(__name__, globals(), _LAZY)
