"""The rows-v1 sketch on Spark: the known-answer cells on the mapInArrow fallback, the native
aggregate and the planner node of a same-pass write (partitions merged); on a task's records."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ubunye.spark.fingerprint import fingerprint_spark

VECTORS = json.loads((Path(__file__).parents[1] / "tests" / "fixtures" / "sketch" / "vectors.json").read_text("utf-8"))
CASES = [c for c in VECTORS["cases"] if (c["cells"], c["k"]) == (320, 5)]


def frame(spark: Any, case: dict[str, Any]) -> Any:
    """The case's rows as a frame of two partitions."""
    ddl = ", ".join(f"`{n}` {'bigint' if k == 'int64' else k}" for n, k in case["schema"].items())
    return spark.createDataFrame([tuple(r[n] for n in case["schema"]) for r in case["rows"]], ddl).repartition(2)


def expected(case: dict[str, Any]) -> Any:
    want = np.zeros((case["cells"], 4), dtype=np.uint64)
    for i, cell in case["expected_cells"].items():
        want[int(i)] = [int(v) for v in cell]
    return want


def test_fallback_gives_the_fixture_cells_over_several_partitions(spark: Any) -> None:
    for case in CASES:
        if not case["rows"]:
            continue
        fp = fingerprint_spark(frame(spark, case), engine="spark-sql")
        assert fp.sketch is not None and (fp.sketch.data == expected(case)).all(), case["name"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_the_native_aggregate_gives_the_fixture_cells(spark: Any, case: dict[str, Any]) -> None:
    fp = fingerprint_spark(frame(spark, case), engine="spark-native")
    assert fp.engine == "spark-native" and fp.row_count == len(case["rows"])
    assert fp.sketch is not None and (fp.sketch.data == expected(case)).all()


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_a_planned_write_takes_the_fixture_cells_in_the_same_pass(spark: Any, case: dict[str, Any]) -> None:
    from ubunye.spark.observe import SumsObserver

    observer = SumsObserver()
    df = frame(spark, case)
    handle, observed, why = observer.attach(df, "sketch")
    assert handle is not None and handle.planned, why
    observed.write.format("noop").mode("overwrite").save()
    fp, why = observer.result(handle, df, spark=spark)
    assert fp is not None, why
    assert fp.sketch is not None and (fp.sketch.data == expected(case)).all()


def _table(spark: Any) -> Any:
    return spark.range(0, 5000, 1, 3).selectExpr("id", "cast(id % 7 AS string) AS s", "id * 0.5 AS x")


def test_a_same_pass_write_carries_the_fallbacks_sketch(spark: Any, tmp_path: Path) -> None:
    from ubunye.engine.backends.spark_backend import SAME_PASS, SparkBackend
    from ubunye.engine.config import IOSpec

    df = _table(spark)
    done = SparkBackend(spark).write(df, IOSpec("out", "output", "parquet", path=str(tmp_path / "out")),
                                     hash_output=True)
    assert done.hash_pass == SAME_PASS
    assert done.fingerprint.sketch is not None
    assert done.fingerprint.sketch == fingerprint_spark(df, engine="spark-sql").sketch


def test_an_input_checked_and_hashed_in_one_scan_carries_the_fallbacks_sketch(spark: Any) -> None:
    from ubunye.engine.backends.spark_backend import SparkBackend
    from ubunye.engine.expectations import parse_rules

    df = _table(spark)
    rules = parse_rules([{"kind": "not_null", "column": "id"}], Path("config.yaml"), "x")
    _, fp = SparkBackend(spark).check_and_fingerprint(df, rules, hash_frame=True)
    assert fp.engine == "spark-native" and fp.sketch is not None
    assert fp.sketch == fingerprint_spark(df, engine="spark-sql").sketch
