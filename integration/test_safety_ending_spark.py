"""Lying record or exit code on Spark (issue 19): SystemExit in a Spark transform is a failed run
that leaves the session as found; SIGTERM during a Spark action ends the record before the
process exits (a real ``ubunye run`` process with its own session)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import ubunye
from ubunye import run_task
from ubunye.spark.testing import child_env

PEOPLE = pa.table({"id": pa.array([1, 2, 3], pa.int64()), "name": pa.array(["a", "b", None], pa.string())})

CONFIG = """
ENGINE: {backend: spark, spark_conf: {spark.sql.shuffle.partitions: "7"}}
CONFIG:
  inputs:
    people: {format: parquet, path: "{{ task_dir }}/../../../data/people.parquet"}
  outputs:
    out: {format: parquet, path: "{{ task_dir }}/../../../data/out", mode: overwrite}
"""


def make(root: Path, body: str) -> Path:
    (root / "data").mkdir(exist_ok=True)
    pq.write_table(PEOPLE, root / "data" / "people.parquet")
    folder = root / "shop" / "orders" / "t"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.yaml").write_text(CONFIG, encoding="utf-8")
    lines = "\n".join("        " + line for line in body.strip().splitlines())
    (folder / "transformations.py").write_text(
        f"import os, sys\nfrom ubunye import Task\n\n\nclass T(Task):\n    def transform(self, sources):\n{lines}\n",
        encoding="utf-8")
    return folder


def records(root: Path) -> list[dict[str, Any]]:
    folder = root / ".ubunye" / "lineage" / "shop" / "orders" / "t"
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))]


def test_system_exit_in_a_spark_transform_is_an_error_and_the_session_is_as_found(spark: Any,
                                                                                  tmp_path: Path) -> None:
    task = make(tmp_path, "n = sources['people'].count()\nsys.exit(0)")
    partitions = spark.conf.get("spark.sql.shuffle.partitions")
    zone = spark.conf.get("spark.sql.session.timeZone")
    try:
        result = run_task(task, spark=spark, lineage=True, raise_on_error=False)
    finally:
        spark.conf.set("spark.sql.session.timeZone", zone)
    assert result.status == "error", result.reason()
    (record,) = records(tmp_path)
    assert record["status"] == "error"
    assert record["error"] == "SystemExit(0) raised by task code at transformations.py:8 in transform"
    assert spark.conf.get("spark.sql.shuffle.partitions") == partitions  # the run's setting put back
    assert not (tmp_path / "data" / "out").exists() or not list((tmp_path / "data" / "out").glob("*.parquet"))


BLOCK_IN_UDF = """
from pyspark.sql import functions as F
folder = str(self.task_dir)

def wait(v):
    import os
    with open(os.path.join(folder, "in_udf.fifo"), "w") as ready:
        ready.write("in udf")
    open(os.path.join(folder, "never.fifo")).read()
    return v

os.mkfifo(os.path.join(folder, "in_udf.fifo"))
os.mkfifo(os.path.join(folder, "never.fifo"))
frame = sources['people'].repartition(1).withColumn('x', F.udf(wait, 'string')('name'))
frame.collect()
return {'out': frame}
"""


def test_sigterm_during_a_spark_action_ends_the_record_before_exit(tmp_path: Path) -> None:
    folder = make(tmp_path, BLOCK_IN_UDF)
    package_root = str(Path(ubunye.__file__).resolve().parent.parent)
    env = child_env({"PYTHONPATH": package_root + os.pathsep + os.environ.get("PYTHONPATH", "")})
    proc = subprocess.Popen([sys.executable, "-m", "ubunye", "run", "-d", str(tmp_path), "-u", "shop", "-p", "orders",
                             "-t", "t", "--lineage"], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    fifo = folder / "in_udf.fifo"
    try:
        while not fifo.exists():  # made by the driver just before the action
            if proc.poll() is not None:
                pytest.fail(f"the run ended before blocking: {proc.communicate()}")
            try:
                proc.wait(timeout=0.1)
            except subprocess.TimeoutExpired:
                pass
        with open(fifo) as ready:  # returns once a Spark worker runs the UDF
            assert ready.read() == "in udf"
        assert [r["status"] for r in records(tmp_path)] == ["running"]
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        if (folder / "never.fifo").exists():
            _release(folder / "never.fifo")
    assert proc.returncode == 143, err[-3000:]
    assert "FAIL shop/orders/t: stopped by signal 15 (SIGTERM)" in err
    (record,) = records(tmp_path)
    assert record["status"] == "error" and record["error"] == "stopped by signal 15 (SIGTERM)"
    assert not (tmp_path / "data" / "out").exists()


def _release(fifo: Path) -> None:
    """Let a Spark worker still blocked reading ``fifo`` go (it reads end of file), if any."""
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:  # ENXIO: nobody is waiting
        pass
