"""The SQLite index beside the records: the same answers as the records, kept up to date,
rebuilt when damaged, and never passing over a damaged newest record.

``INDEX_FROM`` (below it the records answer) is lowered to 1 so a few records go through it.
"""
from __future__ import annotations

import json
import os
import warnings
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

from ubunye.cli.app import cli
from ubunye.lineage.record import RunRecord, Step
from ubunye.lineage.search import list_task_runs, runs_with_data_hash, search_runs
from ubunye.lineage.store import LatestUnknown, RecordStore, UnreadableRecordWarning
from ubunye.lineage.store import index as index_module
from ubunye.lineage.store import records as records_module

T0 = datetime(2026, 3, 1, 8, 0, tzinfo=timezone.utc)
TASKS = [("shop", "orders", "clean"), ("shop", "orders", "load")]


@pytest.fixture(autouse=True)
def index_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(index_module, "INDEX_FROM", 1)


def write(root: Path, task: tuple[str, str, str], run_id: str, hour: int, status: str = "success",
          data: str = "sha256:same") -> None:
    start = T0 + timedelta(hours=hour)
    step = Step("out", "output", "parquet", "/lake/out", 3, "sha256:schema", data, "rows-v1")
    RecordStore(root).write(RunRecord(run_id=run_id, task_path="/".join(task), usecase=task[0], package=task[1],
                                      task_name=task[2], started_at=start.isoformat(), status=status, outputs=[step]))


def age(root: Path) -> None:
    """Every folder's modification time an hour ago, so the index's folder stamps vouch."""
    past = (T0 - timedelta(hours=1)).timestamp()
    for folder, dirs, _ in os.walk(root):
        os.utime(folder, (past, past))


@pytest.fixture()
def root(tmp_path: Path) -> Path:
    for i, status in enumerate(["success", "error", "success", "error", "success"]):
        write(tmp_path, TASKS[i % 2], f"run-{i}", i, status, data=f"sha256:{i % 3}")
    return tmp_path


def answers(store: RecordStore) -> tuple[object, ...]:
    return (
        [r.run_id for r in store.latest_runs(*TASKS[0], 2)],
        [r.run_id for r in store.latest_runs(*TASKS[0], 1, before=store.find(*TASKS[0], "run-4"))],
        list_task_runs(store, *TASKS[0], limit=2).to_dict(),
        search_runs(store, status="error").to_dict(),
        search_runs(store, since=T0 + timedelta(hours=2)).to_dict(),
        runs_with_data_hash(store, "sha256:1").to_dict(),
    )


def test_the_index_gives_the_records_answers(root: Path) -> None:
    truth = answers(RecordStore(root))
    indexed = RecordStore(root, index=True)
    assert answers(indexed) == truth
    assert (root / ".index" / "records.sqlite3").is_file()
    assert truth[0] == ["run-4", "run-2"] and [r["run_id"] for r in truth[3]["runs"]] == ["run-3", "run-1"]
    assert [r["run_id"] for r in truth[5]["runs"]] == ["run-4", "run-1"]
    assert RecordStore(root).iter_tasks() == sorted(TASKS)  # the .index folder is never a task


