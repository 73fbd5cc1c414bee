"""pandas, Arrow, polars, DuckDB and port frames: spec section 3 specifics and dispatch."""
from __future__ import annotations

import datetime as dt
import math
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from ubunye.hashing import canonical_kinds, canonical_line, canonical_lines, fingerprint
from ubunye.hashing.arrow import lane_sums
from ubunye.hashing.digest import LaneSums
from ubunye.testing import load_fixtures

REFERENCE = {fx.name: fx for fx in load_fixtures()}["reference_3rows"]


def reference_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "id": pd.array([1, 2, 3], dtype="int32"),
            "name": ["Mokoena, Thabo", '"Anna ""Annie"" Dlamini"', "Sipho"],
            "score": [71.5, np.nan, 88.0],
            "passed": pd.array([True, False, None], dtype="boolean"),
            "day": pd.array([dt.date(2024, 1, 2), dt.date(2024, 2, 29), None], dtype=pd.ArrowDtype(pa.date32())),
            "seen": pd.to_datetime(["2024-01-02 03:04:05", "2024-02-29 23:59:59", None]),
        }
    )


def test_pandas_reference_table_gives_the_spec_vector() -> None:
    fp = fingerprint(reference_frame())
    assert fp.error is None
    assert (fp.row_count, fp.schema_hash, fp.data_hash) == (
        3, REFERENCE.expect.schema_hash, REFERENCE.expect.data_hash)
    assert fp.engine == "arrow"
    assert fingerprint(reference_frame(), engine="rows").data_hash == fp.data_hash
    assert canonical_lines(reference_frame()) == REFERENCE.expect.lines


def test_numpy_nan_is_null_but_arrow_nan_stays() -> None:
    numpy_backed = pd.DataFrame({"x": [1.0, np.nan]})
    arrow_backed = pd.DataFrame({"x": pd.arrays.ArrowExtensionArray(pa.array([1.0, np.nan]))})
    assert canonical_line(numpy_backed, 1) == "{}"
    assert canonical_line(arrow_backed, 1) == '{"x":"NaN"}'
    assert fingerprint(numpy_backed).data_hash != fingerprint(arrow_backed).data_hash


def test_categorical_takes_its_values_kind() -> None:
    plain = pd.DataFrame({"c": ["a", "b", "a"]})
    categorical = pd.DataFrame({"c": pd.Categorical(["a", "b", "a"])})
    assert canonical_kinds(categorical) == [("c", "string")]
    assert fingerprint(categorical).data_hash == fingerprint(plain).data_hash


def test_named_index_becomes_a_column_unnamed_is_dropped() -> None:
    df = pd.DataFrame({"v": [10, 20]}, index=pd.Index([7, 8], name="k"))
    assert canonical_kinds(df) == [("k", "int64"), ("v", "int64")]
    assert canonical_line(df, 0) == '{"k":7,"v":10}'
    unnamed = pd.DataFrame({"v": [10, 20]}, index=[7, 8])
    assert canonical_kinds(unnamed) == [("v", "int64")]
    assert fingerprint(unnamed).data_hash == fingerprint(pd.DataFrame({"v": [10, 20]})).data_hash


def test_naive_pandas_timestamps_are_utc_instants() -> None:
    naive = pd.DataFrame({"t": pd.to_datetime(["2024-01-02 03:04:05.123456"])})
    aware = pd.DataFrame({"t": pd.to_datetime(["2024-01-02 05:04:05.123456+02:00"])})
    assert canonical_kinds(naive) == [("t", "timestamp")]
    assert canonical_line(naive) == '{"t":"2024-01-02T03:04:05.123456Z"}'
    assert fingerprint(naive).data_hash == fingerprint(aware).data_hash


def test_nanoseconds_are_floored_to_microseconds_on_both_paths() -> None:
    df = pd.DataFrame({"t": pd.to_datetime(["1969-12-31 23:59:59.999999999", "2024-01-01 00:00:00.000001999"])})
    assert canonical_lines(df) == ['{"t":"1969-12-31T23:59:59.999999Z"}', '{"t":"2024-01-01T00:00:00.000001Z"}']
    assert fingerprint(df).data_hash == fingerprint(df, engine="rows").data_hash


