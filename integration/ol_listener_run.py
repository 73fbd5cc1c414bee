"""Run by integration/test_openlineage_listener_spark.py in a Spark JVM of its own (the
OpenLineage listener is set when a session starts, so it cannot join the shared one):
for each FORMAT, a task writing it to WORKDIR/FORMAT/out/big, run by the engine with recording
on (its store under WORKDIR/FORMAT), one after another on ONE local[2] session with the plugin,
the OpenLineage Spark listener (file transport: every run's events in EVENTS_FILE), our
listener extension and, when a FORMAT is delta, Delta's extension, catalog and jars (a session
per format cost a JVM's start each: about 25 CPU-s here).

    python ol_listener_run.py WORKDIR EVENTS_FILE LISTENER_JAR FORMAT...

The extension jar is not named: ``ubunye.spark.configure`` adds the one of the session's line
(the listener is in ``spark.extraListeners``), as a user's session gets it.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def listener_jar() -> str:
    """The openlineage-spark jar the extension was built against (target/openlineage/), once the
    package has the extension jar of the installed pyspark's line; else fails saying how to build them."""
    from ubunye.spark.ol_jar import extension_jar
    from ubunye.spark.runtime import spark_runtime

    runtime = spark_runtime()
    ours = extension_jar(runtime.spark or "", runtime.scala or "")
    listener = sorted((ROOT / "target" / "openlineage").glob("openlineage-spark_*.jar"))
    assert ours is not None and listener, (
        f"no OpenLineage extension jar for Spark {runtime.spark} / Scala {runtime.scala} in the package, or no "
        "openlineage-spark jar in target/openlineage: run scripts/build-jar (or scripts/sbt "
        "-DsparkVersion=<line> openlineage/exportOpenLineage)")
    return str(listener[-1])


# the variants of the listener test: the output's format and, after it, its options
VARIANTS = {"parquet": "parquet", "delta": "delta", "json": "json",
            "json-multiline": "json, options: {multiLine: true}"}


def make_spark_task(workdir: Path, fmt: str = "parquet") -> Path:
    """The fast suite's pandas task (tests/test_compat_080_cli.py) on Spark, writing ``fmt`` (a key of
    ``VARIANTS``) to ``workdir/out/big``."""
    sys.path.insert(0, str(ROOT / "tests"))
    from test_compat_080_cli import CONFIG, make_task

    config = CONFIG.replace("backend: pandas", "backend: spark").replace('"{{ task_dir }}/out"',
                                                                        f'"{workdir / "out" / "big"}"')
    config = config.replace("big: {format: parquet", f"big: {{format: {VARIANTS[fmt]}")
    assert config.count("spark") == 1 and str(workdir) in config and f"format: {VARIANTS[fmt]}" in config, config
    return make_task(workdir, config)


def listener_builder(app: str, workdir: Path, events: Path, listener: str, namespace: str) -> Any:
    """A local[2] session builder that runs the OpenLineage Spark listener (``listener``, the
    openlineage-spark jar) with its file transport into ``events``."""
    from pyspark.sql import SparkSession

    return (SparkSession.builder.master("local[2]").appName(app)
            .config("spark.jars", listener)
            .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "4")
            .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.sql.warehouse.dir", str(workdir / "warehouse"))
            .config("spark.extraListeners", "io.openlineage.spark.agent.OpenLineageSparkListener")
            .config("spark.openlineage.transport.type", "file")
            .config("spark.openlineage.transport.location", str(events))
            .config("spark.openlineage.namespace", namespace))


def start(builder: Any) -> Any:
    """The session, with the plugin jar and the extension jar of its line added by
    ``ubunye.spark.configure``; its ``spark.jars`` is printed on stderr (the tests check it)."""
    import ubunye.spark

    spark = ubunye.spark.configure(builder).getOrCreate()
    print("spark.jars=" + spark.conf.get("spark.jars"), file=sys.stderr)
    return spark


def main(workdir: Path, events: Path, listener: str, formats: list[str]) -> None:
    import ubunye
    from ubunye.engine.backends.spark_session import with_delta

    tasks = [make_spark_task(workdir / fmt, fmt) for fmt in formats]
    builder = listener_builder("ubunye-openlineage", workdir, events, listener, "ubunye")
    if "delta" in formats:
        builder = with_delta(builder)
    spark = start(builder)
    try:
        for task in tasks:
            ubunye.run_task(task, spark=spark, lineage=True)
    finally:
        spark.stop()  # drains the listener bus: every event is in the file


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4:])
