"""An input whose files an earlier record already hashed takes that hash (pandas backend).

The reused hash must be the hash a scan gives, must come from a record that still
says so, and must never be used once a file, the schema or the spec changes.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ubunye import run_pipeline, run_task
from ubunye.engine.config import IOSpec
from ubunye.engine.snapshots import _digest, location_identity, signable, storage_signature
from ubunye.lineage.known import KNOWN_DIR, KnownHashes
from ubunye.lineage.record import RunRecord
from ubunye.lineage.store import FileStore

ORDERS = pa.table(
    {
        "id": pa.array([1, 2, 3, 4, 5], pa.int64()),
        "item": pa.array(["tea", 'say "hi"', None, "Zoë\n😀", "tea"], pa.string()),
        "price": pa.array([1.5, float("nan"), 3.25, None, -0.0], pa.float64()),
        "tags": pa.array([["a"], [], None, ["b", "c"], ["a"]], pa.list_(pa.string())),
    }
)

INGEST = """
CONFIG:
  inputs:
    raw: {format: parquet, path: "{{ task_dir }}/../../../data/orders.parquet"}
  outputs:
    orders: {format: parquet, path: "{{ task_dir }}/../../../lake/orders"}
"""
CLEAN = """
CONFIG:
  inputs:
    orders: {format: parquet, path: "{{ task_dir }}/../../../lake/orders"}
  outputs:
    clean: {format: parquet, path: "{{ task_dir }}/../../../lake/clean"}
"""
COPY = """
from ubunye import Task


class Copy(Task):
    def transform(self, sources):
        (frame,) = sources.values()
        return {"%s": frame}
"""


def make_task(root: Path, name: str, config: str, output: str) -> Path:
    task = root / "shop" / "orders" / name
    task.mkdir(parents=True, exist_ok=True)
    (task / "config.yaml").write_text(config, encoding="utf-8")
    (task / "transformations.py").write_text(COPY % output, encoding="utf-8")
    return task


@pytest.fixture
def usecase(tmp_path: Path) -> Path:
    (tmp_path / "data").mkdir()
    pq.write_table(ORDERS, tmp_path / "data" / "orders.parquet")
    make_task(tmp_path, "ingest", INGEST, "orders")
    make_task(tmp_path, "clean", CLEAN, "clean")
    return tmp_path


def run(usecase: Path, task: str, **kwargs: Any) -> dict[str, Any]:
    result = run_task(usecase / "shop" / "orders" / task, backend="pandas", lineage=True, **kwargs)
    return json.loads(Path(result.record_path).read_text())


def only(steps: list[dict[str, Any]]) -> dict[str, Any]:
    (step,) = steps
    return step


def same_hash(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return all(a[k] == b[k] for k in ("row_count", "schema_hash", "data_hash"))


def test_downstream_input_reuses_the_upstream_output_hash(usecase: Path) -> None:
    ingest = run(usecase, "ingest")
    clean = run(usecase, "clean")
    written, read = only(ingest["outputs"]), only(clean["inputs"])
    assert written["storage_signature"].startswith("files:sha256:")
    assert read["hash_pass"] == "reused"
    assert read["hash_reused_from"] == f"shop/orders/ingest/{ingest['run_id']}:output:orders"
    assert read["storage_signature"] == written["storage_signature"]
    assert same_hash(read, written)
    scanned = run(usecase, "clean", reuse_hashes=False)  # the reused hash is what a scan gives
    assert only(scanned["inputs"])["hash_pass"] != "reused"
    assert same_hash(only(scanned["inputs"]), read)


def test_a_raw_input_is_scanned_once_then_reused(usecase: Path) -> None:
    first = run(usecase, "ingest")
    second = run(usecase, "ingest")
    assert only(first["inputs"])["hash_pass"] != "reused"
    assert only(second["inputs"])["hash_pass"] == "reused"
    assert only(second["inputs"])["hash_reused_from"].endswith(f"{first['run_id']}:input:raw")
    assert same_hash(only(first["inputs"]), only(second["inputs"]))
    sketch = only(first["inputs"])["sketch"]  # the reused step carries the same rows' sketch
    assert sketch is not None and only(second["inputs"])["sketch"] == sketch


def test_a_changed_file_is_hashed_again(usecase: Path) -> None:
    first = run(usecase, "ingest")
    changed = ORDERS.set_column(0, "id", pa.array([1, 2, 3, 4, 6], pa.int64()))
    pq.write_table(changed, usecase / "data" / "orders.parquet")
    second = run(usecase, "ingest")
    before, after = only(first["inputs"]), only(second["inputs"])
    assert after["hash_pass"] != "reused"
    assert after["storage_signature"] != before["storage_signature"]
    assert after["data_hash"] != before["data_hash"]


def test_touching_a_file_is_enough_to_hash_it_again(usecase: Path) -> None:
    run(usecase, "ingest")
    path = usecase / "data" / "orders.parquet"
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert only(run(usecase, "ingest")["inputs"])["hash_pass"] != "reused"


def test_a_same_size_rewrite_with_the_old_mtime_is_hashed_again(usecase: Path) -> None:
    """Size, modification time and inode can all be kept by a rewrite; the change time cannot."""
    first = run(usecase, "ingest")
    path = usecase / "data" / "orders.parquet"
    before = path.stat()
    changed = ORDERS.set_column(0, "id", pa.array([1, 2, 3, 4, 6], pa.int64()))
    sink = pa.BufferOutputStream()
    pq.write_table(changed, sink)
    data = sink.getvalue().to_pybytes()
    assert len(data) == before.st_size and data != path.read_bytes()
    with open(path, "r+b") as handle:  # in place: the same inode
        handle.write(data)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns, after.st_ino, after.st_dev) == (
        before.st_size, before.st_mtime_ns, before.st_ino, before.st_dev)
    second = only(run(usecase, "ingest")["inputs"])
    assert second["hash_pass"] != "reused"
    assert second["data_hash"] != only(first["inputs"])["data_hash"]


def index_files(usecase: Path) -> list[Path]:
    """The reuse index's entries (one object per entry, under a folder per location)."""
    return sorted((usecase / ".ubunye" / "lineage" / KNOWN_DIR).rglob("*.json"))


