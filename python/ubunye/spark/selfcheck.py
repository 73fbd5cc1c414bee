"""Check a Spark installation against the rows-v1 fixtures: ``python -m ubunye.spark.selfcheck``.

Starts a local classic session in this process, the plugin jar given one of three ways,
fingerprints every shared fixture (``ubunye.testing.fixtures``; ``$UBUNYE_ROWS_V1_FIXTURES``
outside a checkout) and checks the engine and each digest:

- ``--configure`` (default): ``ubunye.spark.configure(builder)``, the documented route;
- ``--jars-only``: only ``spark.jars`` = the packaged jar for this line (no
  ``spark.sql.extensions``: the jar registers itself through Spark's service loader);
- ``--packages COORD --repository URL``: ``spark.jars.packages`` and
  ``spark.jars.repositories`` (a Maven repository holding the published jar).

Prints one JSON line (the session's :func:`ubunye.spark.status`, the fixtures checked and
any failures) and exits 0 only when the engine is ``--expect`` (default ``spark-native``)
and every fixture gives its expected digest or error (``--fallback-too``: on the fallback
as well; ``--fallback-refused``: the fallback refuses each in one line, as on a pyarrow older
than the fallback runs on, Databricks 14.3 LTS's 8.0.0).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from dataclasses import asdict
from typing import Any, Optional


def fixture_problem(fp: Any, fx: Any, engine: str) -> Optional[str]:
    """None when ``fp`` is the fixture's expected fingerprint on ``engine``, else what differs."""
    if fp.engine != engine:
        return f"engine {fp.engine}, expected {engine}"
    if fx.expect.fails:
        if fp.data_hash is not None or fp.error is None or fx.expect.error not in fp.error:
            return f"expected the error {fx.expect.error!r}, got data_hash={fp.data_hash} error={fp.error!r}"
        return None
    got = (fp.row_count, fp.schema_hash, fp.data_hash, fp.error)
    want = (fx.expect.row_count, fx.expect.schema_hash, fx.expect.data_hash, None)
    return None if got == want else f"got {got}, expected {want}"


def refusal_problem(fp: Any) -> Optional[str]:
    """None when ``fp`` is the fallback refusing this Python's pyarrow in one line, else what differs."""
    from ubunye.spark.fallback import pyarrow_refusal

    refusal = pyarrow_refusal()
    if refusal is None:
        return "the fallback was expected to refuse this pyarrow, which is not too old for it"
    want = f"RowsV1Error: {refusal}"
    return None if (fp.data_hash, fp.error) == (None, want) else f"got data_hash={fp.data_hash} error={fp.error!r}"


def fixture_frame(spark: Any, fx: Any, folder: str) -> Any:
    """The fixture ``fx`` as a DataFrame: built from its rows, or read from a parquet file
    of its Arrow table when it has Arrow types of its own (unsigned integers) or a date or
    timestamp Python's ``datetime`` cannot hold (pyspark's ``createDataFrame`` refuses those)."""
    from ubunye.hashing.temporal import Days, Micros
    from ubunye.spark.testing import fixture_dataframe

    far = any(isinstance(v, (Days, Micros)) for row in fx.rows for v in row.values())
    if not (fx.arrow_typed or far):
        return fixture_dataframe(spark, fx)
    import pyarrow.parquet as pq

    path = os.path.join(folder, f"{fx.name}.parquet")
    pq.write_table(fx.arrow_table(), path)
    return spark.read.parquet(path)


def build_session(args: argparse.Namespace, workdir: str) -> Any:
    from pyspark.sql import SparkSession

    import ubunye.spark
    from ubunye.spark.packages import get_or_create

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    builder: Any = (
        SparkSession.builder.master("local[2]").appName("ubunye selfcheck")
        .config("spark.sql.session.timeZone", "UTC").config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "4")
        # pyarrow writes proleptic Gregorian dates and instants, without Spark's legacy-calendar
        # marks: read them as written (Spark 3.5 refuses dates before 1582 by default)
        .config("spark.sql.parquet.datetimeRebaseModeInRead", "CORRECTED")
        .config("spark.sql.parquet.int96RebaseModeInRead", "CORRECTED")
        .config("spark.sql.warehouse.dir", os.path.join(workdir, "warehouse"))
        .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={os.path.join(workdir, 'derby')}")
    )
    if args.packages:
        builder = builder.config("spark.jars.packages", args.packages)
        builder = builder.config("spark.jars.ivy", os.path.join(workdir, "ivy"))
        if args.repository:
            builder = builder.config("spark.jars.repositories", args.repository)
    elif args.jars_only:
        builder = builder.config("spark.jars", ubunye.spark.jar_path())
    else:
        builder = ubunye.spark.configure(builder)
    session = get_or_create(builder)  # --packages: one Ivy download at a time
    session.sparkContext.setLogLevel("ERROR")
    return session


def run(args: argparse.Namespace) -> dict[str, Any]:
    import ubunye.spark
    from ubunye.hashing import fingerprint
    from ubunye.testing.fixtures import load_fixtures

    with tempfile.TemporaryDirectory(prefix="ubunye-selfcheck-") as workdir:
        spark = build_session(args, workdir)
        try:
            state = ubunye.spark.status(spark)
            failures: dict[str, str] = {}
            fixtures = load_fixtures()
            for fx in fixtures:
                frame = fixture_frame(spark, fx, workdir)
                problem = fixture_problem(fingerprint(frame), fx, args.expect)
                if problem is not None:
                    failures[fx.name] = problem
                if args.fallback_too or args.fallback_refused:  # the mapInArrow fallback too
                    from ubunye.spark import fingerprint_spark

                    fallback = fingerprint_spark(frame, engine="spark-sql")
                    problem = (refusal_problem(fallback) if args.fallback_refused
                               else fixture_problem(fallback, fx, "spark-sql"))
                    if problem is not None:
                        failures[f"{fx.name} (spark-sql)"] = problem
        finally:
            spark.stop()
    return {"status": asdict(state), "fixtures": len(fixtures), "failures": failures,
            "ok": state.engine == args.expect and not failures and len(fixtures) > 0}


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ubunye.spark.selfcheck", description=__doc__.split("\n")[0])
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--configure", action="store_true", help="ubunye.spark.configure(builder) (default)")
    how.add_argument("--jars-only", action="store_true", help="only spark.jars = the packaged jar")
    how.add_argument("--packages", help="spark.jars.packages coordinates (group:artifact:version)")
    parser.add_argument("--repository", help="spark.jars.repositories (with --packages)")
    parser.add_argument("--expect", default="spark-native", choices=("spark-native", "spark-sql"))
    fallback = parser.add_mutually_exclusive_group()
    fallback.add_argument("--fallback-too", action="store_true",
                          help="also hash every fixture with the Spark SQL fallback (engine='spark-sql')")
    fallback.add_argument("--fallback-refused", action="store_true",
                          help="the fallback must refuse every fixture in one line (pyarrow too old for it)")
    args = parser.parse_args(argv)
    result = run(args)
    print(json.dumps(result, default=str))
    return 0 if result["ok"] else 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