def test_answers_come_from_the_index_not_from_reading_every_record(root: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    truth = answers(RecordStore(root))
    RecordStore(root, index=True).latest_runs(*TASKS[0], 1)  # built
    age(root)
    RecordStore(root, index=True).latest_runs(*TASKS[0], 1)  # stamps stored

    def no_scan(*_: object) -> None:
        raise AssertionError("every record read")

    monkeypatch.setattr(RecordStore, "_scan", no_scan)
    monkeypatch.setattr(RecordStore, "list_runs", no_scan)
    assert answers(RecordStore(root, index=True)) == truth


def test_a_new_record_is_seen_by_a_trusted_index(root: Path) -> None:
    store = RecordStore(root, index=True)
    age(root)
    assert [r.run_id for r in store.latest_runs(*TASKS[0], 1)] == ["run-4"]  # indexed, stamps stored
    write(root, TASKS[0], "run-9", 9)  # the folder changes
    assert [r.run_id for r in RecordStore(root, index=True).latest_runs(*TASKS[0], 1)] == ["run-9"]
    assert answers(RecordStore(root, index=True)) == answers(RecordStore(root))


def test_a_damaged_newest_record_is_never_passed_over(root: Path) -> None:
    store = RecordStore(root, index=True)
    store.latest_runs(*TASKS[0], 1)
    age(root)
    store.latest_runs(*TASKS[0], 1)  # the folder stamps now vouch for the index
    newest = root / "shop" / "orders" / "clean" / "run-4.json"
    good = newest.read_bytes()
    newest.write_bytes(good[:30])  # in place: the folder's stamp does not change
    age(root)
    with pytest.raises(LatestUnknown, match="run-4.json"):
        RecordStore(root, index=True).latest_runs(*TASKS[0], 1)
    newest.write_bytes(good)
    late = root / "shop" / "orders" / "clean" / "run-8.json"
    late.write_text("{", encoding="utf-8")  # a new damaged file, written now
    with pytest.raises(LatestUnknown, match="run-8.json"):
        RecordStore(root, index=True).latest_runs(*TASKS[0], 1)


def test_a_damaged_old_record_is_skipped_with_a_warning_and_a_restored_one_read(root: Path) -> None:
    old = root / "shop" / "orders" / "clean" / "run-0.json"
    good = old.read_bytes()
    old.write_bytes(good[:30])
    os.utime(old, ((T0 - timedelta(hours=1)).timestamp(),) * 2)
    with pytest.warns(UnreadableRecordWarning, match="run-0.json"):
        assert [r.run_id for r in RecordStore(root, index=True).latest_runs(*TASKS[0], 1)] == ["run-4"]
    age(root)
    with pytest.warns(UnreadableRecordWarning, match="run-0.json"):  # the folder stamps now vouch
        RecordStore(root, index=True).latest_runs(*TASKS[0], 1)
    old.write_bytes(good)  # restored in place
    os.utime(old, ((T0 - timedelta(hours=1)).timestamp(),) * 2)
    age(root)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert [r.run_id for r in RecordStore(root, index=True).latest_runs(*TASKS[0], 9)] == [
            "run-4", "run-2", "run-0"]


def test_a_damaged_index_is_rebuilt(root: Path) -> None:
    truth = answers(RecordStore(root))
    RecordStore(root, index=True).latest_runs(*TASKS[0], 1)
    db = root / ".index" / "records.sqlite3"
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    db.write_bytes(b"this is not a database" * 100)
    assert answers(RecordStore(root, index=True)) == truth


def test_an_index_of_another_version_is_rebuilt(root: Path) -> None:
    truth = answers(RecordStore(root))
    RecordStore(root, index=True).index.summaries(TASKS)  # type: ignore[union-attr]
    import sqlite3

    db = sqlite3.connect(root / ".index" / "records.sqlite3", isolation_level=None)
    db.executescript("UPDATE runs SET status = 'made up'; UPDATE meta SET value = '2' WHERE key = 'version';")
    db.close()  # as version 2 left it (its columns are not this version's): rebuilt, its rows not trusted
    store = RecordStore(root, index=True)
    assert answers(store) == truth
    assert store.index.db().execute("SELECT value FROM meta WHERE key = 'version'").fetchone() == (  # type: ignore[union-attr]
        str(index_module.SCHEMA_VERSION),)


def test_search_by_status_and_since_parses_no_json(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the runs that are checked against their records, a search is answered from the
    index's columns: not one JSON document is parsed per row."""
    for i in range(110):  # more errors than are checked against their records
        write(root, TASKS[i % 2], f"more-{i:03d}", 10 + i, "error" if i % 2 else "success")
    truth = search_runs(RecordStore(root), status="error", since=T0 + timedelta(hours=2)).to_dict()
    store = RecordStore(root, index=True)
    search_runs(store, status="error")  # built
    parsed: list[int] = []
    loads = json.loads
    monkeypatch.setattr(json, "loads", lambda *a, **k: parsed.append(1) or loads(*a, **k))
    got = search_runs(RecordStore(root, index=True), status="error", since=T0 + timedelta(hours=2)).to_dict()
    assert parsed == [] and got == truth and len(got["runs"]) == 56 > records_module.CHECKED


def test_an_abandoned_run_is_found_by_its_shown_status(root: Path) -> None:
    """``running`` is stored; whether it shows ``abandoned`` is decided from its record when asked."""
    write(root, TASKS[0], "run-old", 6, "running")  # started in 2026-03 on no host: long abandoned
    truth = [search_runs(RecordStore(root), status=s).to_dict() for s in ("abandoned", "running")]
    assert [r["run_id"] for r in truth[0]["runs"]] == ["run-old"] and truth[1]["runs"] == []
    assert [search_runs(RecordStore(root, index=True), status=s).to_dict() for s in ("abandoned", "running")] == truth
    assert list_task_runs(RecordStore(root, index=True), *TASKS[0]).runs[0].status == "abandoned"


def test_a_reader_never_creates_the_store(tmp_path: Path) -> None:
    store = RecordStore(tmp_path / "nothing-here", index=True)
    assert list_task_runs(store, *TASKS[0]).runs == [] and not (tmp_path / "nothing-here").exists()


def test_cli_search_by_data_hash(root: Path) -> None:
    result = CliRunner().invoke(cli, ["lineage", "search", "-d", str(root), "--lineage-dir", str(root),
                                      "--data-hash", "sha256:1", "--json"])
    assert result.exit_code == 0, result.output
    assert [r["run_id"] for r in json.loads(result.stdout)["runs"]] == ["run-4", "run-1"]
    listed = CliRunner().invoke(cli, ["lineage", "list", "-d", str(root), "--lineage-dir", str(root),
                                      "-u", "shop", "-p", "orders", "-t", "clean", "-n", "2", "--json"])
    assert [r["run_id"] for r in json.loads(listed.stdout)["runs"]] == ["run-4", "run-2"]


def test_a_first_build_in_worker_processes_gives_the_same_index(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Many objects of a local store are read by one process per core, a batch at a time: the same
    rows as one process reading them (a damaged one included)."""
    (root / "shop" / "orders" / "clean" / "run-7.json").write_text("{", encoding="utf-8")
    tables = []
    for parallel_from in (10**9, 2):
        monkeypatch.setattr(index_module, "PARALLEL_FROM", parallel_from)
        monkeypatch.setattr(index_module, "BATCH", 2)
        monkeypatch.setattr(os, "cpu_count", lambda: 2)
        index = index_module.RecordIndex(RecordStore(root), root / f"{parallel_from}.sqlite3")
        for task in TASKS:
            index.refresh(*task)
        tables.append([index.db().execute(f"SELECT * FROM {t} ORDER BY 1, 2, 3").fetchall() for t in ("runs", "hashes")])
    assert tables[0] == tables[1] and len(tables[0][0]) == 6 and any(r[8] for r in tables[0][0])


def test_twins_are_ordered_by_run_id_through_the_index_too(tmp_path: Path) -> None:
    """Two runs started at one instant: the index orders them by run id, as the records do,
    and neither is the other's run before."""
    task = TASKS[0]
    write(tmp_path, task, "m-older", 0)
    write(tmp_path, task, "a-twin", 1)  # written first: the index's insertion order is not the answer
    write(tmp_path, task, "z-twin", 1)
    age(tmp_path)
    store = RecordStore(tmp_path, index=True)
    z, a = store.find(*task, "z-twin"), store.find(*task, "a-twin")
    assert [r.run_id for r in store.latest_runs(*task, 3)] == ["z-twin", "a-twin", "m-older"]
    assert [r.run_id for r in store.latest_runs(*task, 1, before=z)] == ["a-twin"]
    assert [r.run_id for r in store.latest_runs(*task, 1, before=a)] == ["m-older"]
    assert [r["run_id"] for r in search_runs(store).to_dict()["runs"]] == ["z-twin", "a-twin", "m-older"]
    assert store.index is not None and store.index.path.exists()  # answered through the index
