"""The spec's newer kinds on every Python engine: unsigned integers and years outside 0001..9999.

Fixtures ``unsigned_ints`` and ``far_years`` (Spark's own lines) through
pandas frames (numpy-backed and Arrow-backed), plus the cases the fixtures do
not hold: nested far-year values, far-year map keys, a far value among
ordinary ones, other timestamp units.
"""
from __future__ import annotations

import datetime as dt
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from ubunye.hashing import fingerprint
from ubunye.hashing.arrow import line_array
from ubunye.hashing.arrow_types import arrow_schema_kinds
from ubunye.hashing.digest import data_hash, sums_of_lines
from ubunye.hashing.reference import arrow_rows, canonical_line_of, parse_kinds
from ubunye.hashing.temporal import Days, Micros, civil, day_text, micros_text
from ubunye.testing import Fixture, load_fixtures

FIXTURES = {fx.name: fx for fx in load_fixtures()}
UNSIGNED = FIXTURES["unsigned_ints"]
FAR = FIXTURES["far_years"]


def expected(fx: Fixture) -> tuple[Any, ...]:
    return fx.expect.row_count, fx.expect.schema_hash, fx.expect.data_hash


def got(frame: Any, engine: str = "arrow") -> tuple[Any, ...]:
    fp = fingerprint(frame, engine=engine)
    assert fp.error is None, fp.error
    return fp.row_count, fp.schema_hash, fp.data_hash


def arrow_lines(table: pa.Table) -> list[str]:
    kinds = arrow_schema_kinds(table.schema)
    return line_array(table.combine_chunks().to_batches()[0], kinds).to_pylist()


def reference_lines(table: pa.Table) -> list[str]:
    kinds = arrow_schema_kinds(table.schema)
    return [canonical_line_of(row, kinds) for row in arrow_rows(table.combine_chunks().to_batches()[0])]


def test_fixture_columns_carry_their_arrow_type() -> None:
    table = UNSIGNED.arrow_table()
    assert [str(t) for t in table.schema.types] == ["uint8", "uint16", "uint32", "uint64"]
    assert UNSIGNED.arrow_typed and not FAR.arrow_typed
    assert FAR.rows[0]["d"] == Days(2_932_897) and FAR.rows[5]["d"] == dt.date(9999, 12, 31)
    assert FAR.rows[0]["t"] == Micros(253_402_300_800_000_000)
    assert FAR.rows[5]["t"] == dt.datetime(9999, 12, 31, 23, 59, 59, 999_999, tzinfo=dt.timezone.utc)


# ---------------------------------------------------------------- unsigned integers


def test_unsigned_kinds_are_sparks() -> None:
    assert [(n, k.text) for n, k in arrow_schema_kinds(UNSIGNED.arrow_table().schema)] == [
        ("u8", "int16"), ("u16", "int32"), ("u32", "int64"), ("u64", "decimal(20,0)")]


@pytest.mark.parametrize("engine", ["arrow", "rows"])
def test_unsigned_pandas_arrow_backed(engine: str) -> None:
    frame = UNSIGNED.arrow_table().to_pandas(types_mapper=pd.ArrowDtype)
    assert str(frame.dtypes["u8"]) == "uint8[pyarrow]"
    assert got(frame, engine) == expected(UNSIGNED)


@pytest.mark.parametrize("engine", ["arrow", "rows"])
def test_unsigned_pandas_numpy_backed_nullable(engine: str) -> None:
    frame = pd.DataFrame({
        c.name: pd.array([None if row.get(c.name) is None else int(row[c.name]) for row in UNSIGNED.raw_rows],
                         dtype="UI" + c.arrow[2:])  # UInt8 ... UInt64
        for c in UNSIGNED.columns
    })
    assert str(frame.dtypes["u64"]) == "UInt64"
    assert got(frame, engine) == expected(UNSIGNED)


def test_unsigned_pandas_plain_numpy_columns() -> None:
    """np.uint8 (numpy's default for small counts) and the other widths, no nulls."""
    rows = UNSIGNED.raw_rows[:2]
    frame = pd.DataFrame({
        c.name: np.array([int(r[c.name]) for r in rows], dtype=getattr(np, c.arrow)) for c in UNSIGNED.columns
    })
    assert frame.dtypes["u8"] == np.uint8
    lines = UNSIGNED.expect.lines[:2]
    fp = fingerprint(frame)
    kinds = [(c.name, c.kind) for c in UNSIGNED.columns]
    assert (fp.error, fp.schema_hash) == (None, UNSIGNED.expect.schema_hash)
    assert fp.data_hash == data_hash(kinds, sums_of_lines(s.encode() for s in lines))
    assert fingerprint(frame, engine="rows").data_hash == fp.data_hash


