"""The task engine on a Spark Connect session whose server has the plugin.

The output is hashed in the same pass as its write (the native sums observed
on the write, ``hash_pass == "same-pass"``, engine ``spark-native``), and the
input and output hashes equal the pandas backend's on the same data (nested
types, nulls, NaN). An input's hash, whichever pass took it, is the whole
input's: one the run read only in part, or not at all, is hashed apart.

The Connect servers of ``integration/conftest.py`` have no Delta (only the
plugin jar and its extension), so only parquet outputs are checked here.
"""
from __future__ import annotations

import datetime as dt
import json
import math
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pyspark
import pytest

from ubunye import run_task

pytestmark = pytest.mark.spark

ROWS = 300
# pyspark 3.5's Connect client gets no observed metrics back from a write (its server sends
# none for a command, SPARK-45813 came in 4.0) and cannot resolve a column of an observed
# frame: there, the engine observes nothing and hashes inputs and outputs in a pass of their own.
SAME_PASS = "same-pass" if int(pyspark.__version__.split(".")[0]) >= 4 else "second-pass"

CONFIG = """
CONFIG:
  inputs:
    people: {format: parquet, path: "{{ data }}/people.parquet"}
  outputs:
    kept: {format: parquet, path: "{{ out }}/kept"}
"""
# Filter and derive; the same code runs on Spark (Connect) and pandas frames. The
# derived column is not computed from ``score``: pandas 3 arithmetic on an Arrow
# float column turns NaN into null (Spark keeps NaN), so the frames would differ.
CODE = """
from ubunye import Task


class Derive(Task):
    def transform(self, sources):
        people = sources["people"]
        kept = people[(people["id"] > 20) & (people["id"] < 280)]
        if hasattr(kept, "withColumn"):  # Spark
            kept = kept.withColumn("next_id", kept["id"] + 1)
        else:  # pandas
            kept = kept.assign(next_id=kept["id"] + 1)
        return {"kept": kept}
"""


def people_table(rows: int = ROWS) -> pa.Table:
    """``rows`` rows: nulls, a NaN and -0.0 beside numbers, lists, structs, maps, instants."""
    utc = dt.timezone.utc
    base = dt.datetime(2024, 1, 1, tzinfo=utc)

    def score(i: int) -> Any:
        return {7: math.nan, 11: None, 13: -0.0}.get(i % 17, i * 1.25)

    return pa.table(
        {
            "id": pa.array(range(rows), pa.int64()),
            "name": pa.array([None if i % 10 == 4 else f"p{i} Zoë 😀" for i in range(rows)], pa.string()),
            "score": pa.array([score(i) for i in range(rows)], pa.float64()),
            "tags": pa.array([None if i % 9 == 0 else [f"t{j}" if j != 1 else None for j in range(i % 4)]
                              for i in range(rows)], pa.list_(pa.string())),
            "where": pa.array([None if i % 8 == 5 else {"city": None if i % 6 == 1 else f"c{i % 5}", "zip": i}
                               for i in range(rows)], pa.struct([("city", pa.string()), ("zip", pa.int32())])),
            "attrs": pa.array([None if i % 11 == 3 else [("k", math.nan if i % 2 else float(i)), ("z", None)][: i % 3]
                               for i in range(rows)], pa.map_(pa.string(), pa.float64())),
            "seen": pa.array([None if i % 13 == 0 else base + dt.timedelta(seconds=37 * i, microseconds=i)
                              for i in range(rows)], pa.timestamp("us", tz="UTC")),
        }
    )


def make_task(root: Path, name: str, config: str, code: str) -> Path:
    """A task folder ``uc/proof/pkg/<name>`` (as in ``test_engine_spark.py``)."""
    task = root / "uc" / "proof" / "pkg" / name
    task.mkdir(parents=True, exist_ok=True)
    (task / "config.yaml").write_text(config)
    (task / "transformations.py").write_text(code)
    return task


def only_record(folder: Path, run_id: str) -> dict[str, Any]:
    return json.loads(next(folder.glob(f"{run_id}.json")).read_text())


def digest(step: dict[str, Any]) -> tuple[Any, ...]:
    return step["name"], step["row_count"], step["schema_hash"], step["data_hash"]


