"""``ubunye run``: run task folders of one package, each leaving a run record.

Exit status: 0 when every task succeeded (and its record, when recording, was
written); 1 when a task failed (``SystemExit`` from task code included), an
expectation stopped it, it ran past ``ENGINE.timeout``, or a record could not be
written (one line per task saying why); 2 for usage errors and bad input
(a config that cannot be used: one ``error:`` line naming the file and key, and
the tasks after it are not run); 128 + N when signal N (SIGTERM: 143, SIGINT: 130)
stopped it, after its record was ended as ``error``.
"""
from __future__ import annotations

import logging
import os
import sys
import time
from pathlib import Path
from typing import Any, NoReturn, Optional, Sequence

import click

from ubunye.cli.render import echo
from ubunye.cli.run_options import deploy_mode_option, engine_options, template_options
from ubunye.userfiles import folder_error

EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a Ctrl-C
PIPELINE_FILE = "pipeline.yaml"
BACKENDS = ("spark", "pandas")


# --var names that are set another way (as ubunye-engine 0.8.0 refused them)
_OWN_VARS = {"mode": "set it with -m/--mode", "env": "it is the environment ({{ env.NAME }})",
             "task_dir": "it is the task's own folder ({{ task_dir }})"}


def _parse_vars(values: Sequence[str], dt: Optional[str] = None, dtf: Optional[str] = None) -> dict[str, str]:
    """``--var k=v`` items; a bad one is refused in one line (exit 2) naming it."""
    from ubunye.cli.render import fail

    out: dict[str, str] = {}
    for flag, given in (("-dt", dt), ("-dtf", dtf)):
        if given is not None and not _utf8(given):
            fail(f"{flag}: the value is not UTF-8 text (it would reach the record)")
    for item in values:
        if not _utf8(item):  # the value is not shown: it may be a secret
            fail(f"--var {item.partition('=')[0]!r}: the value is not UTF-8 text (it would reach the record)")
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            fail(f"--var {item!r}: expected k=v (e.g. --var region=gauteng)")
        if not key.isidentifier():
            fail(f"--var {item!r}: {key!r} is not a template name (letters, digits and _, not starting with a digit)")
        if key in _OWN_VARS:
            fail(f"--var {item!r}: {key!r} cannot be a --var: {_OWN_VARS[key]}")
        flag = {"dt": ("-dt", dt), "dtf": ("-dtf", dtf)}.get(key)
        if flag is not None and flag[1] is not None and flag[1] != value:
            fail(f"--var {item!r}: {key} is also given by {flag[0]} {flag[1]!r}; pass one")
        if key in out and out[key] != value:
            fail(f"--var {item!r}: {key} is given twice with different values; pass one")
        out[key] = value
    return out


def _utf8(text: str) -> bool:
    """False for an argument holding bytes that are not UTF-8 (decoded by Python as lone surrogates)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def refuse_unsupported(backend: Optional[str], rerun: bool = False, resume: bool = False) -> None:
    """0.8.0 run options with no counterpart here, refused in one line (exit 2) before anything runs."""
    from ubunye.cli.render import fail

    if backend is not None and backend not in BACKENDS:
        if backend.lower() == "databricks":
            fail("--backend databricks (ubunye-engine 0.8.0) is not available: use --backend spark, which "
                 "attaches to the Spark session already running (the cluster's, on Databricks)")
        fail(f"--backend {backend!r}: expected one of {', '.join(BACKENDS)}")
    if rerun:
        fail("--rerun (ubunye-engine 0.8.0) is not available: a run here neither refuses nor replaces a batch an "
             "earlier run appended (an append output appends again); to rerun a batch, write each batch to its "
             "own path (.../{{ dt }}) with mode overwrite")
    if resume:
        fail("--resume (ubunye-engine 0.8.0) is not available: run the tasks that did not finish with -t TASK "
             "(`ubunye lineage list` shows each task's last status)")


def _usage(message: str) -> NoReturn:
    """A usage error as one ``error:`` line (exit 2), not click's usage block."""
    from ubunye.cli.render import fail

    fail(message)


