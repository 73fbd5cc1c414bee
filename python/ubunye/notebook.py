"""``from ubunye.notebook import notebook, NotebookContext``, as ubunye-engine 0.8.0 spelled it.

``notebook`` is :func:`ubunye.engine.runner.notebook`; ``NotebookContext`` is the
class it returns (:class:`ubunye.engine.notebook.Notebook`). Importing this module
makes ``ubunye.notebook`` this module rather than the function, so the module is
callable: ``ubunye.notebook(task_dir, ...)`` works either way.
"""
from __future__ import annotations

import sys
import types
from typing import Any

from ubunye.engine.notebook import Notebook as NotebookContext
from ubunye.engine.runner import notebook

__all__ = ["notebook", "NotebookContext"]


class _CallableModule(types.ModuleType):
    def __call__(self, *args: Any, **kwargs: Any) -> NotebookContext:
        return notebook(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