@pytest.mark.parametrize(
    "frame, culprit, type_text",
    [
        (pd.DataFrame([[1, 2]], columns=["a", "a"]), "'a'", "duplicate"),
        (pa.table({"u": pa.array([1], pa.time32("s"))}), "'u'", "time32"),
        (pa.table({"d": pa.array([1], pa.duration("s"))}), "'d'", "duration"),
        (pa.table({"m": pa.array([[([1], "x")]], pa.map_(pa.list_(pa.int32()), pa.string()))}), "'m'", "list<int32>"),
    ],
)
def test_honest_failure_names_column_and_type(frame: Any, culprit: str, type_text: str) -> None:
    fp = fingerprint(frame)
    assert fp.data_hash is None and fp.row_count is None and fp.schema_hash is None
    assert fp.error is not None and "\n" not in fp.error
    assert fp.error.startswith("RowsV1Error: ")
    assert culprit in fp.error and type_text in fp.error


@pytest.mark.parametrize("engine", ["arrow", "rows"])
def test_repeated_map_key_fails_honestly(engine: str) -> None:
    table = pa.table({"m": pa.array([[("k", 1), ("k", 2)]], pa.map_(pa.string(), pa.int32()))})
    fp = fingerprint(table, engine=engine)
    assert fp.data_hash is None and fp.row_count is None
    assert "'m'" in fp.error and "twice" in fp.error
    assert fp.schema_hash is not None  # the schema is canonical, the data is not


def test_record_batch_reader_is_hashed_batch_by_batch() -> None:
    table = pa.table({"i": pa.array(range(1000), pa.int64()), "s": [str(i) for i in range(1000)]})
    seen: list[int] = []

    def batches() -> Any:
        for batch in table.to_batches(max_chunksize=100):
            seen.append(batch.num_rows)
            yield batch

    reader = pa.RecordBatchReader.from_batches(table.schema, batches())
    fp = fingerprint(reader)
    assert fp.row_count == 1000 and len(seen) == 10
    assert fp.data_hash == fingerprint(table).data_hash


def test_lane_sums_add_modulo_2_64() -> None:
    big = LaneSums(1, 2**64 - 1, 2**63)
    assert big + big == LaneSums(2, 2**64 - 2, 0)
    assert sum([big, big]) == big + big
    table = pa.table({"x": [1, 2, 3, 4]})
    whole = lane_sums([table])
    parts = lane_sums([table.slice(0, 1)]) + lane_sums([table.slice(1)])
    assert whole == parts
    assert lane_sums(table) == lane_sums(table.to_reader()) == lane_sums(table.to_batches()[0]) == whole


class Port:
    def __init__(self, schema: Any, rows: list[dict[str, Any]]) -> None:
        self.schema = schema
        self._rows = rows

    def collect(self) -> list[dict[str, Any]]:
        return self._rows


def test_port_equals_arrow() -> None:
    rows: list[dict[str, Any]] = [
        {"id": 1, "tags": ["a", None], "at": dt.datetime(2024, 1, 2, tzinfo=dt.timezone.utc)}, {"id": 2}]
    port = Port({"id": "int64", "tags": "list<string>", "at": "timestamp"}, rows)
    table = pa.table({
        "id": pa.array([1, 2], pa.int64()),
        "tags": pa.array([["a", None], None], pa.list_(pa.string())),
        "at": pa.array([dt.datetime(2024, 1, 2), None], pa.timestamp("us", tz="UTC")),
    })
    fp = fingerprint(port)
    assert fp.engine == "rows" and fp.error is None
    assert fp.data_hash == fingerprint(table).data_hash
    assert canonical_kinds(port) == [("id", "int64"), ("tags", "list<string>"), ("at", "timestamp")]
    assert canonical_line(port, 0) == '{"at":"2024-01-02T00:00:00.000000Z","id":1,"tags":["a",null]}'


def test_port_with_a_bad_value_fails_honestly() -> None:
    fp = fingerprint(Port({"x": "float64"}, [{"x": "not a number"}]))
    assert fp.data_hash is None and "'x'" in fp.error and "float64" in fp.error


def test_unsupported_object_raises_type_error() -> None:
    with pytest.raises(TypeError, match="cannot hash"):
        fingerprint(42)


def test_polars_hashes_through_arrow() -> None:
    pl = pytest.importorskip("polars")
    df = pl.DataFrame({"id": [1, 2, None], "s": ["x", None, "é"], "f": [1.5, float("nan"), None]})
    table = pa.table({
        "id": pa.array([1, 2, None], pa.int64()),
        "s": pa.array(["x", None, "é"]),
        "f": pa.array([1.5, math.nan, None]),
    })
    fp = fingerprint(df)
    assert fp.engine == "arrow" and fp.error is None
    assert fp.data_hash == fingerprint(table).data_hash


