"""The record store's own paths a user reaches that the other store tests pass by: reading a
record by its location in an object store, the marker written before a record there, what
``LatestUnknown`` carries, ``open_store``'s index, and ``find`` answered by the index alone."""
from __future__ import annotations

import os
import shutil
import socket
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from ubunye.lineage.errors import AmbiguousRunId, RecordNotFound, UnreadableRecord
from ubunye.lineage.record import RunRecord, Step
from ubunye.lineage.search import search_runs
from ubunye.lineage.store import LatestUnknown, RecordStore, UnreadableRecordWarning, open_store
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


def test_where_each_record_of_a_run_is(tmp_path: Path) -> None:
    store = RecordStore(tmp_path)
    running = _record("r-1", 0, "running")
    assert store.write(running) == store.started_path_for(*TASK, "r-1") == store.record_path(running) == (
        tmp_path / "shop" / "orders" / "clean" / "_started" / "r-1.json")
    store.write(_record("r-1", 0))
    store.write(_record("r-2", 1, "running"))
    assert store.path_for(*TASK, "r-1") == store.record_path(_record("r-1", 0)) == tmp_path / "shop/orders/clean/r-1.json"
    assert store.run_files(*TASK) == [tmp_path / "shop/orders/clean/r-1.json",
                                      tmp_path / "shop/orders/clean/_started/r-2.json"]


def test_latest_runs_gives_one_run_unless_asked_for_more(tmp_path: Path) -> None:
    store = RecordStore(tmp_path)
    for i in range(3):
        store.write(_record(f"r-{i}", i))
    assert [r.run_id for r in store.latest_runs(*TASK)] == ["r-2"]


def test_no_record_names_the_task_and_its_folder(tmp_path: Path) -> None:
    store = RecordStore(tmp_path)
    with pytest.raises(RecordNotFound) as none:
        store.find(*TASK)
    folder = tmp_path / "shop" / "orders" / "clean"
    assert (none.value.task_path, none.value.where, str(none.value)) == (
        "shop/orders/clean", folder, f"no run of shop/orders/clean in {folder}")


@pytest.mark.parametrize("count, before, what", [
    (1, None, "the latest run"), (2, None, "one of the 2 latest runs"), (1, "zeta-77", "the run before run zeta-77"),
])
def test_the_index_names_a_damaged_file_that_may_be_a_run_asked_for(indexed: Path, count: int, before: object,
                                                                     what: str) -> None:
    damaged = indexed / "shop" / "orders" / "clean" / "new.json"
    damaged.write_text("{", encoding="utf-8")  # written now: newer than every run
    store = RecordStore(indexed, index=True)
    edge = store.find(*TASK, before) if before else None
    with pytest.raises(LatestUnknown) as unknown:
        store.latest_runs(*TASK, count, before=edge)
    assert unknown.value.path == damaged and unknown.value.reason.startswith("is unreadable: ")
    assert str(unknown.value).startswith(f"{what} of shop/orders/clean may be {damaged}, which is unreadable: ")


def test_the_index_names_an_old_damaged_file_when_fewer_runs_are_there_than_asked_for(indexed: Path) -> None:
    old = indexed / "shop" / "orders" / "clean" / "run-0.json"
    old.write_bytes(old.read_bytes()[:30])
    os.utime(old, ((T0 - timedelta(hours=1)).timestamp(),) * 2)
    shutil.rmtree(indexed / ".index")  # built again, with the damaged file in it
    store = RecordStore(indexed, index=True)
    with pytest.warns(UnreadableRecordWarning, match="run-0.json"):
        assert [r.run_id for r in store.latest_runs(*TASK, 3)] == ["zeta-77", "run-2", "run-1"]
    with pytest.raises(LatestUnknown, match="run-0.json"):  # it may be the fourth
        store.latest_runs(*TASK, 9)


def test_the_index_names_a_record_without_a_start_time_written_late(indexed: Path) -> None:
    late = _record("late", 0)
    late.started_at = None
    RecordStore(indexed).write(late)  # written now: it may be the newest run
    where = indexed / "shop" / "orders" / "clean" / "late.json"
    with pytest.raises(LatestUnknown) as unknown:
        RecordStore(indexed, index=True).latest_runs(*TASK, 1)
    assert str(unknown.value) == f"the latest run of shop/orders/clean may be {where}, which has no start time (run late)"


