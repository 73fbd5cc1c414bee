"""The record index read directly (lineage/store/index.py): marker names, the horizon of an object
store's task (an in-memory object store, obstore's ``memory:///``), the rows it keeps per run and
the answers it gives, checked against what was written rather than against the records' own answer
(which the store falls back to whenever the index is wrong)."""
from __future__ import annotations

import os
import sqlite3
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from ubunye.lineage.record import RunRecord, Step
from ubunye.lineage.store import RecordStore
from ubunye.lineage.store import index as index_module
from ubunye.lineage.store.index import (
    MARK_WIDTH, RecordIndex, Stale, _at_least, _fits, _marked_run, default_path, marker_key, started_key,
)

T0 = datetime(2026, 3, 1, 8, 0, tzinfo=timezone.utc)
TASK = ("shop", "orders", "clean")
KEY = "shop/orders/clean"


def _record(run_id: str, hour: float, status: str = "success", data: str = "sha256:d", **extra: object) -> RunRecord:
    steps = [Step("in", "input", "csv", "/in", 4, "s", data, "rows-v1"),
             Step("out", "output", "parquet", "/out", 3, "s", data, "rows-v1"),
             Step("more", "output", "parquet", "/out2", 2, "s", "sha256:other", "rows-v1")]
    return RunRecord(run_id=run_id, task_path=KEY, usecase=TASK[0], package=TASK[1], task_name=TASK[2],
                     started_at=(T0 + timedelta(hours=hour)).isoformat(), status=status, duration_sec=1.5,
                     inputs=steps[:1], outputs=steps[1:], **extra)  # type: ignore[arg-type]


@pytest.fixture()
def memory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> RecordStore:
    pytest.importorskip("obstore")
    from ubunye.lineage.store.objects import ObjectBlobs

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(index_module, "INDEX_FROM", 1)
    return RecordStore(ObjectBlobs("memory:///"), index=True)


def test_marker_names_sort_by_the_writers_utc_time() -> None:
    assert marker_key(KEY, "r1", True, at=0) == f"{KEY}/_order/19700101T000000.000000Z_final_r1"
    assert marker_key(KEY, "r1", False, at=1.5) == f"{KEY}/_order/19700101T000001.500000Z_started_r1"
    now = marker_key(KEY, "r", True)
    stamp = datetime.strptime(now.split("/")[-1][:MARK_WIDTH], "%Y%m%dT%H%M%S.%fZ").replace(tzinfo=timezone.utc)
    assert abs(stamp.timestamp() - time.time()) < 3600


@pytest.mark.parametrize("name, run_id", [
    ("19700101T000000.000000Z_final_r1", "r1"),
    ("19700101T000000.000000Z_started_r_1", "r_1"),
    ("19700101T000000.000000Z_final_", None),
    ("19700101T000000.000000Z_ended_r1", None),
    ("19700101T000000.000000Zxfinal_r1", None),
    ("19700101T000000.00000Z_final_r1", None),
    ("19700101T000000.000000Z_final_.tmp", None),
    ("19700101T000000.000000Z_final", None),
])
def test_a_marker_name_gives_its_run_id(name: str, run_id: object) -> None:
    assert _marked_run(name) == run_id


def test_started_key_is_sortable_utc_text() -> None:
    record = _record("r", 0)
    record.started_at = "2026-03-01T10:00:00.5+02:00"
    assert started_key(record) == "2026-03-01T08:00:00.500000"
    record.started_at = "0999-12-31T23:00:00+00:00"  # years below 1000 too: four digits, so text order is time order
    assert started_key(record) == "0999-12-31T23:00:00.000000"
    record.started_at = None
    assert started_key(record) == "0001-01-01T00:00:00.000000"  # the oldest


