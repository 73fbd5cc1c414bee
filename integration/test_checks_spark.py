"""Counting expectation breaks on Spark (``ubunye.engine.checks_spark``), each rule kind at its
edges: the counts, the details, NaN beside null, awkward column names, the 0.8.0 forms, the
quarantine split, the numeric totals, and the one evaluation of a quarantined output.

These are the tests ``scripts/mutation engine/checks_spark`` runs (each mutant attached to one
JVM: ``integration/conftest.py``); the expected values are written out by hand."""
from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from ubunye.engine import checks_spark as cs
from ubunye.engine.errors import EngineError
from ubunye.engine.expectations import Outcome, Rule


def rule(kind: str, column: str | None = None, name: str | None = None, **params: Any) -> Rule:
    return Rule(name=name or f"{column}_{kind}", kind=kind, column=column, params=params)


@pytest.fixture(scope="module")
def nums(spark: Any) -> Any:
    """Six rows: an int, a double and a float column with NaN and null, a string."""
    nan = float("nan")
    rows = [(1, 1.0, 1.0, "a"), (2, 2.0, 2.0, "b"), (3, nan, nan, "c"), (None, None, None, None),
            (5, 5.0, 5.0, "a"), (6, -1.0, -1.0, "zz")]
    return spark.createDataFrame(rows, "i int, d double, f float, s string")


def outcomes(df: Any, *rules: Rule) -> list[Outcome]:
    return cs.evaluate_spark(df, list(rules))


def test_row_count_at_and_past_each_bound(nums: Any) -> None:
    got = outcomes(nums, rule("row_count", min=6), rule("row_count", max=6), rule("row_count", min=6, max=6),
                   rule("row_count", min=7), rule("row_count", max=5), rule("row_count", min=1, max=5))
    assert got == [Outcome(0, 1), Outcome(0, 1), Outcome(0, 1),
                   Outcome(1, 1, "6 rows"), Outcome(1, 1, "6 rows"), Outcome(1, 1, "6 rows")]


def test_not_null_counts_null_but_not_nan(nums: Any) -> None:
    assert outcomes(nums, rule("not_null", "d"), rule("not_null", "f"), rule("not_null", "i")) == [
        Outcome(1, 6), Outcome(1, 6), Outcome(1, 6)]


def test_between_bounds_are_inclusive_and_nan_is_outside(nums: Any) -> None:
    got = outcomes(nums, rule("between", "i", min=2, max=5), rule("between", "i", min=2), rule("between", "i", max=2),
                   rule("between", "d", min=1, max=5), rule("between", "f", min=-1, max=5),
                   rule("between", "d", min=-10), rule("between", "f", max=10), rule("between", "f", min=-10))
    # i: 1,2,3,None,5,6; d and f: 1,2,NaN,None,5,-1 (NaN breaks every range, null none; NaN >= min
    # holds in Spark, so with a min alone only the NaN test breaks it)
    assert [o.failed for o in got] == [2, 1, 3, 2, 1, 1, 1, 1]
    assert all(o.total == 6 and o.detail is None for o in got)


def test_one_of_ignores_null_and_a_null_listed(nums: Any) -> None:
    got = outcomes(nums, rule("one_of", "s", values=["a", "b", None]), rule("one_of", "i", values=[1, 2, 3]))
    assert got == [Outcome(2, 6), Outcome(2, 6)]  # c, zz; 5, 6


def test_matches_is_the_whole_value_with_dot_matching_line_ends(spark: Any) -> None:
    df = spark.createDataFrame([("ab",), ("ax",), ("a\nb",), ("ab\n",), ("xab",), (None,), ("b",)], "s string")
    got = outcomes(df, rule("matches", "s", name="alt", pattern="a|b"), rule("matches", "s", name="dot", pattern="a.b"),
                   rule("matches", "s", name="ab", pattern="ab"))
    # alt: only b passes; dot: a\nb passes; ab: only ab (not ab\n, not xab); null passes each
    assert got == [Outcome(5, 7), Outcome(5, 7), Outcome(5, 7)]


def test_matches_on_a_number_reads_its_text(nums: Any) -> None:
    assert outcomes(nums, rule("matches", "i", pattern="[1-3]")) == [Outcome(2, 6)]  # 5, 6


