"""Benchmark: what the localisation sketch adds to the native engine (figures, not a test).

On ``local[2]``, the 8-column table of ``bench_spark.py`` (built by Spark from
``range(N)``, default 5,000,000 rows, cached), side by side in one run:

- the native aggregate: ``ubunye_rows_v1_sums(*)`` (today's hash, three numbers) and
  ``ubunye_rows_v1_sketch(*)`` (the same numbers and the sketch's 320 cells);
- the same-pass write: the frame written to Spark's ``noop`` sink with the plugin's
  planner node observing it (``RowsV1Observations.attach``) without and with the
  sketch; and the plain write, for scale.

The figure is the JVM's CPU time per pass (user + system, from ``/proc``: local mode
runs the driver and the executors in this JVM), which a busy machine disturbs far
less than wall time. The variants alternate, ``--warmup`` untimed rounds first, then
medians of ``--repeats``; the sketch's extra is the difference of the medians over
the pass without it (the issue's goal: at most 15%). It also checks that both
aggregates give the same three numbers and the planner node the aggregate's cells.

    .venv/bin/python bench/bench_sketch_jvm.py [--rows N] [--repeats K] [--warmup W]
"""
from __future__ import annotations

import argparse
import statistics
import uuid
from typing import Any, Callable, Optional

from bench_observe_cost import jvm_cpu_seconds
from bench_spark import eight_columns, session

NODE = "io.ubunye.spark.observe.RowsV1Observations$"


def main() -> None:
    parser = argparse.ArgumentParser(description="CPU cost of the sketch on the native aggregate and a same-pass write")
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=2)
    args = parser.parse_args()

    from pyspark.sql import DataFrame, functions as F

    spark = session()
    cpu = jvm_cpu_seconds(spark)
    from ubunye.spark import _compat

    node = getattr(_compat.jvm_class(spark, NODE), "MODULE$")
    try:
        df = eight_columns(spark, args.rows).cache()
        df.count()
        columns = [F.col(f"`{c}`") for c in df.columns]
        seen: dict[str, Any] = {}

        def aggregate(function: str) -> Callable[[], None]:
            def run() -> None:
                seen[function] = df.agg(F.call_function(function, *columns).alias("s")).collect()[0]["s"]
            return run

        def write(sketch: Optional[bool]) -> Callable[[], None]:
            def run() -> None:
                frame = df
                name = f"bench-{uuid.uuid4().hex}"
                if sketch is not None:
                    frame = DataFrame(node.attach(df._jdf, name, sketch), df.sparkSession)  # noqa: SLF001
                frame.write.format("noop").mode("overwrite").save()
                if sketch is not None:
                    seen[f"write {sketch}"] = str(node.resultWithCells(name, True)).split()
            return run

        variants: dict[str, Callable[[], None]] = {
            "aggregate, sums": aggregate("ubunye_rows_v1_sums"),
            "aggregate, sums + sketch": aggregate("ubunye_rows_v1_sketch"),
            "write, plain": write(None),
            "write, planned sums": write(False),
            "write, planned sums + sketch": write(True),
        }
        for _ in range(args.warmup):
            for run in variants.values():
                run()
        seconds: dict[str, list[float]] = {name: [] for name in variants}
        for _ in range(args.repeats):
            for name, run in variants.items():
                started = cpu()
                run()
                seconds[name].append(cpu() - started)
        medians = {name: statistics.median(s) for name, s in seconds.items()}

        import base64

        sums, sketch = seen["ubunye_rows_v1_sums"], seen["ubunye_rows_v1_sketch"]
        agree = tuple(sums) == tuple(sketch)[:3]
        cells = base64.b64encode(bytes(sketch["cells"])).decode()
        planned_agree = seen["write True"][4] == cells and seen["write False"][4] == "-"
        print(f"Spark {spark.version}, local[2], 8 columns x {args.rows:,} rows (cached); JVM CPU seconds, "
              f"median of {args.repeats} after {args.warmup} untimed")
        for name in variants:
            print(f"  {name:<30} {medians[name]:7.2f} s")
        agg = medians["aggregate, sums + sketch"] / medians["aggregate, sums"] - 1
        plain = medians["write, plain"]
        node_sums = medians["write, planned sums"] - plain
        node_sketch = medians["write, planned sums + sketch"] - plain
        print(f"sketch's extra on the native aggregate: {agg:+.1%}")
        print(f"sketch's extra on the same-pass write: "
              f"{medians['write, planned sums + sketch'] / medians['write, planned sums'] - 1:+.1%} of the observed write "
              f"(the hash itself: {node_sums:.2f} s -> {node_sketch:.2f} s over the plain write's {plain:.2f} s, "
              f"{(node_sketch - node_sums) / args.rows * 1e9:+.0f} ns per row)")
        print(f"same numbers from both aggregates: {agree}; the planner node's cells are the aggregate's: {planned_agree}")
    finally:
        spark.stop()


if __name__ == "__main__":
    main()
