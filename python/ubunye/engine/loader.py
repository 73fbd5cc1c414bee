"""Finding and importing a task folder's ``transformations.py``."""
from __future__ import annotations

import hashlib
import importlib.util
import inspect
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Mapping, Optional

from ubunye._names import task_folder_names
from ubunye.engine.errors import TaskLoadError
from ubunye.engine.task import Task
from ubunye.engine.taskcode import TaskCode
from ubunye.lineage.ending import describe, reraise


def task_identity(task_dir: Path) -> tuple[Path, str, str, str]:
    """``(usecase_dir, usecase, package, task)`` from ``<usecase_dir>/<usecase>/<package>/<task>``.

    The names are the folder's last three components as given, each checked by
    :func:`ubunye._names.validate_name` (an :class:`~ubunye.lineage.errors.InvalidName`
    before anything runs); the usecase folder is the rest, resolved.
    """
    return task_folder_names(task_dir)


def import_transformations(task_dir: Path, code: Optional[TaskCode] = None) -> ModuleType:
    """Import ``<task_dir>/transformations.py`` under a module name of its own, with the
    task's own module table (``code``; see :mod:`ubunye.engine.taskcode`)."""
    file = Path(task_dir) / "transformations.py"
    if not file.is_file():
        raise TaskLoadError(f"{file}: no such file (a task folder needs transformations.py)")
    code = code if code is not None else TaskCode(Path(task_dir))
    digest = hashlib.sha256(str(file.resolve()).encode("utf-8")).hexdigest()[:12]
    name = f"ubunye_task_{digest}"
    spec = code.spec_for(name, code.folder / "transformations.py")
    module = importlib.util.module_from_spec(spec)
    with code.active():
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)  # type: ignore[union-attr]
        except BaseException as exc:  # SystemExit and any other BaseException too (not a signal)
            sys.modules.pop(name, None)
            if reraise(exc):
                raise
            line = _line_of(exc, file)
            where = f"{file}:{line}" if line else str(file)
            message = " ".join(describe(exc).split())
            raise TaskLoadError(f"{where}: import failed: {message}") from exc
    return module


def _line_of(exc: BaseException, file: Path) -> int | None:
    if isinstance(exc, SyntaxError) and exc.lineno:
        return exc.lineno
    tb = exc.__traceback__
    line = None
    while tb is not None:
        if Path(tb.tb_frame.f_code.co_filename).resolve() == file.resolve():
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def find_task_class(module: ModuleType, file: Path) -> type[Task]:
    """The one :class:`Task` subclass defined in ``module``."""
    found = [
        obj
        for obj in vars(module).values()
        if inspect.isclass(obj) and issubclass(obj, Task) and obj is not Task and obj.__module__ == module.__name__
    ]
    if not found:
        raise TaskLoadError(f"{file}: no Task subclass; define `class MyTask(Task)` with transform(self, sources)")
    if len(found) > 1:
        names = ", ".join(sorted(c.__name__ for c in found))
        raise TaskLoadError(f"{file}: {len(found)} Task subclasses ({names}); keep exactly one")
    return found[0]


def load_task(task_dir: Path, code: Optional[TaskCode] = None, config: Optional[Mapping[str, Any]] = None) -> Task:
    """Import the task folder's transformations and create its Task (with the task's modules).

    ``config`` (the rendered config.yaml) becomes ``task.config``; a class whose
    ``__init__`` takes ``config`` (ubunye-engine 0.8.0's ``Task(config)``) gets it there.
    """
    code = code if code is not None else TaskCode(Path(task_dir))
    module = import_transformations(task_dir, code)
    cls = find_task_class(module, Path(task_dir) / "transformations.py")
    settings = dict(config or {})
    try:
        with code.active():
            task = cls(config=settings) if _takes_config(cls) else cls()
        if not isinstance(vars(task).get("config"), Mapping):
            task.config = settings
        return task
    except BaseException as exc:  # SystemExit and any other BaseException too (not a signal)
        if reraise(exc):
            raise
        raise TaskLoadError(f"{Path(task_dir) / 'transformations.py'}: {cls.__name__}() failed: {describe(exc)}") from exc


def _takes_config(cls: type) -> bool:
    """Whether ``cls(config=...)`` is accepted (0.8.0 tasks override ``__init__(self, config)``)."""
    try:
        params = inspect.signature(cls).parameters
    except (TypeError, ValueError):
        return False
    return "config" in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