def test_a_run_of_a_three_digit_year_is_older_through_the_index_too(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(index_module, "INDEX_FROM", 1)
    store = RecordStore(tmp_path, index=True)
    old = _record("old", 0)
    old.started_at = "0999-06-01T00:00:00+00:00"
    store.write(old)
    store.write(_record("new", 0))
    index = RecordIndex(store)
    assert [r[0] for r in index.newest(*TASK, 2)[0]] == ["new", "old"]
    assert [s["run_id"] for s, _ in index.summaries([TASK], since=datetime(999, 1, 1, tzinfo=timezone.utc))[0]] \
        == ["new", "old"]
    assert [s["run_id"] for s, _ in index.summaries([TASK], since=datetime(1000, 1, 1, tzinfo=timezone.utc))[0]] \
        == ["new"]
    assert [r.run_id for r in store.latest_runs(*TASK, 2)] == ["new", "old"]


def test_where_the_index_lives(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, memory: RecordStore) -> None:
    local = RecordStore(tmp_path / "lineage")
    assert default_path(local) == tmp_path / "lineage" / ".index" / "records.sqlite3"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "c"))
    import hashlib

    name = hashlib.sha256(str(memory.root).encode("utf-8")).hexdigest()[:32]
    assert default_path(memory) == tmp_path / "c" / "ubunye" / "index" / f"{name}.sqlite3"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_path(memory) == tmp_path / "home" / ".cache" / "ubunye" / "index" / f"{name}.sqlite3"


def test_an_object_store_task_is_read_from_its_horizon_then_whole_every_full_every(memory: RecordStore) -> None:
    index = memory.index
    assert index is not None
    for i in range(3):
        memory.write(_record(f"r{i}", i))
    marks = memory.blobs.list_after(f"{KEY}/_order", "")  # type: ignore[attr-defined]
    assert sorted(_marked_run(m.name) or "" for m in marks) == ["r0", "r1", "r2"]
    before = time.time()
    rows, damaged = index.newest(*TASK, 2)
    after = time.time()
    assert [r[0] for r in rows] == ["r2", "r1"] and damaged == []
    stamp, horizon, full_at = index.db().execute("SELECT stamp, horizon, full_at FROM tasks").fetchone()
    assert stamp is None and before <= full_at <= after  # an object store has no folder stamp
    low = datetime.fromtimestamp(before - index_module.SKEW, timezone.utc).strftime(index_module.MARK)
    high = datetime.fromtimestamp(after - index_module.SKEW, timezone.utc).strftime(index_module.MARK)
    assert low <= horizon <= high

    # a new run (its marker after the horizon) is seen without a full listing ...
    listed: list[str] = []
    listing = memory.listing
    memory.listing = lambda *task: listed.append("whole") or listing(*task)  # type: ignore[method-assign]
    memory.write(_record("r3", 3))
    assert [r[0] for r in index.newest(*TASK, 2)[0]] == ["r3", "r2"] and listed == []
    assert index.db().execute("SELECT full_at FROM tasks").fetchone()[0] == full_at  # kept from the full listing
    # ... a removed one only by the next full listing
    memory.blobs._obs.delete(memory.blobs._store, f"{KEY}/r3.json")  # type: ignore[attr-defined]
    with pytest.raises(Stale):  # (the index still names r3, whose record is gone)
        memory._latest_indexed(index, *TASK, 1, None)
    index_module_full = index_module.FULL_EVERY
    try:
        index_module.FULL_EVERY = 0.0
        assert [r[0] for r in index.newest(*TASK, 2)[0]] == ["r2", "r1"] and listed == ["whole"]
    finally:
        index_module.FULL_EVERY = index_module_full


def test_a_running_then_final_run_is_indexed_by_its_newest_object(memory: RecordStore) -> None:
    index = memory.index
    assert index is not None
    memory.write(_record("r0", 0))
    index.newest(*TASK, 1)  # the full listing: the horizon set
    memory.write(_record("r1", 1, status="running"))
    assert index.db().execute("SELECT status FROM runs WHERE run_id = 'r1'").fetchall() == []
    index.refresh(*TASK)
    assert index.db().execute("SELECT status, key FROM runs WHERE run_id = 'r1'").fetchone() == \
        ("running", f"{KEY}/_started/r1.json")
    memory.write(_record("r1", 1, status="success"))
    index.refresh(*TASK)
    assert index.db().execute("SELECT status, key FROM runs WHERE run_id = 'r1'").fetchone() == \
        ("success", f"{KEY}/r1.json")


