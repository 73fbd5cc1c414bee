"""Benchmark of the Spark rows-v1 engines (prints medians and ratios; not a test).

On ``local[2]`` with two cached tables built by Spark itself (deterministic):

- 8 columns x N rows (default 5,000,000): 2 bigint, 2 double, 2 strings of
  about 20 characters, a date and a timestamp (the pandas benchmark's shape);
- 2 columns x N rows: a bigint and a string of about 20 characters.

Timed side by side, each the median of ``--runs`` (at least 3) runs, all in one run:

- ``count(*)``, ``bit_xor(xxhash64(*))`` and ``sum(xxhash64(*))`` (Spark's own
  cheapest full-row work, an order-independent fold of a 64-bit hash of every row
  as rows-v1's lanes are; the sum runs with ANSI off so that it wraps instead of
  failing on overflow);
- the expression path the public ubunye-engine uses on Spark today, written
  here: per row ``sha2(to_json(struct(<sorted columns>), <rows-v1 options>), 256)``,
  lanes by ``conv(substring(h, 1, 16), 16, 10)`` and ``conv(substring(h, 17, 16), 16, 10)``
  cast to ``decimal(20,0)``, summed (mod 2^64 on the driver);
- the fallback (``fingerprint_spark(df, engine="spark-sql")``: ``mapInArrow`` +
  the vectorised Arrow path on the Python workers);
- the native aggregate (``fingerprint_spark(df, engine="spark-native")``).

Then the ratios the issue sets targets for: native at least 4x faster than the
expression path, native at most 3x ``bit_xor(xxhash64(*))``, fallback no slower
than the expression path. It also says whether the three hashing paths agree
(the expression path writes doubles with the running JVM's ``Double.toString``,
so on JDK 17 it may not).

Usage: ``python bench/bench_spark.py [--rows N] [--runs R]``.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from typing import Any, Callable

MASK64 = (1 << 64) - 1
JSON_OPTIONS = {
    "timestampFormat": "yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'",
    "timestampNTZFormat": "yyyy-MM-dd'T'HH:mm:ss.SSSSSS",
    "dateFormat": "yyyy-MM-dd",
    "timeZone": "UTC",
}


def session() -> Any:
    import tempfile
    from pathlib import Path

    from pyspark.sql import SparkSession

    import ubunye.spark
    from ubunye.spark.testing import stable_jar

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    builder: Any = (
        SparkSession.builder.master("local[2]").appName("ubunye-bench")
        .config("spark.driver.memory", "6g")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
    )
    jar = stable_jar(Path(tempfile.mkdtemp(prefix="ubunye-bench-")))  # safe from rebuilds
    spark = ubunye.spark.configure(builder, jar=jar).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def eight_columns(spark: Any, n: int) -> Any:
    """8 columns, built by Spark from ``range(n)`` (deterministic, no Python rows)."""
    return spark.sql(f"""
        SELECT id,
               xxhash64(id, 1) % 1000000000000 AS customer,
               round((pmod(xxhash64(id, 2), 20000000) - 10000000) / 100.0, 2) AS amount,
               pmod(xxhash64(id, 3), 1000000007) / 1000000007.0 AS ratio,
               substring(base64(unhex(sha2(cast(pmod(id, 50000) AS string), 256))), 1,
                         16 + cast(pmod(id, 9) AS int)) AS name,
               substring(base64(unhex(sha2(cast(pmod(id * 7, 5000) AS string), 256))), 3,
                         16 + cast(pmod(id, 7) AS int)) AS city,
               date_add(DATE'1970-01-01', cast(pmod(xxhash64(id, 4), 20000) AS int)) AS day,
               timestamp_micros(pmod(xxhash64(id, 5), 1800000000000000)) AS at
        FROM range({n})
    """)


def two_columns(spark: Any, n: int) -> Any:
    return eight_columns(spark, n).select("id", "name")


def expression_path(df: Any) -> tuple[int, int, int]:
    """rows and lane sums by to_json + sha2 + conv + decimal sums (today's pure-SQL method)."""
    from pyspark.sql import functions as F

    line = F.to_json(F.struct(*[F.col(c) for c in sorted(df.columns)]), JSON_OPTIONS)
    h = F.sha2(line, 256)
    lane_a = F.conv(F.substring(h, 1, 16), 16, 10).cast("decimal(20,0)")
    lane_b = F.conv(F.substring(h, 17, 16), 16, 10).cast("decimal(20,0)")
    row = df.agg(F.count(F.lit(1)), F.sum(lane_a), F.sum(lane_b)).collect()[0]
    return int(row[0]), int(row[1] or 0) & MASK64, int(row[2] or 0) & MASK64


def median_seconds(fn: Callable[[], Any], runs: int) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def bench_table(spark: Any, name: str, df: Any, runs: int) -> dict[str, float]:
    from pyspark.sql import functions as F

    from ubunye.spark import fingerprint_spark

    def xxhash_sum() -> Any:
        old = spark.conf.get("spark.sql.ansi.enabled")
        spark.conf.set("spark.sql.ansi.enabled", "false")
        try:
            return df.agg(F.sum(F.xxhash64(*[F.col(c) for c in df.columns]))).collect()[0][0]
        finally:
            spark.conf.set("spark.sql.ansi.enabled", old)

    work: dict[str, Callable[[], Any]] = {
        "count(*)": lambda: df.agg(F.count(F.lit(1))).collect()[0][0],
        "bit_xor(xxhash64(*))": lambda: df.agg(F.bit_xor(F.xxhash64(*[F.col(c) for c in df.columns]))).collect()[0][0],
        "sum(xxhash64(*))": xxhash_sum,
        "to_json+sha2+conv (expression path)": lambda: expression_path(df),
        "fallback (mapInArrow + Arrow)": lambda: fingerprint_spark(df, engine="spark-sql"),
        "native aggregate": lambda: fingerprint_spark(df, engine="spark-native"),
    }
    seconds: dict[str, float] = {}
    results: dict[str, Any] = {}
    print(f"\n{name}")
    for label, fn in work.items():
        seconds[label], results[label] = median_seconds(fn, runs)
        print(f"  {label:<40} {seconds[label]:8.2f} s")
    native, fallback = results["native aggregate"], results["fallback (mapInArrow + Arrow)"]
    rows, a, b = results["to_json+sha2+conv (expression path)"]
    assert native.ok and fallback.ok, (native, fallback)
    assert (native.data_hash, native.row_count) == (fallback.data_hash, fallback.row_count)
    print(f"  native == fallback digest: True ({native.row_count:,} rows, {native.data_hash[:19]}...)")
    same = (rows, a, b) == (native.row_count, *native.sums)
    print(f"  expression path == native sums: {same}"
          + ("" if same else " (to_json writes doubles with this JVM's Double.toString)"))
    e, x = seconds["to_json+sha2+conv (expression path)"], seconds["bit_xor(xxhash64(*))"]
    xs = seconds["sum(xxhash64(*))"]
    n, f = seconds["native aggregate"], seconds["fallback (mapInArrow + Arrow)"]
    print(f"  expression path / native   = {e / n:5.2f}x  (target >= 4)")
    print(f"  native / bit_xor(xxhash64(*)) = {n / x:5.2f}x  (target <= 3)")
    print(f"  native / sum(xxhash64(*))  = {n / xs:5.2f}x")
    print(f"  fallback / expression path = {f / e:5.2f}x  (target <= 1)")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if args.runs < 3:
        parser.error("--runs must be at least 3 (medians)")
    import pyspark

    spark = session()
    java = spark._jvm.java.lang.System.getProperty("java.version")
    load = os.getloadavg()[0]
    print(f"Spark {pyspark.__version__}, Java {java}, local[2], {args.rows:,} rows, cached, "
          f"median of {args.runs} runs; load average at start {load:.2f} on {os.cpu_count()} cores")
    for name, make in (("8 columns", eight_columns), ("2 columns", two_columns)):
        df = make(spark, args.rows).cache()
        df.count()
        bench_table(spark, f"{name} x {args.rows:,} rows", df, args.runs)
        df.unpersist(blocking=True)
    print(f"\nload average at end {os.getloadavg()[0]:.2f}")
    spark.stop()


if __name__ == "__main__":
    main()
