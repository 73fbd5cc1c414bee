"""Strings whose bytes are not valid UTF-8 hash the same on every engine.

Spark holds a string's bytes as it got them (a JSON reader's ``_corrupt_record``, a
``CAST(binary AS STRING)``, a file written by another tool), and the plugin writes them
byte for byte into the canonical line, escaping only the ASCII bytes spec 2.2 names. The
``mapInArrow`` fallback and the Arrow path (pandas frames, the pandas readers) must give
the same digest, also when such a string needs an escape.
"""
from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

import ubunye
from ubunye.spark import fingerprint_spark

VALUES = {
    "invalid and a quote": bytes.fromhex("7B2261223A202278FF79227D"),  # {"a": "x\xffy"}
    "invalid and a control byte": b"x\xff\ny\x01",
    "invalid alone": b"\xc3(",
    "valid with escapes": '"é\\\t😀'.encode("utf-8"),
}


@pytest.mark.parametrize("case", sorted(VALUES))
def test_top_level_strings_hash_the_same_on_native_fallback_and_arrow(spark: Any, case: str) -> None:
    raw = VALUES[case]
    df = spark.sql(f"SELECT CAST(X'{raw.hex()}' AS STRING) AS s, 1 AS n UNION ALL SELECT NULL, 2")
    table = pa.table({"s": pa.array([raw, None], pa.binary()).view(pa.string()),
                      "n": pa.array([1, 2], pa.int32())})
    expected = ubunye.fingerprint(table)
    assert expected.error is None, expected
    for engine in ("spark-native", "spark-sql"):
        fp = fingerprint_spark(df, engine=engine)
        assert (fp.error, fp.data_hash) == (None, expected.data_hash), engine


def test_nested_strings_hash_the_same_on_native_fallback_and_arrow(spark: Any) -> None:
    raw, bad = VALUES["invalid and a quote"], VALUES["invalid alone"]
    df = spark.sql(f"SELECT named_struct('s', CAST(X'{raw.hex()}' AS STRING), 'n', 1) AS t, "
                   f"array(CAST(X'{bad.hex()}' AS STRING), 'ok', NULL) AS l, "
                   f"map(CAST(X'{bad.hex()}' AS STRING), CAST(X'{raw.hex()}' AS STRING)) AS m")
    strings = lambda values: pa.array(values, pa.binary()).view(pa.string())  # noqa: E731
    table = pa.table({
        "t": pa.StructArray.from_arrays([strings([raw]), pa.array([1], pa.int32())], ["s", "n"]),
        "l": pa.ListArray.from_arrays(pa.array([0, 3], pa.int32()), strings([bad, b"ok", None])),
        "m": pa.MapArray.from_arrays(pa.array([0, 1], pa.int32()), strings([bad]), strings([raw])),
    })
    expected = ubunye.fingerprint(table)
    assert expected.error is None, expected
    for engine in ("spark-native", "spark-sql"):
        fp = fingerprint_spark(df, engine=engine)
        assert (fp.error, fp.data_hash) == (None, expected.data_hash), engine
