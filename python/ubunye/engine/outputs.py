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
folder, the working directory or the home folder (``/`` contains them all); when it equals,
contains or sits inside a file the run reads (a ``secret://file`` source); when it is an
existing file (task code, a config, a data file: a write would replace it by a folder of
part files) or sits inside one; when it sits inside or holds a ``.ubunye`` folder (a
usecase's record store); or when it holds task code (a ``config.yaml``, ``pipeline.yaml``,
``.py`` or notebook file, case ignored: another task's folder, a package). The scan below
an existing output folder is complete or it refuses (more than :data:`CODE_SCAN_LIMIT`
entries, a folder it cannot read). A data folder inside the task folder
(``{{ task_dir }}/out``, as ubunye-engine 0.8.0's examples write) is allowed.

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
CODE_SUFFIXES = (".py", ".pyw", ".pyc", ".ipynb", ".jar")
STORE_FOLDER = ".ubunye"  # a usecase's record store lives in <usecase>/.ubunye/lineage
# folders no data output holds: what an overwrite of a folder holding one would delete
OWNED_FOLDERS = {STORE_FOLDER: "a record store", ".git": "a git repository"}
CODE_SCAN_LIMIT = 20_000  # entries (files and folders) below an output folder the check looks at


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


def check_locations(config: Any, *, task_dir: Path, store: Path, reads: Iterable[str] = ()) -> None:
    """Refuse an empty location, an output that could overwrite or change an input, another
    output, the task folder or other task code, the usecase folder, the record store, the
    working directory, the home folder, a file the run reads (``reads``: the ``secret://file``
    sources) or any existing file, and an input the record store sits in. Raises
    :class:`OutputLocationError`."""
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
            for place, what, whole in _protected(task_dir, usecase_dir, store, reads):
                if whole and where.overlaps(place):
                    refuse(f"{_relation(where, place)} {what} ({place.path}); an output may not overlap it")
                elif where.contains(place):
                    refuse(f"{_relation(where, place)} {what} ({place.path}); an overwrite would delete it")
        for other, there in inputs:
            if where.overlaps(there):
                refuse(f"{_relation(where, there)} input {other.name!r} ({other.location}); an output may not "
                       "equal, contain or sit inside an input (an overwrite would delete it, an append change it)")
        for other, there in outputs[:i]:
            if where.overlaps(there):
                refuse(f"{_relation(where, there)} output {other.name!r} ({other.location}); two outputs may "
                       "not share a folder (each write would replace or mix the other's rows)")
        if where.scheme == "file":
            problem = _on_disk(Path(where.path))
            if problem is not None:
                refuse(problem)


def _relation(mine: Location, theirs: Location) -> str:
    if mine.contains(theirs) and theirs.contains(mine):
        return "is the location of"
    return "contains" if mine.contains(theirs) else "is inside"


def _protected(task_dir: Path, usecase_dir: Path, store: Path,
               reads: Iterable[str]) -> Iterable[tuple[Location, str, bool]]:
    """The places no output may contain, each with its name and whether an output may not sit
    inside it either (the store, the files the run reads)."""
    from ubunye.lineage.attestation.keys import key_places

    here = Path.cwd()
    for path, what in ((usecase_dir, "the usecase folder"), (store, "the record store"),
                       (task_dir, "the task folder"), (here, "the working directory"),
                       (Path.home(), "the home folder")):
        yield locations.parse(str(path), base=here), what, what == "the record store"
    for path in key_places():
        yield locations.parse(str(path), base=here), "the signing key's place", True
    for path in reads:
        yield locations.file(path), f"the file the run reads {path!r}", True


def _is_code(name: str) -> bool:
    """A task's or package's file by its name, case ignored (a case-insensitive file system imports
    ``HELPERS.PY``)."""
    name = name.lower()
    return name in CODE_FILES or name.endswith(CODE_SUFFIXES)


def _on_disk(path: Path) -> Optional[str]:
    """Why the folder an output write replaces at ``path`` (resolved) is not the run's to replace,
    or None: it is an existing file (a write would replace it by a folder of part files), it sits
    inside a file or a ``.ubunye`` or ``.git`` folder (a usecase's record store, a repository), or
    it holds task code or such a folder, or more entries than the scan vouches for."""
    owned = next((f for f in (path, *path.parents) if f.name.lower() in OWNED_FOLDERS), None)
    if owned is not None:
        where = "is" if owned == path else "is inside"
        return f"{where} {owned} ({OWNED_FOLDERS[owned.name.lower()]}'s folder); an overwrite would delete it"
    for folder in (path, *path.parents):
        if os.path.lexists(folder):
            if folder != path and not folder.is_dir():
                return f"is inside the file {folder}; an output is a folder of part files, and none can be made there"
            break
    if not os.path.lexists(path):
        return None
    if len(path.parts) <= 2:  # an existing one: a new folder at / replaces only itself
        return (f"is a top-level folder ({path}); an overwrite would replace all it holds (did a template's "
                "prefix come out empty?)")
    if os.path.ismount(path):
        return f"is a mount point ({path}); an overwrite would delete the whole file system mounted there"
    if not path.is_dir():
        what = "task code" if _is_code(path.name) else "a file"
        return f"is {what} ({path}), not a folder of part files; a write would replace it by a folder"
    return _scan(path)


def _scan(folder: Path) -> Optional[str]:
    """Why ``folder`` may not be replaced by a write, or None once every entry below it was seen: a
    task's file (``config.yaml``, ``pipeline.yaml``, a ``.py`` module, a notebook), a ``.ubunye``
    or ``.git`` folder, something that is not a file, folder or link (a device, a pipe, a socket:
    ``/dev``), a folder it cannot read, or more than :data:`CODE_SCAN_LIMIT` entries (the scan is
    complete or it refuses; a data folder inside a task folder is fine). Links are not followed
    (an overwrite deletes a link, not what it points to)."""
    seen, todo = 0, [str(folder)]
    try:
        while todo:
            with os.scandir(todo.pop()) as entries:
                for entry in entries:
                    seen += 1
                    name = entry.name.lower()
                    if entry.is_dir(follow_symlinks=False):
                        if name in OWNED_FOLDERS:
                            return f"holds {OWNED_FOLDERS[name]} ({entry.path}); an overwrite would delete it"
                        todo.append(entry.path)
                    elif _is_code(name):
                        return f"holds task code ({entry.path}); an overwrite would delete it"
                    elif not (entry.is_file(follow_symlinks=False) or entry.is_symlink()):
                        return (f"holds {entry.path}, not a file or folder (a device, pipe or socket); an output "
                                "folder holds data files")
                    if seen > CODE_SCAN_LIMIT:
                        return (f"cannot vouch for {folder}: more than {CODE_SCAN_LIMIT:,} entries below it (an "
                                "overwrite deletes them all, code or records among them too); write to a new folder")
    except OSError as exc:
        return f"cannot vouch for {folder}: {exc.strerror or exc} ({exc.filename}); an overwrite would delete it unseen"
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
