"""The recorder: the one piece every entry point uses to write a run record.

A monitor with two hooks. ``task_start`` writes a ``running`` record holding the
identity, the code/config/environment evidence and the masked variables;
``task_end`` hashes every input and output (rows-v1), adds the timings and the
expectations, and replaces the record with the final one.

Every record is masked as one document just before it is written
(:meth:`ubunye.masking.Masker.doc`: every text, every secret-named value; ids, hashes and
the seal kept), with the run's masker, which has learned the run's secret-named variables.

A record that cannot be written never raises out of a hook (a run that
succeeded stays a success), but it is never lost silently: the error (naming
the path and the reason) is logged at ERROR level on the ``ubunye.lineage``
logger and appended to :attr:`LineageRecorder.write_errors`, which entry points
check to exit non-zero (``recorder.failed``).
"""
from __future__ import annotations

import json
import logging
import warnings
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Optional, Sequence, Union

from ubunye._version import __version__
from ubunye.lineage.context import DataEvent, RunContext, current_pipeline
from ubunye.lineage.ending import describe, this_process
from ubunye.lineage.errors import LineageError, RecordWriteError
from ubunye.lineage.evidence import code_hash, config_hash, environment, environment_hash
from ubunye.masking import RECORD_ERROR_LIMIT, current
from ubunye.lineage.record import SEAL_FIELD, RunRecord, Step
from ubunye.lineage.steps import FingerprintFn, StepHasher, build_steps
from ubunye._names import validate_name
from ubunye.lineage.store import DEFAULT_STORE, RecordStore, join, open_store
from ubunye.lineage.store.runids import new_run_id  # (re-exported: the one maker of run ids)
from ubunye.userfiles import UserFileError

log = logging.getLogger("ubunye.lineage")

STATUSES = ("running", "success", "error", "interrupted")


def now_iso(seconds_ago: float = 0.0) -> str:
    """The current instant (less ``seconds_ago``) in ISO-8601 UTC with the ``+00:00`` offset."""
    moment = datetime.now(timezone.utc) - timedelta(seconds=seconds_ago)
    return moment.isoformat(timespec="microseconds")