def test_unsigned_nested_and_as_map_keys() -> None:
    table = pa.table({
        "l": pa.array([[0, 2**64 - 1, None]], pa.list_(pa.uint64())),
        "m": pa.array([[(2**64 - 1, "big"), (3, "small")]], pa.map_(pa.uint64(), pa.string())),
        "s": pa.array([{"x": 255}], pa.struct([("x", pa.uint8())])),
    })
    want = '{"l":[0,18446744073709551615,null],"m":{"3":"small","18446744073709551615":"big"},"s":{"x":255}}'
    assert arrow_lines(table) == reference_lines(table) == [want]
    assert [(n, k.text) for n, k in arrow_schema_kinds(table.schema)] == [
        ("l", "list<decimal(20,0)>"), ("m", "map<decimal(20,0),string>"), ("s", "struct<x:int16>")]


# ---------------------------------------------------------------- years outside 0001..9999


@pytest.mark.parametrize("engine", ["arrow", "rows"])
def test_far_years_pandas_arrow_backed(engine: str) -> None:
    frame = FAR.arrow_table().to_pandas(types_mapper=pd.ArrowDtype)
    assert got(frame, engine) == expected(FAR)


@pytest.mark.parametrize("engine", ["arrow", "rows"])
def test_far_years_pandas_numpy_backed_timestamps(engine: str) -> None:
    """numpy datetime64[us] holds far years; a zone-aware one is an instant, a naive one too."""
    raw = FAR.raw_rows
    micros = np.array([r["t"] for r in raw], dtype="datetime64[us]")
    aware = pd.Series(micros).dt.tz_localize("UTC")
    frame = pd.DataFrame({
        # numpy has no date type: far dates are Arrow-backed in pandas
        "d": pd.arrays.ArrowExtensionArray(pa.array([r["d"] for r in raw], pa.int32()).cast(pa.date32())),
        "n": pd.arrays.ArrowExtensionArray(pa.array([r["n"] for r in raw], pa.timestamp("us"))),
        "t": aware,
    })
    assert str(frame.dtypes["t"]) == "datetime64[us, UTC]"
    assert got(frame, engine) == expected(FAR)
    naive = frame.assign(t=pd.Series(micros))  # numpy-backed naive: an instant read as UTC
    assert got(naive, engine) == expected(FAR)


