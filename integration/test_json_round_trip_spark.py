"""A json output's rows hashed in the write after a round trip through Spark's own json writer and
reader (the plugin's planner node with ``json``: ``org.apache.spark.sql.ubunye.JsonRoundTrip``):
the node's sums equal the hash of the files the write created, read back as the engine reads
them (the writer's options, the written schema, FAILFAST), where the frame's own hash differs
(timestamps cut to milliseconds by the text). Where a line's round trip is not what reading the
files gives (``multiLine``, ``lineSep``, ``pretty`` ...) the node is refused, saying why; where a
row's round trip fails as the FAILFAST read-back fails, the node says so (``broken``)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ubunye.spark import fingerprint_spark, observations
from ubunye.spark._compat import schema_ddl
from ubunye.spark.observe import SumsObserver


def _frame(spark: Any) -> Any:
    return spark.range(0, 3000, 1, 3).selectExpr(
        "id", "IF(id % 7 = 0, NULL, concat('line\\n', cast(id AS string), ' \"q\" é ')) AS text",
        "id / 7.0D AS ratio", "CAST(id / 3 AS DECIMAL(12, 4)) AS amount",
        "IF(id % 11 = 0, CAST('NaN' AS DOUBLE), CAST(id AS DOUBLE) * 1e-300) AS tiny",
        "timestamp_micros(1700000000123456 + id * 1000001) AS at", "date_add(DATE'2020-02-28', CAST(id AS INT)) AS day",
        "named_struct('a', id % 3 = 0, 'b', IF(id % 5 = 0, NULL, array(id, -id))) AS s",
        "map('k', CAST(id AS STRING)) AS m", "'' AS empty")


def _round_trip(spark: Any, tmp: Path, write: dict[str, str], read: dict[str, str]) -> tuple[Any, Any, Any]:
    """(the node's fingerprint, the read-back files' fingerprint, the frame's fingerprint)."""
    frame = _frame(spark)
    observer = SumsObserver()
    handle, observed, why = observer.attach(frame, "out", json=(write, read))
    assert why is None and handle is not None, why
    assert "RowsV1Observed" in observed._jdf.queryExecution().optimizedPlan().toString()  # noqa: SLF001
    observed.write.mode("overwrite").options(**write).json(str(tmp / "out"))
    assert not observations.broken(spark, handle.name)
    node, why = observer.result(handle, frame, spark=spark)
    assert why is None and node is not None
    files = spark.read.format("json").options(**read).schema(schema_ddl(frame)).load(str(tmp / "out"))
    return node, fingerprint_spark(files, engine="spark-native"), fingerprint_spark(frame, engine="spark-native")


@pytest.mark.parametrize("write", [{}, {"timestampFormat": "yyyy-MM-dd HH:mm:ss.SSSSSS", "ignoreNullFields": "false",
                                        "dateFormat": "dd/MM/yyyy", "compression": "gzip"}])
def test_the_round_trip_hash_is_the_files_hash(spark: Any, tmp_path: Path, write: dict[str, str]) -> None:
    node, files, frame = _round_trip(spark, tmp_path, write, {**{k.lower(): v for k, v in write.items()},
                                                              "mode": "FAILFAST"})
    assert (node.row_count, node.schema_hash, node.data_hash) == (3000, files.schema_hash, files.data_hash)
    if not write:  # the default timestampFormat keeps milliseconds: the frame's hash is not the files'
        assert frame.data_hash != files.data_hash


@pytest.mark.parametrize("write, read", [({}, {"multiLine": "true"}), ({"pretty": "true"}, {}),
                                         ({"lineSep": "\u0001"}, {"lineSep": "\u0001"}),
                                         ({"encoding": "UTF-16"}, {"encoding": "UTF-16"})])
def test_settings_under_which_a_line_is_not_read_alone_refuse_the_round_trip(
        spark: Any, write: dict[str, str], read: dict[str, str]) -> None:
    handle, frame, why = SumsObserver().attach(_frame(spark), "out", json=(write, read))
    assert handle is None and why is not None and "no json round trip" in why, why


def test_a_row_whose_round_trip_fails_breaks_the_sums(spark: Any, tmp_path: Path) -> None:
    # the reader refuses NaN (written as the string "NaN"): FAILFAST fails the read-back, the node says broken
    frame = _frame(spark)
    observer = SumsObserver()
    read = {"allownonnumericnumbers": "false", "mode": "FAILFAST"}
    handle, observed, why = observer.attach(frame, "out", json=({}, read))
    assert why is None and handle is not None
    observed.write.mode("overwrite").json(str(tmp_path / "out"))
    assert observations.broken(spark, handle.name)
    observations.forget(spark, handle.name)
    files = spark.read.format("json").options(**read).schema(schema_ddl(frame)).load(str(tmp_path / "out"))
    with pytest.raises(Exception, match="(?i)malformed|NaN"):  # the read-back fails as the round trip did
        files.collect()
