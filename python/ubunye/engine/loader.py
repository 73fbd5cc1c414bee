"""Finding and importing a task folder's ``transformations.py``."""
from __future__ import annotations

import hashlib
import importlib.util
import inspect
import sys
from pathlib import Path
from types import ModuleType

from ubunye.engine.errors import TaskLoadError
from ubunye.engine.task import Task


def task_identity(task_dir: Path) -> tuple[Path, str, str, str]:
    """``(usecase_dir, usecase, package, task)`` from ``<usecase_dir>/<usecase>/<package>/<task>``."""
    task_dir = Path(task_dir).resolve()
    parts = task_dir.parts
    if len(parts) < 4:
        raise TaskLoadError(f"{task_dir}: a task folder is <usecase_dir>/<usecase>/<package>/<task>")
    return task_dir.parents[2], parts[-3], parts[-2], parts[-1]


def import_transformations(task_dir: Path) -> ModuleType:
    """Import ``<task_dir>/transformations.py`` under a module name of its own."""
    file = Path(task_dir) / "transformations.py"
    if not file.is_file():
        raise TaskLoadError(f"{file}: no such file (a task folder needs transformations.py)")
    digest = hashlib.sha256(str(file.resolve()).encode("utf-8")).hexdigest()[:12]
    name = f"ubunye_task_{digest}"
    spec = importlib.util.spec_from_file_location(name, file)
    if spec is None or spec.loader is None:  # pragma: no cover - a .py path always has a loader
        raise TaskLoadError(f"{file}: cannot be imported")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    folder = str(Path(task_dir).resolve())
    sys.path.insert(0, folder)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        sys.modules.pop(name, None)
        line = _line_of(exc, file)
        where = f"{file}:{line}" if line else str(file)
        message = " ".join(str(exc).split())
        raise TaskLoadError(f"{where}: import failed: {type(exc).__name__}: {message}") from exc
    finally:
        try:
            sys.path.remove(folder)
        except ValueError:  # pragma: no cover - the module removed it itself
            pass
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


def load_task(task_dir: Path) -> Task:
    """Import the task folder's transformations and create its Task."""
    module = import_transformations(task_dir)
    cls = find_task_class(module, Path(task_dir) / "transformations.py")
    try:
        return cls()
    except Exception as exc:
        raise TaskLoadError(f"{Path(task_dir) / 'transformations.py'}: {cls.__name__}() failed: {type(exc).__name__}: {exc}") from exc
