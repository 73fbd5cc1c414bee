"""Options shared by the ``ubunye lineage`` commands, and turning them into library objects.

Every command takes ``-d/--usecase-dir``, ``--lineage-dir`` and ``--json``; the
ones about one task take ``-u/-p/-t``. :func:`lineage_errors` turns library
errors into one line on stderr and exit code 2, and store warnings (a skipped
unreadable record) into one ``warning:`` line on stderr naming the file.

It also holds what a command would otherwise import from another command's file
(:func:`pick_runs`: ``compare`` and ``diff``; :func:`verify_signatures`: ``verify --signatures``,
beside ``attest``): no command imports another.
"""
from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional, TypeVar

import click

from ubunye._names import validate_name
from ubunye.cli.render import echo, emit_json, fail, warn
from ubunye.lineage.errors import LineageError
from ubunye.lineage.record import RunRecord
from ubunye.lineage.store import RecordStore, open_store
from ubunye.userfiles import errno_text

F = TypeVar("F", bound=Callable[..., Any])


def store_options(func: F) -> F:
    """``-d/--usecase-dir``, ``--lineage-dir`` and ``--json``."""
    func = click.option("--json", "as_json", is_flag=True,
                        help="Print one JSON document (with schema_version) and nothing else.")(func)
    func = click.option("--lineage-dir", default=None,
                        help="The lineage folder (default .ubunye/lineage), relative to the usecase dir, "
                             "or a store URL (s3://, gs://, abfss://, az://, /Volumes/...).")(func)
    func = click.option("-d", "--usecase-dir", type=click.Path(path_type=Path), default=Path("."),
                        show_default=True, help="The usecase folder.")(func)
    return func


def task_options(func: F) -> F:
    """``-u/--usecase``, ``-p/--package``, ``-t/--task``."""
    func = click.option("-t", "--task", default=None, help="Task name.")(func)
    func = click.option("-p", "--package", default=None, help="Package name.")(func)
    func = click.option("-u", "--usecase", default=None, help="Usecase name.")(func)
    return func