def test_a_signature_without_the_change_time_never_matches(usecase: Path) -> None:
    """A record signed before the change time was part of the signature is kept and read,
    but its signature is not the one taken now: the input is scanned."""
    first = run(usecase, "ingest")
    record_path = next((usecase / ".ubunye" / "lineage" / "shop" / "orders" / "ingest").glob("*.json"))
    st = (usecase / "data" / "orders.parquet").stat()
    old = "files:" + _digest([("orders.parquet", st.st_size, st.st_mtime_ns, f"{st.st_dev}:{st.st_ino}")])
    data = json.loads(record_path.read_text())
    assert data["inputs"][0]["storage_signature"] == first["inputs"][0]["storage_signature"] != old
    second = only(run(usecase, "ingest")["inputs"])
    assert second["hash_pass"] == "reused"  # the current signature is still trusted ...
    entries = index_files(usecase)
    assert entries  # (the loop below must not pass over nothing)
    for entry in entries:
        entry.unlink()  # ... but an old-style one in a record and the index is not
    data["inputs"][0]["storage_signature"] = old
    data.pop("seal")  # as the version before the change time wrote it (it sealed no records either)
    record_path.write_text(json.dumps(data))
    KnownHashes(FileStore(usecase / ".ubunye" / "lineage")).publish(
        RunRecord.from_dict(data), {"input:raw": location_identity(str(usecase / "data" / "orders.parquet"))})
    third = only(run(usecase, "ingest")["inputs"])
    assert third["hash_pass"] != "reused"
    assert third["data_hash"] == only(first["inputs"])["data_hash"]