def test_the_rows_of_a_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(index_module, "INDEX_FROM", 1)
    store = RecordStore(tmp_path, index=True)
    store.write(_record("r0", 0))
    store.write(_record("r1", 1, data="sha256:e"))
    unplaced = _record("r2", 2)
    unplaced.started_at = None
    store.write(unplaced)
    (tmp_path / KEY / "bad.json").write_text("{", encoding="utf-8")
    index = RecordIndex(store)
    index.refresh(*TASK)
    rows = index.db().execute("SELECT run_id, key, size, started, has_start, status, damaged, task_path, "
                              "started_at, duration_sec, rows_in, rows_out FROM runs ORDER BY run_id").fetchall()
    size = (tmp_path / KEY / "r0.json").stat().st_size
    assert rows[0][0] == "bad" and rows[0][3:6] == (None, 0, None) and rows[0][6]
    assert rows[1] == ("r0", f"{KEY}/r0.json", size, "2026-03-01T08:00:00.000000", 1, "success", None, KEY,
                       T0.isoformat(), 1.5, 4, 5)
    assert rows[3][0] == "r2" and rows[3][4] == 0
    hashes = index.db().execute("SELECT data_hash, run_id FROM hashes ORDER BY run_id, data_hash").fetchall()
    assert hashes == [("sha256:d", "r0"), ("sha256:other", "r0"), ("sha256:e", "r1"), ("sha256:other", "r1"),
                      ("sha256:d", "r2"), ("sha256:other", "r2")]
    assert sorted(index.with_data_hash("sha256:other")) == [(KEY, "r0"), (KEY, "r1"), (KEY, "r2")]
    assert index.unplaced_after(*TASK, []) == [(f"{KEY}/r2.json", pytest.approx(
        (tmp_path / KEY / "r2.json").stat().st_mtime), "r2")]
    assert index.unplaced_after(*TASK, ["r2"]) == []
    newest, key = index.summaries([TASK])[0][0]
    assert (newest, key) == ({"run_id": "r1", "task_path": KEY, "started_at": (T0 + timedelta(hours=1)).isoformat(),
                              "status": "success", "duration_sec": 1.5, "rows_in": 4, "rows_out": 5},
                             f"{KEY}/r1.json")
    summaries, damaged = index.summaries([TASK], status="success", since=T0 + timedelta(minutes=30))
    assert [s["run_id"] for s, _ in summaries] == ["r1"]
    assert damaged == [(f"{KEY}/bad.json", rows[0][6])]
    assert [s["run_id"] for s, _ in index.summaries([TASK], limit=2)[0]] == ["r1", "r0"]
    assert index.summaries([]) == ([], [])


def test_changed_and_removed_records_are_reindexed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(index_module, "INDEX_FROM", 1)
    store = RecordStore(tmp_path, index=True)
    store.write(_record("r0", 0))
    store.write(_record("r1", 1, data="sha256:e"))
    index = RecordIndex(store)
    index.refresh(*TASK)
    (tmp_path / KEY / "r1.json").write_text(_record("r1", 1, data="sha256:f").to_json(), encoding="utf-8")
    os.remove(tmp_path / KEY / "r0.json")
    index.refresh(*TASK)
    assert index.db().execute("SELECT run_id FROM runs").fetchall() == [("r1",)]
    assert sorted(index.db().execute("SELECT data_hash, run_id FROM hashes").fetchall()) == \
        [("sha256:f", "r1"), ("sha256:other", "r1")]


def test_a_trusted_stamp_skips_the_listing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(index_module, "INDEX_FROM", 1)
    store = RecordStore(tmp_path, index=True)
    store.write(_record("r0", 0))
    past = time.time() - 3600
    (tmp_path / KEY / "_started").mkdir(exist_ok=True)
    os.utime(tmp_path / KEY / "_started", (past, past))
    os.utime(tmp_path / KEY, (past - 1, past - 1))
    index = RecordIndex(store)
    assert index._stamp(KEY) == ":".join(str((tmp_path / KEY / f).stat().st_mtime_ns) for f in ("", "_started"))
    assert index._stamp("shop/orders/none") == "0:0"  # no folders yet: a stamp that changes when they are made
    index.refresh(*TASK)
    monkeypatch.setattr(store, "listing", lambda *a: pytest.fail("listed although the stamp vouches"))
    index.refresh(*TASK)
    os.utime(tmp_path / KEY, None)  # just changed: within the clock slack, the stamp cannot vouch
    assert index._stamp(KEY) is None


