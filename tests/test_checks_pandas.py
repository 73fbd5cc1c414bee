"""Expectation counting on pandas frames (engine/checks_pandas.py) called directly: each rule's
exact count at its edges, on numpy and Arrow-backed columns, the 0.8.0 forms, the quarantine split
and its reasons, and the totals a reconcile measures."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from ubunye.engine.checks_pandas import (
    _nan_mask, _outside, broken_rows, dtype_is, evaluate_pandas, measure_pandas, pandas_kinds, split_pandas,
)
from ubunye import canonical_kinds
from ubunye.engine.expectations import Outcome, Rule

ARROW_FLOAT = pd.ArrowDtype(pa.float64())


def _arrow_floats(values: list) -> pd.Series:
    """An Arrow-backed float column holding NaN and null apart (pandas' constructor makes NaN null)."""
    return pd.Series(pd.arrays.ArrowExtensionArray(pa.array(values, pa.float64(), from_pandas=False)))


def _masked_floats(values: list) -> pd.Series:
    """A pandas Float64 column holding NaN and null apart."""
    data = np.array([0.0 if v is None else v for v in values])
    return pd.Series(pd.arrays.FloatingArray(data, np.array([v is None for v in values])))


def _rule(kind: str, column: str | None = "x", **params: object) -> Rule:
    return Rule(name=f"{kind}_{column}", kind=kind, column=column, params=params)


def test_row_count_at_its_edges() -> None:
    df = pd.DataFrame({"x": [1, 2, 3]})
    got = evaluate_pandas(df, [_rule("row_count", None, min=3), _rule("row_count", None, max=3),
                               _rule("row_count", None, min=4), _rule("row_count", None, max=2),
                               _rule("row_count", None, min=1, max=5), _rule("row_count", None)])
    assert got == [Outcome(0, 1, None), Outcome(0, 1, None), Outcome(1, 1, "3 rows"), Outcome(1, 1, "3 rows"),
                   Outcome(0, 1, None), Outcome(0, 1, None)]
    assert evaluate_pandas(pd.DataFrame({"x": []}), [_rule("row_count", None, min=1)]) == [Outcome(1, 1, "0 rows")]


def test_a_missing_column_breaks_every_row() -> None:
    df = pd.DataFrame({"x": [1, None, 3]})
    assert evaluate_pandas(df, [_rule("not_null", "y")]) == [Outcome(3, 3, "no column 'y'")]
    assert evaluate_pandas(df, [_rule("unique", None, columns=["x", "z"])]) == [Outcome(3, 3, "no column 'z'")]


def test_columns_rule_uses_the_frames_canonical_kinds() -> None:
    df = pd.DataFrame({"a": pd.Series([1], dtype="int64"), "b": ["s"], "c": [1.5]})
    assert pandas_kinds(df) == [("a", "int64"), ("b", "string"), ("c", "float64")]
    got = evaluate_pandas(df, [_rule("columns", None, columns={"a": "int64", "b": "int32", "d": None})])
    assert got == [Outcome(2, 3, "b is string, expected int32; d missing")]
    assert pandas_kinds(df.set_index("a")) == [("b", "string"), ("c", "float64")]  # the index is no column


def test_columns_rule_kinds_are_the_kinds_hashing_gives_the_same_frame() -> None:
    # read from the values, not an empty slice: object strings and dates, naive (read as UTC) and
    # zoned timestamps, a column that is null on its first row and an all-null object column
    df = pd.DataFrame({
        "o": pd.Series([None, "a"], dtype=object),
        "d": pd.Series([None, date(2020, 2, 29)], dtype=object),
        "t": pd.to_datetime(["2020-01-01 10:00", None]),
        "z": pd.to_datetime(["2020-01-01", "2021-06-01"]).tz_localize("Europe/Paris"),
        "n": pd.Series([None, None], dtype=object),
    })
    expected = [("o", "string"), ("d", "date"), ("t", "timestamp"), ("z", "timestamp"), ("n", "null")]
    assert canonical_kinds(df) == expected  # the hashing path's kinds
    assert pandas_kinds(df) == expected
    rule = _rule("columns", None, columns={"o": "string", "d": "date", "t": "timestamp", "n": "null"})
    assert evaluate_pandas(df, [rule]) == [Outcome(0, 4, None)]
    # a named index is no column of the rule (hashing writes it as one)
    assert pandas_kinds(df.set_index("o")) == expected[1:]
    assert canonical_kinds(df.set_index("o")) == expected


@pytest.mark.parametrize("values, v080, failed", [
    ([1, 1, 2, None, None], False, 1),  # a repeated key counts once per extra copy; null keys never
    ([1, 1, 2, None, None], True, 4),  # 0.8.0: every row of a repeated key, null keys too
    ([1, 2, 3], False, 0), ([1, 2, 3], True, 0),
    ([1, 1, 1], False, 2), ([1, 1, 1], True, 3),
])
def test_unique_counts(values: list, v080: bool, failed: int) -> None:
    df = pd.DataFrame({"x": pd.Series(values, dtype="Int64"), "y": 1})
    params = {"v080": True} if v080 else {}
    assert evaluate_pandas(df, [Rule("u", "unique", column="x", params=params)]) == [Outcome(failed, len(values))]


def test_unique_over_several_columns_drops_keys_with_any_null() -> None:
    df = pd.DataFrame({"a": [1, 1, 1, None, None], "b": ["p", "p", None, "q", "q"]})
    assert evaluate_pandas(df, [_rule("unique", None, columns=["a", "b"])]) == [Outcome(1, 5)]
    assert evaluate_pandas(df, [_rule("unique", None, columns=["a"])]) == [Outcome(2, 5)]


def test_not_null_between_one_of_and_matches_count_broken_rows() -> None:
    df = pd.DataFrame({"x": [1.0, None, 5.0, np.nan, 10.0], "s": ["ab", "a\nb", None, "xab", "b"]})
    rules = [_rule("not_null"), _rule("between", min=1, max=5), _rule("between", min=2),
             _rule("between", max=5.0), _rule("one_of", values=[1.0, 10.0]),
             _rule("matches", "s", pattern="a.b"), _rule("matches", "s", pattern="ab", anywhere=True),
             _rule("matches", "s", pattern="a.b", anywhere=True)]
    got = [o.failed for o in evaluate_pandas(df, rules)]
    # NaN is a value in a numpy float column (not null: pandas says it is): outside any range
    assert got == [2, 1, 1, 1, 1, 3, 2, 4]
    assert all(o.total == 5 for o in evaluate_pandas(df, rules))


def test_nan_is_a_value_in_an_arrow_float_column_unless_v080() -> None:
    x = _arrow_floats([1.0, None, float("nan"), 7.0])
    df = pd.DataFrame({"x": x})
    assert list(broken_rows(df, _rule("not_null"))) == [False, True, False, False]
    assert list(broken_rows(df, _rule("between", min=0, max=5))) == [False, False, True, True]
    assert list(broken_rows(df, _rule("not_null", v080=True))) == [False, True, True, False]
    assert list(broken_rows(df, _rule("between", min=0, max=5, v080=True))) == [False, False, False, True]
    assert list(broken_rows(df, _rule("one_of", values=[1.0], v080=True))) == [False, False, False, True]
    numpy_df = pd.DataFrame({"x": [1.0, np.nan, 7.0]})
    assert list(broken_rows(numpy_df, _rule("not_null", v080=True))) == [False, True, False]
    strings = pd.DataFrame({"x": ["NaN", None]})  # not a float column: no NaN rule
    assert list(broken_rows(strings, _rule("not_null", v080=True))) == [False, True]
    assert list(broken_rows(strings, _rule("matches", pattern="NaN", v080=True))) == [False, False]


def test_broken_rows_is_a_bool_array_for_every_row_rule() -> None:
    df = pd.DataFrame({"x": [1.0, None, 9.0], "s": ["a", "b", None]})
    for rule in (_rule("not_null"), _rule("between", max=5), _rule("one_of", values=[1.0]),
                 _rule("matches", "s", pattern="a")):
        got = broken_rows(df, rule)
        assert isinstance(got, np.ndarray) and got.dtype == np.bool_, rule
        assert got.shape == (3,)
    assert list(broken_rows(df, _rule("between", max=5))) == [False, False, True]


def test_matches_with_v080_keeps_nan_rows_as_values() -> None:
    df = pd.DataFrame({"x": [float("nan"), 1.5]})
    assert list(broken_rows(df, _rule("matches", pattern="nan", v080=True))) == [False, True]
    # an Arrow float column holds NaN apart from null: the 0.8.0 NaN-is-missing rule leaves matches out
    arrow_df = pd.DataFrame({"x": _arrow_floats([float("nan"), 1.5, None])})
    assert list(broken_rows(arrow_df, _rule("matches", pattern="1.5", v080=True))) == [True, False, False]
    assert list(broken_rows(arrow_df, _rule("matches", pattern="1.5", v080=True, anywhere=True))) == [
        True, False, False]


def test_nan_mask_only_where_nan() -> None:
    assert list(_nan_mask(_arrow_floats([1.0, None, float("nan")]))) == [False, False, True]
    assert list(_nan_mask(pd.Series([1.0, np.nan]))) == [False, True]
    masked = _nan_mask(_masked_floats([1.0, None, float("nan")]))  # (its null reads as NaN: not present anyway)
    assert not masked[0] and masked[2]


@pytest.mark.parametrize("dtype, integer, float_, decimal", [
    ("int64", True, False, False), ("Int32", True, False, False), ("float32", False, True, False),
    ("Float64", False, True, False), ("bool", False, False, False), ("boolean", False, False, False),
    ("object", False, False, False),
    (pd.ArrowDtype(pa.int8()), True, False, False), (pd.ArrowDtype(pa.float32()), False, True, False),
    (pd.ArrowDtype(pa.decimal128(5, 2)), False, False, True), (pd.ArrowDtype(pa.bool_()), False, False, False),
    (pd.ArrowDtype(pa.string()), False, False, False),
])
def test_dtype_is(dtype: object, integer: bool, float_: bool, decimal: bool) -> None:
    dt = pd.Series([], dtype=dtype).dtype
    assert (dtype_is(dt, "integer"), dtype_is(dt, "float"), dtype_is(dt, "decimal")) == (integer, float_, decimal)


def test_outside_includes_both_edges_and_nan_is_outside() -> None:
    assert not _outside(1, 1, 5) and not _outside(5, 1, 5) and not _outside(3, None, None)
    assert _outside(0, 1, 5) and _outside(6, 1, 5) and _outside(6, None, 5) and _outside(0, 1, None)
    assert _outside(float("nan"), None, 5) and _outside(float("nan"), 1, None)
    assert not _outside(float("nan"), None, None)


def test_split_names_the_rules_each_row_broke() -> None:
    df = pd.DataFrame({"x": [1, None, 9, 3], "y": ["a", "b", None, None]}, index=[10, 11, 12, 13])
    rules = [Rule("x_set", "not_null", column="x"), Rule("x_small", "between", column="x", params={"max": 5}),
             Rule("y_set", "not_null", column="y")]
    good, bad = split_pandas(df, rules, "_broken")
    assert list(good.index) == [10] and list(good.columns) == ["x", "y"]
    assert list(bad.index) == [11, 12, 13]
    assert list(bad["_broken"]) == ["x_set", "x_small,y_set", "y_set"]
    assert bad["_broken"].dtype == pd.ArrowDtype(pa.string())
    assert "_broken" not in df.columns  # the caller's frame is left as it was
    good, bad = split_pandas(df, [], "_broken")
    assert len(good) == 4 and len(bad) == 0 and list(bad.columns) == ["x", "y", "_broken"]


def test_measure_sums_numeric_columns_exactly_without_nulls_or_nan() -> None:
    df = pd.DataFrame({
        "i": pd.Series([2**62, 2**62, None], dtype="Int64"),  # beyond float precision: summed as ints
        "f": [1.5, np.nan, 2.0],
        "d": pd.Series([Decimal("1.25"), None, Decimal("2.50")], dtype=pd.ArrowDtype(pa.decimal128(5, 2))),
        "b": [True, True, False], "s": ["1", "2", "3"],
        "af": _arrow_floats([1.0, None, float("nan")]),
    })
    rows, sums = measure_pandas(df, ["i", "f", "d", "b", "s", "af", "missing"])
    assert rows == 3
    assert sums == {"i": 2**63, "f": 3.5, "d": 3.75, "af": 1.0}
    assert isinstance(sums["i"], int) and isinstance(sums["f"], float) and isinstance(sums["d"], float)
    assert measure_pandas(df.iloc[:0], ["i"]) == (0, {"i": 0})


def test_measure_goes_on_past_a_missing_column() -> None:
    df = pd.DataFrame({"i": [1, 2]})
    assert measure_pandas(df, ["missing", "i"]) == (2, {"i": 3})
