"""Every rows-v1 fixture gives its expected digest on Spark native, Spark fallback and pandas,
and the same localisation sketch on native and fallback.

The native aggregate's SQL forms are checked too: ``ubunye_rows_v1(*)`` returns
the data hash and ``ubunye_row_line(*)`` the fixture's canonical lines.

A fixture pyspark cannot take as Python values (columns with an Arrow type of
their own, such as ``uint8``; years ``datetime`` cannot hold) reaches Spark as
the fixture format says: Spark reads a parquet file written from the Arrow table.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow.parquet as pq
import pytest

import ubunye
from ubunye.spark import fingerprint_spark
from ubunye.spark.native import row_line_column, rows_v1_hash_column
from ubunye.spark.testing import fixture_dataframe
from ubunye.hashing.temporal import Days, Micros
from ubunye.testing.fixtures import Fixture, fixtures_dir, load_fixture

# the shared fixtures, and the project's own from Spark's output (scripts/fixtures-from-spark)
EXTRA = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "rows-v1-extra"
FIXTURE_PATHS = sorted(fixtures_dir().glob("*.json")) + sorted(EXTRA.glob("*.json"))
ENGINES = ("spark-native", "spark-sql")


def through_parquet(fx: Fixture) -> bool:
    """Whether ``fx`` is built from parquet: own Arrow types, or values ``datetime`` cannot hold."""
    far = any(isinstance(v, (Days, Micros)) for row in fx.rows for v in row.values())
    return fx.arrow_typed or far


def spark_frame(spark: Any, fx: Fixture, folder: Path) -> Any:
    """The fixture as a Spark DataFrame, with the fixture's Spark types (checked when read from parquet)."""
    if not through_parquet(fx):
        return fixture_dataframe(spark, fx)
    path = folder / f"{fx.name}.parquet"
    pq.write_table(fx.arrow_table(), path)
    df = spark.read.parquet(str(path))
    want = spark.createDataFrame([], fx.spark_ddl()).schema
    assert [(f.name, f.dataType) for f in df.schema] == [(f.name, f.dataType) for f in want]
    return df


def test_the_new_fixtures_go_through_parquet() -> None:
    names = {p.stem for p in FIXTURE_PATHS if through_parquet(load_fixture(p))}
    assert {"unsigned_ints", "far_years", "far_february"} <= names


def check(fp: Any, fx: Any, engine: str) -> None:
    """``fp`` is the fixture's expected fingerprint, or fails with its expected error."""
    assert fp.engine == engine
    assert fp.reason == (None if engine == "spark-native" else "engine='spark-sql' was asked for")
    if fx.expect.fails:
        assert fp.data_hash is None and fp.row_count is None
        assert fp.error is not None and fx.expect.error in fp.error, fp.error
        assert fp.error.startswith("RowsV1Error: ")
        return
    assert fp.error is None, fp.error
    assert (fp.row_count, fp.schema_hash, fp.data_hash) == (
        fx.expect.row_count, fx.expect.schema_hash, fx.expect.data_hash)


@pytest.mark.parametrize("path", FIXTURE_PATHS, ids=[p.stem for p in FIXTURE_PATHS])
def test_fixture_digest_on_native_and_fallback(spark: Any, path: Any, tmp_path: Path) -> None:
    fx = load_fixture(path)
    df = spark_frame(spark, fx, tmp_path).cache()
    try:
        fps = {engine: fingerprint_spark(df, engine=engine) for engine in ENGINES}
        for engine, fp in fps.items():
            check(fp, fx, engine)
        if not fx.expect.fails:  # the sketch's cells: the native aggregate's are the fallback's
            assert fps["spark-native"].sketch is not None and fps["spark-native"].sketch == fps["spark-sql"].sketch
    finally:
        df.unpersist()


@pytest.mark.parametrize("path", FIXTURE_PATHS, ids=[p.stem for p in FIXTURE_PATHS])
def test_fixture_digest_on_pandas(path: Any) -> None:
    """The third engine of the comparison (the pandas suite under tests/ checks it in depth)."""
    fx = load_fixture(path)
    if fx.columns:
        frame = fx.arrow_table().to_pandas(types_mapper=pd.ArrowDtype)
    else:  # an Arrow table without columns has no rows; pandas keeps them in the index
        frame = pd.DataFrame(index=range(len(fx.rows)))
    fp = ubunye.fingerprint(frame)
    if fx.expect.fails:
        assert fp.data_hash is None and fx.expect.error in (fp.error or "")
    else:
        assert (fp.row_count, fp.schema_hash, fp.data_hash) == (
            fx.expect.row_count, fx.expect.schema_hash, fx.expect.data_hash)


@pytest.mark.parametrize("name", ["reference_3rows", "strings", "maps", "map_temporal_keys",
                                  "doubles", "floats32", "structs", "names", "no_columns_rows",
                                  "unsigned_ints", "far_years"])
def test_native_sql_functions_give_the_fixture_hash_and_lines(spark: Any, name: str, tmp_path: Path) -> None:
    fx = load_fixture(fixtures_dir() / f"{name}.json")
    df = spark_frame(spark, fx, tmp_path)
    assert df.agg(rows_v1_hash_column(df)).collect()[0][0] == fx.expect.data_hash
    lines = [r[0] for r in df.select(row_line_column(df)).collect()]
    assert sorted(lines) == sorted(fx.expect.lines or [])


def test_ubunye_fingerprint_picks_native_when_the_functions_exist(spark: Any) -> None:
    fx = load_fixture(fixtures_dir() / "mixed_random_1000.json")
    fp = ubunye.fingerprint(fixture_dataframe(spark, fx))
    assert (fp.engine, fp.data_hash) == ("spark-native", fx.expect.data_hash)


def test_sql_text_form_with_star(spark: Any) -> None:
    """``SELECT ubunye_rows_v1(*)`` in SQL names the columns as the DataFrame form does."""
    fx = load_fixture(fixtures_dir() / "reference_3rows.json")
    fixture_dataframe(spark, fx).createOrReplaceTempView("ubunye_reference_3rows")
    try:
        row = spark.sql(
            "SELECT ubunye_rows_v1(*) AS h, ubunye_rows_v1_sums(*) AS s FROM ubunye_reference_3rows"
        ).collect()[0]
    finally:
        spark.catalog.dropTempView("ubunye_reference_3rows")
    assert row["h"] == fx.expect.data_hash
    assert row["s"]["rows"] == 3


def test_columns_whose_names_differ_only_in_case(spark: Any) -> None:
    """Spark resolves names case-insensitively; the engines never look columns up by name."""
    df = spark.createDataFrame([(1, "x", 2.5), (None, "y", None)], "a INT, A STRING, `a.b` DOUBLE")
    frame = pd.DataFrame({"a": pd.array([1, None], "Int32"), "A": ["x", "y"], "a.b": [2.5, None]})
    expected = ubunye.fingerprint(frame)
    assert expected.ok and expected.row_count == 2
    for engine in ENGINES:
        fp = fingerprint_spark(df, engine=engine)
        assert (fp.error, fp.data_hash) == (None, expected.data_hash), engine
