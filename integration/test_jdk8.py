"""A JVM too old for the jar: pyspark 3.5 on a real Java 8 (scripts/jdk8) given a Spark 4.x
jar (Java 17 class files, major 61), as Databricks 14.3 / 15.4 LTS users could do by mistake.

Each case runs in its own Python process (its own JVM: a jar given to one driver stays on
its classpath) with ``JAVA_HOME`` set to scripts/jdk8's JDK:

- ``spark.jars`` alone: the session starts (also through Spark's own builder, which runs the
  service loader that names the jar's Java 17 provider class); the first fingerprint warns
  once, in one line naming the class file, the JVM's Java and the jar expected; ``status``
  gives that line as its reason; py4j's connection survives (looking at a class file the JVM
  cannot load used to kill its thread on the JVM side); every fixture's digest is right.
- ``ubunye.spark.configure(builder, jar=<the 4.1 jar>)``: the jar is left out, with one
  line naming the Spark lines, the class file and the JVM's Java; digests right.

Spark 4 needs Java 17, so these run where the installed pyspark is 3.5 (scripts/test's
3.5 suite).
"""
from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
# A few shared fixtures (the fallback runs Python workers: all of them would take minutes here):
# every kind at once, nulls, instants, maps, and one that must give its error.
FIXTURES = ("reference_3rows", "mixed_random_1000", "nulls", "timestamps", "maps", "error_map_struct_key")

CASE = r'''
import json, sys, tempfile, warnings
from pyspark.sql import SparkSession
import ubunye, ubunye.spark
from ubunye.spark import _compat
from ubunye.spark.jar import JarMismatchWarning, jar_info
from ubunye.spark.selfcheck import fixture_frame, fixture_problem
from ubunye.testing.fixtures import load_fixtures

mode, names = sys.argv[1], set(sys.argv[2].split(","))
fixtures = [fx for fx in load_fixtures() if fx.name in names]
newer = jar_info(spark="4.1", scala="2.13")
builder = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
           .config("spark.ui.showConsoleProgress", "false").config("spark.sql.session.timeZone", "UTC")
           .config("spark.sql.shuffle.partitions", "2")
           .config("spark.sql.parquet.datetimeRebaseModeInRead", "CORRECTED")
           .config("spark.sql.parquet.int96RebaseModeInRead", "CORRECTED"))
out = {"jar": newer.path.name, "jar_class_file": newer.class_file_major}
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    if mode == "jars":
        builder = builder.config("spark.jars", str(newer.path))
    else:
        builder = ubunye.spark.configure(builder, jar=newer)
    out["configure_warnings"] = [str(w.message) for w in seen if issubclass(w.category, JarMismatchWarning)]
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("OFF")
    out["spark_jars"] = spark.conf.get("spark.jars", "")
    problems, engines = {}, set()
    with tempfile.TemporaryDirectory() as work:
        for fx in fixtures:
            fp = ubunye.fingerprint(fixture_frame(spark, fx, work))
            engines.add(fp.engine)
            problem = fixture_problem(fp, fx, "spark-sql")
            if problem is not None:
                problems[fx.name] = problem
    out["fingerprint_warnings"] = sorted({str(w.message) for w in seen if issubclass(w.category, JarMismatchWarning)}
                                         - set(out["configure_warnings"]))
out["problems"], out["engines"], out["fixtures"] = problems, sorted(engines), sorted(fx.name for fx in fixtures)
state = ubunye.spark.status(spark)
out["java"], out["engine"], out["reason"] = state.java, state.engine, state.reason
if mode == "jars":  # Spark's own builder runs the service loader, which names the Java 17 provider
    scala_session = _compat.jvm(spark).org.apache.spark.sql.SparkSession
    scala_session.clearActiveSession()
    scala_session.clearDefaultSession()
    out["own_builder_rows"] = int(scala_session.builder().getOrCreate().range(3).count())
spark.stop()
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def jdk8() -> str:
    if not importlib.metadata.version("pyspark").startswith("3.5."):
        pytest.skip("Java 8 runs Spark 3.5 only (Spark 4 needs Java 17): scripts/test runs this on its 3.5 suite")
    done = subprocess.run(["bash", str(ROOT / "scripts" / "jdk8")], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


def run_case(jdk8: str, mode: str) -> tuple[dict[str, Any], str]:
    env = {k: v for k, v in os.environ.items() if k != "SPARK_HOME"}
    env.update(JAVA_HOME=jdk8, PYSPARK_PYTHON=sys.executable, SPARK_LOCAL_IP="127.0.0.1")
    done = subprocess.run([sys.executable, "-c", CASE, mode, ",".join(FIXTURES)], capture_output=True, text=True, env=env,
                          timeout=900, cwd=str(ROOT))
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


def check_digests(out: dict[str, Any]) -> None:
    assert out["fixtures"] == sorted(FIXTURES) and out["engines"] == ["spark-sql"]
    assert out["problems"] == {}
    assert out["java"].startswith("1.8.0_") and out["engine"] == "spark-sql"


def test_a_java17_jar_in_spark_jars_on_java8_falls_back_with_one_line(jdk8: str) -> None:
    out, stderr = run_case(jdk8, "jars")
    assert out["jar_class_file"] == 61 and out["jar"] in out["spark_jars"]
    check_digests(out)
    assert len(out["fingerprint_warnings"]) == 1, out["fingerprint_warnings"]
    line = out["fingerprint_warnings"][0]
    assert "\n" not in line
    for part in (f"jar {out['jar']} on the driver has class file 61 (Java 17)",
                 f"the driver JVM is Java {out['java']} (class files up to 52)",
                 "expected ubunye-spark_3.5_2.12-", "the Spark SQL fallback gives the same digest"):
        assert part in line, (part, line)
    assert out["reason"] == line
    assert out["own_builder_rows"] == 3  # a session through Spark's service loader starts too
    assert "Answer from Java side is empty" not in stderr and "Py4JNetworkError" not in stderr


def test_configure_leaves_a_java17_jar_out_on_java8_with_one_line(jdk8: str) -> None:
    out, _ = run_case(jdk8, "configure")
    assert out["jar"] not in out["spark_jars"]
    check_digests(out)
    assert len(out["configure_warnings"]) == 1, out["configure_warnings"]
    line = out["configure_warnings"][0]
    assert "\n" not in line
    for part in ("is built for Spark 4.1 / Scala 2.13 (class file 61, Java 17)",
                 "this session runs Spark 3.5.", "on Java 1.8 (class files up to 52)",
                 "the Spark SQL fallback gives the same digest"):
        assert part in line, (part, line)
    assert out["fingerprint_warnings"] == []
