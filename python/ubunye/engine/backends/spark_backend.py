"""The Spark backend: parquet, csv, json, Delta and catalog tables, hashed on the write.

With recording on, an output's rows-v1 hash is taken in the same pass as its
write: the native sums aggregate is observed on the written frame
(:class:`ubunye.spark.observe.SumsObserver`, classic sessions and Spark
Connect servers with the plugin alike) and read back after the write. Where
that is impossible (no native functions: a Connect server without the plugin
a forced ``spark-sql`` engine; a pyspark 3.5 Connect client, which gets no
observed metrics back from a write; a hash that cannot be built; a write that did
not run its query) the hash is taken in a second pass and the step says so
(``hash_pass``).

Inputs: an input with expectations is hashed in the scan that checks it; one
without is observed the same way while the run's own queries read it, and
that hash is kept only when its row count equals the input's own count
(metadata for parquet and Delta), otherwise the input is hashed in a pass of
its own (``second-pass``).
"""
from __future__ import annotations

from contextlib import nullcontext
from dataclasses import replace
from typing import Any, Mapping, Optional, Sequence

from ubunye.engine.backends.base import Backend, FramePort, ReadResult, WriteResult
from ubunye.engine.backends.spark_session import delta_version_of, get_session, table_exists
from ubunye.engine.config import IOSpec
from ubunye.engine.errors import IOSpecError
from ubunye.engine.expectations import Outcome, Rule
from ubunye.spark.writes import SAME_PASS, SECOND_PASS, RoundTripWarning

__all__ = ["SAME_PASS", "SECOND_PASS", "RoundTripWarning", "SparkBackend", "SparkFramePort"]


class SparkFramePort:
    """A Spark DataFrame seen through the frame port (rows via Arrow, UTC instants)."""

    def __init__(self, df: Any) -> None:
        self._df = df

    @property
    def schema(self) -> Mapping[str, str]:
        from ubunye.spark import spark_kinds

        return dict(spark_kinds(self._df.schema))

    def count(self) -> int:
        return int(self._df.count())

    def collect(self) -> list[dict[str, Any]]:
        from ubunye.spark._compat import frame_to_arrow

        return list(frame_to_arrow(self._df).to_pylist())