class LineageRecorder:
    """Writes one run record per task run to a :class:`RecordStore`.

    - ``store``: ``"filesystem"`` (the only kind name) or a :class:`RecordStore` to use as is.
    - ``base_dir``: the lineage folder or store URL (``s3://``, ``gs://``, ``abfss://``,
      ``/Volumes/...``), relative to ``context.usecase_dir`` unless absolute or a URL.
    - ``hash_inputs``: hash inputs like outputs (False: inputs are listed, not hashed).
    - ``sample_fraction``: accepted so old configs load; ignored with a DeprecationWarning
      (rows-v1 always hashes every row).
    """

    def __init__(
        self,
        store: Union[str, RecordStore] = "filesystem",
        base_dir: Union[str, Path] = DEFAULT_STORE,
        hash_inputs: bool = True,
        sample_fraction: Optional[float] = None,
        *,
        fingerprint: Optional[FingerprintFn] = None,
    ) -> None:
        if not isinstance(store, RecordStore) and store != "filesystem":
            raise ValueError(f"unknown lineage store {store!r}: the only kind is 'filesystem'")
        if sample_fraction is not None:
            warnings.warn(
                f"LineageRecorder(sample_fraction={sample_fraction!r}) is ignored: rows-v1 hashes every row",
                DeprecationWarning,
                stacklevel=2,
            )
        self.store = store
        self.base_dir = base_dir  # a str may be a URL: never through Path, which folds "//"
        self._stores: dict[str, RecordStore] = {}
        self.hash_inputs = hash_inputs
        self.write_errors: list[RecordWriteError] = []
        self.last_record: Optional[RunRecord] = None
        self.last_path: Optional[Any] = None  # a Path, or a URL on an object store
        self._fingerprint = fingerprint
        self._open: dict[str, RunRecord] = {}

    # --- where -------------------------------------------------------------
    def store_for(self, context: RunContext) -> RecordStore:
        """The store that holds ``context``'s records (opened once per usecase folder)."""
        if isinstance(self.store, RecordStore):
            return self.store
        key = str(context.usecase_dir)
        if key not in self._stores:
            self._stores[key] = open_store(context.usecase_dir, self.base_dir)
        return self._stores[key]

    @property
    def failed(self) -> bool:
        """True when at least one record could not be written."""
        return bool(self.write_errors)

    # --- hooks -------------------------------------------------------------
    def task_start(self, *, context: RunContext, config: Optional[dict[str, Any]] = None) -> RunRecord:
        """Write the ``running`` record of a run and return it.

        Raises :class:`~ubunye.lineage.errors.InvalidName` for a usecase, package
        or task name that is not a single folder name (before anything runs).
        """
        validate_name("usecase", context.usecase)
        validate_name("package", context.package)
        validate_name("task", context.task)
        validate_name("run id", context.run_id)
        record = self._new_record(context, config or {})
        self._open[context.run_id] = record
        return self._write(context, record)

    def task_end(
        self,
        *,
        context: RunContext,
        config: Optional[dict[str, Any]] = None,
        outputs: Sequence[Union[DataEvent, Step]] = (),
        status: str = "success",
        duration_sec: Optional[float] = None,
        error: Union[str, BaseException, None] = None,
        inputs: Optional[Sequence[Union[DataEvent, Step]]] = None,
        expectations: Optional[list[dict[str, Any]]] = None,
        timings: Optional[list[dict[str, Any]]] = None,
    ) -> RunRecord:
        """Complete the record of a run (hashing its inputs and outputs) and write it."""
        if status not in STATUSES[1:]:
            raise ValueError(f"task_end status {status!r} is not one of {', '.join(STATUSES[1:])}")
        record = self._open.pop(context.run_id, None)
        if record is None:  # task_start was not called: date the start from the duration
            record = self._new_record(context, config or {}, seconds_ago=duration_sec)
        hasher = StepHasher(hash_inputs=self.hash_inputs, fingerprint=self._fingerprint)
        record.inputs = build_steps(hasher, inputs or [])
        record.outputs = build_steps(hasher, outputs or [])
        record.ended_at = now_iso()
        record.duration_sec = None if duration_sec is None else float(duration_sec)
        record.status = status
        record.error = current().error(describe(error) if isinstance(error, BaseException) else error,
                                       RECORD_ERROR_LIMIT)  # the whole text, bounded
        record.expectations = [dict(e) for e in (expectations or [])]
        record.timings = [dict(t) for t in (timings or [])]
        if context.code_files:  # modules the run imported after it started
            record.code_hash = _code_evidence(context)
        record.backend = record.backend or context.backend
        record.time_zone = record.time_zone or context.time_zone
        self._refresh_spark(context, record)
        return self._write(context, record)

    # --- internals ---------------------------------------------------------
    def _new_record(
        self, context: RunContext, config: dict[str, Any], seconds_ago: Optional[float] = None
    ) -> RunRecord:
        task_dir = Path(context.task_dir) if context.task_dir is not None else None
        env = environment(context.spark)
        pipeline = context.pipeline
        if pipeline is None and current_pipeline() is not None:
            pipeline = current_pipeline().to_record()  # type: ignore[union-attr]
        return RunRecord(
            run_id=context.run_id,
            task_path=context.task_path,
            usecase=context.usecase,
            package=context.package,
            task_name=context.task,
            profile=context.profile,
            model=context.model if context.model is not None else _config_str(config, "MODEL"),
            version=context.version if context.version is not None else _config_str(config, "VERSION"),
            config_hash=_evidence("config_hash", config_hash, task_dir),
            started_at=now_iso(seconds_ago or 0.0),
            status="running",
            engine_version=__version__,
            backend=context.backend or ("spark" if context.spark is not None else None),
            variables=dict(context.variables),
            time_zone=context.time_zone or _spark_time_zone(context.spark),
            code_hash=_code_evidence(context),
            environment=env,
            environment_hash=environment_hash(env),
            process=this_process(),
            pipeline=dict(pipeline) if pipeline else None,
        )

    def _refresh_spark(self, context: RunContext, record: RunRecord) -> None:
        """Add the Spark evidence when the session became known only during the run."""
        if context.spark is None:
            return
        if "spark" not in record.environment:
            record.environment = environment(context.spark)
            record.environment_hash = environment_hash(record.environment)
        record.backend = record.backend or context.backend or "spark"
        record.time_zone = record.time_zone or context.time_zone or _spark_time_zone(context.spark)

    def _write(self, context: RunContext, record: RunRecord) -> RunRecord:
        """Mask ``record`` as one document, store it; returns the masked record (where it went:
        :attr:`last_path`, a path or a URL on an object store)."""
        record = masked(record, context.variables)
        self.last_record = record
        try:
            store = self.store_for(context)
            path = store.write(record)
        except RecordWriteError as exc:
            self._lost(exc)
            return record
        except (LineageError, ValueError, OSError) as exc:  # an invalid name, an unknown URL: never silent
            root = self.store.root if isinstance(self.store, RecordStore) else join(context.usecase_dir,
                                                                                       self.base_dir)
            where = f"{root}/{record.usecase}/{record.package}/{record.task_name}/{record.run_id}.json"
            self._lost(RecordWriteError(where, str(exc)))  # type: ignore[arg-type]
            return record
        self.last_path = path
        return record

    def _lost(self, exc: RecordWriteError) -> None:
        self.write_errors.append(exc)
        log.error("%s", exc)


def masked(record: RunRecord, variables: Any = None) -> RunRecord:
    """``record`` as written: one masking pass over the whole document (the run's masker, taught
    the secret-named ``variables``); ids, hashes and the seal are kept."""
    masker = current()
    masker.add_variables(variables or {})
    try:
        data = json.loads(record.to_json())
    except (TypeError, ValueError, RecursionError):
        return record  # not JSON: the store refuses it, naming why, and nothing is written
    data.pop(SEAL_FIELD, None)
    return RunRecord.from_dict(masker.doc(data))


def _evidence(name: str, compute: Any, task_dir: Optional[Path]) -> Optional[str]:
    """A code or config hash, or None (with a warning naming why) when the files cannot be read."""
    try:
        value: Optional[str] = compute(task_dir)
    except (OSError, UserFileError) as exc:  # UserFileError: a FIFO or device named *.py
        log.warning("no %s for %s: %s", name, task_dir, exc)
        return None
    return value


def _code_evidence(context: RunContext) -> Optional[str]:
    """The code hash of the run's task folder, taking the bytes the run compiled where it compiled them."""
    task_dir = Path(context.task_dir) if context.task_dir is not None else None
    return _evidence("code_hash", lambda folder: code_hash(folder, context.code_files), task_dir)


def _config_str(config: dict[str, Any], key: str) -> Optional[str]:
    value = config.get(key, config.get(key.lower()))
    return None if value is None else str(value)


def _spark_time_zone(spark: Any) -> Optional[str]:
    if spark is None:
        return None
    try:
        return str(spark.conf.get("spark.sql.session.timeZone"))
    except Exception:  # noqa: BLE001 - evidence is best effort
        return None
