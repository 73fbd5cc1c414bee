"""The native aggregate on executor JVMs that are not the driver.

A standalone master and worker run on 127.0.0.1 (``StandaloneCluster``); a
driver in its own process connects with ``spark.executor.cores=1`` and
``spark.cores.max=2``, so it gets two executor JVMs of its own, and ships the
plugin jar through ``spark.jars`` only (no ``spark.sql.extensions``: the driver
registers the functions at runtime with ``ubunye.spark.install``). In
standalone mode no task runs in the driver, so every row is hashed on the
executors, which can only load the aggregate from the shipped jar.

Run as a script (``python test_cluster_native.py --driver MASTER WORKDIR``) this
file is that driver; it prints one JSON line.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from ubunye.spark.testing import LOOPBACK, StandaloneCluster, child_env
from ubunye.testing.fixtures import fixtures_dir, load_fixture

FIXTURES = ("mixed_random_1000", "reference_3rows", "maps", "map_temporal_keys", "structs", "strings")
EXECUTORS = 2


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneCluster]:
    with StandaloneCluster(tmp_path_factory.mktemp("standalone"), cores=EXECUTORS, memory="2g") as c:
        yield c


def test_native_aggregate_on_two_executor_jvms(cluster: StandaloneCluster, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, __file__, "--driver", cluster.url, str(tmp_path)],
        capture_output=True, text=True, env=child_env(), timeout=900,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-5000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["master"] == cluster.url
    # spark.jars alone registers the functions (Spark 4: the jar's service-loader entry;
    # Spark 3.5: native_available installs a loaded jar of the session's line); install()
    # on top of that is idempotent.
    assert out["native_before_install"] is True and out["native_after_install"] is True
    assert len(out["executors"]) == EXECUTORS and "driver" not in out["executors"]
    for name in FIXTURES:
        fx = load_fixture(fixtures_dir() / f"{name}.json")
        assert out["results"][name]["spark-native"] == [fx.expect.row_count, fx.expect.data_hash], name
        assert out["results"][name]["spark-sql"] == [fx.expect.row_count, fx.expect.data_hash], name


def _executor_ids(spark: Any) -> list[str]:
    infos = spark.sparkContext._jsc.sc().getExecutorIds()  # excludes the driver
    return [str(infos.apply(i)) for i in range(infos.size())]


def _driver(master: str, workdir: str) -> None:
    from pyspark.sql import SparkSession

    import ubunye.spark
    from ubunye.spark import fingerprint_spark
    from ubunye.spark.testing import fixture_dataframe, stable_jar

    builder: Any = (
        SparkSession.builder.master(master).appName("ubunye-cluster-test")
        .config("spark.executor.cores", "1").config("spark.cores.max", str(EXECUTORS))
        .config("spark.executor.memory", "768m")
        .config("spark.driver.host", LOOPBACK).config("spark.driver.bindAddress", LOOPBACK)
        .config("spark.ui.enabled", "false").config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.warehouse.dir", f"{workdir}/warehouse")
        .config("spark.pyspark.python", sys.executable)
    )
    jar = stable_jar(Path(workdir) / "jar")
    spark = ubunye.spark.configure(builder, jar=jar, extensions=False).getOrCreate()
    out: dict[str, Any] = {"master": spark.sparkContext.master}
    deadline = time.monotonic() + 180
    while len(_executor_ids(spark)) < EXECUTORS and time.monotonic() < deadline:
        time.sleep(1)
    out["executors"] = _executor_ids(spark)
    out["native_before_install"] = ubunye.spark.native_available(spark)
    ubunye.spark.install(spark)
    out["native_after_install"] = ubunye.spark.native_available(spark)
    out["results"] = {}
    for name in FIXTURES:
        df = fixture_dataframe(spark, load_fixture(fixtures_dir() / f"{name}.json"), partitions=4)
        out["results"][name] = {
            engine: [fp.row_count, fp.data_hash if fp.ok else fp.error]
            for engine in ("spark-native", "spark-sql")
            for fp in [fingerprint_spark(df, engine=engine)]
        }
    spark.stop()
    print(json.dumps(out))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--driver":
        _driver(sys.argv[2], sys.argv[3])
    else:
        raise SystemExit(f"usage: {sys.argv[0]} --driver MASTER_URL WORKDIR")
