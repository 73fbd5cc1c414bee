"""Benchmark: one task run over 2,000,000 rows on Spark, with and without ``--lineage``.

With lineage on, the output's hash is observed on the write itself (same pass).
The input's hash is taken from the earlier record that proved exactly these
files (``hash_pass: reused``: the warm-up run recorded it, as an upstream task
of a pipeline records what it writes); the variant with ``reuse_hashes=False``
hashes the input while the write reads it instead (same pass, plus a count of
the input to prove every row was seen). A last variant records with
``hash_inputs: false`` (the output's hash only). The runs alternate in one
Spark session (local[2]); the script prints each time, the medians (of 9 by
default: single runs on a shared machine vary by 20%) and their
ratios to the plain run (target: lineage at most 1.3x plain).

    .venv/bin/python bench/bench_run_lineage.py [--rows N] [--repeats K] [--warmup W]
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
NO_INPUT_HASH = "  monitors:\n    - {type: lineage, params: {hash_inputs: false}}\n"
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
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--warmup", type=int, default=2, help="untimed rounds of every variant first")
    args = parser.parse_args()

    from ubunye import run_task
    from ubunye.engine.backends.spark_session import build_session

    spark = build_session("UTC", {})
    work = Path(tempfile.mkdtemp(prefix="ubunye-bench-"))
    try:
        tasks = {}
        for label, config in (("keep", CONFIG), ("keep_outputs_only", CONFIG + NO_INPUT_HASH)):
            tasks[label] = work / "uc" / "bench" / "pkg" / label
            tasks[label].mkdir(parents=True)
            (tasks[label] / "config.yaml").write_text(config)
            (tasks[label] / "transformations.py").write_text(CODE)
        make_data(spark, work / "events", args.rows)
        variables = {"data": str(work / "events"), "out": str(work / "kept")}
        variants: dict[str, tuple[Path, dict[str, Any]]] = {
            "without lineage": (tasks["keep"], {"lineage": False}),
            "with lineage": (tasks["keep"], {"lineage": True}),
            "with lineage, input scanned": (tasks["keep"], {"lineage": True, "reuse_hashes": False}),
            "lineage, outputs only": (tasks["keep_outputs_only"], {}),  # the config turns recording on
        }
        # warm-up: each variant runs untimed first (JIT of the generated code and the kernel,
        # file listing caches); the first lineage run's record proves the input's files
        for _ in range(args.warmup):
            for task, options in variants.values():
                run_task(task, spark=spark, variables=variables, **options)
        times: dict[str, list[float]] = {label: [] for label in variants}
        passes: dict[str, set[str]] = {label: set() for label in variants}
        for _ in range(args.repeats):
            for label, (task, options) in variants.items():
                started = time.perf_counter()
                result = run_task(task, spark=spark, variables=variables, **options)
                times[label].append(time.perf_counter() - started)
                if result.record is not None:
                    passes[label].update(f"{s.direction} {s.hash_pass or 'not hashed'}" for s in result.record.steps)
        medians = {label: statistics.median(ts) for label, ts in times.items()}
        plain = medians["without lineage"]
        print(f"rows: {args.rows:,}  repeats: {args.repeats} (after {args.warmup} untimed)  spark: {spark.version}  master: {spark.sparkContext.master}")
        for label, ts in times.items():
            how = f"  [{', '.join(sorted(passes[label]))}]" if passes[label] else ""
            print(f"{label:<28} {' '.join(f'{t:.2f}s' for t in ts)}  median {medians[label]:.2f}s"
                  f"  ratio {medians[label] / plain:.2f}x{how}")
        print(f"ratio (median with lineage / without): {medians['with lineage'] / plain:.2f}x  (target <= 1.3x)")
        print(f"ratio with the input scanned: {medians['with lineage, input scanned'] / plain:.2f}x")
        print(json.dumps({"rows": args.rows, "medians_s": medians,
                          "ratio": medians["with lineage"] / plain,
                          "ratio_input_scanned": medians["with lineage, input scanned"] / plain,
                          "ratio_outputs_only": medians["lineage, outputs only"] / plain}))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