def test_anywhere_finds_the_pattern_and_dot_stops_only_at_a_newline(spark: Any) -> None:
    df = spark.createDataFrame([("xa\rbx",), ("xa\nbx",), ("ab",), ("zzz",), (None,)], "s string")
    got = outcomes(df, rule("matches", "s", pattern="a.b", anywhere=True), rule("matches", "s", name="b", pattern="b",
                                                                                 anywhere=True))
    assert got == [Outcome(3, 5), Outcome(1, 5)]  # a\nb, ab, zzz; zzz


def test_v080_forms_read_nan_as_missing(nums: Any) -> None:
    got = outcomes(nums, rule("not_null", "d", v080=True), rule("not_null", "f", v080=True),
                   rule("not_null", "i", v080=True), rule("between", "d", min=0, max=3, v080=True),
                   rule("one_of", "f", values=[1.0, 2.0], v080=True), rule("between", "i", min=2, max=5, v080=True))
    # NaN is missing: not_null breaks on it, between and one_of pass it
    assert [o.failed for o in got] == [2, 2, 1, 2, 2, 2]


def test_v080_not_null_on_text_reads_the_text_nan_as_a_value(spark: Any) -> None:
    df = spark.createDataFrame([("NaN",), ("x",), (None,)], "s string")
    assert outcomes(df, rule("not_null", "s", v080=True), rule("between", "s", max="z", v080=True)) == [
        Outcome(1, 3), Outcome(0, 3)]  # only null is missing: NaN is missing only in a float column


def test_v080_matches_still_reads_nan_as_a_value(nums: Any) -> None:
    assert outcomes(nums, rule("matches", "d", pattern="[0-9.]+", v080=True)) == [Outcome(2, 6)]  # NaN, -1.0


def test_unique_leaves_null_keys_out(spark: Any) -> None:
    df = spark.createDataFrame([(1, "a"), (1, "a"), (1, "a"), (2, "a"), (None, "a"), (None, "a"), (2, None), (2, None)],
                               "k int, t string")
    got = outcomes(df, rule("unique", "k"), rule("unique", name="kt", columns=["k", "t"]), rule("unique", "t"))
    assert got == [Outcome(4, 8), Outcome(2, 8), Outcome(5, 8)]


def test_unique_v080_counts_every_row_of_a_repeated_key_null_too(spark: Any) -> None:
    df = spark.createDataFrame([(1,), (1,), (2,), (None,), (None,), (3,)], "k int")
    got = outcomes(df, rule("unique", "k", v080=True), rule("unique", "k"))
    assert got == [Outcome(4, 6), Outcome(1, 6)]
    once = spark.createDataFrame([(1,), (2,)], "k int")
    assert outcomes(once, rule("unique", "k", v080=True), rule("unique", "k")) == [Outcome(0, 2), Outcome(0, 2)]


def test_unique_on_a_case_sensitive_session(spark: Any, spark_conf: Any) -> None:
    with spark_conf({"spark.sql.caseSensitive": "true"}):
        df = spark.createDataFrame([(1, 1), (1, 2), (2, 2)], "k int, K int")
        got = outcomes(df, rule("unique", "k"), rule("unique", "K"), rule("unique", "K", v080=True))
        assert got == [Outcome(1, 3), Outcome(1, 3), Outcome(2, 3)]


def test_a_missing_column_breaks_every_row_and_is_named(nums: Any) -> None:
    got = outcomes(nums, rule("not_null", "nope"), rule("unique", name="u", columns=["i", "gone"]),
                   rule("matches", "x", pattern="a"))
    assert got == [Outcome(6, 6, "no column 'nope'"), Outcome(6, 6, "no column 'gone'"), Outcome(6, 6, "no column 'x'")]


def test_columns_rule_reads_the_frames_kinds(nums: Any) -> None:
    assert cs.spark_frame_kinds(nums) == [("i", "int32"), ("d", "float64"), ("f", "float32"), ("s", "string")]
    got = outcomes(nums, rule("columns", columns={"i": "int32", "s": "string"}),
                   rule("columns", columns={"i": "int64", "q": None}))
    assert got[0].failed == 0
    assert got[1].failed == 2 and got[1].detail and "i is int32, expected int64" in got[1].detail


def test_names_with_dots_and_backticks_are_quoted(spark: Any) -> None:
    df = spark.createDataFrame([(1, None, 7), (None, 2, 7), (None, 2, 8), (1, 3, 7)],
                               "`a.b` int, `we``ird` int, count int")
    got = outcomes(df, rule("not_null", "a.b"), rule("not_null", "we`ird"), rule("unique", "we`ird"),
                   rule("between", "a.b", min=5), rule("unique", "a.b"), rule("unique", "count"),
                   rule("unique", name="all", columns=["a.b", "we`ird", "count"]), rule("unique", "count", v080=True))
    assert [o.failed for o in got] == [2, 1, 1, 2, 1, 2, 0, 3]