def test_summaries_of_unfinished_runs_are_cut_after_their_shown_status(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A stored ``running`` run shows ``running`` or ``abandoned`` (its process gone): the limit
    counts the runs shown with the status asked for, not the index's stored rows."""
    monkeypatch.setattr(index_module, "INDEX_FROM", 1)
    alive = {"host": socket.gethostname(), "pid": os.getpid()}
    for run_id, hour, status, process in [("live-0", 0, "running", alive), ("gone-1", 1, "running", None),
                                          ("gone-2", 2, "running", None), ("done-3", 3, "success", None),
                                          ("live-5", 5, "running", alive)]:
        record = _record(run_id, hour, status)
        record.process = process or {}
        RecordStore(tmp_path).write(record)
    store = RecordStore(tmp_path, index=True)
    assert [r["run_id"] for r in store.summaries([TASK], status="running", limit=2)] == ["live-5", "live-0"]
    assert [r["run_id"] for r in store.summaries([TASK], status="abandoned", limit=1)] == ["gone-2"]
    assert [r["run_id"] for r in store.summaries([TASK], limit=2)] == ["live-5", "done-3"]
    assert [r["run_id"] for r in store.summaries([TASK], status="success", limit=1)] == ["done-3"]


def test_a_damaged_record_restored_in_place_is_found_by_search(indexed: Path) -> None:
    old = indexed / "shop" / "orders" / "clean" / "run-0.json"
    good = old.read_bytes()
    old.write_bytes(good[:30])
    shutil.rmtree(indexed / ".index")  # built again, with the damaged file in it
    with pytest.warns(UnreadableRecordWarning, match="run-0.json"):
        assert [r["run_id"] for r in RecordStore(indexed, index=True).summaries([TASK])] == [
            "zeta-77", "run-2", "run-1"]
    old.write_bytes(good)  # restored in place: the index still says damaged
    assert [r["run_id"] for r in search_runs(RecordStore(indexed, index=True)).to_dict()["runs"]] == [
        "zeta-77", "run-2", "run-1", "run-0"]


def test_load_names_a_missing_or_broken_file_and_why(tmp_path: Path) -> None:
    store = RecordStore(tmp_path / "store")
    with pytest.raises(UnreadableRecord) as missing:
        store.load(tmp_path / "nothing.json")
    assert str(missing.value) == f"unreadable run record {tmp_path / 'nothing.json'}: No such file or directory"
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    with pytest.raises(UnreadableRecord) as caught:
        store.load(broken)
    assert caught.value.reason.startswith("not valid JSON: ")


@pytest.mark.parametrize("index", [False, True])
def test_an_empty_run_id_prefix_finds_nothing_even_in_a_task_of_one_run(tmp_path: Path, index: bool,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(index_module, "INDEX_FROM", 1)
    RecordStore(tmp_path).write(_record("only", 0))
    store = RecordStore(tmp_path, index=index)
    assert store.find(*TASK).run_id == "only"
    for prefix in ("", "o/", "o\\"):
        with pytest.raises(RecordNotFound):
            store.find(*TASK, prefix)


def test_an_object_store_loads_a_local_record_file_by_its_path(memory: RecordStore, tmp_path: Path) -> None:
    record = _record("r-1", 0)
    local = tmp_path / "r-1.json"
    local.write_text(record.to_json(), encoding="utf-8")
    assert memory.load(local) == record and memory.load(str(local)) == record


@pytest.mark.parametrize("prefix", ["nope", "n/x"])
def test_a_run_id_prefix_that_matches_nothing_is_named_with_its_task_and_folder(tmp_path: Path, prefix: str) -> None:
    store = RecordStore(tmp_path)
    store.write(_record("r-1", 0))
    folder = tmp_path / "shop" / "orders" / "clean"
    with pytest.raises(RecordNotFound) as none:
        store.find(*TASK, prefix)
    assert (none.value.task_path, none.value.run_id_prefix, none.value.where) == ("shop/orders/clean", prefix, folder)
    assert str(none.value) == f"no run {prefix!r} of shop/orders/clean in {folder}"


def test_a_record_rewritten_in_place_with_another_start_is_not_taken_from_the_index(indexed: Path) -> None:
    newest = indexed / "shop" / "orders" / "clean" / "zeta-77.json"
    moved = _record("zeta-77", -5)  # now the oldest; the folder's stamp does not change
    newest.write_text(moved.to_json(), encoding="utf-8")
    assert [r.run_id for r in RecordStore(indexed, index=True).latest_runs(*TASK, 2)] == ["run-2", "run-1"]


def test_find_through_the_index_with_a_damaged_old_record_warns_and_answers(indexed: Path) -> None:
    old = indexed / "shop" / "orders" / "clean" / "run-0.json"
    old.write_bytes(old.read_bytes()[:30])
    os.utime(old, ((T0 - timedelta(hours=1)).timestamp(),) * 2)
    shutil.rmtree(indexed / ".index")  # built again, with the damaged file in it
    with pytest.warns(UnreadableRecordWarning, match="run-0.json"):
        assert RecordStore(indexed, index=True).find(*TASK).run_id == "zeta-77"


def test_an_object_store_lists_its_tasks_and_runs(memory: RecordStore) -> None:
    for i in range(3):
        memory.write(_record(f"r-{i}", i))
    other = _record("s-1", 0, "running")
    other.task_name, other.task_path = "load", "shop/orders/load"
    memory.write(other)  # a task holding only a start record
    memory.blobs.put_new("shop/orders/_hidden/x.json", b"{}")  # a task may be named _x or .x (test_verdicts.py)
    memory.blobs.put_new("shop/orders/a:b/x.json", b"{}")  # no task can be named so: not listed
    memory.blobs.put_new("shop/orders/empty/notes.txt", b"")
    assert memory.iter_tasks() == [("shop", "orders", "_hidden"), ("shop", "orders", "clean"),
                                   ("shop", "orders", "load")]
    assert [r.run_id for r in memory.list_runs(*TASK)] == ["r-2", "r-1", "r-0"]
    assert [r.run_id for r in memory.list_runs("shop", "orders", "load")] == ["s-1"]
