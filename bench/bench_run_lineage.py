"""Benchmark: one task run over 2,000,000 rows on Spark, with and without ``--lineage``.

With lineage on, the input costs one extra scan (its hash) and the output's
hash is observed on the write itself (same pass). The runs alternate
(plain, lineage, plain, ...) in one Spark session (local[2]) and the script
prints each time, the medians and their ratio (target: at most 1.3x).

    .venv/bin/python bench/bench_run_lineage.py [--rows N] [--repeats K]
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

CONFIG = """
CONFIG:
  inputs:
    events: {format: parquet, path: "{{ data }}"}
  outputs:
    kept: {format: parquet, path: "{{ out }}", mode: overwrite}
"""
CODE = """
from pyspark.sql import functions as F
from ubunye import Task


class Keep(Task):
    def transform(self, sources):
        events = sources["events"]
        return {"kept": events.where(F.col("score") > 0.1).withColumn("label", F.upper("name"))}
"""


def make_data(spark: Any, path: Path, rows: int) -> None:
    from pyspark.sql import functions as F

    df = spark.range(rows).select(
        F.col("id"),
        F.concat(F.lit("name-"), (F.col("id") % 997).cast("string")).alias("name"),
        (F.rand(7) * 100).alias("score"),
        F.date_add(F.lit("2024-01-01").cast("date"), (F.col("id") % 365).cast("int")).alias("day"),
        (F.col("id") % 2 == 0).alias("flag"),
        F.array(F.lit("a"), (F.col("id") % 10).cast("string")).alias("tags"),
    )
    df.write.mode("overwrite").parquet(str(path))


def main() -> None:
    parser = argparse.ArgumentParser(description="run_task over N rows, with and without lineage")
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    from ubunye import run_task
    from ubunye.engine.backends.spark_session import build_session

    spark = build_session("UTC", {})
    work = Path(tempfile.mkdtemp(prefix="ubunye-bench-"))
    try:
        task = work / "uc" / "bench" / "pkg" / "keep"
        task.mkdir(parents=True)
        (task / "config.yaml").write_text(CONFIG)
        (task / "transformations.py").write_text(CODE)
        make_data(spark, work / "events", args.rows)
        variables = {"data": str(work / "events"), "out": str(work / "kept")}
        run_task(task, spark=spark, variables=variables)  # warm-up (JIT, file listing caches)
        times: dict[bool, list[float]] = {False: [], True: []}
        passes: set[str] = set()
        for _ in range(args.repeats):
            for lineage in (False, True):
                started = time.perf_counter()
                result = run_task(task, spark=spark, variables=variables, lineage=lineage)
                times[lineage].append(time.perf_counter() - started)
                if lineage:
                    passes.update(f"{s.direction}:{s.hash_pass}/{s.hash_engine}" for s in result.record.steps)
        plain, with_lineage = (statistics.median(times[k]) for k in (False, True))
        print(f"rows: {args.rows:,}  repeats: {args.repeats}  spark: {spark.version}  master: {spark.sparkContext.master}")
        print(f"without lineage: {' '.join(f'{t:.2f}s' for t in times[False])}  median {plain:.2f}s")
        print(f"with lineage:    {' '.join(f'{t:.2f}s' for t in times[True])}  median {with_lineage:.2f}s")
        print(f"hash passes: {', '.join(sorted(passes))}")
        print(f"ratio (median with / without): {with_lineage / plain:.2f}x  (target <= 1.3x)")
        print(json.dumps({"rows": args.rows, "plain_s": plain, "lineage_s": with_lineage,
                          "ratio": with_lineage / plain}))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
