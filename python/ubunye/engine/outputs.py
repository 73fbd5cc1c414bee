"""Output locations that cannot destroy: the one check, and the one table of write modes.

:func:`check_locations` runs when a config is read (:func:`ubunye.engine.config.load_config`),
so ``ubunye run``, ``validate``, ``plan``, ``run_task``, ``run_pipeline`` and the
notebook helper refuse the same configs, before a backend starts or anything is
written. Every location is parsed by :mod:`ubunye.locations` against one base, the
usecase folder (``-d``): relative plain paths are made absolute against it when the
config is read (:func:`resolve_paths`), so the backends, the record and
``lineage verify`` all see one place.

An output is refused (one :class:`OutputLocationError` naming the file and key) when its
location is empty or blank, or when it equals, contains or sits inside another output,
an input or the record store; when it equals or contains the task folder, the usecase
folder, the working directory or the home folder (``/`` contains them all); or when it
holds task code (a ``config.yaml``, ``pipeline.yaml`` or ``.py`` file: another task's
folder, a package). A data folder inside the task folder (``{{ task_dir }}/out``, as
ubunye-engine 0.8.0's examples write) is allowed.

:func:`write_action` is the one table of write modes, used by the pandas and Spark backends.
"""
from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional

from ubunye import locations
from ubunye.engine.errors import ConfigError, IOSpecError
from ubunye.locations import EmptyLocation, Location

CODE_FILES = ("config.yaml", "pipeline.yaml")
CODE_SCAN_LIMIT = 20_000  # files looked at for task code below an output folder


class OutputLocationError(ConfigError):
    """An output location that could destroy what the run did not make (or an empty one)."""


def usecase_dir_of(task_dir: Path) -> Path:
    """``<usecase_dir>`` of ``<usecase_dir>/<usecase>/<package>/<task>``, absolute."""
    return Path(os.path.abspath(task_dir)).parent.parent.parent


def store_folder(usecase_dir: Path, lineage_dir: Optional[str], base_dir: Optional[str]) -> Path:
    """The record store's folder: ``--lineage-dir`` (when not the default), else the config's
    ``base_dir``, else ``.ubunye/lineage``; relative ones under the usecase folder (as the
    recorder places them)."""
    from ubunye.lineage.store import DEFAULT_LINEAGE_DIR as DEFAULT  # the store's own default

    given = None if lineage_dir is None or Path(lineage_dir) == DEFAULT else lineage_dir
    folder = Path(given or base_dir or DEFAULT)
    return folder if folder.is_absolute() else usecase_dir / folder


def store_where(usecase_dir: Path, lineage_dir: Optional[str]) -> Optional[Any]:
    """The store ``--lineage-dir`` names (a path or a URL), or None when it is not given (the default)."""
    from ubunye.lineage.store.blobs import DEFAULT_STORE, join

    return None if lineage_dir is None or Path(lineage_dir) == Path(DEFAULT_STORE) else join(usecase_dir, lineage_dir)


def check_store(where: Any, file: Any, key: Optional[str]) -> None:
    """A record store under ``/Volumes`` whose volume does not exist here is bad input: a
    :class:`ConfigError` naming where it was given (``file``, ``key``); the rule is
    :func:`ubunye.lineage.store.blobs.check_volume`'s. None (not given) and a relative path
    (a folder under the usecase folder, which is here) pass."""
    from ubunye.lineage.store.blobs import check_volume, is_url

    if where is None or not (is_url(where) or Path(where).is_absolute()):
        return
    try:
        check_volume(where)
    except ValueError as exc:
        raise ConfigError(file, key, str(exc)) from None


def resolve_paths(specs: Mapping[str, Any], usecase_dir: Path) -> dict[str, Any]:
    """Each spec with a relative plain path made absolute against the usecase folder."""
    out = {}
    for name, spec in specs.items():
        if spec.path is not None and spec.path.strip():
            spec = replace(spec, path=locations.absolute(spec.path, usecase_dir))
        out[name] = spec
    return out


def _key(spec: Any) -> str:
    return f"CONFIG.{spec.direction}s.{spec.name}.{'table' if spec.format == 'table' else 'path'}"


def _where(spec: Any, base: Path) -> Optional[Location]:
    """The spec's location, or None when it has none to compare (jdbc)."""
    if spec.format == "table":
        return locations.table(spec.table)
    if spec.path is None:
        return None
    return locations.parse(spec.path, base=base)


