"""``lineage diff --rows`` on Spark against one native fingerprint pass (issue 22: at most 3x).

On ``local[2]`` with the plugin jar: the 8-column table of ``bench_spark.py`` (``--rows``
rows, default 10,000,000) written as parquet twice, the second copy with ``--changed``
differing rows (half of them updated: one row removed and one added each, so the sketch
decodes ``--changed`` rows), side by side in one run:

- **fingerprint pass**: read one table and take ``ubunye_rows_v1_sketch(*)`` (the numbers
  and cells a run records for a step through the native engine);
- **diff --rows (native)**: decode the two sketches, then per side one native pass
  (:func:`ubunye.spark.diff_scan.spark_scan`: read the table, ``ubunye_rows_v1_find``
  hashes every row and keeps the lines of the decoded rows, checks the data hash);
- with ``--fallback``, also the ``mapInArrow`` pass (its Python workers' CPU is not in the
  JVM's figure: compare its wall time only).

Figures: the JVM's CPU seconds per pass (user + system, ``/proc``; local mode runs the
driver and executors there), less disturbed by a busy machine than wall time, and wall
seconds; variants alternate, medians of ``--repeats`` after one untimed round.

    .venv/bin/python bench/bench_diff_rows_spark.py [--rows N] [--changed C] [--repeats K] [--fallback]
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from bench_observe_cost import jvm_cpu_seconds
from bench_spark import eight_columns, session


def main() -> None:
    parser = argparse.ArgumentParser(description="lineage diff --rows on Spark against one native fingerprint pass")
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--changed", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--fallback", action="store_true", help="also time the mapInArrow pass (wall time)")
    args = parser.parse_args()

    from ubunye.hashing.sketch import Sketch
    from ubunye.lineage.diff_rows import lanes_of
    from ubunye.spark.diff_scan import spark_scan
    from ubunye.spark.native import native_totals

    spark = session()
    cpu = jvm_cpu_seconds(spark)
    try:
        with tempfile.TemporaryDirectory(prefix="ubunye-bench-diff-") as tmp:
            old, new = str(Path(tmp) / "old"), str(Path(tmp) / "new")
            base = eight_columns(spark, args.rows)
            base.write.parquet(old)
            # every (2 * rows // changed)-th row updated: one removed and one added each
            step = max(1, 2 * args.rows // args.changed)
            base.selectExpr("*", f"id % {step} = 0 AS hit").selectExpr(
                *["IF(hit, customer + 1, customer) AS customer" if c == "customer" else c for c in base.columns]
            ).write.parquet(new)

            def fingerprint(path: str) -> Any:
                return native_totals(spark.read.parquet(path))

            t_old, t_new = fingerprint(old), fingerprint(new)
            decoded = (Sketch(data=t_new.cells) - Sketch(data=t_old.cells)).decode()
            assert decoded.complete, decoded.summary()

            def diff_rows(engine: str) -> Callable[[], int]:
                def run() -> int:
                    got = (Sketch(data=t_new.cells) - Sketch(data=t_old.cells)).decode()
                    found = 0
                    for path, names in ((old, got.removed_names), (new, got.added_names)):
                        _, lines = spark_scan("parquet", path, False, None, None, None,
                                              {lanes_of(n) for n in names}, spark=spark, engine=engine)
                        found += len(lines)
                    return found
                return run

            variants: dict[str, Callable[[], Any]] = {
                "one native fingerprint pass": lambda: fingerprint(old),
                "diff --rows, native pass": diff_rows("spark-native"),
            }
            if args.fallback:
                variants["diff --rows, mapInArrow pass"] = diff_rows("spark-sql")
            seen: dict[str, Any] = {name: run() for name, run in variants.items()}  # untimed round
            cpu_s: dict[str, list[float]] = {name: [] for name in variants}
            wall_s: dict[str, list[float]] = {name: [] for name in variants}
            for _ in range(args.repeats):
                for name, run in variants.items():
                    c0, w0 = cpu(), time.perf_counter()
                    run()
                    wall_s[name].append(time.perf_counter() - w0)
                    cpu_s[name].append(cpu() - c0)
    finally:
        spark.stop()
    n_decoded = len(decoded.removed) + len(decoded.added)
    print(f"Spark {spark.version}, local[2], parquet, 8 columns x {args.rows:,} rows, {n_decoded} differing rows "
          f"decoded; medians of {args.repeats} after one untimed round")
    one_cpu = statistics.median(cpu_s["one native fingerprint pass"])
    one_wall = statistics.median(wall_s["one native fingerprint pass"])
    for name in variants:
        c, w = statistics.median(cpu_s[name]), statistics.median(wall_s[name])
        rows = "" if name.startswith("one") else f", {seen[name]} rows found"
        print(f"  {name:<32} JVM CPU {c:7.2f} s = {c / one_cpu:4.2f}x   wall {w:7.2f} s = {w / one_wall:4.2f}x{rows}")


if __name__ == "__main__":
    main()
