"""Run by scripts/cds-archive with the Python of a Spark environment: a local session doing what
the integration suites do most (the plugin's native hash, the mapInArrow fallback with its Python
workers, parquet/csv/json writes and reads, a shuffle, Python rows in, pandas out), in a JVM
started with ``-XX:ArchiveClassesAtExit=ARCHIVE`` (SPARK_SUBMIT_OPTS, set by the script). The
JVM writes the archive when it exits, so this waits for it. Delta is left
out: its jars come through ``spark.jars.packages`` (a class loader of Spark's, whose classes a
dynamic archive does not keep), and a workload with it cost 69 CPU-s here against 42 without,
for no measured gain.

    python scripts/lib/cds_workload.py WORKDIR
"""
from __future__ import annotations

import sys
from pathlib import Path


def main(workdir: Path) -> None:
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    import ubunye.spark
    from ubunye.spark import fingerprint_spark

    builder = (SparkSession.builder.master("local[2]").appName("ubunye-cds")
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
               .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
               .config("spark.sql.shuffle.partitions", "4").config("spark.pyspark.python", sys.executable)
               .config("spark.sql.warehouse.dir", str(workdir / "warehouse"))
               .config("spark.local.dir", str(workdir / "local")))
    spark = ubunye.spark.configure(builder).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    rows = spark.createDataFrame([(i, f"n{i}", i / 3, [i], {"k": i}) for i in range(200)],
                                 "id long, s string, d double, a array<long>, m map<string, long>")
    df = rows.selectExpr("*", "current_timestamp() AS ts", "current_date() AS dt", "CAST(d AS DECIMAL(10, 2)) AS dec")
    for engine in ("spark-native", "spark-sql"):
        fp = fingerprint_spark(df, engine=engine)
        assert fp.data_hash, (engine, fp)
    for fmt in ("parquet", "csv", "json"):
        out = str(workdir / fmt)
        (df.select("id", "s", "d") if fmt == "csv" else df).write.mode("overwrite").format(fmt).save(out)
        spark.read.format(fmt).option("header", "false").load(out).groupBy().count().collect()
    df.groupBy("s").count().orderBy("s").toPandas()
    spark.stop()
    gateway = SparkContext._gateway
    proc = getattr(gateway, "proc", None)
    gateway.shutdown()
    if proc is not None:  # the JVM exits when its stdin closes, writing the archive first
        proc.stdin.close()
        proc.wait(timeout=300)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
