"""The file store: layout, atomic writes, listing, finding, names."""
from __future__ import annotations

import json
import shutil
import uuid
import warnings
from pathlib import Path

import pytest

from ubunye.lineage.errors import (
    AmbiguousRunId,
    InvalidName,
    LineageError,
    RecordNotFound,
    RecordWriteError,
    UnreadableRecord,
)
from ubunye.lineage.record import RunRecord, Step
from ubunye.lineage.store import FileStore, UnreadableRecordWarning, open_store

SAMPLES = Path(__file__).parent / "fixtures" / "records" / "ubunye-engine-0.8.0"


def _record(run_id: str, started_at: str, task: str = "clean", status: str = "success") -> RunRecord:
    return RunRecord(run_id=run_id, task_path=f"shop/orders/{task}", usecase="shop", package="orders",
                     task_name=task, started_at=started_at, status=status,
                     outputs=[Step(name="adults", direction="output", row_count=2)])


def test_layout_and_round_trip(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    record = _record(str(uuid.uuid4()), "2026-01-01T00:00:00.000000+00:00")
    path = store.write(record)
    assert path == tmp_path / ".ubunye" / "lineage" / "shop" / "orders" / "clean" / f"{record.run_id}.json"
    assert store.load(path) == record
    assert json.loads(path.read_text(encoding="utf-8"))["run_id"] == record.run_id
    # no temporary file left behind; beside the record: its signed envelope, which is its chain place
    assert sorted(p.name for p in path.parent.iterdir()) == sorted([path.name, "_signed"])


def test_lineage_dir_can_be_moved(tmp_path: Path) -> None:
    assert open_store(tmp_path, "records").root == tmp_path / "records"
    elsewhere = tmp_path / "abs"
    assert open_store(tmp_path / "uc", elsewhere).root == elsewhere


def test_the_running_record_and_the_final_one_are_two_objects_each_written_once(tmp_path: Path) -> None:
    store = FileStore(tmp_path)
    record = _record("r-1", "2026-01-01T00:00:00+00:00", status="running")
    started = store.write(record)
    assert started == tmp_path / "shop" / "orders" / "clean" / "_started" / "r-1.json"
    assert store.find("shop", "orders", "clean", "r-1").status == "running"  # no final record yet
    record.status = "success"
    path = store.write(record)
    assert path == tmp_path / "shop" / "orders" / "clean" / "r-1.json"  # the name old readers know
    assert store.load(path).status == "success" and store.load(started).status == "running"
    assert [r.status for r in store.list_runs("shop", "orders", "clean")] == ["success"]  # one run
    assert sorted(p.name for p in path.parent.iterdir()) == ["_signed", "_started", "r-1.json"]
    before = path.read_bytes()
    record.status = "error"
    with pytest.raises(RecordWriteError, match="r-1.json: a record of this run is already stored"):
        store.write(record)  # never replaced
    assert path.read_bytes() == before


def test_a_store_of_the_old_layout_still_reads(tmp_path: Path) -> None:
    """Before backends, the running record was replaced in place by the final one."""
    folder = tmp_path / "shop" / "orders" / "clean"
    folder.mkdir(parents=True)
    for run_id, status, hour in (("old-done", "success", 1), ("old-running", "running", 2)):
        (folder / f"{run_id}.json").write_text(
            _record(run_id, f"2026-01-01T0{hour}:00:00+00:00", status=status).to_json(), encoding="utf-8")
    store = FileStore(tmp_path)
    assert [(r.run_id, r.status) for r in store.list_runs("shop", "orders", "clean")] == [
        ("old-running", "running"), ("old-done", "success")]
    assert store.iter_tasks() == [("shop", "orders", "clean")]


def test_listing_is_newest_first_by_started_at(tmp_path: Path) -> None:
    store = FileStore(tmp_path)
    # run ids sort in the opposite order of their start times, and one start has another offset
    store.write(_record("c-oldest", "2026-01-01T10:00:00.000000+00:00"))
    store.write(_record("b-newest", "2026-01-01T12:30:00.000000+02:00"))  # 10:30 UTC
    store.write(_record("a-middle", "2026-01-01T10:15:00.000000+00:00"))
    assert [r.run_id for r in store.list_runs("shop", "orders", "clean")] == ["b-newest", "a-middle", "c-oldest"]
    assert store.find("shop", "orders", "clean").run_id == "b-newest"


def test_find_by_prefix_ambiguous_and_unknown(tmp_path: Path) -> None:
    store = FileStore(tmp_path)
    store.write(_record("abc111", "2026-01-01T00:00:00+00:00"))
    store.write(_record("abc222", "2026-01-02T00:00:00+00:00"))
    assert store.find("shop", "orders", "clean", "abc1").run_id == "abc111"
    with pytest.raises(AmbiguousRunId, match="'abc'.*abc111, abc222"):
        store.find("shop", "orders", "clean", "abc")
    with pytest.raises(RecordNotFound, match="'zzz'"):
        store.find("shop", "orders", "clean", "zzz")
    with pytest.raises(RecordNotFound, match="shop/orders/other"):
        store.find("shop", "orders", "other")


def test_full_run_id_wins_over_longer_ids_with_that_prefix(tmp_path: Path) -> None:
    store = FileStore(tmp_path)
    store.write(_record("abc", "2026-01-01T00:00:00+00:00"))
    store.write(_record("abcd", "2026-01-02T00:00:00+00:00"))
    assert store.find("shop", "orders", "clean", "abc").run_id == "abc"


def test_unreadable_file_is_skipped_with_a_warning_naming_it(tmp_path: Path) -> None:
    store = FileStore(tmp_path)
    store.write(_record("good", "2026-01-01T00:00:00+00:00"))
    bad = store.path_for("shop", "orders", "clean", "broken")
    bad.write_text('{"run_id": "broken", "inputs": [', encoding="utf-8")
    not_a_record = store.path_for("shop", "orders", "clean", "list")
    not_a_record.write_text("[1, 2]", encoding="utf-8")
    with pytest.warns(UnreadableRecordWarning) as caught:
        runs = store.list_runs("shop", "orders", "clean")
    assert [r.run_id for r in runs] == ["good"]
    messages = " ".join(str(w.message) for w in caught)
    assert str(bad) in messages and str(not_a_record) in messages
    with pytest.raises(UnreadableRecord, match="broken.json"):
        store.find("shop", "orders", "clean", "broken")


def test_temporary_files_are_never_listed(tmp_path: Path) -> None:
    store = FileStore(tmp_path)
    store.write(_record("good", "2026-01-01T00:00:00+00:00"))
    folder = store.task_dir("shop", "orders", "clean")
    (folder / ".good.x1y2.tmp").write_text('{"run_id": "go', encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert [r.run_id for r in store.list_runs("shop", "orders", "clean")] == ["good"]


@pytest.mark.parametrize("usecase, package, task", [
    ("../etc", "orders", "clean"), ("shop", "a/b", "clean"), ("shop", "orders", "..\\x"),
    ("shop", "..", "clean"), ("", "orders", "clean"), ("shop", "orders", "a..b"),
])
def test_names_with_separators_or_dotdot_are_refused(tmp_path: Path, usecase: str, package: str, task: str) -> None:
    store = FileStore(tmp_path / "lineage")
    with pytest.raises(InvalidName):
        store.path_for(usecase, package, task, "r1")
    with pytest.raises(InvalidName):
        store.write(RunRecord(run_id="r1", usecase=usecase, package=package, task_name=task))
    assert not (tmp_path / "etc").exists()
    assert issubclass(InvalidName, LineageError)


def test_write_failure_names_path_and_reason(tmp_path: Path) -> None:
    blocker = tmp_path / "lineage"
    blocker.write_text("a file where the lineage folder should be", encoding="utf-8")
    store = FileStore(blocker)
    with pytest.raises(RecordWriteError) as caught:
        store.write(_record("r1", "2026-01-01T00:00:00+00:00"))
    message = str(caught.value)
    assert str(blocker / "shop" / "orders" / "clean" / "r1.json") in message
    assert "Not a directory" in message or "File exists" in message


def test_iter_tasks_and_sample_records(tmp_path: Path) -> None:
    root = tmp_path / "lineage"
    shutil.copytree(SAMPLES, root)
    store = FileStore(root)
    assert store.iter_tasks() == [("shop", "orders", "bad"), ("shop", "orders", "clean")]
    runs = store.list_runs("shop", "orders", "clean")
    assert [r.started_at for r in runs] == sorted((r.started_at or "" for r in runs), reverse=True)
    assert len(runs) == 3
    assert store.find("shop", "orders", "bad").status == "error"
    assert store.find("shop", "orders", "clean", "0ec7").run_id == "0ec7d5ca-b0df-4d26-aeec-0e57fbefe77c"


def test_load_reads_one_record_file_and_names_it_when_it_cannot(tmp_path: Path) -> None:
    from ubunye.lineage.errors import UnreadableRecord
    from ubunye.lineage.record import RunRecord
    from ubunye.lineage.store import RecordStore

    store = RecordStore(tmp_path / "store")
    good = tmp_path / "good.json"
    good.write_text(RunRecord(run_id="r-1", status="success").to_json(), encoding="utf-8")
    assert store.load(good).run_id == "r-1"
    assert store.load(str(good)).run_id == "r-1"
    for name, text, reason in (("list.json", "[1, 2]", "expected a JSON object; got list"),
                               ("typed.json", '{"run_id": "r", "outputs": 5}', None),
                               ("broken.json", "{not json", None)):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        with pytest.raises(UnreadableRecord) as caught:
            store.load(path)
        assert caught.value.path == path, name
        assert "\n" not in caught.value.reason and caught.value.reason, name
        if reason is not None:
            assert caught.value.reason == reason
    typed = pytest.raises(UnreadableRecord, store.load, tmp_path / "typed.json").value
    assert "outputs" in typed.reason