def lineage_errors(func: F) -> F:
    """Run a command: library errors -> one line on stderr, exit 2; warnings -> stderr."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with warnings.catch_warnings(record=True) as caught:
            # user-facing warnings only (a skipped record); not ResourceWarnings from libraries
            warnings.simplefilter("always", UserWarning)
            try:
                for kind in ("usecase", "package", "task"):  # -u/-p/-t: checked before anything is read
                    if kwargs.get(kind) is not None:
                        validate_name(kind, kwargs[kind])
                return func(*args, **kwargs)
            except BrokenPipeError:
                raise  # stdout closed early (`| head`): click handles it quietly
            except (LineageError, ValueError, OSError) as exc:
                _flush(caught)
                fail(errno_text(exc) if isinstance(exc, OSError) else str(exc))  # an errno: "<path>: <reason>"
            finally:
                _flush(caught)

    return wrapper  # type: ignore[return-value]


def _flush(caught: list[warnings.WarningMessage]) -> None:
    while caught:
        warn(str(caught.pop(0).message))


@dataclass(frozen=True)
class TaskRef:
    """A resolved task: its names and its store."""

    store: RecordStore
    usecase: str
    package: str
    task: str

    @property
    def path(self) -> str:
        return f"{self.usecase}/{self.package}/{self.task}"

    def find(self, run_id: Optional[str]) -> RunRecord:
        return self.store.find(self.usecase, self.package, self.task, run_id)

    def runs(self) -> list[RunRecord]:
        return self.store.list_runs(self.usecase, self.package, self.task)

    def latest(self, count: int, before: Optional[RunRecord] = None) -> list[RunRecord]:
        """The newest runs; a damaged file that may be one of them is an error naming it."""
        return self.store.latest_runs(self.usecase, self.package, self.task, count, before)

    def newest(self) -> RunRecord:
        """The latest run (never an older one while a newer file is unreadable)."""
        runs = self.latest(1)
        return runs[0] if runs else self.find(None)  # none at all: find names the folder


def make_store(usecase_dir: Path, lineage_dir: Optional[str]) -> RecordStore:
    """The store the options name."""
    return open_store(usecase_dir, lineage_dir, index=True)


def trust_hook(store: RecordStore) -> Callable[[RunRecord], Optional[str]]:
    """The verdict's trust hook (:func:`ubunye.lineage.verdict.decide`) for records of ``store``:
    why a record is not proven by its signature where the store's policy requires one
    (:func:`ubunye.lineage.attestation.trust_reason`; elsewhere a warning and None)."""
    from ubunye.lineage.attestation import trust_reason

    return lambda record: trust_reason(record, store)


def resolve_task(store: RecordStore, usecase: Optional[str], package: Optional[str], task: Optional[str]) -> TaskRef:
    """The task ``-u/-p/-t`` name; all three may be left out when the store holds one task."""
    if usecase and package and task:
        return TaskRef(store, usecase, package, task)
    if usecase is None and package is None and task is None:
        tasks = store.iter_tasks()
        if len(tasks) == 1:
            return TaskRef(store, *tasks[0])
        fail(f"name the task with -u/-p/-t: {store.root} holds {len(tasks)} tasks")
    missing = [flag for flag, value in (("-u", usecase), ("-p", package), ("-t", task)) if not value]
    fail(f"name the task completely: missing {', '.join(missing)}")


def pick_runs(ref_args: tuple[Path, Optional[Path], Optional[str], Optional[str], Optional[str]],
              id1: Optional[str], id2: Optional[str], path1: Optional[Path], path2: Optional[Path],
              command: str = "compare") -> tuple[RunRecord, RunRecord]:
    """The two runs to compare; by default the latest (B) against the one before (A)."""
    if id1 and path1 or id2 and path2:
        fail("give a run either by --run-id or by --record, not both")
    store = make_store(ref_args[0], ref_args[1])
    a = store.load(path1) if path1 is not None else None
    b = store.load(path2) if path2 is not None else None
    if a is not None and b is not None:
        return a, b
    names = ref_args[2:]
    given = a or b
    if given is not None and names == (None, None, None):  # the other run is of the same task
        names = (given.usecase, given.package, given.task_name)
    ref = resolve_task(store, *names)
    if a is None and b is None and not id1 and not id2:
        runs = ref.latest(2)  # a damaged file that may be one of the two is an error naming it
        if len(runs) < 2:
            fail(f"{ref.path} has {len(runs)} readable run(s): {command} needs two")
        return runs[1], runs[0]
    if b is None:
        b = ref.find(id2) if id2 is not None else ref.newest()
    if a is None:
        if id1:
            a = ref.find(id1)
        else:  # the run before B
            before = ref.latest(1, before=b)
            if not before:
                fail(f"no run of {ref.path} before run {b.run_id}: give --run-id1")
            a = before[0]
    return a, b


def verify_signatures(store: RecordStore, names: tuple[Optional[str], Optional[str], Optional[str]],
                      key_files: tuple[Path, ...], signatures: bool, chain: bool, as_json: bool) -> None:
    """``lineage verify --signatures/--chain``: every record of the task (or of the store)."""
    from ubunye.lineage.attestation.audit import audit
    from ubunye.lineage.attestation.keys import public_key_files

    keys = public_key_files(key_files)  # a bad file: one line naming it (exit 2)
    if any(names):
        ref = resolve_task(store, *names)
        tasks = [(ref.usecase, ref.package, ref.task)]
    else:
        tasks = store.iter_tasks()
    result = audit(store, tasks, keys=keys or None, signatures=signatures or not chain, chain=chain or not signatures)
    if as_json:
        emit_json("verify", result.to_dict())
    else:
        for check in result.records:
            echo(f"{check.verdict:<10} {check.task} {check.run_id}" + (f": {check.reason}" if check.reason else ""))
        for report in result.chains:
            echo(f"chain of {report.task}: {report.length} place(s), " + ("holds" if not report.breaks else
                                                                          f"{len(report.breaks)} break(s)"))
        for line in result.problems:
            echo(f"not proven: {line}", err=True)
        echo("every record proven by its signature" if result.proven else "NOT PROVEN")
    raise SystemExit(0 if result.proven else 1)
