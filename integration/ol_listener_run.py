"""Run by integration/test_openlineage_listener_spark.py in a Spark JVM of its own (the
OpenLineage listener is set when a session starts, so it cannot join the shared one):
a task writing parquet, run by the engine with recording on, on a local[2] session with
the plugin, the OpenLineage Spark listener (file transport) and our listener extension.

    python ol_listener_run.py WORKDIR EVENTS_FILE JAR...
"""
from __future__ import annotations

import sys
from pathlib import Path

CONFIG = """\
MODEL: etl
ENGINE:
  backend: spark
CONFIG:
  inputs:
    orders: {format: csv, path: "{{ task_dir }}/orders.csv"}
  outputs:
    big: {format: parquet, path: "%s", mode: overwrite}
"""

CODE = """\
from ubunye.core.interfaces import Task


class Big(Task):
    def transform(self, sources):
        df = sources["orders"]
        return {"big": df.where("amount >= 10")}
"""


def main(workdir: Path, events: Path, jars: list[str]) -> None:
    from pyspark.sql import SparkSession

    import ubunye
    import ubunye.spark

    task = workdir / "shop" / "daily" / "big"
    task.mkdir(parents=True)
    (task / "orders.csv").write_text("id,amount,city\n1,10,Durban\n2,20,\n3,5,Soweto\n")
    (task / "config.yaml").write_text(CONFIG % (workdir / "out" / "big"))
    (task / "transformations.py").write_text(CODE)
    builder = (SparkSession.builder.master("local[2]").appName("ubunye-openlineage")
               .config("spark.jars", ",".join(jars))
               .config("spark.ui.enabled", "false")
               .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
               .config("spark.sql.warehouse.dir", str(workdir / "warehouse"))
               .config("spark.extraListeners", "io.openlineage.spark.agent.OpenLineageSparkListener")
               .config("spark.openlineage.transport.type", "file")
               .config("spark.openlineage.transport.location", str(events))
               .config("spark.openlineage.namespace", "ubunye"))
    spark = ubunye.spark.configure(builder).getOrCreate()
    try:
        ubunye.run_task(task, spark=spark, lineage=True)
    finally:
        spark.stop()  # drains the listener bus: every event is in the file


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:])