def test_a_deleted_or_edited_record_is_never_trusted(usecase: Path) -> None:
    ingest = run(usecase, "ingest")
    record_file = usecase / ".ubunye" / "lineage" / "shop" / "orders" / "ingest" / f"{ingest['run_id']}.json"
    edited = json.loads(record_file.read_text())
    edited["outputs"][0]["data_hash"] = "sha256:" + "0" * 64
    record_file.write_text(json.dumps(edited))
    assert only(run(usecase, "clean")["inputs"])["hash_pass"] != "reused"

    ingest = run(usecase, "ingest")  # proves the files again (a new output signature)
    (record_file.parent / f"{ingest['run_id']}.json").unlink()
    clean = run(usecase, "clean")
    assert only(clean["inputs"])["hash_pass"] != "reused"


def test_a_corrupt_index_costs_a_scan_not_a_failure(usecase: Path) -> None:
    run(usecase, "ingest")
    entries = index_files(usecase)
    assert entries
    for index in entries:
        index.write_text("{not json")
    clean = run(usecase, "clean")
    assert clean["status"] == "success"
    assert only(clean["inputs"])["hash_pass"] != "reused"
    assert only(clean["inputs"])["data_hash"]


def test_index_holds_no_location_text(usecase: Path) -> None:
    run(usecase, "ingest")
    entries = index_files(usecase)
    assert entries
    for index in entries:
        assert "lake" not in index.read_text() and "data" not in str(index.relative_to(usecase / ".ubunye"))


def test_reuse_can_be_turned_off_in_the_config(usecase: Path) -> None:
    run(usecase, "ingest")
    task = usecase / "shop" / "orders" / "clean"
    config = task / "config.yaml"
    config.write_text(CLEAN + "  monitors:\n    - {type: lineage, params: {reuse_hashes: false}}\n")
    assert only(run(usecase, "clean")["inputs"])["hash_pass"] != "reused"


def test_pipeline_records_link_through_reused_hashes(usecase: Path) -> None:
    results = run_pipeline(usecase, "shop", "orders", ["ingest", "clean"], backend="pandas", lineage=True)
    ingest, clean = (json.loads(Path(r.record_path).read_text()) for r in results)
    assert only(clean["inputs"])["hash_reused_from"] == f"shop/orders/ingest/{ingest['run_id']}:output:orders"


def spec(**kw: Any) -> IOSpec:
    base: dict[str, Any] = {"name": "x", "direction": "input", "format": "parquet", "path": "p"}
    base.update(kw)
    return IOSpec(**base)


@pytest.mark.parametrize(
    "io, ok",
    [
        (spec(), True),
        (spec(format="delta"), True),
        (spec(format="csv"), False),  # parsed again on every read
        (spec(format="json"), False),
        (spec(format="table", path=None, table="db.t"), False),
        (spec(options={"mergeSchema": "true"}), False),  # a read option can change the rows
        (spec(direction="output", mode="overwrite"), True),
        (spec(direction="output", mode="errorifexists", options={"compression": "zstd"}), True),
        (spec(direction="output", mode="append"), False),  # the frame is not the whole location
        (spec(direction="output", mode="overwrite", partition_by=("day",)), False),
        (spec(direction="output", mode="overwrite", options={"replaceWhere": "a > 1"}), False),
    ],
)
def test_which_specs_are_signed(io: IOSpec, ok: bool) -> None:
    assert signable(io) is ok


def test_signature_ignores_hidden_files_and_sees_every_data_file(tmp_path: Path) -> None:
    folder = tmp_path / "t"
    folder.mkdir()
    pq.write_table(ORDERS, folder / "part-0.parquet")
    io = spec(path=str(folder))
    first = storage_signature(io)
    (folder / "_SUCCESS").write_text("")
    (folder / ".part-0.parquet.crc").write_text("x")
    assert storage_signature(io) == first
    assert storage_signature(spec(path=f"file://{folder}")) == first
    pq.write_table(ORDERS, folder / "part-1.parquet")
    assert storage_signature(io) != first
    assert storage_signature(spec(path=str(tmp_path / "missing"))) is None


