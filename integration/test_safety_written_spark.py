"""Lying record on Spark (issue 19, "Hash what was written"): a csv or json output appended to, or
written with ``partition_by``, is hashed from exactly the files that write created, read back
with the reader settings its step records (partition values from the ``key=value`` folders), and
the pandas backend's receipt for the same task is the same.

The frame holds what text files do not keep: timestamps with microseconds (Spark's default
``timestampFormat`` writes milliseconds) and an empty string as a partition value (its folder is
``__HIVE_DEFAULT_PARTITION__``, read back as null): the frame's hash is not the files'.
"""
from __future__ import annotations

import datetime as dt
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ubunye import run_task

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "safety"))

from harness import task_folder  # noqa: E402

pytestmark = pytest.mark.spark

UTC = dt.timezone.utc
ROWS = pa.table({
    "id": pa.array([1, 2, 3, 4], pa.int64()),
    "p": pa.array(["a", "", None, "a"], pa.string()),
    "t": pa.array([dt.datetime(2024, 1, 1, 1, 2, 3, 123456, tzinfo=UTC), None,
                   dt.datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
                   dt.datetime(2024, 1, 1, tzinfo=UTC)], pa.timestamp("us", tz="UTC")),
})
CONFIG = """
CONFIG:
  inputs:
    rows: {format: parquet, path: "{{ data }}/rows.parquet"}
  outputs:
    added: {format: FMT, path: "{{ out }}/added", mode: append}
    parts: {format: FMT, path: "{{ out }}/parts", mode: append, partition_by: [p]}
    whole: {format: FMT, path: "{{ out }}/whole", mode: overwrite, partition_by: [p]}
"""
CODE = """
from ubunye import Task


class Same(Task):
    def transform(self, sources):
        rows = sources["rows"]
        return {"added": rows, "parts": rows, "whole": rows}
"""


def data_files(folder: Path) -> set[Path]:
    return {p for p in folder.rglob("*") if p.is_file() and not any(
        part.startswith((".", "_")) for part in p.relative_to(folder).parts)}


def spark_hash_of(spark: Any, files: set[Path], folder: Path, fmt: str, step: dict[str, Any]) -> str:
    """Spark's rows-v1 hash of exactly ``files`` (copied alone, keeping their key=value folders),
    read with the step's recorded options and schema."""
    from ubunye.spark import fingerprint_spark

    alone = folder.parent / (folder.name + ".alone")
    shutil.rmtree(alone, ignore_errors=True)
    for f in files:
        target = alone / f.relative_to(folder)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(f, target)
    frame = spark.read.format(fmt).options(**step["options"]).schema(step["schema"]).load(str(alone))
    return fingerprint_spark(frame).data_hash


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_lying_record_spark_appends_and_partitioned_text_are_hashed_from_their_new_files(
        spark: Any, tmp_path: Path, fmt: str) -> None:
    from ubunye.hashing import fingerprint

    zone = spark.conf.get("spark.sql.session.timeZone")
    (tmp_path / "data").mkdir()
    pq.write_table(ROWS, tmp_path / "data" / "rows.parquet")
    task = task_folder(tmp_path / "uc", "same", CONFIG.replace("FMT", fmt), CODE, usecase="proof", package="pkg")
    receipts: dict[str, list[Any]] = {}
    try:
        for label, options in {"spark": dict(backend="spark", spark=spark), "pandas": dict(backend="pandas")}.items():
            seen: dict[str, set[Path]] = {"added": set(), "parts": set(), "whole": set()}
            for turn in range(2):  # the second append adds to the first
                result = run_task(task, lineage=True, reuse_hashes=False,
                                  variables={"data": str(tmp_path / "data"), "out": str(tmp_path / label)}, **options)
                record = json.loads(Path(result.record_path).read_text())
                for step in record["outputs"]:
                    folder = tmp_path / label / step["name"]
                    new = data_files(folder) - seen[step["name"]]
                    seen[step["name"]] = data_files(folder)
                    assert step["row_count"] == 4 and step["data_hash"] is not None, (label, step)
                    assert step["data_hash"] != fingerprint(ROWS).data_hash, (label, step)
                    if label == "spark":  # what Spark itself reads from this write's files alone
                        assert step["data_hash"] == spark_hash_of(spark, new, folder, fmt, step), (turn, step)
                    receipts.setdefault(label, []).append(
                        (turn, step["name"], step["row_count"], step["schema_hash"], step["data_hash"]))
    finally:
        spark.conf.set("spark.sql.session.timeZone", zone)
    assert receipts["pandas"] == receipts["spark"]


def test_lying_record_spark_output_path_with_glob_characters_is_listed_literally(spark: Any, tmp_path: Path) -> None:
    """An output folder named ``o[1]`` beside a folder ``o1``: Spark writes to ``o[1]`` as named,
    so the files this write created must be listed there, not where ``o[1]`` matches as a glob
    (``o1``: the record said 0 rows for the 3 it wrote)."""
    from ubunye.hashing import fingerprint

    (tmp_path / "data").mkdir()
    rows = pa.table({"id": pa.array([1, 2, 3], pa.int64())})
    pq.write_table(rows, tmp_path / "data" / "rows.parquet")
    (tmp_path / "out" / "o1").mkdir(parents=True)
    (tmp_path / "out" / "o1" / "part-x.csv").write_text("id\n7\n")
    config = """
CONFIG:
  inputs:
    rows: {format: parquet, path: "{{ data }}/rows.parquet"}
  outputs:
    added: {format: csv, path: "{{ out }}/o[1]", mode: append, options: {header: "true"}}
"""
    code = CODE.replace('return {"added": rows, "parts": rows, "whole": rows}', 'return {"added": rows}')
    assert code != CODE
    task = task_folder(tmp_path / "uc", "glob", config, code, usecase="proof", package="pkg")
    result = run_task(task, lineage=True, reuse_hashes=False, backend="spark", spark=spark,
                      variables={"data": str(tmp_path / "data"), "out": str(tmp_path / "out")})
    record = json.loads(Path(result.record_path).read_text())
    assert record["status"] == "success", record.get("error")
    added = next(s for s in record["outputs"] if s["name"] == "added")
    assert added["row_count"] == 3 and added["data_hash"] == fingerprint(rows).data_hash, added
