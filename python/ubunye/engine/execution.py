"""One run of one task, step by step: read, check, transform, check, write, record.

:class:`TaskExecution` is shared by :func:`ubunye.engine.runner.run_task`,
``run_pipeline`` and the notebook helper, so their records are equally
complete: the same identity, code hash, timings, expectations and hashes.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Mapping, Optional

from ubunye.engine.backends import Backend, make_backend
from ubunye.engine.config import IOSpec, TaskConfig, load_config
from ubunye.engine.errors import EngineError, ExpectationError, TaskLoadError
from ubunye.engine.expectations import broken_line, result_entry
from ubunye.engine.loader import load_task, task_identity
from ubunye.engine.result import TaskResult, task_frame
from ubunye.engine.task import Task
from ubunye.engine.taskcode import TaskCode
from ubunye.engine.timings import Timings
from ubunye.lineage.store.blobs import DEFAULT_STORE
from ubunye.lineage.store.runids import new_run_id
from ubunye.masking import Masker, active, masked_causes

DEFAULT_LINEAGE_DIR = DEFAULT_STORE  # the one default (ubunye.lineage.store)


class TransformError(EngineError):
    """A transform that returned something other than the configured outputs."""


class RecordNotStarted(EngineError):
    """The run's ``running`` record could not be written: nothing is read or written."""


def _one_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"