class DeltaFiles:
    """A stand-in session whose Delta reader lists ``files`` as every version's data files."""

    def __init__(self, files: list[Path]) -> None:
        self.files = files
        self.read = self

    def format(self, _: str) -> "DeltaFiles":
        return self

    def option(self, *_: object) -> "DeltaFiles":
        return self

    def load(self, _: str) -> "DeltaFiles":
        return self

    def inputFiles(self) -> list[str]:  # noqa: N802 - pyspark's name
        return [f.as_uri() for f in self.files]


def test_delta_signature_is_the_commit_of_the_version_and_its_data_files(tmp_path: Path) -> None:
    import os

    log = tmp_path / "t" / "_delta_log"
    log.mkdir(parents=True)
    (log / f"{0:020d}.json").write_text("{}")
    (log / f"{1:020d}.json").write_text("{}")
    data = tmp_path / "t" / "part-0.parquet"
    data.write_bytes(b"value AAAA")
    session = DeltaFiles([data])
    io = spec(format="delta", path=str(tmp_path / "t"))
    v0, v1 = (storage_signature(io, spark=session, delta_version=v) for v in (0, 1))
    assert v0 and v1 and v0 != v1 and v0.startswith("delta2:0:")
    assert storage_signature(io, spark=session) is None  # no version known: no signature
    assert storage_signature(io, spark=session, delta_version=7) is None  # a commit that is not there
    assert storage_signature(io, delta_version=0) is None  # no session to list the data files
    before = data.stat()
    data.write_bytes(b"value BBBB")  # rewritten in place: same name, same size, same modification time
    os.utime(data, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert storage_signature(io, spark=session, delta_version=0) != v0
    data.unlink()
    assert storage_signature(io, spark=session, delta_version=0) is None  # a data file gone


def test_parquet_row_count_reads_footers_of_every_data_file(tmp_path: Path) -> None:
    from ubunye.engine.snapshots import parquet_row_count

    folder = tmp_path / "t"
    (folder / "day=1").mkdir(parents=True)
    pq.write_table(ORDERS, folder / "part-0.parquet")
    pq.write_table(ORDERS.slice(0, 2), folder / "day=1" / "part-1.parquet")
    (folder / "_SUCCESS").write_text("")
    assert parquet_row_count(str(folder)) == 7
    assert parquet_row_count(str(folder / "part-0.parquet")) == 5
    (folder / "notes.txt").write_text("not parquet")
    assert parquet_row_count(str(folder)) is None  # Spark would fail on it too: let Spark say so
    assert parquet_row_count("s3a://bucket/t") is None


def test_trace_says_where_a_reused_hash_came_from(usecase: Path) -> None:
    from click.testing import CliRunner

    from ubunye.cli.app import cli

    ingest = run(usecase, "ingest")
    clean = run(usecase, "clean")
    out = CliRunner().invoke(cli, ["lineage", "trace", "-d", str(usecase), "-u", "shop", "-p", "orders",
                                   "-t", "clean", "--run-id", clean["run_id"]]).stdout
    assert f"hash taken from shop/orders/ingest/{ingest['run_id']}:output:orders (the same files)" in out
    assert "reused" in out


def test_a_reused_partitioned_input_carries_its_partition_sums(usecase: Path) -> None:
    """Per-partition sums (docs/spec/rows-v1-localise.md section 7) travel with a reused hash."""
    folder = usecase / "lake" / "orders"
    for item in ("tea", "milk"):
        (folder / f"item={item}").mkdir(parents=True)
        pq.write_table(ORDERS.select(["id", "price"]), folder / f"item={item}" / "part-00000.parquet")
    first, second = run(usecase, "clean"), run(usecase, "clean")
    assert only(second["inputs"])["hash_pass"] == "reused"
    parts = only(first["inputs"])["partitions"]
    assert sorted(parts["sums"]) == ["item=milk", "item=tea"] and parts["columns"] == ["item"]
    assert only(second["inputs"])["partitions"] == parts
