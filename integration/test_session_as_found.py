"""A run on a Spark session it did not start leaves the session as it found it: what it
changed is put back (also when the run fails), what it cannot change is named in one warning."""
from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ubunye import run_task

pytestmark = pytest.mark.spark

CONFIG = """
ENGINE:
  time_zone: America/Sao_Paulo
  spark_conf:
    spark.sql.shuffle.partitions: "3"
    spark.sql.ansi.enabled: "false"
    spark.sql.warehouse.dir: /somewhere/else
    spark.executor.memory: 3g
CONFIG:
  inputs:
    people: {format: parquet, path: "{{ data }}/people.parquet"}
  outputs:
    kept: {format: parquet, path: "{{ out }}/kept"}
"""
CODE = """
from ubunye import Task


class Keep(Task):
    def transform(self, sources):
        if {fail}:
            raise RuntimeError("the task fails")
        return {{"kept": sources["people"]}}
"""
WATCHED = ("spark.sql.session.timeZone", "spark.sql.shuffle.partitions", "spark.sql.ansi.enabled")


def _task(root: Path, fail: bool) -> Path:
    task = root / "uc" / "found" / "pkg" / ("fails" if fail else "keeps")
    task.mkdir(parents=True)
    (task / "config.yaml").write_text(CONFIG)
    (task / "transformations.py").write_text(CODE.format(fail=fail))
    (root / "data").mkdir(exist_ok=True)
    pq.write_table(pa.table({"id": [1, 2, 3]}), root / "data" / "people.parquet")
    return task


@pytest.mark.parametrize("fail", [False, True], ids=["run succeeds", "run fails"])
def test_a_found_session_is_left_as_found(spark: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture,
                                          fail: bool) -> None:
    before = {key: spark.conf.get(key, None) for key in WATCHED}
    assert before["spark.sql.session.timeZone"] != "America/Sao_Paulo"
    task = _task(tmp_path, fail)
    with caplog.at_level(logging.WARNING, logger="ubunye.engine"):
        result = run_task(task, spark=spark, lineage=True, raise_on_error=False,
                          variables={"data": str(tmp_path / "data"), "out": str(tmp_path / "out")})
    assert result.status == ("error" if fail else "success"), result.reason()
    seen = {key: spark.conf.get(key, None) for key in WATCHED}
    assert seen == before  # time zone, shuffle partitions and ANSI mode put back
    if not fail:  # the run itself saw its own settings
        assert json.loads(Path(str(result.record_path)).read_text())["time_zone"] == "America/Sao_Paulo"
    warnings = [r.getMessage() for r in caplog.records if "cannot apply" in r.getMessage()]
    assert len(warnings) == 1, warnings
    assert "spark.sql.warehouse.dir=/somewhere/else" in warnings[0]
    assert "spark.executor.memory=3g" in warnings[0]
    assert "shuffle" not in warnings[0] and "timeZone" not in warnings[0]
    assert "\n" not in warnings[0]
