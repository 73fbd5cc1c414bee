"""A task folder's own modules, imported for that task alone.

Two tasks of one pipeline may each keep a ``helpers.py`` beside their
``transformations.py``. Python keeps one module per name in ``sys.modules``, so
without care the second task would run the first task's ``helpers``. A
:class:`TaskCode` gives each task its own module table:

- while the task's code runs (its import, ``setup`` and ``transform``, see
  :meth:`TaskCode.active`), its folder is searched first, and a module of the
  same top-level name imported from elsewhere (another task's folder, the
  caller's own ``helpers``) is set aside;
- the modules loaded from the folder are compiled from the bytes read at that
  moment (never from a cached ``.pyc``), and those bytes are kept
  (:attr:`TaskCode.loaded`) for the record's code hash: the hash covers the code
  that ran;
- afterwards the task's modules leave ``sys.modules`` (they are kept in the
  task's own table for its next step), what was set aside is put back, and
  ``sys.path`` is restored as it was;
- while the scope lasts, the task's modules are registered with pyspark's cloudpickle
  to be pickled by value (:func:`_by_value`): a UDF defined at module level in
  ``transformations.py``, or one calling a helper module of the folder, reaches
  Spark's Python workers with its code (the workers cannot import the task's
  modules: its module name is ``ubunye_task_<digest>``, its folder is not theirs).
  Outside the scope the task's modules are not in ``sys.modules``, and cloudpickle
  pickles them by value anyway.

Standard-library modules and installed distributions already imported are never
set aside (pandas importing ``json`` must keep finding the real one); a task file
named like one of them is not used, as before. Modules the task imports from
elsewhere (pandas, scikit-learn ...) stay imported: importing them again would
be slow and, for C extensions, unsafe.
"""
from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from importlib.abc import MetaPathFinder
from importlib.machinery import ModuleSpec, SourceFileLoader
from importlib.util import spec_from_file_location
from pathlib import Path
from types import CodeType, ModuleType
from typing import Any, Iterator, Optional, Sequence

_INSTALLED = ("site-packages", "dist-packages")


class TaskCode:
    """The module table of one task folder."""

    def __init__(self, task_dir: Path) -> None:
        self.folder = Path(os.path.realpath(task_dir))
        self._prefix = str(self.folder) + os.sep
        self.modules: dict[str, ModuleType] = {}  # the task's modules, kept between its steps
        self.loaded: dict[tuple[str, ...], bytes] = {}  # relative path parts -> the bytes compiled
        self._shipped: list[tuple[Any, str]] = []  # (cloudpickle, module name) this scope registered

    # --- where ---------------------------------------------------------------
    def inside(self, path: Optional[str]) -> bool:
        return bool(path) and os.path.realpath(str(path)).startswith(self._prefix)

    def owns(self, module: Any) -> bool:
        """True for a module loaded from this task's folder."""
        file = getattr(module, "__file__", None)
        if file:
            return self.inside(file)
        paths = list(getattr(module, "__path__", None) or [])  # a namespace package
        return bool(paths) and all(self.inside(p) for p in paths)

    def provided(self) -> set[str]:
        """Top-level module names the folder provides (``x.py``, ``x/``)."""
        names: set[str] = set()
        try:
            entries = list(os.scandir(self.folder))
        except OSError:
            return names
        for entry in entries:
            if entry.name.startswith(".") or entry.name == "__pycache__":
                continue
            if entry.is_dir():
                names.add(entry.name)
            elif entry.name.endswith(".py"):
                names.add(entry.name[:-3])
        return names

    def note(self, path: str, data: bytes) -> None:
        """Keep the bytes of a file of the folder compiled for this task."""
        rel = Path(os.path.realpath(path)).relative_to(self.folder)
        self.loaded[rel.parts] = data

    # --- the scope -----------------------------------------------------------
    @contextmanager
    def active(self) -> Iterator["TaskCode"]:
        """Run the block with this task's modules (see the module docs)."""
        saved_path = list(sys.path)
        provided = self.provided()
        set_aside: dict[str, ModuleType] = {}
        for name, module in list(sys.modules.items()):
            top = name.partition(".")[0]
            if top in provided and not self.owns(module) and not _kept(top, sys.modules.get(top)):
                set_aside[name] = sys.modules.pop(name)
        sys.modules.update(self.modules)
        self._shipped = _by_value(list(self.modules.values()))
        finder = _TaskFinder(self)
        sys.meta_path.insert(0, finder)
        sys.path.insert(0, str(self.folder))
        try:
            yield self
        finally:
            try:
                sys.meta_path.remove(finder)
            except ValueError:  # pragma: no cover - the task removed it itself
                pass
            for name, module in list(sys.modules.items()):
                if self.owns(module):
                    self.modules[name] = module
                    del sys.modules[name]
            _by_value_end(self._shipped)
            self._shipped = []
            for name, module in set_aside.items():
                sys.modules[name] = module
            sys.path[:] = saved_path

    def spec_for(self, name: str, file: Path) -> ModuleSpec:
        """The spec of a module of the folder (compiled from source by :class:`_TaskLoader`)."""
        spec = spec_from_file_location(name, file, loader=_TaskLoader(name, str(file), self))
        assert spec is not None  # a .py path always has a spec
        return spec