@pytest.mark.parametrize("unit, scale", [("s", 1_000_000), ("ms", 1000), ("us", 1), ("ns", 1)])
def test_far_timestamps_in_every_unit(unit: str, scale: int) -> None:
    micros = [345_000_000_000_000_000, -62_198_755_200_000_000, 0]
    if unit == "ns":  # int64 nanoseconds reach years 1677..2262 only
        micros = [-9_000_000_000_000_000, 9_000_000_000_000_001, 0]
    values = [m // scale if unit != "ns" else m * 1000 for m in micros]
    table = pa.table({"t": pa.array(values, pa.int64()).cast(pa.timestamp(unit, tz="UTC"))})
    want = ['{"t":"' + micros_text(m) + 'Z"}' for m in micros]
    assert arrow_lines(table) == reference_lines(table) == want


def test_a_far_value_among_ordinary_ones_and_nulls() -> None:
    """Only the far values take the slow branch; their neighbours and the nulls keep their text."""
    n = 3000
    days = np.arange(n, dtype=np.int32) - 719_162
    days[2345] = -810_000
    days[7] = 2_932_897
    mask = np.zeros(n, dtype=bool)
    mask[[3, n - 1]] = True
    table = pa.table({
        "d": pa.array(days, pa.int32(), mask=mask).cast(pa.date32()),
        "t": pa.array(days.astype(np.int64) * 86_400_000_000 + 1, pa.int64(), mask=mask)
        .cast(pa.timestamp("us")),
    })
    lines = arrow_lines(table.slice(0, 1000)) + arrow_lines(table.slice(1000, 1000)) + arrow_lines(
        table.slice(2000))
    assert lines[7] == '{"d":"+10000-01-01","t":"+10000-01-01T00:00:00.000001"}'
    assert lines[2345] == '{"d":"-0248-04-18","t":"-0248-04-18T00:00:00.000001"}'
    assert lines[3] == lines[n - 1] == "{}"
    assert lines[8] == '{"d":"0001-01-09","t":"0001-01-09T00:00:00.000001"}'
    assert lines == reference_lines(table)
    assert fingerprint(table).data_hash == fingerprint(table, engine="rows").data_hash


def test_far_years_nested_and_as_map_keys() -> None:
    table = pa.table({
        "l": pa.array([[2_932_897, None, 0]], pa.list_(pa.date32())),
        "m": pa.array([[(345_000_000_000_000_000, 1), (-62_198_755_200_000_000, 2)]],
                      pa.map_(pa.timestamp("us", tz="UTC"), pa.int32())),
        "s": pa.array([{"n": -70_000_000_000_000_000}], pa.struct([("n", pa.timestamp("us"))])),
    })
    want = ('{"l":["+10000-01-01",null,"1970-01-01"],'
            '"m":{"-0001-01-01T00:00:00.000000Z":2,"+12902-08-13T13:20:00.000000Z":1},'
            '"s":{"n":"-0249-10-15T19:33:20.000000"}}')
    assert arrow_lines(table) == reference_lines(table) == [want]


def test_port_rows_take_days_and_micros() -> None:
    kinds = parse_kinds([("d", "date"), ("n", "timestamp_ntz"), ("t", "timestamp"), ("m", "map<date,int32>")])
    row = {"d": Days(-719_893), "n": Micros(-62_135_596_800_000_001), "t": Micros(0),
           "m": {Days(2_932_897): 1, dt.date(2024, 1, 1): 2, Days(-719_163): 3}}
    assert canonical_line_of(row, kinds) == (
        '{"d":"-0001-01-01","m":{"0000-12-31":3,"2024-01-01":2,"+10000-01-01":1},'
        '"n":"0000-12-31T23:59:59.999999","t":"1970-01-01T00:00:00.000000Z"}')


@pytest.mark.parametrize("days", [-1_000_000_000, -719_893, -719_163, -719_162, -1, 0, 59, 2_932_896,
                                  2_932_897, 1_000_000_000])
def test_day_text_agrees_with_civil_arithmetic_and_python(days: int) -> None:
    year, month, day = civil(days)
    if 1 <= year <= 9999:
        d = dt.date(1970, 1, 1) + dt.timedelta(days=days)
        assert (year, month, day) == (d.year, d.month, d.day)
    sign = "-" if year < 0 else "+" if year > 9999 else ""
    assert day_text(days) == f"{sign}{abs(year):04d}-{month:02d}-{day:02d}"


def test_sliced_struct_with_a_null_field_and_temporal_values() -> None:
    """pyarrow's nested cast fails (or aborts) on such a slice; the values are read from a copy."""
    inner = pa.struct([("z", pa.null()), ("v", pa.decimal128(4, 2))])
    t = pa.struct([("n", inner), ("m", pa.map_(pa.timestamp("us"), pa.date32()))])
    column = pa.array([{"n": {}, "m": [(0, 0)]}, {"n": {}, "m": [(345_000_000_000_000_000, 2_932_897)]},
                       {"n": {}, "m": None}], t)
    table = pa.table({"s": column}).slice(1, 2)
    want = ['{"s":{"n":{},"m":{"+12902-08-13T13:20:00.000000":"+10000-01-01"}}}', '{"s":{"n":{}}}']
    assert arrow_lines(table) == reference_lines(table) == want


def test_temporal_values_nested_in_maps_of_maps_of_nulls() -> None:
    """A shape on which pyarrow's nested cast fails (found by the property test): a list of
    maps from timestamps to maps of booleans to nulls, with ordinary and far years."""
    ts = pa.timestamp("us", tz="UTC")
    inner = pa.map_(pa.bool_(), pa.null())
    col = pa.array([[[(dt.datetime(2000, 1, 1, tzinfo=dt.timezone.utc), [(False, None), (True, None)])]]],
                   type=pa.list_(pa.map_(ts, inner)))
    table = pa.table({"c": col, "n": pa.array([None], pa.int8())})
    kinds = arrow_schema_kinds(table.schema)
    want = [canonical_line_of(row, kinds) for row in arrow_rows(table.to_batches()[0])]
    assert want == ['{"c":[{"2000-01-01T00:00:00.000000Z":{"false":null,"true":null}}]}']
    assert line_array(table.to_batches()[0], kinds).to_pylist() == want
    far = pa.array([[[(-70_000_000_000_000_000, [(True, None)])]]], type=pa.list_(pa.map_(pa.int64(), inner)))
    far = far.cast(pa.list_(pa.map_(pa.int64(), inner)))  # the same shape with a far year, as integers
    rows = arrow_rows(pa.record_batch([far.view(pa.list_(pa.map_(ts, inner)))], names=["c"]))
    assert list(rows)[0]["c"][0][0][0] == Micros(-70_000_000_000_000_000)
