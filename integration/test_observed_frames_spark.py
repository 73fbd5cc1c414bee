"""Frames observed by the plugin's planner node (what a lineage run puts over each
output, and over each input it hashes while the run reads it).

The observed sums equal a second pass, are in the driver as soon as the write
returns, and come from inside the write's generated code; without the node on the
driver the engine observes with a classic ``Observation`` and gets the same sums;
a frame no query read, or one with a column that has no rows-v1 text, gives no
sums and a one-line reason.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ubunye.spark import fingerprint_spark, observations
from ubunye.spark.observe import SumsObserver


def _frame(spark: Any) -> Any:
    return spark.range(0, 4000, 1, 3).selectExpr(
        "id", "concat('n\"', cast(id % 13 AS string)) AS name", "id / 7.0D AS score",
        "IF(id % 5 = 0, NULL, array('a', cast(id % 3 AS string))) AS tags")


def test_planned_observation_equals_a_second_pass(spark: Any, tmp_path: Path) -> None:
    frame = _frame(spark)
    observer = SumsObserver()
    handle, observed, why = observer.attach(frame, "out")
    assert why is None and handle is not None and handle.planned
    assert "RowsV1Observed" in observed._jdf.queryExecution().optimizedPlan().toString()  # noqa: SLF001
    observed.write.mode("overwrite").parquet(str(tmp_path / "out"))
    same_pass, why = observer.result(handle, frame, spark=spark)
    second = fingerprint_spark(frame, engine="spark-native")
    assert why is None and same_pass is not None
    assert (same_pass.row_count, same_pass.schema_hash, same_pass.data_hash) == (
        4000, second.schema_hash, second.data_hash)


def test_without_the_planner_node_a_classic_observation_gives_the_same_sums(
        spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(observations, "available", lambda _spark: False)
    frame = _frame(spark)
    observer = SumsObserver()
    handle, observed, why = observer.attach(frame, "out")
    assert why is None and handle is not None and not handle.planned and handle.observation is not None
    observed.write.mode("overwrite").parquet(str(tmp_path / "out"))
    same_pass, why = observer.result(handle, frame, spark=spark)
    assert why is None and same_pass is not None
    assert same_pass.data_hash == fingerprint_spark(frame, engine="spark-native").data_hash


def test_a_frame_no_query_read_and_a_column_with_no_text_give_reasons(spark: Any) -> None:
    observer = SumsObserver()
    handle, _, _ = observer.attach(_frame(spark), "never_read")
    fp, why = observer.result(handle, _frame(spark), spark=spark, wait=False)
    assert fp is None and why == "no query of the run read it"
    bad = spark.sql("SELECT 1 AS a, 2 AS a")
    handle, frame, why = observer.attach(bad, "bad")
    assert handle is None and frame is bad and why is not None
    assert "'a'" in why and "\n" not in why


def test_a_failed_observed_write_leaves_no_observation_behind(
        spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import re

    from ubunye.engine.backends.spark_backend import SparkBackend
    from ubunye.engine.config import IOSpec

    # the observations the backend attaches, their frames kept alive: then a name goes
    # only by being read or forgotten (the JVM also releases the name of a frame it
    # collected, so counting pending names would depend on the garbage collector)
    attached: list[tuple[str, Any]] = []
    real_attach = observations.attach

    def attach(frame: Any, name: str, *args: Any, **kwargs: Any) -> Any:
        observed = real_attach(frame, name, *args, **kwargs)
        attached.append((name, observed))
        return observed

    monkeypatch.setattr(observations, "attach", attach)
    (tmp_path / "a_file").write_text("not a directory")
    spec = IOSpec("out", "output", "parquet", path=str(tmp_path / "a_file" / "out"))
    backend = SparkBackend(spark)
    with pytest.raises(Exception):
        backend.write(_frame(spark), spec, hash_output=True)
    # and a write that succeeds reads its observation and drops it too
    ok = IOSpec("out", "output", "parquet", path=str(tmp_path / "out"))
    assert backend.write(_frame(spark), ok, hash_output=True).fingerprint.row_count == 4000
    assert len(attached) == 2
    for name, _ in attached:
        with pytest.raises(Exception, match=re.escape(f"no rows-v1 observation '{name}'")):
            observations.read(spark, name, forget=False)