def test_few_runs_leave_the_answer_to_the_records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(index_module, "INDEX_FROM", 3)
    store = RecordStore(tmp_path, index=True)
    store.write(_record("r0", 0))
    store.write(_record("r1", 1))
    index = RecordIndex(store)
    with pytest.raises(Stale):
        index.refresh(*TASK, small=False)
    assert not index.path.exists()  # a small store gets no database
    for ask in (lambda: index.newest(*TASK, 1), lambda: index.by_prefix(*TASK, "r"),
                lambda: index.summaries([TASK, ("shop", "orders", "load")])):
        with pytest.raises(Stale):
            ask()
    store.write(_record("r2", 2))
    assert [r[0] for r in index.newest(*TASK, 1)[0]] == ["r2"]
    assert index.by_prefix(*TASK, "r") == [("r0", f"{KEY}/r0.json"), ("r1", f"{KEY}/r1.json")]
    assert index.by_prefix(*TASK, "r1") == [("r1", f"{KEY}/r1.json")]
    assert index.by_prefix(*TASK, "x") == []
    before = (started_key(_record("r", 2)), "r2")
    assert [r[0] for r in index.newest(*TASK, 5, before)[0]] == ["r1", "r0"]


def test_at_least_counts_without_counting_all(tmp_path: Path) -> None:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE runs (task TEXT)")
    db.executemany("INSERT INTO runs VALUES (?)", [("a",), ("a",), ("b",)])
    assert _at_least(db, "task = ?", ("a",), 2) and not _at_least(db, "task = ?", ("a",), 3)
    assert _at_least(db, "task = ?", ("b",), 1) and not _at_least(db, "task = ?", ("c",), 1)


def test_counts_beyond_64_bits_are_kept_as_text() -> None:
    assert _fits(2**63) == str(2**63) and _fits(-2**63 - 1) == str(-2**63 - 1)
    assert _fits(2**63 - 1) == 2**63 - 1 and _fits(-2**63) == -2**63 and _fits(1.5) == 1.5 and _fits(None) is None


def test_marker_times_are_utc_whatever_the_local_zone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "Africa/Johannesburg")
    time.tzset()
    try:
        assert marker_key(KEY, "r1", True, at=0) == f"{KEY}/_order/19700101T000000.000000Z_final_r1"
    finally:
        monkeypatch.undo()
        time.tzset()


def _small_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, runs: int = 2) -> RecordStore:
    monkeypatch.setattr(index_module, "INDEX_FROM", 3)
    store = RecordStore(tmp_path, index=True)
    for i in range(runs):
        store.write(_record(f"r{i}", i))
    return store


@pytest.mark.parametrize("ask", ["newest", "by_prefix", "summaries"])
def test_a_small_store_gets_no_database_from_a_one_task_question(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   ask: str) -> None:
    store = _small_store(tmp_path, monkeypatch)
    index = RecordIndex(store)
    with pytest.raises(Stale):
        {"newest": lambda: index.newest(*TASK, 1), "by_prefix": lambda: index.by_prefix(*TASK, "r"),
         "summaries": lambda: index.summaries([TASK])}[ask]()
    assert not index.path.exists()


