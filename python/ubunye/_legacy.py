"""Refuse ubunye-engine 0.8.0 modules that have no counterpart here, in one line.

A finder appended to ``sys.meta_path`` (so it is asked only when no real module
of that name exists) turns ``import ubunye.models.registry`` and the like into an
:class:`ImportError` saying what to use instead, rather than a bare
``No module named ...``.
"""
from __future__ import annotations

import sys
from importlib.abc import MetaPathFinder
from typing import Any, Optional, Sequence

_RUN = "run a task folder with `from ubunye import run_task` (it returns a TaskResult; .outputs holds the frames)"

# 0.8.0 module -> what to use here
REFUSED: dict[str, str] = {
    "ubunye.api": "use `from ubunye import run_task, run_pipeline` (they return a TaskResult; .outputs holds the frames)",
    "ubunye.config": "use ubunye.engine.config.load_config(task_dir, mode=..., dt=..., variables=...)",
    "ubunye.core.runtime": _RUN,
    "ubunye.core.task_runner": _RUN,
    "ubunye.core.catalog": "qualify table names in config.yaml (catalog.schema.table)",
    "ubunye.core.hooks": "hooks are not supported; the run record (ubunye.lineage) holds the run's evidence",
    "ubunye.backends": "choose the backend with run_task(..., backend='spark'|'pandas', spark=session) "
                       "or ENGINE.backend",
    "ubunye.plugins": "reader/writer/transform plugins are not supported: use the built-in formats "
                      "in config.yaml and put logic in Task.transform",
    "ubunye.models": "the model registry is not part of this project; keep models in MLflow or your own store",
    "ubunye.telemetry": "telemetry monitors are not part of this project; the run record (ubunye.lineage) "
                        "holds the run's timings and evidence",
    "ubunye.orchestration": "DAG export is not part of this project; call `ubunye run` from your scheduler",
    "ubunye.compat": "not part of this project",
}


def refusal(fullname: str) -> Optional[str]:
    """The one-line refusal for a 0.8.0 module (or a module under one), else None."""
    parts = fullname.split(".")
    for i in range(len(parts), 1, -1):
        name = ".".join(parts[:i])
        if name in REFUSED:
            return f"{fullname} is a ubunye-engine 0.8.0 module with no counterpart here: {REFUSED[name]}"
    return None


class LegacyFinder(MetaPathFinder):
    """Raises the refusal for a 0.8.0 module name that no real module answers."""

    def find_spec(self, fullname: str, path: Optional[Sequence[str]], target: Any = None) -> None:
        message = refusal(fullname) if fullname.startswith("ubunye.") else None
        if message is not None:
            raise ImportError(message, name=fullname)
        return None


def install() -> None:
    if not any(isinstance(f, LegacyFinder) for f in sys.meta_path):
        sys.meta_path.append(LegacyFinder())
