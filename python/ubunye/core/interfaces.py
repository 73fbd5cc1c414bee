"""``from ubunye.core.interfaces import Task``, as ubunye-engine 0.8.0 spelled it.

``Task`` is :class:`ubunye.engine.task.Task` itself: a 0.8.0 task
(``__init__(self, config)``, ``self.config``, ``setup()``,
``transform(self, sources) -> dict``) runs unchanged. 0.8.0's plugin base
classes (``Backend``, ``Connector``, ``Reader``, ``Writer``, ``Transform``) are refused with
one line saying what to use instead.
"""
from __future__ import annotations

from typing import Any

from ubunye.engine.task import Task

__all__ = ["Task"]

_REFUSED = {
    "Backend": "backends are built in here: pick one with ENGINE.backend or `ubunye run --backend spark|pandas`",
    "Reader": "readers are built in here: set an input's format (parquet, csv, json, delta, table) in config.yaml",
    "Writer": "writers are built in here: set an output's format (parquet, csv, json, delta, table) in config.yaml",
    "Connector": "connectors are built in here: set an input's or output's format (parquet, csv, json, delta, "
                 "table, jdbc, or 0.8.0's unity, hive, s3) in config.yaml",
    "Transform": "transform plugins are not supported here: put the logic in the task's Task.transform "
                 "(from ubunye import Task)",
}


def __getattr__(name: str) -> Any:
    if name in _REFUSED:
        raise ImportError(f"ubunye.core.interfaces.{name} (ubunye-engine 0.8.0) is not available: {_REFUSED[name]}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
