"""The pandas backend: Arrow-backed pandas frames, read and written as Spark lays files out.

Frames hold ``pd.ArrowDtype`` columns, so a null and a NaN stay distinct (a
numpy float column would turn both into NaN) and nested types keep their
shape. Files are read and written by ``ubunye.io`` (Spark-compatible CSV and
JSON lines; parquet through pyarrow), one part file per write, in folders laid
out as Spark lays them out.
"""
from __future__ import annotations

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


def read_arrow(path: Path, fmt: str, options: Mapping[str, Any], time_zone: Optional[str], what: str) -> Any:
    """Read a file or a folder of part files into one pyarrow Table."""
    import pyarrow as pa

    parts = files.data_files(path, fmt, what)
    tables = [_read_one(p, fmt, options, time_zone) for p in parts]
    if not tables:
        raise IOSpecError(f"{what}: {path} holds no {fmt} files")
    if len(tables) == 1:
        return tables[0]
    return pa.concat_tables(tables, promote_options="permissive")


def _read_one(path: Path, fmt: str, options: Mapping[str, Any], time_zone: Optional[str]) -> Any:
    if fmt == "parquet":
        import pyarrow.parquet as pq

        return pq.read_table(path)
    from ubunye.io import read_table

    return read_table(path, fmt, engine="arrow", options=dict(options), time_zone=time_zone)


def write_arrow(table: Any, path: Path, fmt: str, options: Mapping[str, Any], time_zone: Optional[str]) -> None:
    """Write one pyarrow Table as one part file."""
    if fmt == "parquet":
        import pyarrow.parquet as pq

        pq.write_table(table, path)
        return
    from ubunye.io import write_table

    write_table(table, path, fmt, options=dict(options), time_zone=time_zone)


def to_arrow(df: Any) -> Any:
    """A pandas frame as a pyarrow Table (index dropped unless named)."""
    from ubunye.hashing.frames import pandas_to_arrow

    return pandas_to_arrow(df)


def arrow_to_pandas(table: Any) -> Any:
    """An Arrow-backed pandas frame holding ``table``."""
    import pandas as pd

    return table.to_pandas(types_mapper=pd.ArrowDtype)


class PandasBackend(Backend):
    """Reads and writes local parquet, csv and json with Arrow-backed pandas frames."""

    name = "pandas"
    formats = ("parquet", "csv", "json")

    def __init__(self, time_zone: Optional[str] = None) -> None:
        self.time_zone = time_zone or "UTC"

    def check_spec(self, spec: IOSpec) -> None:
        super().check_spec(spec)
        if spec.partition_by:
            raise IOSpecError(f"output {spec.name!r}: partition_by is supported on the spark backend only")

    def read(self, spec: IOSpec) -> ReadResult:
        what = f"input {spec.name!r}"
        table = read_arrow(files.local_path(spec.path, what), spec.format, spec.options, self.time_zone, what)
        return ReadResult(arrow_to_pandas(table))

    def write(self, frame: Any, spec: IOSpec, *, hash_output: bool = False) -> WriteResult:
        what = f"output {spec.name!r}"
        if not self.is_frame(frame):
            raise IOSpecError(f"{what}: expected a pandas DataFrame; got {type(frame).__name__}")
        path = files.local_path(spec.path, what)
        if not files.prepare_output(path, spec.mode, what):
            return WriteResult(written=False)
        write_arrow(to_arrow(frame), files.new_part(path, spec.format), spec.format, spec.options, self.time_zone)
        files.mark_success(path)
        return WriteResult(written=True)

    def fingerprint(self, frame: Any) -> Any:
        from ubunye.hashing import fingerprint

        return fingerprint(frame)

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
