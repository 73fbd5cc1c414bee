"""The mapInArrow fallback on workers whose Python lacks ubunye: one line saying what to do.

Its own session, in a child process: the interpreter of a session's Python workers is
fixed when its context starts (``PYSPARK_PYTHON``), and the shared session's workers
have ubunye. The child's workers run a wrapper: this Python with ``-S`` (no
site-packages, so not the installed ubunye), a PYTHONPATH without the folder ubunye
is imported from, and pyarrow alone added back.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.spark

CHILD = """
import json, sys
from pyspark.sql import SparkSession

spark = (SparkSession.builder.master("local[1]").appName("ubunye-worker-python")
         .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
         .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
         .getOrCreate())
spark.sparkContext.setLogLevel("OFF")
import ubunye

fp = ubunye.fingerprint(spark.range(3), engine="spark-sql")
print(json.dumps([fp.schema_hash is not None, fp.data_hash, fp.error]))
spark.stop()
"""


def test_workers_without_ubunye_give_one_line_naming_the_settings(tmp_path: Path) -> None:
    import pyarrow

    import ubunye

    package_root = str(Path(ubunye.__file__).resolve().parents[1])
    only_arrow = tmp_path / "only-arrow"
    only_arrow.mkdir()
    (only_arrow / "pyarrow").symlink_to(Path(pyarrow.__file__).resolve().parent)
    wrapper = tmp_path / "worker-python"
    wrapper.write_text(
        "#!/bin/sh\n"
        f"PYTHONPATH=\"$(printf '%s' \"$PYTHONPATH\" | tr ':' '\\n' | grep -vxF '{package_root}' | paste -sd: -)"
        f":{only_arrow}\"\n"
        "export PYTHONPATH\n"
        f"exec {sys.executable} -S \"$@\"\n"
    )
    wrapper.chmod(0o755)
    env = {**os.environ, "PYSPARK_PYTHON": str(wrapper), "PYTHONPATH": package_root}
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    has_schema, data_hash, error = json.loads(out.stdout.strip().splitlines()[-1])
    assert has_schema and data_hash is None
    assert error.startswith("WorkerImportError: Spark's Python workers cannot import ubunye "
                            f"(they run {wrapper})"), error
    assert "PYSPARK_PYTHON" in error and "spark.pyspark.python" in error
    assert "\n" not in error and "Traceback" not in error
