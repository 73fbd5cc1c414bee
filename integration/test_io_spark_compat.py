"""``ubunye.io`` reads files the way Spark reads them: same kinds, same rows-v1 digests.

Files written by hand (CSV with Spark's quoting and inference corner cases,
JSON lines with nested and conflicting values) and files written by Spark
itself (CSV, JSON and parquet part folders) are read by Spark and by
``ubunye.io``; both fingerprints must agree.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ubunye.hashing import fingerprint
from ubunye.io import read_table
from ubunye.spark import fingerprint_spark

MIXED_CSV = (
    "id,big,huge,f,flag,day,ts,mix,s,e\n"
    '1,3000000000,99999999999999999999,1.5,TRUE,2024-01-02,2024-01-02T03:04:05.123Z,1,"a,b",\n'
    '2,,1,NaN,false,2024-02-29,2024-02-29 23:59:59,x,"q\\"uote",\n'
    "-3,5,2,Inf,,,2024-03-01,2.5,plain,\n"
)
ROWS_JSON = (
    '{"a": 1, "b": {"z": 1.5, "y": "t"}, "c": [1, 2], "d": "2024-01-02"}\n'
    '{"a": 2, "b": {"x": true}, "c": [], "e": null, "m": 1}\n'
    '{"a": 3, "m": "s", "big": 99999999999999999999}\n'
)


def spark_read(spark: Any, path: Path, fmt: str) -> Any:
    reader = spark.read
    if fmt == "csv":
        reader = reader.option("header", "true").option("inferSchema", "true")
    return reader.format(fmt).load(str(path))


@pytest.mark.parametrize("fmt, text", [("csv", MIXED_CSV), ("json", ROWS_JSON)])
def test_hand_written_files_read_like_spark(spark: Any, tmp_path: Path, fmt: str, text: str) -> None:
    path = tmp_path / f"data.{fmt}"
    path.write_text(text, encoding="utf-8")
    ours = fingerprint(read_table(path, fmt))
    theirs = fingerprint_spark(spark_read(spark, path, fmt))
    assert ours.error is None and theirs.error is None
    assert (ours.row_count, ours.schema_hash, ours.data_hash) == (
        theirs.row_count, theirs.schema_hash, theirs.data_hash)


@pytest.mark.parametrize("fmt", ["csv", "json", "parquet"])
def test_spark_written_part_folders(spark: Any, tmp_path: Path, fmt: str) -> None:
    df = spark.sql(
        "SELECT id, CAST(id * 1.5 AS DOUBLE) AS x, CONCAT('n\"', id) AS s, "
        "DATE'2024-01-01' + CAST(id AS INT) AS day, "
        "TIMESTAMP'2024-01-02 03:04:05.123456' + make_interval(0, 0, 0, 0, 0, 0, id) AS at "
        "FROM range(0, 50)"
    ).repartition(3)
    if fmt == "parquet":
        df = df.selectExpr("*", "array(id, id + 1) AS l", "named_struct('k', s, 'v', x) AS st")
    out = tmp_path / "out"
    writer = df.write.format(fmt)
    if fmt == "csv":
        writer = writer.option("header", "true")
    writer.save(str(out))
    theirs = fingerprint_spark(spark_read(spark, out, fmt))
    ours = fingerprint(read_table(out, fmt))
    assert ours.error is None and theirs.error is None
    assert (ours.row_count, ours.schema_hash, ours.data_hash) == (
        theirs.row_count, theirs.schema_hash, theirs.data_hash)
