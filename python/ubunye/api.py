"""``from ubunye.api import run_task, run_pipeline``, as ubunye-engine 0.8.0 spelled it.

Both are :mod:`ubunye.engine.runner`'s own functions (the same objects as
``ubunye.run_task`` and ``ubunye.run_pipeline``). The rest of 0.8.0's
``ubunye.api`` (``BackendChoice`` and its private helpers) is refused in one line.
"""
from __future__ import annotations

from typing import Any

from ubunye.engine.runner import run_pipeline, run_task

__all__ = ["run_task", "run_pipeline"]


def __getattr__(name: str) -> Any:
    if name == "BackendChoice":
        raise ImportError("ubunye.api.BackendChoice (ubunye-engine 0.8.0) is not available: backend= takes "
                          "'spark' or 'pandas' (or pass spark=session)")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
