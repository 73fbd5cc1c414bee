"""Reused input hashes on Spark: a task reading what a recorded task wrote (parquet or a
Delta version) takes the writer's hash, on Spark and on pandas, and it is the hash a scan gives."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from test_engine_spark import engine_spark, make_task, people_table  # noqa: F401 - engine_spark is a fixture
from ubunye import run_task

pytestmark = pytest.mark.spark

WRITE = """
CONFIG:
  inputs:
    people: {format: parquet, path: "{{ data }}/people.parquet"}
  outputs:
    lake: {format: "{{ fmt }}", path: "{{ out }}/lake", mode: overwrite}
"""
READ = """
CONFIG:
  inputs:
    lake: {format: "{{ fmt }}", path: "{{ out }}/lake"}
  outputs:
    copy: {format: parquet, path: "{{ out }}/copy-{{ tag }}", mode: overwrite}
"""
READ_V0 = READ.replace('/lake"}', '/lake", version: 0}')
CODE = """
from ubunye import Task


class Pass(Task):
    def transform(self, sources):
        (frame,) = sources.values()
        return {"%s": frame}
"""


def record(result: Any) -> dict[str, Any]:
    return json.loads(Path(result.record_path).read_text())


def step(rec: dict[str, Any], direction: str) -> dict[str, Any]:
    (only,) = rec[direction]
    return only


def same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return all(a[k] == b[k] for k in ("row_count", "schema_hash", "data_hash"))


@pytest.mark.parametrize("fmt", ["parquet", "delta"])
def test_reader_takes_the_writers_hash_on_spark_and_pandas(engine_spark: Any, tmp_path: Path, fmt: str) -> None:
    (tmp_path / "data").mkdir()
    pq.write_table(people_table(), tmp_path / "data" / "people.parquet")
    writer = make_task(tmp_path, "write", WRITE, CODE % "lake")
    reader = make_task(tmp_path, "read", READ, CODE % "copy")
    variables = {"data": str(tmp_path / "data"), "out": str(tmp_path / "out"), "fmt": fmt}
    wrote = record(run_task(writer, spark=engine_spark, lineage=True, variables=variables))
    written = step(wrote, "outputs")
    assert written["hash_pass"] == "same-pass"
    assert written["storage_signature"].startswith("delta2:0:" if fmt == "delta" else "files:sha256:")

    backends: list[tuple[str, dict[str, Any]]] = [("spark", {"spark": engine_spark})]
    if fmt == "parquet":
        backends.append(("pandas", {"backend": "pandas"}))
    proofs = [f"proof/pkg/write/{wrote['run_id']}:output:lake"]  # the newest proof is taken
    for tag, options in backends:
        kept = {**variables, "tag": tag}
        reused = step(record(run_task(reader, lineage=True, variables=kept, **options)), "inputs")
        assert reused["hash_pass"] == "reused", tag
        assert reused["hash_reused_from"] == proofs[-1]
        assert same(reused, written)
        rescan = record(run_task(reader, lineage=True, variables=kept, reuse_hashes=False, **options))
        scanned = step(rescan, "inputs")
        assert scanned["hash_pass"] != "reused"
        assert same(scanned, written), tag  # the reused hash is the one a scan gives
        proofs.append(f"proof/pkg/read/{rescan['run_id']}:input:lake")


def test_a_pinned_delta_version_reuses_the_hash_of_that_version(engine_spark: Any, tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    pq.write_table(people_table(), tmp_path / "data" / "people.parquet")
    writer = make_task(tmp_path, "write", WRITE, CODE % "lake")
    reader = make_task(tmp_path, "read", READ, CODE % "copy")
    reader_v0 = make_task(tmp_path, "read_v0", READ_V0, CODE % "copy")
    variables = {"data": str(tmp_path / "data"), "out": str(tmp_path / "out"), "fmt": "delta", "tag": "v"}
    first = record(run_task(writer, spark=engine_spark, lineage=True, variables=variables))
    pq.write_table(people_table().slice(0, 3), tmp_path / "data" / "people.parquet")
    second = record(run_task(writer, spark=engine_spark, lineage=True, variables=variables))
    assert step(second, "outputs")["delta_version"] == 1
    assert step(second, "outputs")["data_hash"] != step(first, "outputs")["data_hash"]

    pinned = record(run_task(reader_v0, spark=engine_spark, lineage=True, variables=variables))
    read = step(pinned, "inputs")
    assert (read["hash_pass"], read["delta_version"]) == ("reused", 0)
    assert read["hash_reused_from"] == f"proof/pkg/write/{first['run_id']}:output:lake"
    assert same(read, step(first, "outputs"))
    latest = step(record(run_task(reader, spark=engine_spark, lineage=True, variables=variables)), "inputs")
    assert latest["hash_reused_from"] == f"proof/pkg/write/{second['run_id']}:output:lake"
    assert same(latest, step(second, "outputs"))