def test_several_small_tasks_together_are_answered_by_the_index(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    store = _small_store(tmp_path, monkeypatch)
    other = ("shop", "orders", "load")
    for i in range(2):
        record = _record(f"l{i}", i + 0.5)
        record.task_name, record.task_path = other[2], "/".join(other)
        store.write(record)
    rows, damaged = RecordIndex(store).summaries([TASK, other])
    assert [r["run_id"] for r, _ in rows] == ["l1", "r1", "l0", "r0"] and damaged == []


def test_an_exact_run_id_wins_over_longer_ones_it_prefixes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(index_module, "INDEX_FROM", 1)
    store = RecordStore(tmp_path, index=True)
    for run_id in ("r1", "r10", "r11"):
        store.write(_record(run_id, 1))
    index = RecordIndex(store)
    assert index.by_prefix(*TASK, "r1") == [("r1", f"{KEY}/r1.json")]
    assert index.by_prefix(*TASK, "r") == [("r1", f"{KEY}/r1.json"), ("r10", f"{KEY}/r10.json")]


def test_opening_the_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    missing = RecordIndex(RecordStore(tmp_path / "none"))
    with pytest.raises(FileNotFoundError) as caught:
        missing.db()
    assert caught.value.args == (str(tmp_path / "none"),) and not (tmp_path / "none").exists()

    store = RecordStore(tmp_path)
    index = RecordIndex(store)
    index.path.parent.mkdir(parents=True)
    for suffix, junk in (("", b"not a database" * 100), ("-wal", b"stale wal" * 100), ("-shm", b"stale shm" * 100)):
        Path(f"{index.path}{suffix}").write_bytes(junk)
    db = index.db()
    assert dict(db.execute("SELECT key, value FROM meta").fetchall()) == {"version": str(index_module.SCHEMA_VERSION),
                                                                          "store": str(tmp_path)}
    for suffix in ("-wal", "-shm"):  # the damaged database's companions went with it
        there = Path(f"{index.path}{suffix}")
        assert not there.exists() or b"stale" not in there.read_bytes()
    db.close()

    alone = RecordIndex(RecordStore(tmp_path / "b"), path=tmp_path / "alone.sqlite3")
    (tmp_path / "b").mkdir()
    (tmp_path / "alone.sqlite3").write_bytes(b"not a database" * 100)  # damaged, with no -wal or -shm beside it
    assert alone.db().execute("SELECT value FROM meta WHERE key = 'version'").fetchone() == (
        str(index_module.SCHEMA_VERSION),)

    calls: list[str] = []

    def refuse(*args: object, **kwargs: object) -> None:
        calls.append("connect")
        raise sqlite3.DatabaseError("refused")

    monkeypatch.setattr(sqlite3, "connect", refuse)
    with pytest.raises(sqlite3.DatabaseError, match="refused"):  # tried twice, then its own error
        RecordIndex(RecordStore(tmp_path / "b"), path=tmp_path / "c.sqlite3").db()
    assert calls == ["connect", "connect"]


def test_a_first_build_of_many_objects_goes_to_one_process_per_core(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The decision only (the worker-process build itself: test_store_index.py): the pool is asked for
    with min(cores, batches) workers and the spawn context, from PARALLEL_FROM changed objects on."""
    import concurrent.futures

    pools: list[tuple[object, object]] = []

    class Pool:
        def __init__(self, workers: object, mp_context: object = None) -> None:
            pools.append((workers, getattr(mp_context, "_name", mp_context)))

        def __enter__(self) -> "Pool":
            return self

        def __exit__(self, *exc: object) -> None:
            return None

        def map(self, fn, jobs):  # type: ignore[no-untyped-def]
            return [fn(job) for job in jobs]

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", Pool)
    monkeypatch.setattr(index_module, "INDEX_FROM", 1)
    monkeypatch.setattr(index_module, "BATCH", 2)
    store = RecordStore(tmp_path, index=True)
    for i in range(4):
        store.write(_record(f"r{i}", i))
    infos = store.run_objects(*TASK)

    def build(parallel_from: int, cores: object, objects: list) -> list:
        monkeypatch.setattr(index_module, "PARALLEL_FROM", parallel_from)
        monkeypatch.setattr(os, "cpu_count", lambda: cores)
        pools.clear()
        rows = list(RecordIndex(store)._rows(KEY, objects, TASK))
        return rows

    in_process = build(100, 2, infos)
    assert pools == [] and len(in_process) == 2
    assert build(4, 2, infos) == in_process and pools == [(2, "spawn")]  # exactly PARALLEL_FROM objects
    build(4, 8, infos)
    assert pools == [(2, "spawn")]  # no more workers than batches
    build(3, 3, infos[:3])
    assert pools == [(2, "spawn")]
    build(2, None, infos)
    assert pools == []  # cores unknown: one
    build(2, 1, infos)
    assert pools == []
    build(2, 4, infos[:2])
    assert pools == []  # one batch: no pool
    build(5, 2, infos)
    assert pools == []  # below PARALLEL_FROM
