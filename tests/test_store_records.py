"""The record store's own paths a user reaches that the other store tests pass by: reading a
record by its location in an object store, the marker written before a record there, what
``LatestUnknown`` carries, ``open_store``'s index, and ``find`` answered by the index alone."""
from __future__ import annotations

import os
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from ubunye.lineage.errors import AmbiguousRunId, RecordNotFound, UnreadableRecord
from ubunye.lineage.record import RunRecord, Step
from ubunye.lineage.store import LatestUnknown, RecordStore, open_store
from ubunye.lineage.store import index as index_module

T0 = datetime(2026, 3, 1, 8, 0, tzinfo=timezone.utc)
TASK = ("shop", "orders", "clean")


def _record(run_id: str, hour: int, status: str = "success") -> RunRecord:
    return RunRecord(run_id=run_id, task_path="/".join(TASK), usecase=TASK[0], package=TASK[1], task_name=TASK[2],
                     started_at=(T0 + timedelta(hours=hour)).isoformat(), status=status,
                     outputs=[Step("out", "output", "parquet", "/lake/out", 3, "sha256:s", "sha256:d", "rows-v1")])


@pytest.fixture()
def memory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> RecordStore:
    pytest.importorskip("obstore")
    from ubunye.lineage.store.objects import ObjectBlobs

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return RecordStore(ObjectBlobs("memory:///"))


def test_a_record_is_loaded_by_its_location_in_an_object_store(memory: RecordStore) -> None:
    record = _record("r-1", 0)
    where = memory.write(record)
    assert where == "memory:/shop/orders/clean/r-1.json"
    assert memory.load(where) == record
    with pytest.raises(UnreadableRecord) as missing:
        memory.load("memory:/shop/orders/clean/r-2.json")
    assert str(missing.value) == ("unreadable run record memory:/shop/orders/clean/r-2.json: no such record")
    memory.blobs.put_new("shop/orders/clean/bad.json", b'{"run_id": ')
    with pytest.raises(UnreadableRecord, match=r"^unreadable run record memory:/shop/orders/clean/bad\.json: \S"):
        memory.load("memory:/shop/orders/clean/bad.json")


def test_an_object_store_gets_a_marker_before_each_record(memory: RecordStore) -> None:
    memory.write(_record("r-1", 0, "running"))
    memory.write(_record("r-1", 0))
    memory.write(_record("r-2", 1))
    markers = memory.blobs.listdir("shop/orders/clean/_order")[0]
    kinds = sorted((b.name.split("_", 1)[1], memory.blobs.get(b.key).decode("utf-8")) for b in markers)
    assert kinds == [("final_r-1", "shop/orders/clean/r-1.json"), ("final_r-2", "shop/orders/clean/r-2.json"),
                     ("started_r-1", "shop/orders/clean/_started/r-1.json")]
    # a marker already there (a refused attempt's) is as good: the record is still written
    memory.blobs.put_new(index_module.marker_key("shop/orders/clean", "r-3", True), b"shop/orders/clean/r-3.json")
    memory.blobs.put_new("shop/orders/clean/_order/x", b"")
    assert memory.write(_record("r-3", 2)) == "memory:/shop/orders/clean/r-3.json"


def test_latest_unknown_carries_the_location_and_the_reason(tmp_path: Path) -> None:
    store = RecordStore(tmp_path)
    store.write(_record("r-1", 0))
    damaged = tmp_path / "shop" / "orders" / "clean" / "r-2.json"
    damaged.write_text("{", encoding="utf-8")
    with pytest.raises(LatestUnknown) as unknown:
        store.latest_runs(*TASK, 1)
    assert unknown.value.path == damaged
    assert unknown.value.reason.startswith("is unreadable: ") and "\n" not in unknown.value.reason
    assert str(unknown.value) == f"the latest run of shop/orders/clean may be {damaged}, which {unknown.value.reason}"


def test_open_store_answers_through_the_index_only_when_asked(tmp_path: Path) -> None:
    assert open_store(tmp_path).index is None
    indexed = open_store(tmp_path, "records", index=True)
    assert indexed.index is not None and indexed.root == tmp_path / "records"
    assert repr(indexed) == f"RecordStore({str(tmp_path / 'records')!r})"


@pytest.fixture()
def indexed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(index_module, "INDEX_FROM", 1)
    for i, run_id in enumerate(["run-0", "run-1", "run-2", "zeta-77"]):
        RecordStore(tmp_path).write(_record(run_id, i))
    RecordStore(tmp_path, index=True).latest_runs(*TASK, 1)  # built
    past = (T0 - timedelta(hours=1)).timestamp()
    for folder, _, _ in os.walk(tmp_path):
        os.utime(folder, (past, past))  # the folder stamps vouch for the index
    RecordStore(tmp_path, index=True).latest_runs(*TASK, 1)  # stamps stored
    return tmp_path


def test_find_through_a_trusted_index_reads_only_the_record_it_returns(indexed: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[str] = []
    get = RecordStore._get

    def no_listing(*_: object) -> None:
        raise AssertionError("the task's folder listed")

    monkeypatch.setattr(RecordStore, "listing", no_listing)
    monkeypatch.setattr(RecordStore, "_get", lambda self, key: read.append(key) or get(self, key))
    store = RecordStore(indexed, index=True)
    assert store.find(*TASK).run_id == "zeta-77"  # the newest
    assert store.find(*TASK, "run-1").run_id == "run-1"  # a whole id
    assert store.find(*TASK, "zet").run_id == "zeta-77"  # a prefix of one id only
    assert read == ["shop/orders/clean/zeta-77.json", "shop/orders/clean/run-1.json", "shop/orders/clean/zeta-77.json"]


def test_find_through_the_index_refuses_as_the_records_do(indexed: Path) -> None:
    store = RecordStore(indexed, index=True)
    with pytest.raises(AmbiguousRunId) as ambiguous:
        store.find(*TASK, "run-")
    assert str(ambiguous.value) == str(AmbiguousRunId("shop/orders/clean", "run-", ["run-0", "run-1", "run-2"]))
    for prefix in ("", "run-1/x", "run-1\\x", "nope"):
        with pytest.raises(RecordNotFound):
            store.find(*TASK, prefix)
