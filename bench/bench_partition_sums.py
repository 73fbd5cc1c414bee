"""Benchmark: what the per-partition sums cost the planner node (figures, not a test).

The data of ``bench_run_lineage.py`` (parquet, ``--rows`` rows, ``local[2]``, one
session) is written partitioned by ``flag`` and ``bucket`` (``id % --keys``; ``--keys``
x 2 folders), observed by the plugin's planner node with the sketch (what the engine
attaches to a write) and alternately without and with the partition columns
(``docs/spec/rows-v1-localise.md`` section 7), to Spark's ``noop`` sink (the hash and the
tally alone) and as partitioned parquet (what a task does). The figure is the JVM's CPU
time per write (user + system, from ``/proc``, as ``bench_observe_cost.py``); the extra
of the tally is divided by the row count. ``--warmup`` untimed rounds, then medians of
``--repeats``.

    .venv/bin/python bench/bench_partition_sums.py [--rows N] [--keys K] [--repeats R] [--warmup W]
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import uuid
from pathlib import Path
from typing import Any, Optional

from bench_observe_cost import jvm_cpu_seconds
from bench_run_lineage import make_data

SINKS = ("noop", "parquet")
PARTITION_BY = ["flag", "bucket"]


def main() -> None:
    parser = argparse.ArgumentParser(description="CPU cost of the planner node's per-partition sums")
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--keys", type=int, default=50, help="distinct bucket values (folders: 2x)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=2)
    args = parser.parse_args()

    from pyspark.sql import functions as F

    from ubunye.engine.backends.spark_session import build_session
    from ubunye.spark import observations

    spark = build_session("UTC", {"spark.sql.ansi.enabled": "false"})
    cpu = jvm_cpu_seconds(spark)
    work = Path(tempfile.mkdtemp(prefix="ubunye-bench-parts-"))
    try:
        make_data(spark, work / "events", args.rows)
        assert observations.takes_parts(spark), "the session's jar has no per-partition sums"

        def write(sink: str, keyed: Optional[list[str]]) -> float:
            frame = spark.read.parquet(str(work / "events")).withColumn("bucket", F.col("id") % args.keys)
            name = f"bench-{uuid.uuid4().hex}"
            frame = observations.attach(frame, name, keyed)
            started = cpu()
            if sink == "parquet":
                frame.write.mode("overwrite").partitionBy(*PARTITION_BY).parquet(str(work / "out"))
            else:
                frame.write.format("noop").mode("overwrite").save()
            seen = observations.read(spark, name)
            assert (seen.parts is not None) == bool(keyed) and seen.rows == args.rows
            return cpu() - started

        variants: list[tuple[str, Any]] = [(s, k) for s in SINKS for k in (None, PARTITION_BY)]
        for _ in range(args.warmup):
            for sink, keyed in variants:
                write(sink, keyed)
        seconds: dict[tuple[str, bool], list[float]] = {(s, k is not None): [] for s, k in variants}
        for _ in range(args.repeats):
            for sink, keyed in variants:
                seconds[(sink, keyed is not None)].append(write(sink, keyed))
        print(f"rows: {args.rows:,}  folders: {2 * args.keys}  repeats: {args.repeats} (after {args.warmup} untimed)  "
              f"spark: {spark.version}  master: {spark.sparkContext.master}  figure: JVM CPU seconds per write")
        for sink in SINKS:
            plain, keyed_s = statistics.median(seconds[(sink, False)]), statistics.median(seconds[(sink, True)])
            extra = keyed_s - plain
            print(f"{sink:<8} observed (sums + sketch) {plain:.2f} CPU s; with the per-partition sums {keyed_s:.2f} CPU s"
                  f"  extra {extra:+.2f} s = {extra / args.rows * 1e9:+.0f} ns per row ({keyed_s / plain:.3f}x)")
    finally:
        spark.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
