"""pyspark 4.1 on Java 21 (scripts/jdk21: Debian trixie's openjdk-21), as Databricks 18 LTS runs it by
default and 19 (Spark 4.2) only: a session made with ``ubunye.spark.configure`` hashes a few shared
fixtures natively with the 4.1 jar (every kind at once, nulls, doubles, decimals, instants, maps,
and one that must give its error), each digest the fixture's (``python -m ubunye.spark.selfcheck``
in its own process, with ``JAVA_HOME`` set, so the JVM is a new one). The Scala fixture suites of
every jar run on Java 21 in scripts/test-jars; this is the Python side, on the default execution
path. Runs where the installed pyspark is 4.1 (scripts/test's 4.1 suite); ``scripts/check-wheel dbr18``
does every fixture through the wheel with 18 LTS's own libraries.
"""
from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ("reference_3rows", "mixed_random_1000", "nulls", "doubles", "decimals", "timestamps", "maps",
            "error_map_struct_key")


def test_the_41_jar_hashes_fixtures_natively_on_java21(tmp_path: Path) -> None:
    if not importlib.metadata.version("pyspark").startswith("4.1."):
        pytest.skip("the Java 21 check runs once, on the pyspark 4.1 suite (scripts/test)")
    done = subprocess.run(["bash", str(ROOT / "scripts" / "jdk21")], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    home = done.stdout.strip().splitlines()[-1]
    env = {k: v for k, v in os.environ.items() if k != "SPARK_HOME"}
    for name in FIXTURES:
        shutil.copy(ROOT / "tests" / "fixtures" / "rows-v1" / f"{name}.json", tmp_path)
    env.update(JAVA_HOME=home, PYSPARK_PYTHON=sys.executable, SPARK_LOCAL_IP="127.0.0.1",
               UBUNYE_ROWS_V1_FIXTURES=str(tmp_path))
    done = subprocess.run([sys.executable, "-m", "ubunye.spark.selfcheck"], capture_output=True, text=True,
                          env=env, timeout=900, cwd=str(ROOT))
    assert done.returncode == 0, done.stderr[-4000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    status = result["status"]
    assert status["java"].startswith("21."), status
    assert status["engine"] == "spark-native" and "ubunye-spark_4.1_2.13-" in status["jar"], status
    assert result["failures"] == {} and result["fixtures"] == len(FIXTURES), result
