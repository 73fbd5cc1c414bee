"""Run by integration/test_openlineage_listener_spark.py in a Spark JVM of its own (the
OpenLineage listener is set when a session starts, so it cannot join the shared one):
a task writing parquet or Delta, run by the engine with recording on, on a local[2] session
with the plugin, the OpenLineage Spark listener (file transport) and our listener extension
(and, for Delta, Delta's extension, catalog and jars).

    python ol_listener_run.py WORKDIR EVENTS_FILE FORMAT JAR...
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def make_spark_task(workdir: Path, fmt: str = "parquet") -> Path:
    """The fast suite's pandas task (tests/test_compat_080_cli.py) on Spark, writing ``fmt`` to ``workdir/out/big``."""
    sys.path.insert(0, str(ROOT / "tests"))
    from test_compat_080_cli import CONFIG, make_task

    config = CONFIG.replace("backend: pandas", "backend: spark").replace('"{{ task_dir }}/out"',
                                                                        f'"{workdir / "out" / "big"}"')
    config = config.replace("big: {format: parquet", f"big: {{format: {fmt}")
    assert config.count("spark") == 1 and str(workdir) in config and f"format: {fmt}" in config, config
    return make_task(workdir, config)


def main(workdir: Path, events: Path, fmt: str, jars: list[str]) -> None:
    from pyspark.sql import SparkSession

    import ubunye
    import ubunye.spark
    from ubunye.engine.backends.spark_session import with_delta

    task = make_spark_task(workdir, fmt)
    builder = (SparkSession.builder.master("local[2]").appName("ubunye-openlineage")
               .config("spark.jars", ",".join(jars))
               .config("spark.ui.enabled", "false")
               .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
               .config("spark.sql.warehouse.dir", str(workdir / "warehouse"))
               .config("spark.extraListeners", "io.openlineage.spark.agent.OpenLineageSparkListener")
               .config("spark.openlineage.transport.type", "file")
               .config("spark.openlineage.transport.location", str(events))
               .config("spark.openlineage.namespace", "ubunye"))
    if fmt == "delta":
        builder = with_delta(builder)
    spark = ubunye.spark.configure(builder).getOrCreate()
    try:
        ubunye.run_task(task, spark=spark, lineage=True)
    finally:
        spark.stop()  # drains the listener bus: every event is in the file


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4:])
