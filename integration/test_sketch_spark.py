"""The rows-v1 sketch on Spark's mapInArrow fallback: the fixture cells, partitions merged."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from ubunye.spark.fingerprint import fingerprint_spark

VECTORS = json.loads((Path(__file__).parents[1] / "tests" / "fixtures" / "sketch" / "vectors.json").read_text("utf-8"))


def test_fallback_gives_the_fixture_cells_over_several_partitions(spark: Any) -> None:
    for case in VECTORS["cases"]:
        if (case["cells"], case["k"]) != (320, 5) or not case["rows"]:
            continue
        ddl = ", ".join(f"`{n}` {'bigint' if k == 'int64' else k}" for n, k in case["schema"].items())
        df = spark.createDataFrame([tuple(r[n] for n in case["schema"]) for r in case["rows"]], ddl).repartition(2)
        fp = fingerprint_spark(df, engine="spark-sql")
        want = np.zeros((case["cells"], 4), dtype=np.uint64)
        for i, cell in case["expected_cells"].items():
            want[int(i)] = [int(v) for v in cell]
        assert fp.sketch is not None and (fp.sketch.data == want).all(), case["name"]