@pytest.fixture(scope="module")
def connect_and_pandas_records(
    connect_native: Any, tmp_path_factory: pytest.TempPathFactory,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The same task run on ``connect_native`` and on pandas: their two run records.

    ``reuse_hashes=False``: each run hashes its input itself (the pandas run must
    not copy the Connect run's input hash from its record).
    """
    tmp_path = tmp_path_factory.mktemp("connect_native_engine")
    (tmp_path / "data").mkdir()
    table = people_table()
    assert any(isinstance(v, float) and math.isnan(v) for v in table.column("score").to_pylist())
    pq.write_table(table, tmp_path / "data" / "people.parquet")
    task = make_task(tmp_path, "derive", CONFIG, CODE)
    folder = tmp_path / "uc/.ubunye/lineage/proof/pkg/derive"
    data = str(tmp_path / "data")
    try:
        connect = run_task(task, spark=connect_native, lineage=True, reuse_hashes=False,
                           variables={"data": data, "out": str(tmp_path / "c")})
    finally:
        connect_native.conf.set("spark.sql.session.timeZone", "UTC")
    pandas = run_task(task, backend="pandas", lineage=True, reuse_hashes=False,
                      variables={"data": data, "out": str(tmp_path / "p")})
    return only_record(folder, connect.run_id), only_record(folder, pandas.run_id)


def test_output_hashed_in_the_write_on_connect_like_pandas(
    connect_and_pandas_records: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    rec_c, rec_p = connect_and_pandas_records
    (out_c,), (out_p,) = rec_c["outputs"], rec_p["outputs"]
    assert (out_c["hash_pass"], out_c["hash_engine"]) == (SAME_PASS, "spark-native"), out_c
    # the server reads its own file system: nothing here may vouch for its files
    assert out_c["storage_signature"] is None
    assert out_p["hash_pass"] == "materialised"
    kept = sum(1 for i in range(ROWS) if 20 < i < 280)
    assert digest(out_c) == digest(out_p) == ("kept", kept, out_p["schema_hash"], out_p["data_hash"])
    assert out_c["data_hash"] is not None and out_c["hash_error"] is None


def test_input_hash_on_connect_equals_pandas(
    connect_and_pandas_records: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    rec_c, rec_p = connect_and_pandas_records
    (in_c,), (in_p,) = rec_c["inputs"], rec_p["inputs"]
    print("connect input step:", {k: in_c[k] for k in ("hash_pass", "hash_engine", "row_count", "hash_error")})
    # the write read the whole input: its sums come back with the write's response
    assert in_c["hash_pass"] == SAME_PASS and in_p["hash_pass"] == "materialised"
    assert in_c["hash_engine"] == "spark-native"
    assert digest(in_c) == digest(in_p) == ("people", ROWS, in_p["schema_hash"], in_p["data_hash"])
    assert in_c["data_hash"] is not None


PARTIAL_CONFIG = """
CONFIG:
  inputs:
    full: {format: parquet, path: "{{ data }}/people.parquet"}
    part: {format: parquet, path: "{{ data }}/people.parquet"}
    twice: {format: parquet, path: "{{ data }}/people.parquet"}
    unused: {format: parquet, path: "{{ data }}/people.parquet"}
  outputs:
    a: {format: parquet, path: "{{ out }}/a"}
    b: {format: parquet, path: "{{ out }}/b"}
    c: {format: parquet, path: "{{ out }}/c"}
"""
PARTIAL_CODE = """
from ubunye import Task


class Split(Task):
    def transform(self, sources):
        twice = sources["twice"]
        return {"a": sources["full"].where("id > 20"), "b": sources["part"].limit(2), "c": twice.unionAll(twice)}
"""


def test_connect_keeps_an_observed_input_hash_only_when_the_run_read_it_whole(
    connect_native: Any, tmp_path: Path,
) -> None:
    from ubunye import fingerprint

    (tmp_path / "data").mkdir()
    table = people_table()
    pq.write_table(table, tmp_path / "data" / "people.parquet")
    task = make_task(tmp_path, "split", PARTIAL_CONFIG, PARTIAL_CODE)
    try:
        result = run_task(task, spark=connect_native, lineage=True, reuse_hashes=False,
                          variables={"data": str(tmp_path / "data"), "out": str(tmp_path / "out")})
    finally:
        connect_native.conf.set("spark.sql.session.timeZone", "UTC")
    rec = only_record(tmp_path / "uc/.ubunye/lineage/proof/pkg/split", result.run_id)
    expected = fingerprint(table)
    steps = {s["name"]: s for s in rec["inputs"]}
    for step in steps.values():  # whichever pass: the whole input's hash
        assert (step["row_count"], step["schema_hash"], step["data_hash"]) == \
               (ROWS, expected.schema_hash, expected.data_hash), step
    # a limit reads part of "part" and nothing reads "unused": the observed sums fail
    # the row count check (or never arrive), so each is hashed in a pass of its own
    assert (steps["part"]["hash_pass"], steps["unused"]["hash_pass"]) == ("second-pass", "second-pass")
    # read whole (once, or twice by a self-union whose sums Spark counts once): same pass
    assert (steps["full"]["hash_pass"], steps["twice"]["hash_pass"]) == (SAME_PASS, SAME_PASS)
    assert [(s["name"], s["hash_pass"], s["row_count"]) for s in rec["outputs"]] == [
        ("a", SAME_PASS, ROWS - 21), ("b", SAME_PASS, 2), ("c", SAME_PASS, 2 * ROWS)]