def test_an_empty_frame_breaks_nothing(spark: Any) -> None:
    df = spark.createDataFrame([], "i int, s string")
    got = outcomes(df, rule("not_null", "i"), rule("unique", "i"), rule("unique", "i", v080=True),
                   rule("row_count", min=0))
    assert got == [Outcome(0, 0), Outcome(0, 0), Outcome(0, 0), Outcome(0, 1)]


def test_extra_aggregates_come_back_in_order_from_the_same_scan(nums: Any) -> None:
    from pyspark.sql import functions as F

    out, extra = cs.evaluate_spark_with(nums, [rule("not_null", "i")], [F.max("i"), F.min("i"), F.count("s")])
    assert out == [Outcome(1, 6)]
    assert extra == [6, 1, 5]
    assert cs.evaluate_spark_with(nums, [rule("row_count", min=1)]) == ([Outcome(0, 1)], [])


def test_split_names_each_rule_a_row_broke_in_rule_order(nums: Any) -> None:
    rules = [rule("row_count", min=100), rule("not_null", "i", name="i_set"), rule("unique", "s"),
             rule("between", "d", name="small", max=1.5), rule("between", "d", name="pos", min=0),
             rule("between", "f", name="fpos", min=0), rule("one_of", "s", name="ab", values=["a", "b"]),
             rule("not_null", "gone")]
    kept, quarantined = cs.split_spark(nums, rules, "why")
    assert sorted(r["i"] for r in kept.collect()) == [1]
    assert kept.columns == nums.columns
    assert quarantined.columns == nums.columns + ["why"]
    reasons = {r["i"]: r["why"] for r in quarantined.collect()}
    assert reasons == {2: "small", 3: "small,pos,fpos,ab", None: "i_set", 5: "small", 6: "pos,fpos,ab"}


def test_split_without_row_rules_keeps_every_row(nums: Any) -> None:
    kept, quarantined = cs.split_spark(nums, [rule("row_count", min=100), rule("unique", "s")], "why")
    assert kept.count() == 6
    assert quarantined.count() == 0
    assert dict(quarantined.dtypes)["why"] == "string"


def test_split_puts_a_row_whose_check_is_null_in_the_kept_output(spark: Any, spark_conf: Any) -> None:
    # ANSI off, the 0.8.0 form (Spark's cast): a text that is not a number compares as null; the row
    # breaks no rule (as evaluate counts it). A number bound on texts (not 0.8.0): every text breaks it.
    df = spark.createDataFrame([("1",), ("abc",), ("9",)], "s string")
    v080 = [rule("between", "s", name="v", max=5, v080=True)]
    with spark_conf({"spark.sql.ansi.enabled": "false"}):
        kept, quarantined = cs.split_spark(df, v080, "why")
        assert sorted(r["s"] for r in kept.collect()) == ["1", "abc"]
        assert [(r["s"], r["why"]) for r in quarantined.collect()] == [("9", "v")]
        assert [o.failed for o in cs.evaluate_spark(df, v080)] == [1]
        small = [rule("between", "s", name="small", max=5)]
        assert sorted(r["s"] for r in cs.split_spark(df, small, "why")[1].collect()) == ["1", "9", "abc"]
        assert [o.failed for o in cs.evaluate_spark(df, small)] == [3]


def test_measure_totals_numeric_columns_without_nan_or_null(spark: Any) -> None:
    nan = float("nan")
    df = spark.createDataFrame(
        [(1, 2, 3, 2_000_000_000, 1.5, 0.25, Decimal("1.25"), "x", None),
         (2, 3, 4, 2_000_000_000, nan, nan, Decimal("2.50"), "y", None),
         (None, None, None, None, None, None, None, None, None)],
        "b byte, h short, i int, l long, d double, f float, m decimal(10,2), s string, n double")
    rows, sums = cs.measure_spark(df, ["b", "h", "i", "l", "d", "f", "m", "s", "n", "gone"])
    assert rows == 3
    assert sums == {"b": 3, "h": 5, "i": 7, "l": 4_000_000_000, "d": 1.5, "f": 0.25, "m": Decimal("3.75"), "n": 0.0}
    assert [type(sums[c]) for c in ("b", "i", "d", "f", "m", "n")] == [int, int, float, float, Decimal, float]


