"""Benchmark: what observing a write costs, per row, on Spark (figures, not a test).

The same query as ``bench_run_lineage.py`` (parquet in, a filter and a derived
column; 2,000,000 rows, ``local[2]``, one session) is written again and again,
with nothing observed and with one aggregate observed on the write
(``DataFrame.observe``, as the engine hashes an output in the same pass):

- ``count(*)``: the price of observing at all;
- ``sum(xxhash64(*) % 1000)``: Spark's own cheapest full-row work;
- ``ubunye_rows_v1_sums(*)``: the rows-v1 hash (a canonical line and its SHA-256
  per row), in Spark's observation accumulator;
- ``rows-v1 planned``: the same hash by the plugin's planner node
  (``ubunye.spark.observations``, what the engine uses on classic sessions), inside
  the write's generated code.

Each is measured twice: written as parquet (what a task does) and to Spark's
``noop`` sink (the same rows, no parquet encoding beside the hash). The figure
is the JVM's CPU time per write (user + system, from ``/proc``; this process
runs Spark's driver and executors), which a busy machine disturbs far less than
wall time; the extra over the plain write is divided by the row count. The
variants alternate, ``--warmup`` untimed rounds first (the generated code and
the kernel reach steady state), then medians of ``--repeats``.

    .venv/bin/python bench/bench_observe_cost.py [--rows N] [--repeats K] [--warmup W]
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import uuid
from pathlib import Path
from typing import Any, Callable, Optional

from bench_run_lineage import make_data

OBSERVED = {
    "count": "count(*)",
    "xxhash64": "sum(xxhash64(*) % 1000)",
    "rows-v1": "ubunye_rows_v1_sums(*)",
    "rows-v1 planned": None,  # the planner node, not an aggregate
}
SINKS = ("parquet", "noop")


def jvm_cpu_seconds(spark: Any) -> Callable[[], float]:
    """A reader of the driver JVM's CPU seconds (Linux ``/proc``; local mode runs the executors there)."""
    pid = int(spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid())  # noqa: SLF001
    ticks = os.sysconf("SC_CLK_TCK")

    def read() -> float:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / ticks

    return read


def main() -> None:
    parser = argparse.ArgumentParser(description="CPU cost per row of observing a write")
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--warmup", type=int, default=3)
    args = parser.parse_args()

    from pyspark.sql import Observation
    from pyspark.sql import functions as F

    from ubunye.engine.backends.spark_session import build_session
    from ubunye.spark import observations

    spark = build_session("UTC", {"spark.sql.ansi.enabled": "false"})
    cpu = jvm_cpu_seconds(spark)
    work = Path(tempfile.mkdtemp(prefix="ubunye-bench-observe-"))
    try:
        make_data(spark, work / "events", args.rows)

        def write(sink: str, observed: Optional[str]) -> float:
            frame = spark.read.parquet(str(work / "events"))
            frame = frame.where(F.col("score") > 0.1).withColumn("label", F.upper("name"))
            observation, planned = None, None
            if observed is not None and OBSERVED[observed] is None:
                planned = f"bench-{uuid.uuid4().hex}"
                frame = observations.attach(frame, planned)
            elif observed is not None:
                observation = Observation()
                frame = frame.observe(observation, F.expr(OBSERVED[observed]).alias("m"))
            started = cpu()
            if sink == "parquet":
                frame.write.mode("overwrite").parquet(str(work / "out"))
            else:
                frame.write.format("noop").mode("overwrite").save()
            if observation is not None:
                observation.get  # the metrics reached the driver
            if planned is not None:
                observations.read(spark, planned)
            return cpu() - started

        variants = [(sink, observed) for sink in SINKS for observed in (None, *OBSERVED)]
        for _ in range(args.warmup):
            for sink, observed in variants:
                write(sink, observed)
        seconds: dict[tuple[str, Optional[str]], list[float]] = {v: [] for v in variants}
        for _ in range(args.repeats):
            for variant in variants:
                seconds[variant].append(write(*variant))
        print(f"rows: {args.rows:,}  repeats: {args.repeats} (after {args.warmup} untimed)  "
              f"spark: {spark.version}  master: {spark.sparkContext.master}  figure: JVM CPU seconds per write")
        for sink in SINKS:
            plain = statistics.median(seconds[(sink, None)])
            print(f"{sink} sink: plain write {plain:.2f} CPU s")
            for observed in OBSERVED:
                median = statistics.median(seconds[(sink, observed)])
                extra = median - plain
                print(f"  + {observed:<15} {median:.2f} CPU s  extra {extra:+.2f} s = {extra / args.rows * 1e9:+.0f} ns per row"
                      f"  ({median / plain:.2f}x the plain write's CPU)")
    finally:
        spark.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