def package_tasks(package_dir: Path) -> list[str]:
    """The tasks of a package in run order: ``pipeline.yaml``'s ``tasks`` list, else by name."""
    pipeline = package_dir / PIPELINE_FILE
    if os.path.lexists(pipeline):  # a folder, a FIFO or a dangling link there is refused, not skipped
        from ubunye.userfiles import UserFileError, load_yaml

        try:
            doc = load_yaml(pipeline) or {}
        except UserFileError as exc:
            _usage(str(exc))
        tasks = doc.get("tasks") if isinstance(doc, dict) else None
        if not isinstance(tasks, list) or not all(isinstance(t, str) for t in tasks):
            _usage(f"{pipeline}: tasks: expected a list of task folder names")
        return list(tasks)
    return sorted(p.name for p in package_dir.iterdir() if (p / "config.yaml").is_file())


def chosen_tasks(usecase_dir: Path, usecase: str, package: str, tasks: Sequence[str], run_all: bool,
                 verb: str) -> tuple[Path, list[str]]:
    """The package folder and the tasks named by ``-t`` or ``--all`` (usage errors otherwise)."""
    _check_names(usecase, package, tasks)
    package_dir = usecase_dir / usecase / package
    problem = folder_error(package_dir, "package folder")
    if problem:
        _usage(problem)
    if run_all and tasks:
        _usage("give -t TASK or --all, not both")
    names = package_tasks(package_dir) if run_all else list(tasks)
    _check_names(usecase, package, names, where=package_dir / PIPELINE_FILE if run_all else None)
    if not names:
        _usage(f"no task to {verb}: give -t TASK or --all")
    return package_dir, names


@click.command("run")
@click.option("-d", "--usecase-dir", "usecase_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Folder holding <usecase>/<package>/<task>/.")
@click.option("-u", "--usecase", required=True, help="Usecase name.")
@click.option("-p", "--package", required=True, help="Package name.")
@click.option("-t", "--task", "--task-list", "tasks", multiple=True, help="Task to run (repeatable, run in order).")
@click.option("--all", "run_all", is_flag=True, help="Run every task of the package (pipeline.yaml order, else by name).")
@template_options
@click.option("-m", "--mode", default="DEV", show_default=True, help="Run mode (template variable mode).")
@engine_options
@deploy_mode_option
@click.option("--rerun", is_flag=True, hidden=True, help="ubunye-engine 0.8.0's; refused in one line.")
@click.option("--resume", is_flag=True, hidden=True, help="ubunye-engine 0.8.0's; refused in one line.")
def run_command(
    usecase_dir: Path,
    usecase: str,
    package: str,
    tasks: tuple[str, ...],
    run_all: bool,
    dt: Optional[str],
    dtf: Optional[str],
    mode: str,
    var_items: tuple[str, ...],
    backend: Optional[str],
    hash_engine: Optional[str],
    lineage: bool,
    lineage_dir: str,
    rehash_inputs: bool,
    deploy_mode: Optional[str],
    rerun: bool,
    resume: bool,
) -> None:
    """Run tasks of USECASE/PACKAGE under USECASE_DIR."""
    check_deploy_mode(deploy_mode)
    refuse_unsupported(backend, rerun=rerun, resume=resume)
    variables = _parse_vars(var_items, dt, dtf)
    package_dir, names = chosen_tasks(usecase_dir, usecase, package, tasks, run_all, "run")
    for name in names:
        problem = folder_error(package_dir / name, "task folder")
        if problem:
            _usage(problem)
    code = run_tasks(usecase_dir, usecase, package, names, dt=dt, dtf=dtf, mode=mode, variables=variables,
                     backend=backend, hash_engine=hash_engine, lineage=lineage, lineage_dir=lineage_dir,
                     reuse_hashes=False if rehash_inputs else None)
    sys.exit(code)


def check_deploy_mode(deploy_mode: Optional[str]) -> None:
    """0.8.0's ``--deploy-mode``: ``client`` is what runs here anyway; anything else is refused."""
    if deploy_mode is not None and deploy_mode.lower() != "client":
        from ubunye.cli.render import fail

        fail(f"--deploy-mode {deploy_mode}: only client; ubunye run starts Spark in this process "
             "(for cluster mode, spark-submit a script that calls ubunye.run_task)")


