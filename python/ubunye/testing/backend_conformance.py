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

    # --- quarantine and reconcile (the 0.8.0 expectations form) ------------------
    @staticmethod
    def _guard_rules(quarantine: Any = "rejected", **extra: Any) -> Any:
        from ubunye.engine.expectation_sets import parse_set

        body = {"rules": [{"between": {"column": "score", "min": 0, "max": 100}, "severity": "quarantine"},
                          {"one_of": {"column": "city", "values": ["Durban", "Soweto"]}, "severity": "quarantine"},
                          {"not_null": "id", "severity": "warn"}],
                "quarantine": quarantine, **extra}
        return parse_set(body, Path("config.yaml"), "CONFIG.expectations.scored", "scored",
                         {"people": None}, {"scored": None, "rejected": None})

    def test_quarantine_moves_breaking_rows_and_names_their_rules(self, backend: Any) -> None:
        import pyarrow as pa

        from ubunye.engine.guards import check_output

        table = quarantine_table()
        found = check_output(backend, "scored", backend.from_arrow(table), self._guard_rules(), {})
        assert found.broken == []
        clean = [r["id"] for r in backend.port(found.clean).collect()]
        assert sorted(clean, key=lambda v: (v is None, v)) == [1, 2, 6, 7, None]  # null and NaN pass (as in 0.8.0)
        assert dict(backend.port(found.quarantined).schema)["_ubunye_failed_rules"] == "string"
        got = sorted((r["id"], r["_ubunye_failed_rules"]) for r in backend.port(found.quarantined).collect())
        assert got == [(3, "score_between"), (4, "city_one_of"), (5, "score_between,city_one_of")]
        kept = pa.array([True, True, False, False, False, True, True, True])
        expected = table.filter(pa.compute.invert(kept)).append_column(
            "_ubunye_failed_rules", pa.array(["score_between", "city_one_of", "score_between,city_one_of"],
                                             pa.string()))
        assert self.digest(backend, found.quarantined) == self.digest(backend, backend.from_arrow(expected))
        assert self.digest(backend, found.clean) == self.digest(backend, backend.from_arrow(table.filter(kept)))
        assert [(e["rule"], e["severity"], e["failed"], e["total"]) for e in found.entries] == [
            ("score_between", "quarantine", 2, 8), ("city_one_of", "quarantine", 2, 8),
            ("id_not_null", "warn", 1, 8), ("scored_quarantine_partition", "fail", 0, 8)]
        equation = found.entries[-1]  # rows(clean) + rows(quarantine) == rows(output), checked and recorded
        assert (equation["passed"], equation["rows"], equation["clean_rows"], equation["quarantined_rows"]) == (
            True, 8, 5, 3)

    def test_quarantine_refuses_a_column_named_as_the_one_it_adds(self, backend: Any) -> None:
        import pyarrow as pa

        from ubunye.engine.errors import EngineError
        from ubunye.engine.guards import check_output

        table = quarantine_table()
        table = table.append_column("_ubunye_failed_rules", pa.array(["mine"] * table.num_rows, pa.string()))
        with pytest.raises(EngineError, match="output 'scored' has a column named _ubunye_failed_rules"):
            check_output(backend, "scored", backend.from_arrow(table), self._guard_rules(), {})

    def test_quarantine_output_is_empty_with_its_column_when_no_row_breaks(self, backend: Any) -> None:
        import pyarrow as pa

        from ubunye.engine.guards import check_output

        table = quarantine_table().filter(pa.array([True, True, False, False, False, True, True, True]))
        found = check_output(backend, "scored", backend.from_arrow(table), self._guard_rules(), {})
        port = backend.port(found.quarantined)
        assert port.count() == 0 and list(port.schema) == [*table.column_names, "_ubunye_failed_rules"]
        assert dict(port.schema)["_ubunye_failed_rules"] == "string"

    def test_quarantine_rate_counts_rows_not_breaks(self, backend: Any) -> None:
        from ubunye.engine.guards import check_output

        frame = backend.from_arrow(quarantine_table())
        # 3 rows, 4 breaks (row 5 breaks both rules): 3/8 is not above 0.375, 4/8 would be
        assert check_output(backend, "scored", frame, self._guard_rules(max_quarantine_rate=0.375), {}).broken == []
        (line,) = check_output(backend, "scored", frame, self._guard_rules(max_quarantine_rate=0.3), {}).broken
        assert line == "scored: 3 of 8 rows quarantined (37.5%), more than max_quarantine_rate 30.0%"

    def test_080_matches_finds_the_pattern_anywhere_and_the_list_form_the_whole_value(self, backend: Any) -> None:
        from ubunye.engine.expectation_sets import parse_set
        from ubunye.engine.expectations import parse_rules
        from ubunye.engine.guards import check_output

        frame = backend.from_arrow(quarantine_table())
        found = parse_set({"rules": [{"matches": {"column": "city", "pattern": "ur|^S"}}]}, Path("config.yaml"),
                          "CONFIG.expectations.scored", "scored", {}, {"scored": None})
        (entry,) = check_output(backend, "scored", frame, found, {}).entries
        assert (entry["failed"], entry["total"]) == (2, 8)  # Paris, Cape Town; a null passes
        whole = parse_rules([{"kind": "matches", "column": "city", "pattern": "ur|^S"}], Path("config.yaml"), "x")
        assert [o.failed for o in backend.check(frame, whole)] == [7]  # only a null passes

    def test_080_form_counts_as_080_and_the_list_form_as_before(self, backend: Any) -> None:
        from ubunye.engine.expectation_sets import parse_set
        from ubunye.engine.expectations import parse_rules
        from ubunye.engine.guards import check_output

        frame = backend.from_arrow(keys_table())
        found = parse_set({"rules": [{"unique": "id"}, {"unique": ["id", "tag"]}, {"unique": "score"},
                                     {"not_null": "score"}, {"between": {"column": "score", "min": 0, "max": 100}},
                                     {"one_of": {"column": "score", "values": [5.0, 50.0, 10.0]}}]},
                          Path("config.yaml"), "CONFIG.expectations.scored", "scored", {}, {"scored": None})
        entries = check_output(backend, "scored", frame, found, {}).entries
        assert [(e["rule"], e["failed"], e["total"]) for e in entries] == [
            ("id_unique", 7, 8),  # every row of the groups 1, 3 and null (two null ids form a group)
            ("id_tag_unique", 6, 8),  # (1, a), (null, null), (3, c)
            ("score_unique", 2, 8),  # the two NaN; the one null is a group of one
            ("score_not_null", 3, 8),  # a null and two NaN
            ("score_between", 2, 8),  # -1 and 200; null and NaN pass
            ("score_one_of", 2, 8)]  # -1 and 200; null and NaN pass
        listed = parse_rules([{"kind": "unique", "column": "id"}, {"kind": "unique", "columns": ["id", "tag"]},
                              {"kind": "not_null", "column": "score"},
                              {"kind": "between", "column": "score", "min": 0, "max": 100},
                              {"kind": "one_of", "column": "score", "values": [5.0, 50.0, 10.0]}],
                             Path("config.yaml"), "x")
        # repeats after the first among non-null keys; NaN is a value: not null, outside any range, not listed
        assert [o.failed for o in backend.check(frame, listed)] == [3, 2, 1, 4, 4]

    def test_080_quarantine_splits_on_nan_as_080_does(self, backend: Any) -> None:
        from ubunye.engine.expectation_sets import parse_set
        from ubunye.engine.guards import check_output

        rules = parse_set({"rules": [{"not_null": "score", "severity": "quarantine"},
                                     {"between": {"column": "score", "min": 0, "max": 100}, "severity": "quarantine"},
                                     {"one_of": {"column": "score", "values": [5.0, 50.0, 10.0, 200.0]},
                                      "severity": "quarantine"}],
                           "quarantine": "rejected"},
                          Path("config.yaml"), "CONFIG.expectations.scored", "scored", {}, {"scored": None, "rejected": None})
        found = check_output(backend, "scored", backend.from_arrow(keys_table()), rules, {})
        assert sorted(r["n"] for r in backend.port(found.clean).collect()) == [0, 3, 7]
        got = sorted((r["n"], r["_ubunye_failed_rules"]) for r in backend.port(found.quarantined).collect())
        assert got == [(1, "score_not_null"), (2, "score_not_null"), (4, "score_between,score_one_of"),
                       (5, "score_not_null"), (6, "score_between")]

    def test_reconcile_rows_and_sum_against_the_input(self, backend: Any) -> None:
        from ubunye.engine.guards import check_output, measure_inputs

        table = quarantine_table()
        rules = self._guard_rules(reconcile=[{"input": "people", "rows": {"max_lost": "25%", "max_gained": 0},
                                              "sum": {"column": "score", "tolerance": 6}},
                                             {"input": "people", "name": "amounts", "severity": "warn",
                                              "sum": {"column": "amount", "tolerance": "10%"}}])
        people = backend.from_arrow(table)
        measured = measure_inputs(backend, {"scored": rules}, {"people": people})
        assert measured == {"people": (8, {"score": 384.5, "amount": 360})}
        output = backend.from_arrow(table.slice(0, 6))
        found = check_output(backend, "scored", output, rules, measured)
        got = {e["rule"]: e for e in found.entries if e["kind"] == "reconcile"}
        assert (got["rows_from_people"]["failed"], got["rows_from_people"]["total"],
                got["rows_from_people"]["passed"]) == (2, 8, True)
        assert got["score_sum_from_people"]["detail"] == (
            "sum of score in people 384.5, of score in scored 378.5: difference -6 (at most 6)")
        assert got["amounts_sum"]["detail"] == (
            "sum of amount in people 360, of amount in scored 210: difference -150 (at most 10%)")
        assert (got["amounts_sum"]["passed"], got["amounts_sum"]["severity"]) == (False, "warn")
        assert found.broken == []  # a warn reconcile is recorded, not raised
        stricter = self._guard_rules(reconcile=[{"input": "people", "rows": {"max_lost": 1}}])
        (line,) = check_output(backend, "scored", output, stricter, measured).broken
        assert line == ("scored: rows_from_people (reconcile): 8 rows read from people, 6 reached scored: "
                        "2 lost, 0 gained (at most 1 lost)")


def quarantine_table() -> Any:
    """Rows breaking no quarantine rule, one, or both; null and NaN scores; a null id."""
    import pyarrow as pa

    return pa.table(
        {
            "id": pa.array([1, 2, 3, 4, 5, 6, 7, None], pa.int64()),
            "score": pa.array([71.5, None, -1.0, 88.0, 120.0, 100.0, float("nan"), 6.0], pa.float64()),
            "city": pa.array(["Durban", "Soweto", "Durban", "Paris", "Cape Town", None, "Durban", "Durban"]),
            "amount": pa.array([10, 20, 30, 40, 50, 60, 70, 80], pa.int64()),
        }
    )


def keys_table() -> Any:
    """Repeated keys (two null ids among them) and a float column with NaN and null."""
    import pyarrow as pa

    return pa.table(
        {
            "n": pa.array(range(8), pa.int64()),
            "id": pa.array([1, 1, None, None, 2, 3, 3, 3], pa.int64()),
            "tag": pa.array(["a", "a", None, None, "b", "c", "c", "d"], pa.string()),
            "score": pa.array([5.0, float("nan"), None, 50.0, -1.0, float("nan"), 200.0, 10.0], pa.float64()),
        }
    )
