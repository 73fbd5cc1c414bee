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

import time
import warnings
from dataclasses import replace
from typing import Any, Mapping, Optional, Sequence

from ubunye.engine.backends.base import Backend, FramePort, ReadResult, WriteResult
from ubunye.engine.backends.spark_session import delta_version_of, get_session, table_exists
from ubunye.engine.backends.spark_stored import (TEXT_WRITERS, listed_files, new_files_frame, read_back,
                                                 stored_differently)
from ubunye.engine.config import IOSpec, _spark_value
from ubunye.engine.errors import IOSpecError
from ubunye.engine.expectations import Outcome, Rule

SAME_PASS = "same-pass"
SECOND_PASS = "second-pass"
OL_LISTENER = "io.openlineage.spark.agent.OpenLineageSparkListener"


class RoundTripWarning(UserWarning):
    """A json output's round-trip hash (sent in the OpenLineage listener's event) was not the hash
    of its files as read back: the round trip's premise failed for that write."""
# Formats whose files hold exactly the frame's schema and rows: a second pass may read them back
# (csv and json are read back too, with the written schema: spark_stored.new_files_frame).
_LOSSLESS = ("parquet", "delta", "table")


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
        what = f"output {spec.name!r}"
        if not self.is_frame(frame):
            raise IOSpecError(f"{what}: expected a Spark DataFrame; got {type(frame).__name__}")
        from ubunye.engine.outputs import SKIP, write_action

        existed = self._exists(spec)
        if write_action(existed, spec.mode, what, spec.location) == SKIP:
            return WriteResult(written=False)
        observation, hash_error = (None, None)
        # a session setting that makes the files hold other values: hash the files, not the frame
        stored = stored_differently(self.spark, frame, spec) if hash_output else None
        before = self._listed_before(spec) if hash_output and spec.format in TEXT_WRITERS else None
        if hash_output and stored is None and self._can_observe():
            observation, frame_to_write, hash_error = self._observer.attach(frame, spec.name, spec.partition_by)
        elif hash_output and self._round_trips(spec):  # the json files' hash in the write, for the listener
            observation, frame_to_write, _ = self._observer.attach(frame, spec.name, json=(
                {str(k): _spark_value(v) for k, v in spec.options.items()}, spec.read_back_options()))
        else:
            frame_to_write = frame
        try:
            if spec.format == "jdbc":
                from ubunye.engine.connectors import jdbc_errors

                with jdbc_errors(spec):
                    self._save(frame_to_write, spec)
            else:
                self._save(frame_to_write, spec)
        except BaseException as exc:
            if observation is not None:  # nothing will read it
                self._observer.discard(observation, self.spark)
            if not existed and isinstance(exc, Exception):
                self._remove_new(spec)
            raise
        self._observer.after_write(frame_to_write)
        version = self._written_version(spec)  # the data's version (a comment below may add one)
        self._describe_table(spec)
        if not hash_output:
            return WriteResult(written=True, delta_version=version)
        fp = None
        trip = None
        if observation is not None and stored is not None:  # a json round trip: checked on the files below
            trip = self._round_trip_hash(observation, frame)
            observation = None
        if observation is not None:
            started = time.perf_counter()
            fp, hash_error = self._observer.result(observation, frame, spark=self.spark)
            seconds = time.perf_counter() - started
            if fp is not None:
                return WriteResult(True, version, fp, SAME_PASS, round(seconds, 6))
        started = time.perf_counter()
        fp = self._second_pass(frame, spec, version, stored, before)
        if hash_error and fp.error is None and fp.data_hash is None:
            fp = _with_error(fp, hash_error)
        seconds = round(time.perf_counter() - started, 6)
        if trip is not None and trip != fp.data_hash:
            warnings.warn(f"output {spec.name!r}: the json round trip's hash {trip} (in the OpenLineage listener's "
                          f"event) is not the written files' hash {fp.data_hash}", RoundTripWarning, stacklevel=2)
        if spec.format in TEXT_WRITERS and fp.data_hash is not None:  # the step records how it was read back
            options, ddl = read_back(frame, spec)
            return WriteResult(True, version, fp, SECOND_PASS, seconds, read_options=options, read_schema=ddl)
        return WriteResult(True, version, fp, SECOND_PASS, seconds)

    def _save(self, frame: Any, spec: IOSpec, path: Optional[str] = None) -> None:
        if path is None and self._swaps(spec):
            return self._save_beside(frame, spec)
        options = {str(k): v for k, v in spec.options.items()}
        using = options.pop("using", None) if spec.format == "table" else None
        writer = frame.write.mode(spec.mode).options(**options)
        if using is not None:  # the table's provider (delta, parquet ...); else spark.sql.sources.default
            writer = writer.format(str(using))
        if spec.partition_by:
            writer = writer.partitionBy(*spec.partition_by)
        if spec.format == "csv" and "header" not in spec.options:
            writer = writer.option("header", True)
        if spec.format == "table":
            writer.saveAsTable(spec.table)
        elif spec.format == "jdbc":
            writer.format("jdbc").options(**spec.connection).save()
        else:
            writer.format(spec.format).save(path or spec.path)

    def _swaps(self, spec: IOSpec) -> bool:
        """An overwrite of an existing file folder (parquet, csv, json) on a local or HDFS file
        system, replacing every partition: written beside it and swapped in (Delta and tables
        keep their old version in the log; object stores have no atomic folder rename)."""
        from ubunye.spark._compat import is_connect

        if spec.mode != "overwrite" or spec.format not in ("parquet", "csv", "json") or is_connect(self.spark):
            return False
        dynamic = {str(k).lower(): str(v).lower() for k, v in spec.options.items()}.get("partitionoverwritemode")
        dynamic = dynamic or str(self.spark.conf.get("spark.sql.sources.partitionOverwriteMode", "static")).lower()
        if spec.partition_by and dynamic == "dynamic":
            return False  # only the partitions written are replaced: the others stay
        from ubunye.spark.hadoop_folder import HadoopFolder

        folder = HadoopFolder(self.spark, str(spec.path))
        return folder.scheme in ("file", "hdfs") and folder.exists(folder.path)

    def _save_beside(self, frame: Any, spec: IOSpec) -> None:
        """Write into a hidden sibling, then rename the old folder aside, the new one in, and
        delete the old one: a write that fails half way leaves the old folder as it was."""
        import uuid

        from ubunye.spark.hadoop_folder import HadoopFolder

        folder = HadoopFolder(self.spark, str(spec.path))
        tag = uuid.uuid4().hex[:12]
        stage, old = folder.sibling(f"new-{tag}"), folder.sibling(f"old-{tag}")
        try:
            self._save(frame, spec, path=stage.toString())
        except BaseException:
            folder.delete(stage)
            raise
        folder.rename(folder.path, old)
        try:
            folder.rename(stage, folder.path)
        except BaseException:
            folder.rename(old, folder.path)
            folder.delete(stage)
            raise
        folder.delete(old)

    def _remove_new(self, spec: IOSpec) -> None:
        """After a failed write, delete the folder it made where there was none (Spark's job makes
        it first and leaves it, empty or with a failed Delta commit's files: a next run found data
        there, ``mode: ignore`` skipped its write). Paths on classic sessions; tables are the catalog's."""
        from ubunye.spark._compat import is_connect

        if spec.format not in ("table", "jdbc") and spec.path is not None and not is_connect(self.spark):
            from ubunye.spark.hadoop_folder import remove_quietly

            remove_quietly(self.spark, str(spec.path))

    def _describe_table(self, spec: IOSpec) -> None:
        """A table output's comment and properties (0.8.0's unity writer set them after writing)."""
        def literal(text: str) -> str:
            return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"

        if spec.table_comment is not None:
            self.spark.sql(f"COMMENT ON TABLE {spec.table} IS {literal(spec.table_comment)}")
        if spec.table_properties:
            props = ", ".join(f"{literal(k)} = {literal(v)}" for k, v in spec.table_properties.items())
            self.spark.sql(f"ALTER TABLE {spec.table} SET TBLPROPERTIES ({props})")

    def _written_version(self, spec: IOSpec) -> Optional[int]:
        if spec.format == "delta":
            return delta_version_of(self.spark, path=spec.path)
        if spec.format == "table":
            return delta_version_of(self.spark, table=spec.table)
        return None

    # --- hashing -----------------------------------------------------------
    def _can_observe(self) -> bool:
        """The native engine runs here (the session's facts and the one engine choice): the
        hash is taken in the same pass as the write or the input's checks."""
        from ubunye.spark.facts import NATIVE, choose, facts

        return choose(facts(self.spark), self.hash_engine, strict=False).engine == NATIVE

    def _round_trips(self, spec: IOSpec) -> bool:
        """A json output (not partitioned: its partition values are folder names, not lines) on a
        session running the OpenLineage Spark listener, with the plugin's planner node: its rows
        are hashed in the write after a round trip through Spark's json writer and reader, so the
        listener's event for the write carries the files' hash. Elsewhere no one reads that hash
        before the files are read back, so no write pays for it."""
        if spec.format != "json" or spec.partition_by or not self._can_observe():
            return False
        try:
            listeners = str(self.spark.conf.get("spark.extraListeners", "") or "")
        except Exception:  # noqa: BLE001 - a session that cannot say runs no listener we know of
            return False
        return OL_LISTENER in listeners

    def _round_trip_hash(self, observation: Any, frame: Any) -> Optional[str]:
        """The data hash the json round trip gave (what the listener's event carries), or None
        when a row's round trip failed (the event then carries none)."""
        from ubunye.spark import observations

        try:
            broken = observations.broken(self.spark, observation.name)
        except Exception:  # noqa: BLE001 - read below; an unreadable node gives no hash
            broken = True
        fp, _ = self._observer.result(observation, frame, spark=self.spark)
        return None if broken or fp is None else fp.data_hash

    def _listed_before(self, spec: IOSpec) -> Optional[frozenset[str]]:
        """The files at a csv or json output's location before its write (None: not listable; the
        step then records no hash, and why)."""
        try:
            return listed_files(self.spark, str(spec.path))
        except Exception:  # noqa: BLE001 - said on the step: its new files cannot be told apart
            return None

    def _second_pass(self, frame: Any, spec: IOSpec, version: Optional[int], stored: Optional[str] = None,
                     before: Optional[frozenset[str]] = None) -> Any:
        """Hash again: csv and json from the files this write created (``before``: the files there
        before it); the written data for lossless formats written whole; else the frame. Where
        the files hold other values than the frame (``stored``) and cannot be read back, no hash."""
        readback = spec.format in _LOSSLESS and spec.written_whole
        from ubunye.hashing.fingerprint import Fingerprint

        if spec.format in TEXT_WRITERS:  # as lineage verify reads them: read_back's settings
            from ubunye.spark.fingerprint import spark_error

            if before is None:
                return Fingerprint(None, None, None, engine="", error=(
                    f"not hashed: the {spec.format} files this write created cannot be told apart (the output "
                    "location could not be listed before the write)"))
            try:
                return self._fingerprint(new_files_frame(self.spark, frame, spec, before), spec.partition_by)
            except Exception as exc:  # noqa: BLE001 - recorded: text the written schema cannot take
                return Fingerprint(None, None, None, engine="", error=(
                    f"not hashed: the written {spec.format} files cannot be read back with the written schema: "
                    f"{spark_error(exc)}"))
        if stored is not None and not readback:
            return Fingerprint(None, None, None, engine="", error=(
                f"not hashed: the files hold other values than the frame ({stored}), and a write with mode "
                f"{spec.mode}{' and partition_by' if spec.partition_by else ''} cannot be read back alone"))
        if readback:
            options: dict[str, Any] = {}
            if version is not None:
                options["versionAsOf"] = version
            if spec.format == "table":
                target = self.spark.read.options(**options).table(spec.table)
            else:
                target = self.spark.read.format(spec.format).options(**options).load(spec.path)
            return self._fingerprint(target, spec.partition_by)  # the folders it wrote: their sums too
        return self._fingerprint(frame, spec.partition_by)

    def fingerprint(self, frame: Any) -> Any:
        """The frame's hash; a frame that reads a partitioned table or ``key=value`` folders
        (files, Delta, catalog tables: Spark's plan says) also records the sums of each partition."""
        from ubunye.spark._compat import read_partition_columns

        return self._fingerprint(frame, read_partition_columns(frame))

    def _fingerprint(self, frame: Any, partition_by: Optional[Sequence[str]]) -> Any:
        """The fingerprint; with ``partition_by`` the fallback engine also sums each folder's rows."""
        from ubunye.spark import fingerprint_spark

        return fingerprint_spark(frame, engine=self.hash_engine, partition_by=partition_by or None)

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


def _with_error(fp: Any, error: str) -> Any:
    return replace(fp, error=error)