def check_locations(config: Any, *, task_dir: Path, store: Path) -> None:
    """Refuse an empty location, an output that could overwrite or change an input,
    another output, the task folder or other task code, the usecase folder, the record
    store, the working directory or the home folder, and an input the record store sits in.
    Raises :class:`OutputLocationError`."""
    task_dir = Path(os.path.abspath(task_dir))
    usecase_dir = usecase_dir_of(task_dir)
    file = config.file
    found: list[tuple[Any, Location]] = []
    for spec in [*config.inputs.values(), *config.outputs.values()]:
        try:
            where = _where(spec, usecase_dir)
        except EmptyLocation:
            raise OutputLocationError(file, _key(spec), "empty location (after templates); a blank path "
                                      "would be the working directory") from None
        if where is not None:
            found.append((spec, where))
    outputs = [(s, w) for s, w in found if s.direction == "output"]
    inputs = [(s, w) for s, w in found if s.direction == "input"]
    kept = locations.parse(str(store), base=Path.cwd())
    for spec, where in inputs:  # a record written inside an input would change what the next run reads
        if where.scheme == "file" and where.contains(kept):
            raise OutputLocationError(file, _key(spec), f"{spec.location}: the record store ({kept.path}) is "
                                      "inside this input; records written there would change it")
    for i, (spec, where) in enumerate(outputs):
        def refuse(reason: str) -> None:
            raise OutputLocationError(file, _key(spec), f"{spec.location}: {reason}")

        if where.scheme == "file":  # the places a run never owns first: they say the most
            for place, what in _protected(task_dir, usecase_dir, store):
                if what == "the record store" and where.overlaps(place):
                    refuse(f"{_relation(where, place)} {what} ({place.path}); an output may not overlap it")
                elif where.contains(place):
                    refuse(f"{_relation(where, place)} {what} ({place.path}); an overwrite would delete it")
            code = _code_file(Path(where.path))
            if code is not None:
                refuse(f"holds task code ({code}); an overwrite would delete it")
        for other, there in inputs:
            if where.overlaps(there):
                refuse(f"{_relation(where, there)} input {other.name!r} ({other.location}); an output may not "
                       "equal, contain or sit inside an input (an overwrite would delete it, an append change it)")
        for other, there in outputs[:i]:
            if where.overlaps(there):
                refuse(f"{_relation(where, there)} output {other.name!r} ({other.location}); two outputs may "
                       "not share a folder (each write would replace or mix the other's rows)")


def _relation(mine: Location, theirs: Location) -> str:
    if mine == theirs or (mine.scheme == "table" and mine.contains(theirs)):
        return "is the location of"
    return "contains" if mine.contains(theirs) else "is inside"


def _protected(task_dir: Path, usecase_dir: Path, store: Path) -> Iterable[tuple[Location, str]]:
    here = Path.cwd()
    for path, what in ((usecase_dir, "the usecase folder"), (store, "the record store"),
                       (task_dir, "the task folder"), (here, "the working directory"),
                       (Path.home(), "the home folder")):
        yield locations.parse(str(path), base=here), what


def _code_file(folder: Path) -> Optional[Path]:
    """A task's file (``config.yaml``, ``pipeline.yaml``, a ``.py`` module) in ``folder`` or
    below it: an output there would delete code (a data folder inside a task folder is fine)."""
    seen = 0
    for dirpath, _, names in os.walk(folder):
        for name in names:
            if name in CODE_FILES or name.endswith(".py"):
                return Path(dirpath) / name
        seen += len(names)
        if seen > CODE_SCAN_LIMIT:  # a large data folder: code is not kept among that many files
            return None
    return None


# --- the one table of write modes ------------------------------------------------------------
REPLACE, ADD, SKIP = "replace", "add", "skip"


def write_action(exists: bool, mode: str, what: str, location: str) -> str:
    """What a write in ``mode`` does to a location that ``exists`` (holds data) or not:
    ``replace`` (overwrite, or a new location), ``add`` (append) or ``skip`` (ignore, data
    there); errorifexists with data there raises :class:`IOSpecError`."""
    if mode == "append":
        return ADD
    if exists and mode == "errorifexists":
        raise IOSpecError(f"{what}: {location} already exists (mode errorifexists)")
    if exists and mode == "ignore":
        return SKIP
    if mode in ("overwrite", "errorifexists", "ignore"):
        return REPLACE
    raise IOSpecError(f"{what}: unknown mode {mode!r}")