def test_duckdb_hashes_through_arrow() -> None:
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    rel = con.sql(
        "select * from (values (1::INT, 'x', TIMESTAMPTZ '2024-01-02 03:04:05+00'), "
        "(2::INT, NULL, NULL)) t(id, s, \"at\")"
    )
    fp = fingerprint(rel)
    assert fp.engine == "arrow" and fp.error is None and fp.row_count == 2
    table = pa.table({
        "id": pa.array([1, 2], pa.int32()),
        "s": pa.array(["x", None]),
        "at": pa.array([dt.datetime(2024, 1, 2, 3, 4, 5), None], pa.timestamp("us", tz="UTC")),
    })
    assert fp.data_hash == fingerprint(table).data_hash


@pytest.mark.parametrize("engine", ["arrow", "rows"])
@pytest.mark.parametrize(
    "column, text",
    [
        (pa.array([0, -719_163], pa.int32()).cast(pa.date32()), '"0000-12-31"'),
        (pa.array([0, 2_932_897], pa.int32()).cast(pa.date32()), '"+10000-01-01"'),
        (pa.array([0, 253_402_300_800_000_000], pa.int64()).cast(pa.timestamp("us", tz="UTC")),
         '"+10000-01-01T00:00:00.000000Z"'),
    ],
    ids=["date-year-0", "date-year-10000", "timestamp-year-10000"],
)
def test_values_outside_years_1_to_9999_are_written_as_spark_writes_them(
    engine: str, column: pa.Array, text: str
) -> None:
    table = pa.table({"when": column})
    fp = fingerprint(table, engine=engine)
    assert fp.error is None and fp.row_count == 2
    assert canonical_lines(table)[1] == '{"when":' + text + "}"
    epoch = pa.table({"when": column.slice(0, 1)})
    assert fingerprint(epoch, engine=engine).data_hash != fp.data_hash


def test_arrow_backed_naive_timestamps_stay_ntz() -> None:
    column = pd.arrays.ArrowExtensionArray(pa.array([dt.datetime(2024, 1, 2)], pa.timestamp("us")))
    df = pd.DataFrame({"t": column})
    assert canonical_kinds(df) == [("t", "timestamp_ntz")]
    assert canonical_line(df) == '{"t":"2024-01-02T00:00:00.000000"}'


def test_helper_thread_gives_the_same_sums(monkeypatch: pytest.MonkeyPatch) -> None:
    import ubunye.hashing.arrow as arrow
    from ubunye.hashing.digest import data_hash

    fx = {f.name: f for f in load_fixtures()}["mixed_random_1000"]
    table = fx.arrow_table()
    monkeypatch.setattr(arrow, "CHUNK_ROWS", 128)  # several chunks in flight
    threaded = lane_sums([table], threads=True)
    assert threaded == lane_sums([table])
    assert data_hash(fx.kinds(), threaded) == fx.expect.data_hash


@pytest.mark.parametrize("obj", [pd.Series([1, 2]), pa.array([1, 2]), [1, 2], {"a": [1]}])
def test_things_that_are_not_frames_raise_type_error(obj: Any) -> None:
    with pytest.raises(TypeError, match="cannot hash"):
        fingerprint(obj)


def test_polars_lazy_frame_is_collected_first() -> None:
    pl = pytest.importorskip("polars")
    df = pl.DataFrame({"a": [1, 2], "s": ["x", "y"]})
    assert fingerprint(df.lazy()).data_hash == fingerprint(df).data_hash


def test_pandas_column_arrow_cannot_read_fails_honestly() -> None:
    fp = fingerprint(pd.DataFrame({"mixed": pd.Series(["a", 1], dtype=object)}))
    assert fp.data_hash is None and fp.row_count is None
    assert fp.error is not None and "\n" not in fp.error and "mixed" in fp.error


def test_pandas_frame_with_rows_but_no_columns_keeps_its_rows() -> None:
    from ubunye.testing.fixtures import fixtures_dir, load_fixture

    fx = load_fixture(fixtures_dir() / "no_columns_rows.json")
    fp = fingerprint(pd.DataFrame(index=range(len(fx.rows))))
    assert (fp.row_count, fp.schema_hash, fp.data_hash) == (
        fx.expect.row_count, fx.expect.schema_hash, fx.expect.data_hash)
    assert fx.expect.row_count and fx.expect.row_count > 0
