"""The conformance test every backend passes: a pytest base class.

Subclass it in a test module and provide a ``backend`` fixture returning an
:class:`ubunye.engine.backends.Backend`::

    from ubunye.testing.backend_conformance import BackendConformance

    class TestMyBackend(BackendConformance):
        @pytest.fixture
        def backend(self):
            return MyBackend()

It checks that the backend reads the spec's reference CSV (rows-v1 section 6)
to the spec's reference digest, round-trips parquet, csv and json without
changing a row's hash, honours the four write modes, and shows its frames
through the port (``schema``, ``count()``, ``collect()``).
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from ubunye.engine.config import IOSpec
from ubunye.testing.fixtures import REFERENCE_CSV

REFERENCE_KINDS = {
    "id": "int32",
    "name": "string",
    "score": "float64",
    "passed": "bool",
    "day": "date",
    "seen": "timestamp",
}
REFERENCE_SCHEMA_HASH = "sha256:fda33811c26094a8e54d5f9498523bcf89a0683e74c18dbfde0343d387ad3875"
REFERENCE_DATA_HASH = "sha256:05d3777fa1c396a7572f50f7a24db2dbe0f9e974c18ac7abd3308019d6371125"
MODES = ("overwrite", "append", "ignore", "errorifexists")


def json_safe_table() -> Any:
    """A table whose types survive JSON lines on every backend (Spark infers
    bigint, double, boolean, string; arrays; structs with sorted fields)."""
    import pyarrow as pa

    return pa.table(
        {
            "id": pa.array([1, 2, 3, 4], pa.int64()),
            "text": pa.array(['say "hi"\\', "tab\there\nnewline", "Zoë 😀 \u2028", None], pa.string()),
            "amount": pa.array([0.1, -2.5e-7, 1e23, None], pa.float64()),
            "ok": pa.array([True, None, False, True], pa.bool_()),
            "tags": pa.array([["a", "b"], [], None, ["c"]], pa.list_(pa.string())),
            "where": pa.array(
                [{"city": "Durban", "zip": 4001}, None, {"city": None, "zip": 2000}, {"city": "Soweto", "zip": None}],
                pa.struct([("city", pa.string()), ("zip", pa.int64())]),
            ),
        }
    )


def numbers_table(start: int, rows: int) -> Any:
    import pyarrow as pa

    return pa.table({"n": pa.array(range(start, start + rows), pa.int64())})


class BackendConformance:
    """Tests any backend must pass. Subclasses provide the ``backend`` fixture."""

    @pytest.fixture
    def backend(self) -> Any:  # pragma: no cover - always overridden
        raise NotImplementedError("a BackendConformance subclass must provide a `backend` fixture")

    # --- helpers ---------------------------------------------------------------
    @staticmethod
    def spec(name: str, fmt: str, path: Path, direction: str = "input", mode: str = "overwrite", **options: Any) -> IOSpec:
        return IOSpec(name=name, direction=direction, format=fmt, path=str(path), mode=mode, options=options)

    def read_reference(self, backend: Any, tmp_path: Path) -> Any:
        src = tmp_path / "reference.csv"
        src.write_text(REFERENCE_CSV, encoding="utf-8")
        return backend.read(self.spec("reference", "csv", src)).frame

    def round_trip(self, backend: Any, frame: Any, fmt: str, tmp_path: Path) -> Any:
        target = tmp_path / f"round_trip_{fmt}"
        result = backend.write(frame, self.spec("out", fmt, target, direction="output"))
        assert result.written
        return backend.read(self.spec("back", fmt, target)).frame

    @staticmethod
    def digest(backend: Any, frame: Any) -> tuple[Any, Any, Any]:
        fp = backend.fingerprint(frame)
        assert fp.error is None, fp.error
        return fp.row_count, fp.schema_hash, fp.data_hash

    # --- reading the spec's table ------------------------------------------------
    def test_reads_reference_csv_to_reference_digest(self, backend: Any, tmp_path: Path) -> None:
        frame = self.read_reference(backend, tmp_path)
        assert self.digest(backend, frame) == (3, REFERENCE_SCHEMA_HASH, REFERENCE_DATA_HASH)

    def test_port_shows_schema_count_and_rows(self, backend: Any, tmp_path: Path) -> None:
        frame = self.read_reference(backend, tmp_path)
        port = backend.port(frame)
        assert dict(port.schema) == REFERENCE_KINDS
        assert port.count() == 3
        rows = sorted(port.collect(), key=lambda r: r["id"])
        assert [r["id"] for r in rows] == [1, 2, 3]
        assert rows[1]["name"] == '"Anna ""Annie"" Dlamini"'
        assert rows[1]["score"] is None and rows[2]["passed"] is None
        assert math.isclose(rows[0]["score"], 71.5)

    # --- round trips ------------------------------------------------------------
    @pytest.mark.parametrize("fmt", ["parquet", "csv"])
    def test_round_trip_keeps_reference_digest(self, backend: Any, tmp_path: Path, fmt: str) -> None:
        frame = self.read_reference(backend, tmp_path)
        back = self.round_trip(backend, frame, fmt, tmp_path)
        assert self.digest(backend, back) == (3, REFERENCE_SCHEMA_HASH, REFERENCE_DATA_HASH)

    @pytest.mark.parametrize("fmt", ["parquet", "json"])
    def test_round_trip_keeps_nested_and_awkward_text(self, backend: Any, tmp_path: Path, fmt: str) -> None:
        frame = backend.from_arrow(json_safe_table())
        before = self.digest(backend, frame)
        back = self.round_trip(backend, frame, fmt, tmp_path)
        assert self.digest(backend, back) == before

    # --- write modes ------------------------------------------------------------
    def _write(self, backend: Any, rows: tuple[int, int], target: Path, mode: str) -> Any:
        frame = backend.from_arrow(numbers_table(*rows))
        return backend.write(frame, self.spec("out", "parquet", target, direction="output", mode=mode))

    def _numbers(self, backend: Any, target: Path) -> list[int]:
        port = backend.port(backend.read(self.spec("back", "parquet", target)).frame)
        return sorted(r["n"] for r in port.collect())

    def test_mode_overwrite_replaces(self, backend: Any, tmp_path: Path) -> None:
        target = tmp_path / "t"
        self._write(backend, (0, 3), target, "overwrite")
        self._write(backend, (10, 2), target, "overwrite")
        assert self._numbers(backend, target) == [10, 11]

    def test_mode_append_adds(self, backend: Any, tmp_path: Path) -> None:
        target = tmp_path / "t"
        self._write(backend, (0, 3), target, "append")
        self._write(backend, (10, 2), target, "append")
        assert self._numbers(backend, target) == [0, 1, 2, 10, 11]

    def test_mode_ignore_keeps_existing(self, backend: Any, tmp_path: Path) -> None:
        target = tmp_path / "t"
        assert self._write(backend, (0, 3), target, "ignore").written
        assert not self._write(backend, (10, 2), target, "ignore").written
        assert self._numbers(backend, target) == [0, 1, 2]

    def test_mode_errorifexists_refuses(self, backend: Any, tmp_path: Path) -> None:
        from ubunye.engine.errors import IOSpecError

        target = tmp_path / "t"
        self._write(backend, (0, 3), target, "errorifexists")
        with pytest.raises(IOSpecError, match="already exists"):
            self._write(backend, (10, 2), target, "errorifexists")
        assert self._numbers(backend, target) == [0, 1, 2]
