"""Lying record on Spark (issue 19): a Delta input whose data file was rewritten in place, with the
same name and size and its modification time put back, is hashed again, never reused from the
``.known`` index.

A local disk also changes the file's change time (``st_ctime``), which the signature holds; HDFS and
object stores keep none, so the probe signs files as such a store does (no change time, no inode:
``snapshots._file_identity`` patched) and only the file's content evidence (its parquet footer) is
left to tell the rewrite.
"""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from test_engine_spark import engine_spark, make_task  # noqa: F401 - engine_spark is a fixture
from ubunye import run_task

pytestmark = pytest.mark.spark

READ = """
CONFIG:
  inputs:
    lake: {format: delta, path: "{{ lake }}"}
  outputs:
    copy: {format: parquet, path: "{{ out }}/copy", mode: overwrite}
"""
CODE = """
from ubunye import Task


class Pass(Task):
    def transform(self, sources):
        return {"copy": sources["lake"]}
"""


def input_step(result: Any) -> dict[str, Any]:
    (step,) = json.loads(Path(result.record_path).read_text())["inputs"]
    return step


def test_lying_record_delta_file_rewritten_same_size_old_mtime_is_hashed_again(
        engine_spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ubunye.engine import snapshots

    monkeypatch.setattr(snapshots, "_file_identity", lambda st: "")  # a store with no change time, no inode
    lake = tmp_path / "lake"
    for row in ([(1, "a")], [(2, "b")]):  # two commits, one data file each, of one size
        engine_spark.createDataFrame(row, "id BIGINT, name STRING").coalesce(1).write.format("delta") \
            .mode("append").save(str(lake))
    first, second = sorted((p for p in lake.glob("*.parquet")), key=lambda p: p.stat().st_mtime_ns)
    assert first.stat().st_size == second.stat().st_size  # the probe's premise: a same-size rewrite

    reader = make_task(tmp_path, "read", READ, CODE)
    variables = {"lake": str(lake), "out": str(tmp_path / "out")}
    hashed = input_step(run_task(reader, spark=engine_spark, lineage=True, variables=variables))
    assert hashed["hash_pass"] != "reused" and hashed["row_count"] == 2
    again = input_step(run_task(reader, spark=engine_spark, lineage=True, variables=variables))
    assert again["hash_pass"] == "reused"  # nothing changed: the index is used

    before = first.stat()
    shutil.copyfile(second, first)  # rewritten in place: other rows, same name, same size
    crc = lambda p: p.with_name(f".{p.name}.crc")  # noqa: E731 - Hadoop's local checksum file, rewritten with it
    if crc(second).exists():
        shutil.copyfile(crc(second), crc(first))
    os.utime(first, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (first.stat().st_size, first.stat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)

    changed = input_step(run_task(reader, spark=engine_spark, lineage=True, variables=variables))
    assert changed["hash_pass"] != "reused", changed
    assert changed["data_hash"] != hashed["data_hash"]  # the rows (2, b) twice now
