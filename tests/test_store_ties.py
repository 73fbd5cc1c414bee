"""Ties: runs are ordered by start time, then run id, everywhere (``list``, ``latest``,
``find``, ``search`` and "the run before"); two runs started at the same instant are
never each other's run before. And the clock slack that places a damaged file: a file
written up to ``CLOCK_SLACK`` before the newest asked-for run started may still be it.
"""
from __future__ import annotations

import os
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from ubunye.lineage.record import RunRecord
from ubunye.lineage.search import search_runs
from ubunye.lineage.store import CLOCK_SLACK, LatestUnknown, UnreadableRecordWarning, open_store

T0 = datetime(2026, 3, 1, 8, 0, tzinfo=timezone.utc)
TASK = ("shop", "orders", "clean")


def write(usecase: Path, run_id: str, start: datetime, written: datetime | None = None) -> Path:
    record = RunRecord(run_id=run_id, task_path="/".join(TASK), usecase=TASK[0], package=TASK[1], task_name=TASK[2],
                       started_at=start.isoformat(), ended_at=(start + timedelta(minutes=1)).isoformat(),
                       status="success")
    path = open_store(usecase).write(record)
    when = written or start + timedelta(minutes=1)
    ns = int(when.timestamp()) * 1_000_000_000
    os.utime(path, ns=(ns, ns))
    return path


def ids(records: list[RunRecord]) -> list[str]:
    return [r.run_id for r in records]


@pytest.fixture()
def twins(tmp_path: Path) -> Path:
    """An older run, then two runs started at the same instant (written in the other order)."""
    write(tmp_path, "m-older", T0)
    write(tmp_path, "z-twin", T0 + timedelta(hours=1))
    write(tmp_path, "a-twin", T0 + timedelta(hours=1))
    return tmp_path


def test_equal_start_times_order_by_run_id_everywhere(twins: Path) -> None:
    store = open_store(twins)
    assert ids(store.list_runs(*TASK)) == ["z-twin", "a-twin", "m-older"]
    assert ids(store.latest_runs(*TASK, 1)) == ["z-twin"]
    assert ids(store.latest_runs(*TASK, 2)) == ["z-twin", "a-twin"]
    assert store.find(*TASK).run_id == "z-twin"
    assert [r.run_id for r in search_runs(store).runs] == ["z-twin", "a-twin", "m-older"]


def test_twins_are_never_each_others_run_before(twins: Path) -> None:
    store = open_store(twins)
    z, a = store.find(*TASK, "z-twin"), store.find(*TASK, "a-twin")
    assert ids(store.latest_runs(*TASK, 1, before=z)) == ["a-twin"]
    assert ids(store.latest_runs(*TASK, 1, before=a)) == ["m-older"]  # not z-twin: it comes after
    assert ids(store.latest_runs(*TASK, 5, before=z)) == ["a-twin", "m-older"]
    assert ids(store.latest_runs(*TASK, 5, before=a)) == ["m-older"]


def test_the_run_before_the_oldest_twin_is_none(tmp_path: Path) -> None:
    write(tmp_path, "b-twin", T0)
    write(tmp_path, "c-twin", T0)
    store = open_store(tmp_path)
    assert store.latest_runs(*TASK, 1, before=store.find(*TASK, "b-twin")) == []
    assert ids(store.latest_runs(*TASK, 1, before=store.find(*TASK, "c-twin"))) == ["b-twin"]


def _damage(path: Path, written: datetime) -> None:
    path.write_bytes(path.read_bytes()[:20])
    ns = int(written.timestamp()) * 1_000_000_000
    os.utime(path, ns=(ns, ns))


def test_a_damaged_file_within_the_clock_slack_may_be_the_latest(tmp_path: Path) -> None:
    latest_start = T0 + timedelta(hours=1)
    write(tmp_path, "r-latest", latest_start)
    damaged = write(tmp_path, "q-damaged", T0)
    _damage(damaged, latest_start - CLOCK_SLACK)  # at the edge of the slack: may be newer
    with pytest.raises(LatestUnknown, match="q-damaged.json"):
        open_store(tmp_path).latest_runs(*TASK, 1)
    _damage(damaged, latest_start - CLOCK_SLACK - timedelta(seconds=1))  # clearly older
    with pytest.warns(UnreadableRecordWarning, match="q-damaged.json"):
        assert ids(open_store(tmp_path).latest_runs(*TASK, 1)) == ["r-latest"]


def test_a_damaged_file_within_the_slack_of_a_twin_blocks_the_run_before(tmp_path: Path) -> None:
    start = T0 + timedelta(hours=1)
    write(tmp_path, "z-twin", start)
    write(tmp_path, "a-twin", start)
    damaged = write(tmp_path, "b-damaged", T0)
    _damage(damaged, start - CLOCK_SLACK)
    store = open_store(tmp_path)
    with pytest.raises(LatestUnknown, match="the run before run z-twin .*b-damaged.json"):
        store.latest_runs(*TASK, 1, before=store.find(*TASK, "z-twin"))
    _damage(damaged, start - CLOCK_SLACK - timedelta(seconds=1))
    with pytest.warns(UnreadableRecordWarning, match="b-damaged.json"):
        assert ids(store.latest_runs(*TASK, 1, before=store.find(*TASK, "z-twin"))) == ["a-twin"]


def test_a_damaged_file_blocks_an_answer_short_of_the_runs_asked_for(tmp_path: Path) -> None:
    """Fewer readable runs than asked for: any damaged file may be one of them, however old."""
    write(tmp_path, "r-latest", T0 + timedelta(hours=1))
    _damage(write(tmp_path, "q-damaged", T0), T0 - timedelta(days=30))
    store = open_store(tmp_path)
    with pytest.warns(UnreadableRecordWarning, match="q-damaged.json"):
        assert ids(store.latest_runs(*TASK, 1)) == ["r-latest"]
    with pytest.raises(LatestUnknown, match="one of the 2 latest runs of shop/orders/clean may be .*q-damaged.json"):
        store.latest_runs(*TASK, 2)


def test_a_damaged_file_blocks_when_the_last_run_asked_for_has_no_start_time(tmp_path: Path) -> None:
    write(tmp_path, "r-latest", T0 + timedelta(hours=1))
    record = RunRecord(run_id="n-unstarted", task_path="/".join(TASK), usecase=TASK[0], package=TASK[1],
                       task_name=TASK[2], status="success")
    open_store(tmp_path).write(record)
    _damage(write(tmp_path, "q-damaged", T0), T0 - timedelta(days=30))
    with pytest.raises(LatestUnknown, match="q-damaged.json"):
        open_store(tmp_path).latest_runs(*TASK, 2)  # the second is placed nowhere: the damaged one may be newer