def test_measure_an_all_null_integer_column_is_zero(spark: Any) -> None:
    df = spark.createDataFrame([(None,), (None,)], "i int")
    assert cs.measure_spark(df, ["i"]) == (2, {"i": 0})
    assert type(cs.measure_spark(df, ["i"])[1]["i"]) is int
    assert cs.measure_spark(df, []) == (2, {})


def test_measure_int_totals_past_the_int_range(spark: Any) -> None:
    df = spark.createDataFrame([(2_000_000_000,), (2_000_000_000,)], "i int")
    assert cs.measure_spark(df, ["i"]) == (2, {"i": 4_000_000_000})


def test_materialise_evaluates_the_frame_once_now(spark: Any) -> None:
    from pyspark.sql import functions as F

    df = spark.range(3).withColumn("r", F.rand())
    once = cs.materialise_spark(df)
    plan = once._jdf.queryExecution().analyzed().toString()
    assert "Range" not in plan and "rand" not in plan, plan  # a scan of the blocks, not the plan
    assert [r["id"] for r in once.collect()] == [0, 1, 2]
    failing = spark.range(1).select(F.raise_error(F.lit("no such luck")).alias("x"))
    with pytest.raises(EngineError, match=r"^quarantine needs the output evaluated once \(localCheckpoint\), "
                                          r"which this session refused: .*no such luck") as caught:
        cs.materialise_spark(failing)  # eager: the plan runs here, not at the first count
    assert "\n" not in str(caught.value)
    assert caught.value.__cause__ is not None


class _Refusing:
    def __init__(self, exc: Exception) -> None:
        self.exc = exc
        self.calls: list[dict[str, Any]] = []

    def localCheckpoint(self, **kwargs: Any) -> Any:
        self.calls.append(kwargs)
        raise self.exc


def test_materialise_names_the_first_line_of_the_refusal_or_its_type() -> None:
    frame = _Refusing(RuntimeError("\n  not here\nsecond line"))
    with pytest.raises(EngineError) as caught:
        cs.materialise_spark(frame)
    assert str(caught.value).endswith("which this session refused: not here")
    assert frame.calls == [{"eager": True}]
    assert caught.value.__cause__ is frame.exc
    with pytest.raises(EngineError) as caught:
        cs.materialise_spark(_Refusing(ValueError("  ")))
    assert str(caught.value).endswith("which this session refused: ValueError")


class _Py4JError(Exception):
    """py4j's error as pyspark 3.5 raises it: its first line names only the call; the JVM's error
    is ``java_exception`` (``toString()``: the class and the message)."""

    def __init__(self, java: Any) -> None:
        super().__init__("An error occurred while calling o42.localCheckpoint.\n: org.apache.spark.SparkException ...")
        self.java_exception = java


class _JavaError:
    def __init__(self, text: str | None) -> None:
        self.text = text

    def toString(self) -> str:  # noqa: N802 - the JVM's name
        if self.text is None:
            raise ConnectionError("the JVM is gone")
        return self.text


def test_materialise_names_the_jvms_error_not_py4js_call() -> None:
    jvm_line = "org.apache.spark.SparkRuntimeException: no such luck"
    with pytest.raises(EngineError) as caught:
        cs.materialise_spark(_Refusing(_Py4JError(_JavaError(jvm_line + "\n\tat org.apache.spark.Foo"))))
    assert str(caught.value).endswith("which this session refused: " + jvm_line)
    with pytest.raises(EngineError) as caught:  # the JVM gone: py4j's own line is kept
        cs.materialise_spark(_Refusing(_Py4JError(_JavaError(None))))
    assert str(caught.value).endswith("which this session refused: An error occurred while calling o42.localCheckpoint.")


def test_between_on_a_string_column_breaks_each_value_and_names_rule_and_column(nums: Any) -> None:
    # before: Spark cast the strings to numbers (Spark 4.1, ANSI: the job failed with CAST_INVALID_INPUT)
    got = outcomes(nums, rule("between", "s", min=1, max=5))
    assert got == [Outcome(5, 6, "column 's' holds string values; between compares numbers (min/max)")]
    kept, quarantined = cs.split_spark(nums, [rule("between", "s", min=1)], "__why")
    assert (kept.count(), quarantined.count()) == (1, 5)  # the null passes, as every row rule lets it
