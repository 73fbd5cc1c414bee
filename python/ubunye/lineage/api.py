"""A direct API for jobs that do not use the task engine (a notebook, a
Databricks job, a plain script)::

    import ubunye.lineage

    with ubunye.lineage.run("shop/orders/clean", usecase_dir=".", variables={"dt": dt}) as run:
        people = spark.read.csv(path, header=True, inferSchema=True)
        run.input("people", people, location=path, format="csv")
        adults = people.where("age >= 18")
        adults.write.parquet(out)
        run.output("adults", adults, location=out, format="parquet")

It writes the same complete record as the task engine: a ``running`` record on
entering, the final one on leaving (``success``, ``error`` with the masked
exception, or ``interrupted`` on KeyboardInterrupt; the exception is never
swallowed). Each frame is hashed (rows-v1) when it is handed over, so a pandas
frame changed in place later does not change what was recorded.

Timings: each ``input``/``output`` call closes an interval that started at the
previous call (or at entering the block); hashing is timed separately and left
out of the intervals. ``Reader:<format>`` entries time what came before an
input, ``Writer:<format>`` entries what came before an output; ``with
run.timed("Transform:clean"):`` adds an entry of your own.
"""
from __future__ import annotations

import time
from contextlib import ExitStack, contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any, Iterator, Literal, Optional, Union

from ubunye._names import validate_name, validate_task_names
from ubunye.lineage.context import DataEvent, RunContext
from ubunye.lineage.ending import end_status, ending_signals, held
from ubunye.lineage.errors import InvalidName, RecordWriteError
from ubunye.lineage.record import RunRecord, Step
from ubunye.lineage.recorder import LineageRecorder, new_run_id
from ubunye.lineage.steps import StepHasher
from ubunye.lineage.store import DEFAULT_LINEAGE_DIR

_BACKENDS = (("pyspark", "spark"), ("pandas", "pandas"), ("pyarrow", "arrow"), ("polars", "polars"), ("duckdb", "duckdb"))


def split_task_path(task_path: str) -> tuple[str, str, str]:
    """``"usecase/package/task"`` as its three names, each checked (:func:`ubunye._names.validate_name`)."""
    parts = task_path.split("/") if isinstance(task_path, str) else []
    if len(parts) != 3:
        raise InvalidName("task path", str(task_path), "it must be 'usecase/package/task'")
    return validate_task_names(parts[0], parts[1], parts[2])


def _backend_of(frame: Any) -> Optional[str]:
    module = type(frame).__module__ or ""
    for prefix, backend in _BACKENDS:
        if module == prefix or module.startswith(prefix + "."):
            return backend
    return None


