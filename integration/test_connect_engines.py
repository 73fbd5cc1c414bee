"""Spark Connect: against local Connect servers that the suite starts.

- Without the plugin on the server, ``fingerprint_spark`` uses the fallback
  (``mapInArrow`` on the server's Python workers) and gives the spec's digests.
- With ``spark.sql.extensions`` and ``spark.jars`` on the server, the functions
  exist in the Connect session: the native aggregate runs through
  ``call_function`` and gives the same digests; the fallback is still there.
"""
from __future__ import annotations

from typing import Any

import pytest

from ubunye.spark import JarError, fingerprint_spark, install, native_available
from ubunye.spark._compat import is_connect
from ubunye.spark.native import rows_v1_hash_column, rows_v1_sums_column
from ubunye.spark.testing import fixture_dataframe
from ubunye.testing.fixtures import fixtures_dir, load_fixture

# a spread of kinds: every scalar, nesting, awkward names, no columns, failures
FIXTURES = (
    "reference_3rows", "mixed_random_1000", "ints", "decimals", "binary", "floats32", "doubles",
    "strings", "names", "lists", "structs", "maps", "map_temporal_keys", "map_decimal_float32",
    "timestamp_ntz", "no_columns_rows", "empty_tables_nested", "error_map_struct_key",
)


def check(fp: Any, fx: Any, engine: str) -> None:
    assert fp.engine == engine
    if fx.expect.fails:
        assert fp.data_hash is None and fx.expect.error in (fp.error or ""), fp.error
    else:
        assert (fp.error, fp.row_count, fp.schema_hash, fp.data_hash) == (
            None, fx.expect.row_count, fx.expect.schema_hash, fx.expect.data_hash)


def test_sessions_are_spark_connect(connect_plain: Any, connect_native: Any) -> None:
    assert is_connect(connect_plain) and is_connect(connect_native)
    assert not native_available(connect_plain)
    assert native_available(connect_native)


@pytest.mark.parametrize("name", FIXTURES)
def test_server_without_plugin_uses_the_fallback(connect_plain: Any, name: str) -> None:
    fx = load_fixture(fixtures_dir() / f"{name}.json")
    check(fingerprint_spark(fixture_dataframe(connect_plain, fx)), fx, "spark-sql")


@pytest.mark.parametrize("name", FIXTURES)
def test_server_with_plugin_uses_the_native_aggregate(connect_native: Any, name: str) -> None:
    fx = load_fixture(fixtures_dir() / f"{name}.json")
    df = fixture_dataframe(connect_native, fx)
    check(fingerprint_spark(df), fx, "spark-native")
    check(fingerprint_spark(df, engine="spark-sql"), fx, "spark-sql")


def test_native_columns_through_call_function(connect_native: Any) -> None:
    fx = load_fixture(fixtures_dir() / "mixed_random_1000.json")
    df = fixture_dataframe(connect_native, fx)
    row = df.agg(rows_v1_hash_column(df).alias("h"), rows_v1_sums_column(df).alias("s")).collect()[0]
    assert row["h"] == fx.expect.data_hash
    assert row["s"]["rows"] == 1000


def test_forcing_native_without_the_plugin_says_why(connect_plain: Any) -> None:
    df = connect_plain.range(3)
    with pytest.raises(JarError, match="ubunye_rows_v1_sums"):
        fingerprint_spark(df, engine="spark-native")


def test_install_refuses_a_connect_session(connect_plain: Any) -> None:
    with pytest.raises(TypeError, match="spark.sql.extensions"):
        install(connect_plain)


def test_time_zone_of_the_connect_session_does_not_move_the_digest(connect_plain: Any) -> None:
    fx = load_fixture(fixtures_dir() / "map_temporal_keys.json")
    old = connect_plain.conf.get("spark.sql.session.timeZone")
    connect_plain.conf.set("spark.sql.session.timeZone", "America/Los_Angeles")
    try:
        check(fingerprint_spark(fixture_dataframe(connect_plain, fx)), fx, "spark-sql")
    finally:
        connect_plain.conf.set("spark.sql.session.timeZone", old)