def _kept(top: str, module: Any) -> bool:
    """A standard-library module or an installed distribution: never set aside."""
    if top in sys.stdlib_module_names or top in sys.builtin_module_names:
        return True
    file = str(getattr(module, "__file__", None) or "")
    return any(f"{os.sep}{part}{os.sep}" in file for part in _INSTALLED)


def _pickle_registries() -> list[Any]:
    """The cloudpickle modules that send task code to Spark's Python workers, when loaded: pyspark's
    own (classic and Connect sessions, Spark 3.5 to 4.x, Databricks' pyspark alike)."""
    found = sys.modules.get("pyspark.cloudpickle")
    return [found] if found is not None and hasattr(found, "register_pickle_by_value") else []


def _registered(registry: Any) -> set[str]:
    listed = getattr(registry, "list_registry_pickle_by_value", None)
    if listed is not None:
        return set(listed())
    inner = getattr(registry, "cloudpickle", registry)  # cloudpickle 2.x: the set itself
    return set(getattr(inner, "_PICKLE_BY_VALUE_MODULES", ()))


def _by_value(modules: Sequence[ModuleType]) -> list[tuple[Any, str]]:
    """Register ``modules`` (in ``sys.modules``) with cloudpickle to be pickled by value: their
    functions and classes travel with their code, and a module a function names (``helpers``)
    travels whole. Returns what was registered here, for :func:`_by_value_end`."""
    done: list[tuple[Any, str]] = []
    for registry in _pickle_registries():
        before = _registered(registry)
        for module in modules:
            if module.__name__ in before or sys.modules.get(module.__name__) is not module:
                continue
            try:
                registry.register_pickle_by_value(module)
            except Exception:  # noqa: BLE001 - a registry that refuses: pickled by reference, as before
                continue
            done.append((registry, module.__name__))
    return done


def _by_value_end(done: Sequence[tuple[Any, str]]) -> None:
    """Take back the registrations :func:`_by_value` made (the names may be another module's later)."""
    for registry, name in done:
        module = sys.modules.get(name) or ModuleType(name)
        try:
            registry.unregister_pickle_by_value(module)
        except Exception:  # noqa: BLE001 - gone already
            pass


class _TaskLoader(SourceFileLoader):
    """Compiles a module of the task folder from its bytes read now (no ``.pyc``), noting them."""

    def __init__(self, fullname: str, path: str, code: TaskCode) -> None:
        super().__init__(fullname, path)
        self._task_code = code

    def get_data(self, path: str) -> bytes:
        """A regular file of at most 10 MB (a FIFO or device named ``*.py`` would block the import)."""
        from ubunye.userfiles import read_bytes

        return read_bytes(path)

    def get_code(self, fullname: str) -> CodeType:
        data = self.get_data(self.path)
        self._task_code.note(self.path, data)
        code: CodeType = compile(data, self.path, "exec", dont_inherit=True)
        return code

    def exec_module(self, module: ModuleType) -> None:
        """Run the module, registered to be pickled by value while the task's scope lasts."""
        self._task_code._shipped += _by_value([module])
        super().exec_module(module)


class _TaskFinder(MetaPathFinder):
    """Finds modules and packages in the task folder before anything else on the path."""

    def __init__(self, code: TaskCode) -> None:
        self.code = code

    def find_spec(self, fullname: str, path: Optional[Sequence[str]] = None,
                  target: Optional[ModuleType] = None) -> Optional[ModuleSpec]:
        if path is None:
            where = [str(self.code.folder)]
        else:
            where = [p for p in path if self.code.inside(p)]
        tail = fullname.rpartition(".")[2]
        for folder in where:
            package = Path(folder) / tail
            init = package / "__init__.py"
            if init.is_file():
                spec = spec_from_file_location(fullname, init, loader=_TaskLoader(fullname, str(init), self.code),
                                               submodule_search_locations=[str(package)])
                return spec
            file = Path(folder) / f"{tail}.py"
            if file.is_file():
                return self.code.spec_for(fullname, file)
        return None  # namespace packages and extension modules: the usual machinery (the folder is on sys.path)
