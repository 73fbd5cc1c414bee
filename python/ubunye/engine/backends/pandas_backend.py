"""The pandas backend: Arrow-backed pandas frames, read and written as Spark lays files out.

Frames hold ``pd.ArrowDtype`` columns, so a null and a NaN stay distinct (a
numpy float column would turn both into NaN) and nested types keep their
shape. Files are read and written by ``ubunye.io`` (Spark-compatible CSV and
JSON lines; parquet through pyarrow), one part file per write, in folders laid
out as Spark lays them out.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

from ubunye.engine.backends import files
from ubunye.engine.backends.base import Backend, FramePort, ReadResult, WriteResult
from ubunye.engine.config import IOSpec
from ubunye.engine.errors import IOSpecError
from ubunye.engine.expectations import Outcome, Rule


class ArrowTablePort:
    """A pyarrow Table seen through the frame port."""

    def __init__(self, table: Any) -> None:
        self._table = table

    @property
    def schema(self) -> Mapping[str, str]:
        from ubunye.hashing.arrow import arrow_kinds

        return dict(arrow_kinds(self._table.schema))

    def count(self) -> int:
        return int(self._table.num_rows)

    def collect(self) -> list[dict[str, Any]]:
        return list(self._table.to_pylist())


# Writer options the pandas backend follows: Spark's defaults, which ubunye.io writes.
_WRITE_DEFAULTS = {"csv": {"header": "true"}, "json": {}, "parquet": {}}


def check_write_options(spec: IOSpec) -> None:
    """Refuse writer options that ``ubunye.io`` does not follow (it writes as Spark's defaults)."""
    defaults = _WRITE_DEFAULTS.get(spec.format, {})
    for key, value in spec.options.items():
        if defaults.get(str(key).lower()) != str(value).lower():
            raise IOSpecError(
                f"{spec.direction} {spec.name!r}: option {key}={value!r} is not supported on the pandas "
                f"backend (it writes {spec.format} with Spark's default options)"
            )


def reader_settings(spec: IOSpec) -> tuple[dict[str, str], Any]:
    """The options and schema (a ``pyarrow.Schema`` or None) ``ubunye.io`` reads ``spec`` with:
    the same options Spark's reader gets (:meth:`IOSpec.reader_options`). An option the
    reader does not follow, or a schema it cannot read, is refused naming the input."""
    from ubunye.io import csv, jsonl, parquet
    from ubunye.io.ddl import as_schema
    from ubunye.io.options import UnsupportedOption, check

    what = f"input {spec.name!r}"
    options = spec.reader_options()
    followed = {"csv": csv.OPTIONS, "json": jsonl.OPTIONS, "parquet": parquet.OPTIONS}[spec.format]
    try:
        check(spec.format, options, followed)
    except UnsupportedOption as exc:
        raise IOSpecError(f"{what}: {' '.join(str(exc).split())}") from None
    try:
        schema = as_schema(spec.schema)
    except ValueError as exc:
        raise IOSpecError(f"{what}: schema {spec.schema!r}: {' '.join(str(exc).split())}") from None
    return options, schema


def read_arrow(path: Path, fmt: str, what: str, options: Optional[Mapping[str, str]] = None,
               schema: Any = None) -> Any:
    """Read a file or a folder of part files into one pyarrow Table, as Spark reads it."""
    from ubunye.io import UnreadablePath, read_arrow as io_read_arrow
    from ubunye.io.names import DuplicateColumns

    try:
        return io_read_arrow(path, fmt, options=options, schema=schema)
    except UnreadablePath as exc:
        if isinstance(exc.__cause__, DuplicateColumns):  # the line the Spark backend gives too
            raise IOSpecError(f"{what}: {exc.__cause__}") from exc
        raise IOSpecError(f"{what}: {' '.join(str(exc).split())}") from exc


def write_arrow(table: Any, path: Path, fmt: str) -> None:
    """Write one pyarrow Table as one part file, as Spark writes it."""
    from ubunye.io import write_table

    write_table(table, path, fmt)


def to_arrow(df: Any) -> Any:
    """A pandas frame as a pyarrow Table (index dropped unless named)."""
    from ubunye.hashing.frames import pandas_to_arrow

    return pandas_to_arrow(df)


def arrow_to_pandas(table: Any) -> Any:
    """An Arrow-backed pandas frame holding ``table``."""
    import pandas as pd

    return table.to_pandas(types_mapper=pd.ArrowDtype)


def partitioned_fingerprint(frame: Any, columns: list[str]) -> Any:
    """The fingerprint of ``frame`` with the per-partition sums of ``columns`` taken in the
    same pass (docs/spec/rows-v1-localise.md section 7); when the partition keys cannot be
    named, the plain fingerprint (no sums)."""
    from functools import partial

    from ubunye.hashing import fingerprint
    from ubunye.hashing.fingerprint import fingerprint_partitioned
    from ubunye.io.partition_write import partition_keys

    fp = fingerprint_partitioned(frame, columns, partial(partition_keys, columns=columns))
    return fp if fp.data_hash is not None else fingerprint(frame)


TEXT_FORMATS = ("csv", "json")  # values stored as text: hashed from the files, not the frame


def written_text(stage: Path, frame: Any, spec: IOSpec) -> WriteResult:
    """The result of a csv or json write, hashed from the files it created (the staging folder,
    before they are put in place; partition values from its ``key=value`` folders), read with the
    settings the step records for ``lineage verify`` (:meth:`IOSpec.read_back_options`, the
    written schema as Spark DDL): the same reading the Spark backend does
    (:func:`ubunye.spark.stored.new_files_frame`). A file that cannot be read
    back so gets no hash, and the step says why."""
    from ubunye.hashing.fingerprint import Fingerprint
    from ubunye.io.ddl import as_schema, to_ddl

    started = time.perf_counter()
    options = spec.read_back_options()
    try:
        ddl = to_ddl(to_arrow(frame).schema)
        if files.has_data(stage):
            table = read_arrow(stage, spec.format, f"output {spec.name!r}", options, ddl)
        else:  # nothing written (an empty partitioned frame): no rows, the written schema
            table = as_schema(ddl).empty_table()
        written = arrow_to_pandas(table)
        if spec.partition_by:
            fp = partitioned_fingerprint(written, list(spec.partition_by))
        else:
            from ubunye.hashing import fingerprint

            fp = fingerprint(written)
    except Exception as exc:  # noqa: BLE001 - recorded: text the written schema cannot take
        fp = Fingerprint(None, None, None, engine="", error=(
            f"not hashed: the written {spec.format} files cannot be read back with the written schema: "
            f"{' '.join(str(exc).split())}"))
    seconds = time.perf_counter() - started
    if fp.data_hash is None:
        return WriteResult(written=True, fingerprint=fp, hash_pass="second-pass", hash_seconds=seconds)
    return WriteResult(written=True, fingerprint=fp, hash_pass="second-pass", hash_seconds=seconds,
                       read_options=options, read_schema=ddl)


def pyarrow_refusal() -> Optional[str]:
    """One line when this Python's pyarrow is too old for this backend (it reads, writes and
    hashes through Arrow); else None."""
    from ubunye.hashing.arrow_types import pyarrow_too_old

    return pyarrow_too_old("the pandas backend", "run the task on Spark with the plugin jar "
                           "(--backend spark; on Databricks: ubunye spark init-script), or ")


class PandasBackend(Backend):
    """Reads and writes local parquet, csv and json with Arrow-backed pandas frames."""

    name = "pandas"
    formats = ("parquet", "csv", "json")

    def __init__(self, time_zone: Optional[str] = None) -> None:
        # ubunye.io reads CSV timestamps without an offset as UTC wall time,
        # as Spark does in a UTC session: that is this backend's time zone.
        del time_zone
        self.time_zone = "UTC"
        self._partitioned = files.PartitionedFrames()  # for the per-partition sums of inputs

    def check_spec(self, spec: IOSpec) -> None:
        if spec.format == "jdbc":
            raise IOSpecError(f"{spec.direction} {spec.name!r}: format 'jdbc' needs the Spark backend "
                              "(--backend spark); the pandas backend reads and writes files only")
        super().check_spec(spec)
        if spec.direction == "input":
            reader_settings(spec)
        else:
            check_write_options(spec)

    def read(self, spec: IOSpec) -> ReadResult:
        what = f"input {spec.name!r}"
        options, schema = reader_settings(spec)
        path = files.local_path(spec.path, what)
        table = read_arrow(path, spec.format, what, options, schema)
        frame = arrow_to_pandas(table)
        self._partitioned.note(frame, str(path), options)
        return ReadResult(frame)

    def write(self, frame: Any, spec: IOSpec, *, hash_output: bool = False) -> WriteResult:
        what = f"output {spec.name!r}"
        if not self.is_frame(frame):
            raise IOSpecError(f"{what}: expected a pandas DataFrame; got {type(frame).__name__}")
        path = files.local_path(spec.path, what)
        if spec.partition_by:  # refused before anything already there is replaced
            from ubunye.io.partition_write import PartitionWriteError, partition_columns

            try:
                partition_columns(to_arrow(frame).schema, spec.partition_by)
            except PartitionWriteError as exc:
                raise IOSpecError(f"{what}: {exc}") from exc
        with files.staged_output(path, spec.mode, what) as stage:  # the old data stays until the new is whole
            if stage is None:
                return WriteResult(written=False)
            if spec.partition_by:  # folders and values as Spark's partitionBy lays them out
                from ubunye.io.partition_write import write_partitioned

                write_partitioned(to_arrow(frame), stage, spec.partition_by,
                                  lambda part, sub: write_arrow(part, files.new_part(sub, spec.format), spec.format))
            else:
                write_arrow(to_arrow(frame), files.new_part(stage, spec.format), spec.format)
            if hash_output and spec.format in TEXT_FORMATS:  # the staged files: exactly this write's
                return written_text(stage, frame, spec)
        if hash_output and spec.partition_by:  # with the sums of each partition folder written
            started = time.perf_counter()
            fp = partitioned_fingerprint(frame, list(spec.partition_by))
            return WriteResult(written=True, fingerprint=fp, hash_pass="materialised",
                               hash_seconds=time.perf_counter() - started)
        return WriteResult(written=True)

    def fingerprint(self, frame: Any) -> Any:
        from ubunye.hashing import fingerprint

        columns = self._partitioned.columns(frame)
        return partitioned_fingerprint(frame, columns) if columns else fingerprint(frame)

    def port(self, frame: Any) -> FramePort:
        return ArrowTablePort(to_arrow(frame))

    def from_arrow(self, table: Any) -> Any:
        return arrow_to_pandas(table)

    def is_frame(self, obj: Any) -> bool:
        import pandas as pd

        return isinstance(obj, pd.DataFrame)

    def check(self, frame: Any, rules: Sequence[Rule]) -> list[Outcome]:
        from ubunye.engine.checks_pandas import evaluate_pandas

        return evaluate_pandas(frame, rules)