def _check_names(usecase: str, package: str, tasks: Sequence[str], where: Optional[Path] = None) -> None:
    """Refuse (one line, exit 2, nothing run or written) a name that is not one folder name."""
    from ubunye._names import validate_name

    try:
        validate_name("usecase", usecase)
        validate_name("package", package)
        for name in tasks:
            validate_name("task", name)
    except ValueError as exc:
        from ubunye.cli.render import fail

        fail(f"{where}: {exc}" if where is not None else str(exc))


def run_tasks(usecase_dir: Path, usecase: str, package: str, names: Sequence[str], **options: Any) -> int:
    """Run tasks in order (stopping at the first failure); print one line each; the exit code.
    Several tasks are one pipeline run, which each task's record names.

    SIGTERM, SIGINT, SIGHUP, SIGUSR1 and SIGUSR2 end the running task's record as ``error``
    ("stopped by signal 15 (SIGTERM)"), then the command exits 128 + the signal number (143, 130);
    the later tasks do not run."""
    from ubunye.lineage.ending import Stopped, ending_signals

    quiet = _Reported()  # the recorder logs a record it could not write; here the line below says it
    recorder_log = logging.getLogger("ubunye.lineage")  # the recorder's logger
    recorder_log.addFilter(quiet)
    from contextlib import nullcontext

    from ubunye.lineage.context import pipeline_run

    # several tasks are one pipeline run: each record names it (OpenLineage's parent run)
    pipeline = pipeline_run(usecase, package) if len(names) > 1 else nullcontext()
    try:
        with ending_signals(), pipeline:
            return _run_each(usecase_dir, usecase, package, names, options)
    except Stopped as exc:  # between tasks, or while the last record was being ended
        echo(f"FAIL {usecase}/{package}: {exc}", err=True)
        return exc.exit_code
    finally:
        recorder_log.removeFilter(quiet)


class _Reported(logging.Filter):
    """Drops the recorder's own error lines while `ubunye run` reports them itself."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("could not write run record")


def _run_each(usecase_dir: Path, usecase: str, package: str, names: Sequence[str], options: Any) -> int:
    from ubunye.engine.errors import ConfigError, EngineError
    from ubunye.engine.runner import run_task
    from ubunye.lineage.ending import Stopped
    from ubunye.lineage.errors import InvalidName

    failed = False
    for name in names:
        task_path = f"{usecase}/{package}/{name}"
        started = time.perf_counter()
        try:
            result = run_task(usecase_dir / usecase / package / name, raise_on_error=False, **options)
        except (ConfigError, InvalidName) as exc:  # bad input: one error line naming the file and key, exit 2
            echo(f"error: {' '.join(str(exc).split())}", err=True)
            return EXIT_USAGE
        except EngineError as exc:  # a task that cannot be loaded: nothing ran
            echo(f"FAIL {task_path}: {' '.join(str(exc).split())}", err=True)
            failed = True
            break
        except Stopped as exc:  # its record (if it started) is ended as error first
            echo(f"FAIL {task_path}: {exc}", err=True)
            return exc.exit_code
        except KeyboardInterrupt:  # raised by the task's own code: its record is ended as interrupted
            echo(f"FAIL {task_path}: interrupted (KeyboardInterrupt)", err=True)
            return EXIT_INTERRUPTED
        seconds = time.perf_counter() - started
        # once each: the start record and the final one failing for one reason are one problem
        causes = {getattr(e, "reason", str(e)): " ".join(str(e).split()) for e in result.record_errors}
        lost = list(causes.values())
        if result.status == "success" and not lost:
            where = f", record {result.record_path}" if result.record_path else ""
            echo(f"ok   {task_path} ({seconds:.1f}s, run {result.run_id[:8]}{where})")
        elif result.status == "success":
            echo(f"FAIL {task_path}: ran ({seconds:.1f}s, run {result.run_id[:8]}) but {lost.pop(0)}", err=True)
        else:
            reason = result.reason()
            echo(f"FAIL {task_path}: {reason}", err=True)
            lost = [text for cause, text in causes.items() if cause not in reason and text not in reason]
        for error in lost:
            echo(f"FAIL {task_path}: {error}", err=True)
        for entry in result.expectations:
            if not entry["passed"] and entry["severity"] == "warn":
                echo(f"warn {task_path}: {entry['output']}: {entry['rule']} ({entry['kind']}) "
                 f"broken by {entry['failed']} of {entry['total']}", err=True)
        if not result.ok:
            failed = True
            break
    return EXIT_FAILED if failed else 0