class TaskExecution:
    """The state of one task run, advanced by :meth:`read`, :meth:`transform`, :meth:`write`."""

    def __init__(
        self,
        task_dir: Path,
        *,
        mode: str = "DEV",
        dt: Optional[str] = None,
        dtf: Optional[str] = None,
        backend: Optional[str] = None,
        spark: Any = None,
        variables: Optional[Mapping[str, Any]] = None,
        lineage: bool = False,
        lineage_dir: Optional[str] = DEFAULT_LINEAGE_DIR,
        hash_engine: Optional[str] = None,
        backend_obj: Optional[Backend] = None,
        reuse_hashes: Optional[bool] = None,
    ) -> None:
        # the names as given (checked before anything runs); the record lands under usecase_dir
        self.usecase_dir, self.usecase, self.package, self.task_name = task_identity(Path(task_dir))
        self.task_dir = self.usecase_dir / self.usecase / self.package / self.task_name
        self.variables = dict(variables or {})
        self.mode = mode
        self.masker = Masker.for_run(self.variables)  # the run's secrets: what every text it makes is masked with
        with active(self.masker), masked_causes():  # an error raised here chains no secret either
            self.config: TaskConfig = load_config(self.task_dir, mode=mode, dt=dt, dtf=dtf, variables=self.variables,
                                                  lineage_dir=lineage_dir)
            self.code = TaskCode(self.task_dir)  # the task's own modules (and the bytes that ran)
            # A task whose code raises while it loads (import, ``__init__``, SystemExit included) is a
            # failed run: when recording, its record says so (``check_started`` raises this after the
            # start record); without a record it is raised here, before a backend (maybe a JVM) starts.
            self.load_error: Optional[TaskLoadError] = None
            try:
                self.task: Task = load_task(self.task_dir, self.code, dict(self.config.raw))
            except TaskLoadError as exc:
                raised_by_code = exc.__cause__ is not None  # not a malformed folder (no or two Task classes)
                if not raised_by_code or not (lineage or self.config.lineage is not None):
                    raise
                self.load_error = exc
        name = backend or self.config.engine.backend or "spark"
        self._owns_backend = backend_obj is None  # a backend handed in is closed by its owner
        if backend_obj is not None:
            self.backend = backend_obj
        else:
            self.backend = make_backend(
                name,
                spark=spark,
                time_zone=self.config.engine.time_zone,
                spark_conf=dict(self.config.engine.spark_conf),
                hash_engine=hash_engine,
            )
        try:
            for spec in [*self.config.inputs.values(), *self.config.outputs.values()]:
                self.backend.check_spec(spec)
        except BaseException:
            if self._owns_backend:
                self.backend.close()  # nothing runs: the session is left as found
            raise
        self.run_vars: dict[str, Any] = {**self.variables, "mode": mode}
        if dt is not None:
            self.run_vars["dt"] = dt
        if dtf is not None:
            self.run_vars["dtf"] = dtf
        settings = self.config.lineage
        self.lineage = bool(lineage or settings is not None)
        self.hash_inputs = settings.hash_inputs if settings is not None else True
        if reuse_hashes is None:
            reuse_hashes = settings.reuse_hashes if settings is not None else True
        self.reuse_hashes = bool(reuse_hashes)
        if lineage_dir in (None, DEFAULT_LINEAGE_DIR) and settings is not None and settings.base_dir:
            lineage_dir = settings.base_dir
        self.lineage_dir = lineage_dir or DEFAULT_LINEAGE_DIR
        self.run_id = new_run_id()
        self.result = TaskResult(task_path=f"{self.usecase}/{self.package}/{self.task_name}", run_id=self.run_id,
                                 masker=self.masker)
        self.timings = Timings()
        self.expectations: list[dict[str, Any]] = []
        self.sources: dict[str, Any] = {}
        self.outputs: dict[str, Any] = {}
        self.input_events: dict[str, Any] = {}
        self._deferred: dict[str, tuple[IOSpec, Any, Any]] = {}  # inputs hashed while the run reads them
        self.output_events: dict[str, Any] = {}
        self.measured: Optional[dict[str, Any]] = None  # inputs a reconcile names, as read
        self.recorder: Any = None
        self.reuse: Any = None  # HashReuse, when recording
        self.context: Any = None
        self.handed_in = False  # the outputs came through write(outputs=...), not the transform
        self.writers: Any = None  # the locks of the outputs (ubunye.engine.writers), from start to finish
        self.lock_error: Optional[BaseException] = None
        self._started = time.perf_counter()
        self._finished = False

    # --- recording ---------------------------------------------------------
    def start(self) -> "TaskExecution":
        """Open the run (and its ``running`` record when recording), once no other run writes its
        outputs (:mod:`ubunye.engine.writers`: a run of one of them waits here until it has ended)."""
        from ubunye.engine.writers import take_locks

        if self.writers is None and self.lock_error is None:  # an error is raised by check_started, once recorded
            self.writers, self.lock_error = take_locks(self.run_id, self.config.outputs.values())
        self._started = time.perf_counter()
        if not self.lineage:
            return self
        from ubunye.lineage.context import RunContext
        from ubunye.lineage.recorder import LineageRecorder

        self.recorder = LineageRecorder(base_dir=self.lineage_dir, hash_inputs=self.hash_inputs)
        self.context = RunContext(
            usecase=self.usecase,
            package=self.package,
            task=self.task_name,
            usecase_dir=self.usecase_dir,
            run_id=self.run_id,
            task_dir=self.task_dir,
            profile=self.mode,
            model=self.config.model,
            version=self.config.version,
            backend=self.backend.name,
            variables=self.run_vars,
            time_zone=self.backend.time_zone,
            spark=self.backend.spark,
            code_files=self.code.loaded,
        )
        started = self.recorder.task_start(context=self.context, config=dict(self.config.raw))
        self._send_openlineage(started)
        from ubunye.engine.reuse import HashReuse

        self.reuse = HashReuse(self.recorder.store_for(self.context), self.backend, enabled=self.reuse_hashes)
        return self

    def check_started(self) -> None:
        """Raise :class:`RecordNotStarted` when the ``running`` record could not be written, so a run
        whose record cannot be kept stops before any data is read or written; then the task's own
        load failure (``load_error``), now that a record will say so."""
        if self.recorder is not None and self.recorder.failed:
            lost = " ".join(str(self.recorder.write_errors[0]).split())
            raise RecordNotStarted(f"{lost}; nothing was read or written")
        if self.load_error is not None:  # the task's code failed while it loaded: its record says so
            raise self.load_error
        if self.lock_error is not None:  # an output's writer lock could not be taken: nothing is written
            raise self.lock_error

    def _send_openlineage(self, record: Any) -> None:
        namespace = self.config.lineage.openlineage if self.config.lineage is not None else None
        if namespace is not None and record is not None:
            from ubunye.lineage.ol_send import send_live

            send_live(record, namespace=namespace, base=self.usecase_dir)

    def finish(self, status: str, error: Optional[BaseException] = None) -> TaskResult:
        """Close the run: write the final record (when recording) and return the result;
        then put back what the backend changed (the settings of a Spark session it found)."""
        from ubunye.lineage.ending import held

        with held():  # a signal arriving now waits until the record is written
            try:
                return self._finish(status, error)
            finally:
                if self.writers is not None:
                    self.writers.release()  # after the record: the next writer's run starts after it
                if self._owns_backend:
                    self.backend.close()

    def _finish(self, status: str, error: Optional[BaseException] = None) -> TaskResult:
        if self._finished:
            return self.result
        self._finished = True
        self.result.status = status
        self.result.error = error
        self.result.outputs = dict(self.outputs)
        self.result.expectations = list(self.expectations)
        self.result.timings = self.timings.as_list()
        from ubunye.lineage.ending import Stopped, TimedOut

        if isinstance(error, (Stopped, TimedOut)):  # maybe raised inside a call into the engine
            self.backend.interrupted()
            self._drop_deferred("not hashed: the run was stopped before its reads ended")
        if self.recorder is None:
            return self.result
        self._resolve_deferred()
        inputs = [self.input_events.get(n) or _unhashed(s) for n, s in self.config.inputs.items()]
        outputs = [self.output_events.get(n) or _unhashed(s) for n, s in self.config.outputs.items()]
        self.result.note_hash_reasons([*inputs, *outputs])
        from ubunye.lineage.ending import describe

        self.context.spark = self.backend.spark
        record = self.recorder.task_end(
            context=self.context,
            config=dict(self.config.raw),
            outputs=outputs,
            inputs=inputs,
            status=status,
            duration_sec=time.perf_counter() - self._started,
            error=None if error is None else describe(error, self.result.raised_at),
            expectations=self.result.expectations,
            timings=self.result.timings,
        )
        self.result.record = record
        self._send_openlineage(record)
        self.result.record_path = self.recorder.last_path
        self.result.record_errors = list(self.recorder.write_errors)
        if self.result.record_path is not None:
            self._publish_hashes(record)
        return self.result

    def _publish_hashes(self, record: Any) -> None:
        """Note the record's signed steps, so later runs reading those files reuse their hashes."""
        if self.reuse is not None:
            specs = {f"{s.direction}:{n}": s for n, s in [*self.config.inputs.items(), *self.config.outputs.items()]}
            self.reuse.publish(record, specs)

    def _signature(self, spec: IOSpec, delta_version: Optional[int]) -> Optional[str]:
        return self.reuse.signature(spec, delta_version) if self.reuse is not None else None

    # --- steps -------------------------------------------------------------
    def read(self) -> dict[str, Any]:
        """Read every input (checking its expectations right after the read)."""
        for name, spec in self.config.inputs.items():
            if name in self.sources:
                continue
            with self.timings.read(spec.format, name):
                got = self.backend.read(spec)
            self.sources[name] = got.frame
            self._check_and_hash_input(spec, got.frame, got.delta_version)
        return dict(self.sources)

    def transform(self, sources: Optional[Mapping[str, Any]] = None) -> dict[str, Any]:
        """Call the task's transform on the inputs; returns the outputs by name."""
        if sources is None:
            sources = self.sources if len(self.sources) == len(self.config.inputs) else self.read()
        self.task.bind(
            params=self.config.params,
            backend=self.backend.name,
            spark=self.backend.spark,
            variables=self.run_vars,
            task_dir=self.task_dir,
        )
        from ubunye.engine.guards import measure_inputs

        self.measured = measure_inputs(self.backend, self.config.expectations, sources)  # before the transform
        with self.timings.transform(type(self.task).__name__), self.code.active():
            try:
                self.task.setup()
                produced = self.task.transform(dict(sources))
            except BaseException as exc:  # the reason names the task's own line: SystemExit too
                if not isinstance(exc, EngineError):
                    self.result.raised_at = task_frame(exc, self.task_dir)
                raise
        self.outputs = self._validate_outputs(produced)
        return dict(self.outputs)

    def check_outputs(self) -> None:
        """Check every output's expectations; raise if a ``fail`` rule is broken."""
        from ubunye.engine.expectation_sets import RuleSet, quarantine_targets
        from ubunye.engine.guards import check_output, measure_inputs

        broken: list[str] = []
        targets = quarantine_targets(self.config.expectations)
        for name in self.config.outputs:
            rules = self.config.expectations.get(name)
            if name in targets:
                continue  # filled from its source output's check
            if not isinstance(rules, RuleSet) or (rules.quarantine is None and not rules.reconcile):
                broken += self._check(name, "output", self.outputs[name], raise_now=False)
                continue
            if self.measured is None:  # outputs handed in without the transform: measure the inputs now
                self.measured = measure_inputs(self.backend, self.config.expectations, self.sources)
            found = check_output(self.backend, name, self.outputs[name], rules, self.measured)
            self.expectations += found.entries
            broken += found.broken
            self.outputs[name] = found.clean
            if rules.quarantine is not None:
                self.outputs[rules.quarantine] = found.quarantined
        if broken:
            raise ExpectationError(broken)

    def write(self, outputs: Optional[Mapping[str, Any]] = None) -> None:
        """Check the outputs' expectations, then write every output."""
        if outputs is not None:
            self.outputs = self._validate_outputs(outputs)
            self.handed_in = True
        elif not self.outputs:
            self.transform()
        self.check_outputs()
        for name, spec in self.config.outputs.items():
            self._write_one(name, spec, self.outputs[name])
        self._resolve_deferred()

    def _resolve_deferred(self) -> None:
        """Hash the inputs left to the run's own queries: kept when they saw every row,
        else hashed in a pass of their own. Never raises (a failed hash is recorded)."""
        while self._deferred:
            name, (spec, frame, handle) = self._deferred.popitem()
            event = self.input_events[name]
            started = time.perf_counter()
            try:
                fp = self.backend.observed_input(spec, frame, handle, event.delta_version)
            except Exception:  # noqa: BLE001 - fall back to a pass of its own
                fp = None
            if fp is not None:
                event.hash_pass = "same-pass"
            else:
                try:
                    fp = self.backend.fingerprint(frame)
                except Exception as exc:  # noqa: BLE001
                    fp = _failed_fingerprint(exc)
                event.hash_pass = self.backend.input_hash_pass()
            event.fingerprint = fp
            event.hash_seconds = time.perf_counter() - started

    def _drop_deferred(self, why: str) -> None:
        """Inputs left to the run's own queries, given up: a stopped run ends now, unhashed."""
        while self._deferred:
            name, _ = self._deferred.popitem()
            self.input_events[name].fingerprint = _failed_fingerprint(RuntimeError(why))

    # --- internals ---------------------------------------------------------
    def _check(self, name: str, side: str, frame: Any, raise_now: bool = True) -> list[str]:
        rules = self.config.rules_for(name)
        if not rules:
            return []
        return self._outcomes(name, side, rules, self.backend.check(frame, rules), raise_now)

    def _outcomes(self, name: str, side: str, rules: Any, outcomes: Any, raise_now: bool) -> list[str]:
        """Record every checked rule; raise (or return) the broken ``fail`` rules."""
        broken: list[str] = []
        for rule, outcome in zip(rules, outcomes):
            entry = result_entry(name, side, rule, outcome)
            self.expectations.append(entry)
            if not entry["passed"] and rule.severity == "fail":
                broken.append(broken_line(entry))
        if broken and raise_now:
            raise ExpectationError(broken)
        return broken

    def _validate_outputs(self, produced: Any) -> dict[str, Any]:
        where = f"{type(self.task).__name__}.transform"
        if not isinstance(produced, Mapping):
            raise TransformError(f"{where} returned {type(produced).__name__}; expected a dict of outputs by name")
        from ubunye.engine.expectation_sets import quarantine_targets

        targets = quarantine_targets(self.config.expectations)
        filled = [str(n) for n in produced if n in targets]
        if filled:
            raise TransformError(f"{where} returned {filled[0]!r}, the quarantine output of "
                                 f"{targets[filled[0]]!r}; the engine fills it")
        missing = [n for n in self.config.outputs if n not in produced and n not in targets]
        if missing:
            raise TransformError(f"{where} returned no {', '.join(repr(n) for n in missing)} (outputs in config.yaml)")
        extra = [str(n) for n in produced if n not in self.config.outputs]
        if extra:
            raise TransformError(f"{where} returned {', '.join(repr(n) for n in extra)}, not an output in config.yaml")
        for n, frame in produced.items():
            if not self.backend.is_frame(frame):
                raise TransformError(
                    f"{where}: output {n!r} is a {type(frame).__name__}; expected a {self.backend.name} DataFrame"
                )
        return dict(produced)

    def _check_and_hash_input(self, spec: IOSpec, frame: Any, delta_version: Optional[int]) -> None:
        """Check an input's rules and hash it (in one scan where the backend can);
        the input's step is kept even when a rule then stops the run."""
        from ubunye.lineage.context import DataEvent
        from ubunye.lineage.steps import frame_columns

        event = DataEvent(name=spec.name, direction="input", format=spec.format, location=spec.location,
                          delta_version=delta_version, options=spec.reader_options(), schema=spec.schema,
                          columns=frame_columns(frame))
        self.input_events[spec.name] = event
        rules = self.config.rules_for(spec.name)
        want_hash = self.lineage and self.hash_inputs
        if not rules and not want_hash:
            return
        if want_hash:
            event.storage_signature = self._signature(spec, delta_version)
            if self.reuse is not None and self.reuse.take(event, spec, frame):
                if rules:
                    self._outcomes(spec.name, "input", rules, self.backend.check(frame, rules), raise_now=True)
                return
        if want_hash and not rules:  # no scan of its own needed: try hashing it while the run reads it
            observed, handle = self.backend.observe_input(frame, spec.name)
            if handle is not None:
                self.sources[spec.name] = observed
                self._deferred[spec.name] = (spec, frame, handle)
                return
        started = time.perf_counter()
        try:
            outcomes, fp = self.backend.check_and_fingerprint(frame, rules, hash_frame=want_hash)
        except Exception:  # noqa: BLE001 - do them apart: a failed hash is recorded, a failed check fails
            outcomes = self.backend.check(frame, rules) if rules else []
            started = time.perf_counter()
            try:
                fp = self.backend.fingerprint(frame) if want_hash else None
            except Exception as exc:  # noqa: BLE001
                fp = _failed_fingerprint(exc)
        if want_hash:
            event.fingerprint = fp
            event.hash_seconds = time.perf_counter() - started
            event.hash_pass = self.backend.input_hash_pass()
        self._outcomes(spec.name, "input", rules, outcomes, raise_now=True)

    def _write_one(self, name: str, spec: IOSpec, frame: Any) -> None:
        from ubunye.lineage.context import DataEvent
        from ubunye.lineage.steps import frame_columns

        with self.timings.write(spec.format, name):
            done = self.backend.write(frame, spec, hash_output=self.lineage)
        if done.hash_pass == "second-pass" and done.hash_seconds:
            self.timings.exclude(done.hash_seconds)  # the writer's time, not the second pass's
        if not done.written:
            step = _unhashed(spec)
            step.hash_error = "not written: mode ignore found data already there"
            self.output_events[name] = step
            return
        event = DataEvent(name=name, direction="output", format=spec.format, location=spec.location,
                          delta_version=done.delta_version, columns=frame_columns(frame),
                          options=done.read_options, schema=done.read_schema, handed_in=self.handed_in or None)
        if self.lineage:
            if done.fingerprint is not None:
                event.fingerprint = done.fingerprint
                event.hash_pass = done.hash_pass
                event.hash_seconds = done.hash_seconds
            else:
                started = time.perf_counter()
                try:
                    event.fingerprint = self.backend.fingerprint(frame)
                except Exception as exc:  # noqa: BLE001
                    event.fingerprint = _failed_fingerprint(exc)
                event.hash_seconds = time.perf_counter() - started
                event.hash_pass = "materialised"
            if getattr(event.fingerprint, "data_hash", None) is not None:
                event.storage_signature = self._signature(spec, done.delta_version)
        self.output_events[name] = event


