"""The task engine: config, tasks, backends, expectations and the entry points."""
from __future__ import annotations

from ubunye.engine.errors import ConfigError, EngineError, ExpectationError, IOSpecError, TaskLoadError
from ubunye.engine.task import Task

__all__ = ["Task", "ConfigError", "EngineError", "ExpectationError", "IOSpecError", "TaskLoadError"]
