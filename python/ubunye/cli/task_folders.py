"""What the commands that run or check task folders share (``run``, ``validate``, ``plan`` and
``--task-dir``): their ``--var`` parsing, the refusals of 0.8.0 options, the tasks chosen by
``-t``/``--all``, the run of each task with its one line, and the check of one task folder.
A command's file imports these from here, never from another command's file."""
from __future__ import annotations

import logging
import os
import time
from pathlib import Path
from typing import Any, NoReturn, Optional, Sequence

from ubunye.cli.render import echo
from ubunye.userfiles import folder_error

EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a Ctrl-C
PIPELINE_FILE = "pipeline.yaml"
BACKENDS = ("spark", "pandas")


# --var names that are set another way (as ubunye-engine 0.8.0 refused them)
_OWN_VARS = {"mode": "set it with -m/--mode", "env": "it is the environment ({{ env.NAME }})",
             "task_dir": "it is the task's own folder ({{ task_dir }})"}


def parse_vars(values: Sequence[str], dt: Optional[str] = None, dtf: Optional[str] = None) -> dict[str, str]:
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


def usage(message: str) -> NoReturn:
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
            usage(str(exc))
        tasks = doc.get("tasks") if isinstance(doc, dict) else None
        if not isinstance(tasks, list) or not all(isinstance(t, str) for t in tasks):
            usage(f"{pipeline}: tasks: expected a list of task folder names")
        return list(tasks)
    return sorted(p.name for p in package_dir.iterdir() if (p / "config.yaml").is_file())


def chosen_tasks(usecase_dir: Path, usecase: str, package: str, tasks: Sequence[str], run_all: bool,
                 verb: str) -> tuple[Path, list[str]]:
    """The package folder and the tasks named by ``-t`` or ``--all`` (usage errors otherwise)."""
    check_names(usecase, package, tasks)
    package_dir = usecase_dir / usecase / package
    problem = folder_error(package_dir, "package folder")
    if problem:
        usage(problem)
    if run_all and tasks:
        usage("give -t TASK or --all, not both")
    names = package_tasks(package_dir) if run_all else list(tasks)
    check_names(usecase, package, names, where=package_dir / PIPELINE_FILE if run_all else None)
    if not names:
        usage(f"no task to {verb}: give -t TASK or --all")
    return package_dir, names


def check_deploy_mode(deploy_mode: Optional[str]) -> None:
    """0.8.0's ``--deploy-mode``: ``client`` is what runs here anyway; anything else is refused."""
    if deploy_mode is not None and deploy_mode.lower() != "client":
        from ubunye.cli.render import fail

        fail(f"--deploy-mode {deploy_mode}: only client; ubunye run starts Spark in this process "
             "(for cluster mode, spark-submit a script that calls ubunye.run_task)")


def check_names(usecase: str, package: str, tasks: Sequence[str], where: Optional[Path] = None) -> None:
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


def hashed_by(result: Any) -> str:
    """``"; hashed: pandas arrow second-pass"``: each engine and pass the record's steps name, in
    step order (``spark-sql`` as ``spark-sql fallback``, followed by why), and how many steps have
    no data hash; ``""`` without a record (nothing was hashed)."""
    from ubunye.masking import current

    record = result.record
    if record is None:
        return ""
    labels: list[str] = []
    unhashed = 0
    for step in (*record.inputs, *record.outputs):
        if step.data_hash is None:
            unhashed += 1
            continue
        engine = step.hash_engine or "unknown engine"
        engine = {"spark-sql": "spark-sql fallback"}.get(engine, engine)
        if record.backend == "pandas" and not engine.startswith("spark"):
            engine = f"pandas {engine}"
        label = f"{engine} {step.hash_pass or 'unknown pass'}"
        if label not in labels:
            labels.append(label)
    if unhashed:
        labels.append(f"{unhashed} step(s) not hashed")
    text = "; hashed: " + (", ".join(labels) or "nothing")
    reason = result.hash_reasons.get("spark-sql")
    if reason and any("fallback" in label for label in labels):
        text += f" (fallback: {' '.join(reason.split())})"
    return (result.masker or current()).text(text)


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
            echo(f"ok   {task_path} ({seconds:.1f}s, run {result.run_id[:8]}{where}){hashed_by(result)}")
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


def check_task(task_dir: Path, *, mode: str, profile: Optional[str], backend: Optional[str] = None,
               **options: object) -> Optional[str]:
    """Why the task folder cannot run (one line), or None when its config and code load
    (and, given ``backend``, every input and output can run on it)."""
    from ubunye.engine.config import load_config
    from ubunye.engine.errors import EngineError
    from ubunye.engine.loader import load_task
    from ubunye.engine.runner import require_profile

    problem = folder_error(task_dir, "task folder")
    if problem:
        return problem
    try:
        config = load_config(task_dir, mode=mode, **options)  # type: ignore[arg-type]
        if profile is not None:
            require_profile(config, profile)
        load_task(task_dir, config=dict(config.raw))
        if backend == "pandas":  # the pandas backend's own refusals (jdbc, Delta, tables, options), as a run makes them
            from ubunye.engine.backends.pandas_backend import PandasBackend

            checker = PandasBackend(time_zone=config.engine.time_zone)
            for spec in [*config.inputs.values(), *config.outputs.values()]:
                checker.check_spec(spec)
        # spark: every format config.yaml takes runs on Spark (SparkBackend.formats)
    except EngineError as exc:
        return " ".join(str(exc).split())
    return None
