"""Outputs that cannot destroy, on Spark (issue 19): the refusals happen when the config is
read, before a session starts (the CLI in a real process with ``--backend spark``), and an
allowed overwrite on the shared session changes only its output and verifies.

Before the check, an output at an input's own path deleted the input on Spark
(``mode("overwrite")`` deletes the folder before the job reads it).
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "safety"))

from harness import PEOPLE, Usecase, assert_one_line_error, assert_unchanged, tree_digest  # noqa: E402
from test_outputs import ONE_CODE as CODE, ONE_OUT as PLAIN  # noqa: E402
from test_outputs import QUARANTINE as CONFIG  # noqa: E402  clean, and its quarantine output "rejected" at {other}

FAILS_HALF_WAY = """
from pyspark.sql import functions as F

from ubunye import Task


class Boom(Task):
    def transform(self, sources):
        people = sources["people"]  # the job fails on one row, while Spark writes the others
        return {"clean": people.withColumn(
            "name", F.when(F.col("id") == 3, F.raise_error(F.lit("disk full"))).otherwise(F.col("name")))}
"""


def _usecase(tmp_path: Path, config: str = CONFIG, code: str = CODE, **where: str) -> Usecase:
    uc = Usecase(tmp_path / "uc")
    (uc.root / "data" / "people").mkdir()
    pq.write_table(PEOPLE, uc.root / "data" / "people" / "part-0.parquet")
    fill = {"src": f"{uc.root}/data/people", "out": f"{uc.root}/out/clean", "other": f"{uc.root}/out/rejected",
            "fmt": "parquet", "mode": "overwrite", "extra": ""}
    fill.update({k: v.replace("R/", f"{uc.root}/") for k, v in where.items()})
    uc.task("clean", config.format(**fill), code)
    return uc


@pytest.mark.parametrize("where, key", [
    ({"out": "R/data/people"}, "CONFIG.outputs.clean.path"),  # the input's own path (deleted it before)
    ({"out": "R/data/people/x"}, "CONFIG.outputs.clean.path"),  # inside the input
    ({"other": "R/out/clean/rejected"}, "CONFIG.outputs.rejected.path"),  # quarantine inside clean
    ({"out": "R/shop/orders/clean/.."}, "CONFIG.outputs.clean.path"),  # the package: the task's code
], ids=["input's path", "inside the input", "quarantine inside clean", "the task's code"])
def test_data_loss_on_spark_refused_before_a_session_starts(tmp_path: Path, where: dict, key: str) -> None:
    uc = _usecase(tmp_path, **where)
    before = tree_digest(tmp_path)
    result = uc.run("-t", "clean", "--lineage", backend="spark", cwd=tmp_path)
    assert_one_line_error(result, naming=["config.yaml", key])
    assert_unchanged(before, tree_digest(tmp_path))


def test_an_allowed_spark_overwrite_changes_only_its_outputs_and_verifies(spark: Any, tmp_path: Path) -> None:
    from ubunye import run_task
    from ubunye.cli.app import cli

    uc = _usecase(tmp_path)
    (uc.root / "out" / "clean").mkdir(parents=True)
    pq.write_table(PEOPLE.slice(0, 1), uc.root / "out" / "clean" / "part-old.parquet")
    declared = ["uc/out", "uc/.ubunye"]
    before = tree_digest(tmp_path, skip=declared)
    result = run_task(uc.package_dir / "clean", backend="spark", spark=spark, lineage=True)
    assert result.status == "success", result.reason()
    assert_unchanged(before, tree_digest(tmp_path, skip=declared))
    assert pq.read_table(uc.root / "out" / "clean").num_rows == 3  # the old part is gone, the null name set aside
    verified = CliRunner().invoke(cli, ["lineage", "verify", "-d", str(uc.root), "-u", "shop", "-p", "orders",
                                        "-t", "clean", "--engine", "pandas"])
    assert verified.exit_code == 0, verified.stdout


def test_data_loss_a_spark_overwrite_failing_half_way_leaves_the_old_output(spark: Any, tmp_path: Path) -> None:
    """Spark's own overwrite deletes the folder before the job runs; the backend writes beside
    it and swaps it in, so a job that fails leaves the previous output as it was."""
    from ubunye import run_task

    uc = _usecase(tmp_path, PLAIN, FAILS_HALF_WAY)
    (uc.root / "out" / "clean").mkdir(parents=True)
    pq.write_table(PEOPLE.slice(0, 1), uc.root / "out" / "clean" / "part-old.parquet")
    before = tree_digest(tmp_path, skip=["uc/.ubunye"])
    result = run_task(uc.package_dir / "clean", backend="spark", spark=spark, raise_on_error=False)
    assert result.status == "error" and "disk full" in result.reason()
    assert_unchanged(before, tree_digest(tmp_path, skip=["uc/.ubunye"]))