def _unhashed(spec: IOSpec) -> Any:
    """The step of an input or output the run never reached (no hash, no count); an output's says
    it was not written (the record states what was written, not what was meant to be)."""
    from ubunye.lineage.record import Step

    if spec.direction == "input":  # the reader settings it was to be read with
        return Step(name=spec.name, direction=spec.direction, format=spec.format, location=spec.location,
                    options=spec.reader_options(), schema=spec.schema)
    return Step(name=spec.name, direction=spec.direction, format=spec.format, location=spec.location,
                hash_error="not written: the run ended before this output's write finished")


def _failed_fingerprint(exc: BaseException) -> Any:
    from ubunye.hashing.fingerprint import Fingerprint

    return Fingerprint(None, None, None, engine="", error=_one_line(exc))


def execute(execution: TaskExecution, *, handle_signals: bool = False) -> TaskResult:
    """Run every step of a task; the record is written whatever happens.

    How it ends is :mod:`ubunye.lineage.ending`'s one mapping: anything raised (``SystemExit``
    and any other ``BaseException`` included) ends the record as ``error``, a
    ``KeyboardInterrupt`` as ``interrupted``; a ``KeyboardInterrupt`` or a signal
    (``handle_signals``: SIGTERM/SIGINT, main thread) is re-raised once the record is written,
    anything else is returned as the failed result. ``ENGINE.timeout`` bounds the run."""
    from ubunye.lineage.ending import ending_signals, end_status, reraise, time_limit

    with active(execution.masker), ending_signals(handle_signals):
        try:
            execution.start()  # the running record, before the clock starts
            execution.check_started()
            with time_limit(execution.config.engine.timeout):
                execution.read()
                execution.transform()
                execution.write()
        except BaseException as exc:  # noqa: BLE001 - recorded, then re-raised or returned
            result = execution.finish(end_status(exc), exc)
            if reraise(exc):
                raise
            return result
        return execution.finish("success")
