"""Lying record or exit code on Spark (issue 19): SystemExit in a Spark transform is a failed run
that leaves the session as found; SIGTERM while the driver waits in a Spark action ends the record
("stopped by signal 15") and the process exits 143 (a real ``ubunye run`` process with its own
session)."""
from __future__ import annotations

import os
import select
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "safety"))

from harness import task_folder, task_records  # noqa: E402

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
    lines = "\n".join("        " + line for line in body.strip().splitlines())
    return task_folder(root, "t", CONFIG, "import os, sys\nfrom ubunye import Task\n\n\nclass T(Task):\n"
                       f"    def transform(self, sources):\n{lines}\n")


def records(root: Path, under: str = "") -> list[dict[str, Any]]:
    return task_records(root / "shop" / "orders" / "t", under)


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



EXIT_IN_UDF = """
from pyspark.sql import functions as F

def leave(v):
    import sys
    sys.exit(0)

frame = sources['people'].withColumn('x', F.udf(leave, 'string')('name'))
return {'out': frame}
"""


def test_system_exit_in_a_spark_udf_fails_the_run_and_its_record_says_so(spark: Any, tmp_path: Path) -> None:
    task = make(tmp_path, EXIT_IN_UDF)  # raised in a Python worker while the write's task runs
    result = run_task(task, spark=spark, lineage=True, raise_on_error=False)
    assert result.status == "error", result.reason()
    (record,) = records(tmp_path)
    assert record["status"] == "error"
    # pyspark's PythonException: the worker's traceback, down to the UDF's line and the SystemExit
    assert record["error"].startswith("PythonException: "), record["error"]
    assert 'transformations.py", line 11, in leave' in record["error"] and "SystemExit: 0" in record["error"]
    assert record["outputs"][0]["data_hash"] is None
    assert not (tmp_path / "data" / "out").exists() or not list((tmp_path / "data" / "out").glob("*.parquet"))


# The UDF says it runs (it opens in_udf.fifo for writing), then waits for ever (never.fifo is never
# written): the driver's main thread sits in collect(), in a py4j call waiting on the JVM.
BLOCK_IN_UDF = """
from pyspark.sql import functions as F
folder = str(self.task_dir)

def wait(v):
    import os
    with open(os.path.join(folder, "in_udf.fifo"), "w") as ready:
        ready.write("in udf")
    open(os.path.join(folder, "never.fifo")).read()
    return v

frame = sources['people'].repartition(1).withColumn('x', F.udf(wait, 'string')('name'))
frame.collect()
return {'out': frame}
"""
STARTS_WITHIN = 600  # seconds: a run on a loaded 2-core machine takes minutes to reach its UDF
ENDS_WITHIN = 120  # seconds the child may take to end its record and exit after SIGTERM


def test_sigterm_during_a_spark_action_ends_the_record_and_exits_143(tmp_path: Path) -> None:
    folder = make(tmp_path, BLOCK_IN_UDF)
    os.mkfifo(folder / "in_udf.fifo")
    os.mkfifo(folder / "never.fifo")
    code, err = _terminated_in_udf(tmp_path, folder, ["-m", "ubunye", "run", "-d", str(tmp_path), "-u", "shop",
                                                      "-p", "orders", "-t", "t", "--lineage"])
    assert code == 143, err[-3000:]
    assert "FAIL shop/orders/t: stopped by signal 15 (SIGTERM)" in err
    (record,) = records(tmp_path)
    assert record["status"] == "error" and record["error"] == "stopped by signal 15 (SIGTERM)"
    assert not (tmp_path / "data" / "out").exists()


def _terminated_in_udf(tmp_path: Path, folder: Path, args: list[str]) -> tuple[int, str]:
    """Start ``python ARGS``, wait until its UDF runs (the run's record ``running``), send SIGTERM and
    wait (bounded) for the process to end; its exit code and output."""
    package_root = str(Path(ubunye.__file__).resolve().parent.parent)
    env = child_env({"PYTHONPATH": package_root + os.pathsep + os.environ.get("PYTHONPATH", "")})
    log = tmp_path / "run.log"  # a file, not a pipe nobody reads while the child starts
    with open(log, "wb") as sink:
        proc = subprocess.Popen([sys.executable, *args], env=env, stdout=sink, stderr=sink)
    ready = os.open(folder / "in_udf.fifo", os.O_RDONLY | os.O_NONBLOCK)
    try:
        assert _read_when_written(ready, proc) == b"in udf"  # a Spark worker runs the UDF
        assert [r["status"] for r in records(tmp_path, "_started")] == ["running"] and not records(tmp_path)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=ENDS_WITHIN)  # without the handler closing the connection: waits for ever
    finally:
        os.close(ready)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        _release(folder / "never.fifo")
    return proc.returncode, log.read_text(encoding="utf-8", errors="replace")


def _read_when_written(fd: int, proc: "subprocess.Popen[str]") -> bytes:
    """What a writer of the fifo ``fd`` wrote, once it closed it (bounded: fails if ``proc`` ends
    first or after :data:`STARTS_WITHIN` polls)."""
    data = b""
    for _ in range(STARTS_WITHIN):
        if select.select([fd], [], [], 1.0)[0]:  # Linux: no hang-up before a writer came
            chunk = os.read(fd, 64)
            if not chunk:
                return data
            data += chunk
        elif proc.poll() is not None:
            pytest.fail(f"the run ended ({proc.returncode}) before the UDF ran")
    pytest.fail("the UDF did not run in time")


def _release(fifo: Path) -> None:
    """Let a Spark worker still blocked reading ``fifo`` go (it reads end of file), if any."""
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:  # ENXIO: nobody is waiting
        pass


# The library's own context manager (no task engine, no backend): the same UDF waits in collect()
# inside ``ubunye.lineage.run(handle_signals=True)``; SIGTERM must end the record and the process.
LIBRARY_RUN = """
import os, sys
from pyspark.sql import SparkSession, functions as F
import ubunye.lineage

root, folder = sys.argv[1], sys.argv[2]
spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()

def wait(v):
    import os
    with open(os.path.join(folder, "in_udf.fifo"), "w") as ready:
        ready.write("in udf")
    open(os.path.join(folder, "never.fifo")).read()
    return v

with ubunye.lineage.run("shop/orders/t", usecase_dir=root, handle_signals=True) as run:
    people = spark.read.parquet(os.path.join(root, "data", "people.parquet"))
    run.input("people", people, location=os.path.join(root, "data", "people.parquet"), format="parquet")
    people.repartition(1).withColumn("x", F.udf(wait, "string")("name")).collect()
"""


def test_sigterm_during_a_spark_action_in_the_library_run_ends_the_record(tmp_path: Path) -> None:
    folder = make(tmp_path, "return {'out': sources['people']}")
    os.mkfifo(folder / "in_udf.fifo")
    os.mkfifo(folder / "never.fifo")
    script = tmp_path / "job.py"
    script.write_text(LIBRARY_RUN, encoding="utf-8")
    _, err = _terminated_in_udf(tmp_path, folder, [str(script), str(tmp_path), str(folder)])
    assert "Stopped: stopped by signal 15 (SIGTERM)" in err, err[-3000:]
    (record,) = records(tmp_path)
    assert record["status"] == "error" and record["error"] == "stopped by signal 15 (SIGTERM)"