class SparkBackend(Backend):
    """Reads and writes with a SparkSession (the active one, or a local one it starts)."""

    name = "spark"
    formats = ("parquet", "csv", "json", "delta", "table", "jdbc")

    def __init__(
        self,
        spark: Any = None,
        *,
        time_zone: Optional[str] = None,
        spark_conf: Optional[Mapping[str, str]] = None,
        hash_engine: Optional[str] = None,
    ) -> None:
        if hash_engine not in (None, "spark-native", "spark-sql"):
            raise ValueError(f"unknown Spark hash engine {hash_engine!r}: expected spark-native or spark-sql")
        self.spark, self._changes = get_session(
            spark, time_zone=time_zone, spark_conf=spark_conf or {}, want_plugin=hash_engine != "spark-sql")
        self.time_zone = str(self.spark.conf.get("spark.sql.session.timeZone"))
        self.hash_engine = hash_engine
        from ubunye.spark.observe import SumsObserver

        self._observer = SumsObserver()

    def interrupted(self) -> None:
        """The run was stopped (signal, time limit), maybe during an action: close this thread's
        connection if a call still holds it (the handler did: lineage/ending.py), then cancel the session's
        running jobs. Spark Connect: interrupt its operations."""
        try:
            from ubunye.spark._compat import close_thread_connection, is_connect

            if is_connect(self.spark):
                self.spark.interruptAll()
                return
            close_thread_connection(self.spark)
            self.spark.sparkContext.cancelAllJobs()
        except Exception:  # noqa: BLE001 - best effort: the record is ended either way
            pass

    def close(self) -> None:
        """Put back the settings this run changed on a session it did not start."""
        if self._changes is not None:
            self._changes.restore()

    # --- reading -----------------------------------------------------------
    def read(self, spec: IOSpec) -> ReadResult:
        if spec.format == "jdbc":
            from ubunye.engine.connectors import jdbc_errors

            with jdbc_errors(spec):
                return self._read(spec)
        try:
            return self._read(spec)
        except Exception as exc:
            from ubunye.io.names import from_spark_error

            same = from_spark_error(str(exc))  # names differing only by case: the pandas backend's line
            if same is not None:
                raise IOSpecError(f"input {spec.name!r}: {same}") from exc
            raise

    def _read(self, spec: IOSpec) -> ReadResult:
        # the options the pandas backend reads with too (csv: header and inferSchema true by default)
        options: dict[str, Any] = dict(spec.reader_options())
        version: Optional[int] = None
        if spec.format in ("delta", "table") and spec.version is not None:
            options["versionAsOf"] = spec.version
        if spec.format == "jdbc":  # url, dbtable or query, user, password: spec.connection (never recorded)
            frame = self.spark.read.format("jdbc").options(**options).options(**spec.connection).load()
        elif spec.format == "table":
            reader = self.spark.read.options(**options)
            frame = reader.table(spec.table)
            version = spec.version if spec.version is not None else delta_version_of(self.spark, table=spec.table)
        else:
            reader = self.spark.read.format(spec.format).options(**options)
            if spec.schema is not None:
                reader = reader.schema(spec.schema)
            frame = reader.load(spec.path)
            if spec.format == "delta":
                version = spec.version if spec.version is not None else delta_version_of(self.spark, path=spec.path)
        return ReadResult(frame, version)

    # --- writing -----------------------------------------------------------
    def _exists(self, spec: IOSpec) -> bool:
        if spec.format == "table":
            return table_exists(self.spark, str(spec.table))
        if spec.format == "jdbc":
            try:  # the table answers a query for its columns
                self.spark.read.format("jdbc").options(**spec.connection).load().schema
            except Exception:  # noqa: BLE001 - no such table (or no way to reach it: the write says why)
                return False
            return True
        from ubunye.spark._compat import hadoop_path_exists, is_connect

        if not is_connect(self.spark):
            return hadoop_path_exists(self.spark, str(spec.path))
        try:  # Spark Connect: no JVM at hand; a path that can be read exists
            self.spark.read.format(spec.format).load(spec.path).schema
        except Exception:  # noqa: BLE001 - any failure to resolve it means there is nothing there
            return False
        return True

    def write(self, frame: Any, spec: IOSpec, *, hash_output: bool = False) -> WriteResult:
        """Check (a frame; the output's mode against what is there), then the write itself,
        top to bottom, in :func:`ubunye.spark.writes.write_output` (stage, write, swap, hash)."""
        what = f"output {spec.name!r}"
        if not self.is_frame(frame):
            raise IOSpecError(f"{what}: expected a Spark DataFrame; got {type(frame).__name__}")
        from ubunye.engine.connectors import jdbc_errors
        from ubunye.engine.outputs import SKIP, write_action
        from ubunye.spark.writes import write_output

        existed = self._exists(spec)
        if write_action(existed, spec.mode, what, spec.location) == SKIP:
            return WriteResult(written=False)
        with jdbc_errors(spec) if spec.format == "jdbc" else nullcontext():
            done = write_output(self.spark, frame, spec, self._observer, existed=existed,
                                hash_output=hash_output, engine=self.hash_engine)
        return WriteResult(True, *done)

    # --- hashing -----------------------------------------------------------
    def _can_observe(self) -> bool:
        """The native engine runs here (the session's facts and the one engine choice): the
        hash is taken in the same pass as the write or the input's checks."""
        from ubunye.spark.facts import NATIVE, choose, facts

        return choose(facts(self.spark), self.hash_engine, strict=False).engine == NATIVE

    def fingerprint(self, frame: Any) -> Any:
        """The frame's hash; a frame that reads a partitioned table or ``key=value`` folders
        (files, Delta, catalog tables: Spark's plan says) also records the sums of each partition."""
        from ubunye.spark._compat import read_partition_columns

        return self._fingerprint(frame, read_partition_columns(frame))

    def _fingerprint(self, frame: Any, partition_by: Optional[Sequence[str]]) -> Any:
        """The fingerprint; with ``partition_by`` the sums of each folder's rows too."""
        from ubunye.spark.written_hash import hashed

        return hashed(frame, partition_by, self.hash_engine)

    def check_and_fingerprint(self, frame: Any, rules: Sequence[Rule], *, hash_frame: bool) -> tuple[list[Outcome], Any]:
        """An input's checks and its hash in one scan (the native sums and sketch beside the rule counts)."""
        if not (rules and hash_frame and self._can_observe()):
            return super().check_and_fingerprint(frame, rules, hash_frame=hash_frame)
        from ubunye.spark._compat import read_partition_columns

        if read_partition_columns(frame):  # the rule counts' aggregate has no keys: the sums of
            return super().check_and_fingerprint(frame, rules, hash_frame=hash_frame)  # each partition in a pass of their own
        from ubunye.engine.checks_spark import evaluate_spark_with
        from ubunye.spark import fingerprint_from_sums, rows_v1_sums_column
        from ubunye.spark.native import rows_v1_sketch_column, sketch_available

        try:
            sums_column = (rows_v1_sketch_column if sketch_available(self.spark) else rows_v1_sums_column)(frame)
        except Exception:  # noqa: BLE001 - a type with no canonical text: hash alone says why
            return super().check_and_fingerprint(frame, rules, hash_frame=hash_frame)
        outcomes, (sums,) = evaluate_spark_with(frame, rules, [sums_column])
        return outcomes, fingerprint_from_sums(frame.schema, sums)

    def observe_input(self, frame: Any, name: str) -> tuple[Any, Any]:
        """The input with the native sums observed on it: the write that reads it hashes it."""
        if not self._can_observe():
            return frame, None
        from ubunye.spark._compat import read_partition_columns

        columns = read_partition_columns(frame)  # a partitioned input's sums per partition too
        observation, observed, _ = self._observer.attach(frame, f"in_{name}", columns)
        return (observed, observation) if observation is not None else (frame, None)

    def observed_input(self, spec: IOSpec, frame: Any, handle: Any, delta_version: Optional[int]) -> Any:
        """The observed sums, kept only when their row count equals the input's own count.

        The run's queries may have read part of an input (a limit, a join that
        skipped a side) or read it twice (a retried stage): the count check
        (from parquet footers, or Delta's log) catches both, and then the
        input is hashed in a pass of its own.
        """
        fp, _ = self._observer.result(handle, frame, spark=self.spark, wait=False)
        if fp is None:
            return None  # no query of the run read this input (or its metrics never came)
        return fp if fp.row_count == self._exact_count(spec, delta_version) else None

    def _exact_count(self, spec: IOSpec, delta_version: Optional[int]) -> int:
        """The input's own row count: parquet footers for local files (classic sessions:
        a Connect server reads its own disks), else Spark's count (Delta answers it from its log)."""
        from ubunye.spark._compat import is_connect

        if spec.format == "parquet" and not spec.options and spec.path is not None and not is_connect(self.spark):
            from ubunye.engine.snapshots import parquet_row_count

            counted = parquet_row_count(spec.path)
            if counted is not None:
                return counted
        pinned = replace(spec, version=delta_version) if delta_version is not None else spec
        return int(self.read(pinned).frame.count())

    def input_hash_pass(self) -> str:
        return SECOND_PASS

    # --- port --------------------------------------------------------------
    def port(self, frame: Any) -> FramePort:
        return SparkFramePort(frame)

    def from_arrow(self, table: Any) -> Any:
        from ubunye.spark._compat import frame_from_arrow

        return frame_from_arrow(self.spark, table)

    def is_frame(self, obj: Any) -> bool:
        from ubunye.spark._compat import is_spark_dataframe

        return is_spark_dataframe(obj)

    def check(self, frame: Any, rules: Sequence[Rule]) -> list[Outcome]:
        from ubunye.engine.checks_spark import evaluate_spark

        return evaluate_spark(frame, rules)

