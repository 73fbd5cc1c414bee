"""The plugin on this pyspark's line: found, loaded and native without any extension setting.

- The shared session (``configure``) reports its line and the jar it loaded (``status``).
- A session started with ONLY ``spark.jars`` = the packaged jar for this line is native:
  the jar registers its extension through Spark's service loader. Every shared fixture
  gives its digest there (this is the test the lines without the full suite run).
- A session started with ``spark.jars.packages`` = ``io.ubunye:ubunye-spark_<line>_<scala>:<version>``
  and ``spark.jars.repositories`` = the repository ``scripts/build-jar --publish`` fills
  (``target/maven-repo``) is native.

The last two start their own JVM (``python -m ubunye.spark.selfcheck`` in a child process).
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyspark
import pytest

REPO = Path(__file__).resolve().parents[1]
MAVEN_REPO = REPO / "target" / "maven-repo"


def selfcheck(*args: str) -> dict[str, Any]:
    from ubunye.spark.testing import child_env

    done = subprocess.run([sys.executable, "-m", "ubunye.spark.selfcheck", *args],
                          capture_output=True, text=True, env=child_env(), timeout=900)
    lines = done.stdout.strip().splitlines()
    assert lines, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(lines[-1])
    assert done.returncode == (0 if result["ok"] else 1), done.stderr[-3000:]
    return result


def test_the_shared_session_reports_its_line_and_the_jar_it_loaded(spark: Any) -> None:
    import ubunye.spark
    from ubunye.spark.jar import jar_info, line_of

    state = ubunye.spark.status(spark)
    info = jar_info()
    assert (state.spark, state.engine, state.reason, state.connect) == (pyspark.__version__, "spark-native", None, False)
    assert state.scala is not None and line_of(state.scala) == line_of(info.scala)
    assert state.jar is not None and state.jar.endswith(info.path.name) and state.jar_version == info.version
    assert state.java and state.describe().startswith(f"Spark {pyspark.__version__} / Scala {state.scala} / Java ")


def test_only_spark_jars_gives_the_native_engine_and_every_fixture_digest() -> None:
    import ubunye.spark

    result = selfcheck("--jars-only")
    assert result["failures"] == {} and result["fixtures"] > 10
    state = result["status"]
    assert (state["engine"], state["spark"]) == ("spark-native", pyspark.__version__), state
    assert state["jar"].endswith(Path(ubunye.spark.jar_path()).name)


def test_spark_jars_packages_from_a_maven_repository_gives_the_native_engine() -> None:
    from ubunye.spark.jar import jar_info

    info = jar_info()
    coordinates = f"io.ubunye:ubunye-spark_{info.line}:{info.version}"
    pom = MAVEN_REPO / "io" / "ubunye" / f"ubunye-spark_{info.line}" / info.version
    if not pom.is_dir():
        pytest.skip(f"{pom} is missing: run scripts/build-jar --publish (scripts/test does) first")
    result = selfcheck("--packages", coordinates, "--repository", MAVEN_REPO.as_uri())
    state = result["status"]
    assert (state["engine"], state["spark"], result["failures"]) == ("spark-native", pyspark.__version__, {}), state
    assert f"ubunye-spark_{info.line}" in state["jar"]


def test_connect_sessions_report_the_server_line_and_why_not_native(connect_plain: Any, connect_native: Any) -> None:
    import ubunye.spark

    native = ubunye.spark.status(connect_native)
    assert (native.connect, native.engine, native.reason, native.scala, native.java) == (True, "spark-native", None, None, None)
    assert native.spark == pyspark.__version__
    plain = ubunye.spark.status(connect_plain)
    assert (plain.connect, plain.engine) == (True, "spark-sql")
    assert plain.reason is not None and "\n" not in plain.reason
    assert plain.reason.startswith("the Spark Connect server has no ubunye functions; start it with spark.jars=")
