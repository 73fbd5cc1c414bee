"""ubunye-engine 0.8.0's ``secret://`` values on Spark: a jdbc output and input whose user and
password are ``secret://env/...`` and ``secret://file/...`` connect with the secrets' values, and
neither value reaches a record, a log line or a failure text."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ubunye import run_task

pytestmark = pytest.mark.spark

USER = "etl080"  # Derby puts the table in the schema of this user: the read finds it only if both resolved it
PASSWORD = "Derby-080-s3cr3t"

CODE = """
from ubunye import Task


class Copy(Task):
    def transform(self, sources):
        return {self.params["output"]: sources[sorted(sources)[0]]}
"""

WRITE = """
CONFIG:
  inputs:
    src: {format: s3, path: "{{ data }}"}
  transform: {params: {output: db}}
  outputs:
    db: {format: jdbc, url: "jdbc:derby:{{ derby }};create=true", table: PEOPLE,
         user: "secret://env/UBUNYE_T080_DERBY_USER", password: "secret://file/{{ pw_file }}", mode: overwrite}
"""

READ = """
CONFIG:
  inputs:
    db: {format: jdbc, url: "jdbc:derby:{{ derby }}", table: "{{ table }}",
         user: "secret://file/{{ user_file }}", password: "secret://env/UBUNYE_T080_DERBY_PASSWORD"}
  transform: {params: {output: o}}
  outputs:
    o: {format: s3, path: "{{ out }}"}
"""


def make_task(root: Path, name: str, config: str) -> Path:
    task = root / "uc" / "shop" / "orders" / name
    task.mkdir(parents=True, exist_ok=True)
    (task / "config.yaml").write_text(config)
    (task / "transformations.py").write_text(CODE)
    return task


def test_jdbc_user_and_password_from_secret_references(spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capfd: pytest.CaptureFixture[str],
                                                       caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("UBUNYE_T080_DERBY_USER", USER)
    monkeypatch.setenv("UBUNYE_T080_DERBY_PASSWORD", PASSWORD)
    (tmp_path / "pw").write_text(PASSWORD + "\n")
    (tmp_path / "user").write_text(USER + "\n")
    pq.write_table(pa.table({"id": pa.array([1, 2, 3], pa.int64())}), tmp_path / "people.parquet")
    variables = {"data": str(tmp_path / "people.parquet"), "derby": str(tmp_path / "derby" / "db"),
                 "out": str(tmp_path / "out"), "pw_file": str(tmp_path / "pw"), "user_file": str(tmp_path / "user")}
    written = run_task(make_task(tmp_path, "write", WRITE), spark=spark, lineage=True, variables=variables)
    read_task = make_task(tmp_path, "read", READ)
    read = run_task(read_task, spark=spark, lineage=True, variables={**variables, "table": "PEOPLE"})
    assert sorted(pq.read_table(tmp_path / "out").column("id").to_pylist()) == [1, 2, 3]
    assert spark.read.format("jdbc").options(url=f"jdbc:derby:{variables['derby']}", dbtable=f"{USER}.PEOPLE",
                                             user="someone", password="x").load().count() == 3
    failed = run_task(read_task, spark=spark, lineage=True, raise_on_error=False,
                      variables={**variables, "table": "NO_SUCH_TABLE"})
    assert failed.status == "error" and "NO_SUCH_TABLE" in failed.reason()
    records = [json.loads(Path(r.record_path).read_text()) for r in (written, read, failed)]
    texts = [json.dumps(r) for r in records] + ["".join(capfd.readouterr()), caplog.text, failed.reason()]
    for text in texts:
        assert PASSWORD not in text
