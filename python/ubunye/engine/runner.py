"""Entry points: :func:`run_task`, :func:`run_pipeline` and :func:`notebook`.

All three run a task folder ``<usecase_dir>/<usecase>/<package>/<task>/``
through the same :class:`~ubunye.engine.execution.TaskExecution`, so their
records live in the same place (``<usecase_dir>/<lineage_dir>/...``) with the
same identity and the same evidence.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Optional, Sequence, Union

from ubunye._names import validate_task_names
from ubunye.engine.errors import EngineError
from ubunye.engine.execution import DEFAULT_LINEAGE_DIR, TaskExecution, TaskResult, execute
from ubunye.engine.notebook import Notebook
from ubunye.masking import MaskedCause, safe_cause

PathLike = Union[str, Path]

__all__ = ["run_task", "run_pipeline", "notebook", "TaskResult", "Notebook", "TaskFailed", "PipelineResults",
           "MaskedCause"]


class TaskFailed(EngineError):
    """A task run that did not succeed (its record, when recording, is written); an
    :class:`~ubunye.engine.errors.EngineError` (0.8.0's ``UbunyeError``), as 0.8.0's run failures were.
    Its text is masked; raise it with :func:`failed` so its cause is masked too."""

    def __init__(self, result: TaskResult) -> None:
        self.result = result
        super().__init__(f"{result.task_path}: {result.reason()}")


def failed(result: TaskResult) -> TaskFailed:
    """The :class:`TaskFailed` of ``result`` with a cause that carries no unmasked text."""
    exc = TaskFailed(result)
    exc.__cause__ = safe_cause(result.error, result.masker)
    exc.__suppress_context__ = True
    return exc


def run_task(
    task_dir: PathLike,
    *,
    mode: str = "DEV",
    dt: Optional[str] = None,
    dtf: Optional[str] = None,
    backend: Optional[str] = None,
    spark: Any = None,
    variables: Optional[Mapping[str, Any]] = None,
    lineage: bool = False,
    lineage_dir: str = DEFAULT_LINEAGE_DIR,
    hash_engine: Optional[str] = None,
    reuse_hashes: Optional[bool] = None,
    raise_on_error: bool = True,
    profile: Optional[str] = None,
    hooks: Any = None,
    rerun: bool = False,
    handle_signals: bool = False,
) -> TaskResult:
    """Run one task folder: read, check, transform, check, write (and record).

    ubunye-engine 0.8.0's ``profile`` (a name that must be one of the config's
    ``ENGINE.profiles``; ``mode`` picks the one applied) is checked before anything
    runs; its ``hooks`` are refused (a TypeError saying what to use).

    A config or task that cannot be loaded raises before anything runs
    (:class:`~ubunye.engine.errors.ConfigError`, ``TaskLoadError``). A run that
    fails raises :class:`TaskFailed` after its record is written, unless
    ``raise_on_error=False`` (then the result says why). ``hash_engine``
    forces a Spark hash engine (``"spark-sql"``: the fallback).
    ``reuse_hashes=False`` hashes every input even when an earlier record
    already proved the same files (default: the config's, else True).

    Anything the task's code raises, ``SystemExit`` included, is a failed run (status ``error``).
    ``handle_signals=True`` (main thread) makes SIGTERM, SIGINT, SIGHUP, SIGUSR1 and SIGUSR2 end the
    record as ``error``
    ("stopped by signal 15 (SIGTERM)") and then raises :class:`~ubunye.lineage.ending.Stopped`;
    by default the host's handlers are left alone. A ``KeyboardInterrupt`` is recorded as
    ``interrupted`` and re-raised.
    """
    refuse_080("run_task", hooks=hooks, rerun=rerun, backend=backend)
    if profile is not None:
        from ubunye.engine.config import load_config

        require_profile(load_config(Path(task_dir), mode=mode, dt=dt, dtf=dtf, variables=variables,
                                    lineage_dir=lineage_dir), profile)
    execution = TaskExecution(
        Path(task_dir),
        mode=mode,
        dt=dt,
        dtf=dtf,
        backend=backend,
        spark=spark,
        variables=variables,
        lineage=lineage,
        lineage_dir=lineage_dir,
        hash_engine=hash_engine,
        reuse_hashes=reuse_hashes,
    )
    result = execute(execution, handle_signals=handle_signals)
    if raise_on_error and result.status != "success":
        raise failed(result)
    return result


_REFUSED_080 = {  # ubunye-engine 0.8.0 keywords with no counterpart here (a value other than 0.8.0's default)
    "hooks": "the run record (lineage=True) holds the timings, expectations and hashes hooks collected",
    "rerun": "a run here neither refuses nor replaces a batch an earlier run appended; write each batch "
             "to its own path (.../{{ dt }}) with mode overwrite to rerun it",
    "resume": "run the tasks that did not finish (run_pipeline(..., tasks=[...]) or run_task)",
    "env": "set os.environ[NAME] before the call; {{ env.NAME }} reads the process environment",
    "secrets_scope": "write secret://env/NAME or secret://file/PATH in config.yaml",
    "secrets_map": "write secret://env/NAME or secret://file/PATH in config.yaml",
}


def refuse_080(func: str, **given: Any) -> None:
    """One TypeError line for a 0.8.0 keyword given a value this project cannot honour."""
    for name, value in given.items():
        if name == "backend":
            if value == "databricks":
                raise ValueError(f"{func}(backend='databricks') (ubunye-engine 0.8.0) is not supported: use "
                                 "backend='spark' (it attaches to the active session) or spark=session")
            if value is not None and not isinstance(value, str):
                raise TypeError(f"{func}(backend=...): expected 'spark' or 'pandas' (or pass spark=session); "
                                f"backend objects (ubunye-engine 0.8.0) are not supported")
        elif value not in (None, False):
            raise TypeError(f"{func}({name}=...) (ubunye-engine 0.8.0) is not supported: {_REFUSED_080[name]}")


class PipelineResults(list):  # type: ignore[type-arg]
    """:func:`run_pipeline`'s list of :class:`TaskResult`, in run order, that also reads like
    ubunye-engine 0.8.0's dict of task name -> outputs: ``results["clean"]["out"]``, ``.items()``."""

    def keys(self) -> list[str]:
        return [r.task_path.rsplit("/", 1)[-1] for r in self]

    def values(self) -> list[TaskResult]:
        return list(self)

    def items(self) -> list[tuple[str, TaskResult]]:
        return list(zip(self.keys(), self))

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            for name, result in self.items():
                if name == key:
                    return result
            raise KeyError(key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        return key in self.keys() if isinstance(key, str) else super().__contains__(key)


def require_profile(config: Any, profile: str) -> None:
    """Raise :class:`ConfigError` unless ``profile`` is one of the config's ``ENGINE.profiles``."""
    from ubunye.engine.errors import ConfigError

    engine = config.raw.get("ENGINE")
    profiles = (engine.get("profiles") if isinstance(engine, dict) else None) or {}
    if profile not in profiles:
        known = ", ".join(sorted(map(str, profiles))) or "none"
        raise ConfigError(config.file, "ENGINE.profiles", f"no profile {profile!r} (defined: {known})")


def run_pipeline(
    usecase_dir: PathLike,
    usecase: str,
    package: str,
    tasks: Sequence[str],
    *,
    stop_on_error: bool = True,
    raise_on_error: bool = True,
    resume: bool = False,
    **options: Any,
) -> PipelineResults:
    """Run tasks of one package in order, one record per task (each naming the pipeline run:
    one UUIDv7 per call, job ``usecase.package``).

    Every name is checked first (:class:`~ubunye.lineage.errors.InvalidName`, nothing run).
    Stops at the first task that fails (later tasks usually read its outputs)
    unless ``stop_on_error=False``; ``options`` are :func:`run_task`'s.
    """
    refuse_080("run_pipeline", resume=resume)
    if isinstance(tasks, str):
        raise TypeError(f"run_pipeline tasks: expected a list of task names; got the string {tasks!r}")
    for name in tasks:  # every name checked before the first task runs
        validate_task_names(usecase, package, name)
    from ubunye.lineage.context import pipeline_run

    results = PipelineResults()
    with pipeline_run(usecase, package):  # each task's record names this run as its pipeline
        for name in tasks:
            task_dir = Path(usecase_dir) / usecase / package / name
            result = run_task(task_dir, raise_on_error=False, **options)
            results.append(result)
            if result.status != "success" and stop_on_error:
                break
    not_ok = [r for r in results if r.status != "success"]
    if not_ok and raise_on_error:
        raise failed(not_ok[0])
    return results


def notebook(
    task_dir: PathLike,
    *,
    mode: str = "DEV",
    dt: Optional[str] = None,
    dtf: Optional[str] = None,
    backend: Optional[str] = None,
    spark: Any = None,
    variables: Optional[Mapping[str, Any]] = None,
    lineage: bool = False,
    lineage_dir: str = DEFAULT_LINEAGE_DIR,
    hash_engine: Optional[str] = None,
    reuse_hashes: Optional[bool] = None,
    profile: Optional[str] = None,
    hooks: Any = None,
    env: Optional[Mapping[str, str]] = None,
    secrets_scope: Optional[str] = None,
    secrets_map: Optional[Mapping[str, str]] = None,
    auto_env: bool = True,
    handle_signals: bool = False,
) -> Notebook:
    """A task opened step by step: ``nb.read()``, ``nb.transform()``, ``nb.write()`` or ``nb.run()``.

    ubunye-engine 0.8.0's ``profile`` is checked as :func:`run_task` checks it; ``auto_env`` is taken
    (``{{ env.NAME }}`` reads the process environment either way: no widgets or secret scopes); its
    ``hooks``, ``env``, ``secrets_scope`` and ``secrets_map`` are refused in one line."""
    refuse_080("notebook", hooks=hooks, env=env, secrets_scope=secrets_scope, secrets_map=secrets_map,
               backend=backend)
    if profile is not None:
        from ubunye.engine.config import load_config

        require_profile(load_config(Path(task_dir), mode=mode, dt=dt, dtf=dtf, variables=variables,
                                    lineage_dir=lineage_dir), profile)
    execution = TaskExecution(
        Path(task_dir),
        mode=mode,
        dt=dt,
        dtf=dtf,
        backend=backend,
        spark=spark,
        variables=variables,
        lineage=lineage,
        lineage_dir=lineage_dir,
        hash_engine=hash_engine,
        reuse_hashes=reuse_hashes,
    )
    return Notebook(execution, handle_signals=handle_signals)