class LineageRun:
    """One run recorded through the direct API (see the module docs)."""

    def __init__(
        self,
        context: RunContext,
        *,
        config: Optional[dict[str, Any]] = None,
        recorder: Optional[LineageRecorder] = None,
        handle_signals: bool = False,
    ) -> None:
        self.context = context
        self.handle_signals = handle_signals  # SIGTERM/SIGINT end the record as error (main thread)
        self._signals = ExitStack()
        self.config = dict(config or {})
        self.recorder = recorder or LineageRecorder()
        self.inputs: list[Step] = []
        self.outputs: list[Step] = []
        self.timings: list[dict[str, Any]] = []
        self.expectations: list[dict[str, Any]] = []
        self.record: Optional[RunRecord] = None
        self._hasher = StepHasher(
            hash_inputs=self.recorder.hash_inputs,
            fingerprint=self.recorder._fingerprint,
        )
        self._started = 0.0
        self._mark = 0.0

    # --- identity and results ---------------------------------------------
    @property
    def run_id(self) -> str:
        return self.context.run_id

    @property
    def path(self) -> Optional[Path]:
        """Where the record was last written (None if it could not be)."""
        return self.recorder.last_path

    @property
    def write_errors(self) -> list[RecordWriteError]:
        """Records of this run that could not be written (each names path and reason)."""
        return self.recorder.write_errors

    # --- what the job reads and writes ------------------------------------
    def input(self, name: str, frame: Any = None, *, location: Optional[str] = None,
              format: Optional[str] = None) -> Step:
        """Record an input (hashed now unless the recorder has ``hash_inputs=False``)."""
        return self._data(name, "input", frame, location, format, self.inputs)

    def output(self, name: str, frame: Any = None, *, location: Optional[str] = None,
               format: Optional[str] = None) -> Step:
        """Record an output (hashed now)."""
        return self._data(name, "output", frame, location, format, self.outputs)

    def expectation(self, result: dict[str, Any]) -> None:
        """Record one checked rule (``{"output", "rule", "kind", "severity", ...}``)."""
        self.expectations.append(dict(result))

    @contextmanager
    def timed(self, step: str, **extra: Any) -> Iterator[None]:
        """Time the block as ``{"step": step, **extra, "seconds": s}``."""
        started = time.perf_counter()
        try:
            yield
        finally:
            self.timings.append({"step": step, **extra, "seconds": round(time.perf_counter() - started, 6)})
            self._mark = time.perf_counter()

    def _data(self, name: str, direction: str, frame: Any, location: Optional[str],
              format: Optional[str], into: list[Step]) -> Step:
        elapsed = time.perf_counter() - self._mark
        label = "Reader" if direction == "input" else "Writer"
        self.timings.append({"step": f"{label}:{format or 'frame'}", direction: name, "seconds": round(elapsed, 6)})
        self._adopt(frame)
        step = self._hasher.step(DataEvent(name=name, direction=direction, format=format, location=location, frame=frame))
        into.append(step)
        self._mark = time.perf_counter()
        return step

    def _adopt(self, frame: Any) -> None:
        """Learn the backend (and the Spark session) from the first frame."""
        if frame is None:
            return
        backend = _backend_of(frame)
        if self.context.backend is None and backend is not None:
            self.context.backend = backend
        if backend == "spark" and self.context.spark is None:
            self.context.spark = getattr(frame, "sparkSession", None)

    # --- the block ---------------------------------------------------------
    def __enter__(self) -> "LineageRun":
        self._started = self._mark = time.perf_counter()
        self._signals.enter_context(ending_signals(self.handle_signals))
        self.record = self.recorder.task_start(context=self.context, config=self.config)
        return self

    def __exit__(self, exc_type: Optional[type[BaseException]], exc: Optional[BaseException],
                 tb: Optional[TracebackType]) -> Literal[False]:
        status = end_status(exc)  # the one mapping: SystemExit is an error, KeyboardInterrupt interrupted
        with self._signals, held():  # a signal arriving while the record ends waits for it
            self._end(status, exc)
        return False

    def _end(self, status: str, exc: Optional[BaseException]) -> None:
        self.record = self.recorder.task_end(
            context=self.context,
            config=self.config,
            outputs=self.outputs,
            inputs=self.inputs,
            status=status,
            duration_sec=time.perf_counter() - self._started,
            error=exc,
            expectations=self.expectations,
            timings=self.timings,
        )


def run(
    task_path: str,
    *,
    usecase_dir: Union[str, Path] = ".",
    variables: Optional[dict[str, Any]] = None,
    task_dir: Union[str, Path, None] = None,
    lineage_dir: Union[str, Path] = DEFAULT_LINEAGE_DIR,
    profile: str = "DEV",
    backend: Optional[str] = None,
    spark: Any = None,
    time_zone: Optional[str] = None,
    hash_inputs: bool = True,
    config: Optional[dict[str, Any]] = None,
    run_id: Optional[str] = None,
    handle_signals: bool = False,
) -> LineageRun:
    """Record a run of ``"usecase/package/task"`` done by your own code (use with ``with``).

    ``task_dir`` (the folder with the job's ``.py`` files and ``config.yaml``)
    gives the code and config hashes; ``lineage_dir`` is relative to
    ``usecase_dir`` unless absolute. The backend and Spark session are taken
    from the first frame when not given. Whatever the block raises ends the record (``SystemExit``
    included: ``error``; ``KeyboardInterrupt``: ``interrupted``) and propagates;
    ``handle_signals=True`` (main thread) makes SIGTERM/SIGINT raise
    :class:`~ubunye.lineage.ending.Stopped` in the block, so the record ends as ``error``.
    """
    usecase, package, task = split_task_path(task_path)
    if run_id is not None:
        validate_name("run id", run_id)
    context = RunContext(
        usecase=usecase,
        package=package,
        task=task,
        usecase_dir=Path(usecase_dir),
        run_id=run_id or new_run_id(),
        task_dir=Path(task_dir) if task_dir is not None else None,
        profile=profile,
        backend=backend,
        variables=dict(variables or {}),
        time_zone=time_zone,
        spark=spark,
        model=(config or {}).get("MODEL"),
        version=None if (config or {}).get("VERSION") is None else str((config or {})["VERSION"]),
    )
    recorder = LineageRecorder(base_dir=lineage_dir, hash_inputs=hash_inputs)
    return LineageRun(context, config=config, recorder=recorder, handle_signals=handle_signals)
