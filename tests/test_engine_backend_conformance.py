"""The backend conformance suite on the pandas backend and on a small pure-Python backend."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

import pytest

from ubunye.engine.backends import files
from ubunye.engine.backends.base import Backend, FramePort, ReadResult, WriteResult
from ubunye.engine.backends.pandas_backend import PandasBackend
from ubunye.engine.config import IOSpec
from ubunye.engine.expectations import Outcome, Rule
from ubunye.testing.backend_conformance import BackendConformance


class TestPandasBackend(BackendConformance):
    @pytest.fixture
    def backend(self) -> Backend:
        return PandasBackend()


class RowsFrame:
    """A frame of Python rows: exactly the port, nothing more (plus the Arrow schema to write it)."""

    def __init__(self, rows: list[dict[str, Any]], arrow_schema: Any) -> None:
        from ubunye.hashing.arrow import arrow_kinds

        self._rows = rows
        self.arrow_schema = arrow_schema
        self.schema: Mapping[str, str] = dict(arrow_kinds(arrow_schema))

    def count(self) -> int:
        return len(self._rows)

    def collect(self) -> list[dict[str, Any]]:
        return [dict(r) for r in self._rows]


class RowsBackend(Backend):
    """A third backend: rows as dicts, hashed by the port path (row by row)."""

    name = "rows"
    formats = ("parquet", "csv", "json")

    def read(self, spec: IOSpec) -> ReadResult:
        from ubunye.io import read_arrow

        return ReadResult(self.from_arrow(read_arrow(files.local_path(spec.path, spec.name), spec.format)))

    def write(self, frame: Any, spec: IOSpec, *, hash_output: bool = False) -> WriteResult:
        import pyarrow as pa

        from ubunye.io import write_table

        path = files.local_path(spec.path, spec.name)
        with files.staged_output(path, spec.mode, f"output {spec.name!r}") as stage:
            if stage is None:
                return WriteResult(written=False)
            table = pa.Table.from_pylist(frame.collect(), schema=frame.arrow_schema)
            write_table(table, files.new_part(stage, spec.format), spec.format)
        return WriteResult(written=True)

    def fingerprint(self, frame: Any) -> Any:
        from ubunye.hashing import fingerprint

        return fingerprint(frame)  # a port object: the row-by-row path

    def port(self, frame: Any) -> FramePort:
        return frame

    def from_arrow(self, table: Any) -> Any:
        return RowsFrame(table.to_pylist(), table.schema)

    def is_frame(self, obj: Any) -> bool:
        return isinstance(obj, RowsFrame)

    def check(self, frame: Any, rules: Sequence[Rule]) -> list[Outcome]:
        import pyarrow as pa

        from ubunye.engine.checks_pandas import evaluate_pandas
        from ubunye.engine.backends.pandas_backend import arrow_to_pandas

        table = pa.Table.from_pylist(frame.collect(), schema=frame.arrow_schema)
        return evaluate_pandas(arrow_to_pandas(table), rules)


    # quarantine and reconcile: through pandas, back to rows
    def _pandas(self, frame: Any) -> Any:
        import pyarrow as pa

        from ubunye.engine.backends.pandas_backend import arrow_to_pandas

        return arrow_to_pandas(pa.Table.from_pylist(frame.collect(), schema=frame.arrow_schema))

    def split_rows(self, frame: Any, rules: Sequence[Rule], column: str) -> tuple[Any, Any]:
        from ubunye.engine.backends.pandas_backend import to_arrow
        from ubunye.engine.checks_pandas import split_pandas

        clean, quarantined = split_pandas(self._pandas(frame), rules, column)
        return self.from_arrow(to_arrow(clean)), self.from_arrow(to_arrow(quarantined))

    def measure_rows(self, frame: Any, columns: Sequence[str]) -> tuple[int, dict[str, Any]]:
        from ubunye.engine.checks_pandas import measure_pandas

        return measure_pandas(self._pandas(frame), columns)


class TestRowsBackend(BackendConformance):
    @pytest.fixture
    def backend(self) -> Backend:
        return RowsBackend()


def test_rows_backend_hashes_through_the_port_path(tmp_path: Path) -> None:
    import pyarrow as pa

    frame = RowsBackend().from_arrow(pa.table({"x": [1, 2]}))
    fp = RowsBackend().fingerprint(frame)
    assert fp.engine == "rows" and fp.row_count == 2
    assert isinstance(frame, FramePort)


def test_pandas_backend_refuses_options_it_cannot_follow() -> None:
    from ubunye.engine.errors import IOSpecError

    spec = IOSpec(name="people", direction="input", format="csv", path="/x", options={"noSuchOption": ";"})
    with pytest.raises(IOSpecError, match="input 'people': option 'nosuchoption' is not followed by the pandas "
                                          "reader of csv"):
        PandasBackend().check_spec(spec)
    PandasBackend().check_spec(IOSpec(name="p", direction="input", format="csv", path="/x",
                                      options={"header": True, "inferSchema": "true"}))
