"""The newest runs of a task, honestly: ``compare`` and ``verify`` without run ids never answer
with older runs while a record that may be newer cannot be read, and a run that did not
succeed is never proven the same.

Records are written through the store with start times an hour apart, and each file's
modification time is set to its run's end, as a run writing it would leave it.
"""
from __future__ import annotations

import hashlib
import json
import os
import warnings
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from ubunye.cli.app import cli
from ubunye.lineage.errors import UnreadableRecord
from ubunye.lineage.record import RunRecord, Step
from ubunye.lineage.store import FileStore, LatestUnknown, UnreadableRecordWarning, open_store

T0 = datetime(2026, 3, 1, 8, 0, tzinfo=timezone.utc)
TASK = ("shop", "orders", "clean")
IDS = ["r0-oldest", "r1-middle", "r2-previous", "r3-latest"]


def _step(direction: str, name: str) -> Step:
    schema, data = (f"sha256:{hashlib.sha256(t.encode()).hexdigest()}" for t in ("schema", name))  # well formed
    return Step(name, direction, "parquet", f"/lake/{name}", 3, schema, data, "rows-v1")


def write_run(store: FileStore, run_id: str, hour: int, status: str = "success") -> Path:
    start = T0 + timedelta(hours=hour)
    record = RunRecord(run_id=run_id, task_path="/".join(TASK), usecase=TASK[0], package=TASK[1], task_name=TASK[2],
                       started_at=start.isoformat(), ended_at=(start + timedelta(minutes=5)).isoformat(),
                       status=status, inputs=[_step("input", "orders")], outputs=[_step("output", "clean")])
    path = store.write(record)
    set_mtime(path, start + timedelta(minutes=5))
    return path


def set_mtime(path: Path, when: datetime) -> None:
    ns = int(when.timestamp()) * 1_000_000_000
    os.utime(path, ns=(ns, ns))


@pytest.fixture()
def usecase(tmp_path: Path) -> Path:
    store = open_store(tmp_path)
    for hour, run_id in enumerate(IDS):
        write_run(store, run_id, hour)
    return tmp_path


def files(usecase: Path) -> dict[str, Path]:
    folder = open_store(usecase).task_dir(*TASK)
    return {run_id: folder / f"{run_id}.json" for run_id in IDS}


def truncate(path: Path, keep_mtime: bool = True) -> None:
    st = path.stat()
    path.write_bytes(path.read_bytes()[: st.st_size // 2])
    if keep_mtime:
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def lineage(usecase: Path, *args: str) -> Result:
    result = CliRunner().invoke(cli, ["lineage", args[0], "-d", str(usecase), *args[1:]])
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout, result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def one_error_line(result: Result, path: Path) -> None:
    assert result.exit_code == 2 and result.stdout == "", result.stdout
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: ") and str(path) in result.stderr


# ---------------------------------------------------------------- the store


def test_latest_runs_in_start_order(usecase: Path) -> None:
    store = open_store(usecase)
    assert [r.run_id for r in store.latest_runs(*TASK, 2)] == ["r3-latest", "r2-previous"]
    latest = store.find(*TASK, "r3")
    assert [r.run_id for r in store.latest_runs(*TASK, 1, before=latest)] == ["r2-previous"]
    assert store.latest_runs(*TASK, 9) == store.list_runs(*TASK)


def test_runs_are_ordered_by_their_instant_not_by_the_text_of_their_start(tmp_path: Path) -> None:
    """Start times in other offsets (a run started on another host's clock): 10:30+02:00 is 08:30 UTC,
    before 09:00Z although its text sorts after it."""
    store = open_store(tmp_path)
    starts = {"r-east": "2026-03-01T10:30:00+02:00", "r-utc": "2026-03-01T09:00:00Z",
              "r-west": "2026-03-01T04:15:00-05:00"}  # 08:30, 09:00, 09:15 UTC
    for run_id, start in starts.items():
        store.write(RunRecord(run_id=run_id, task_path="/".join(TASK), usecase=TASK[0], package=TASK[1],
                              task_name=TASK[2], started_at=start, ended_at=start, status="success",
                              inputs=[_step("input", "orders")], outputs=[_step("output", "clean")]))
    assert sorted(starts, key=starts.__getitem__, reverse=True) == ["r-east", "r-utc", "r-west"]  # the texts' order
    assert [r.run_id for r in store.latest_runs(*TASK, 3)] == ["r-west", "r-utc", "r-east"]
    latest = store.find(*TASK, "r-west")
    assert [r.run_id for r in store.latest_runs(*TASK, 1, before=latest)] == ["r-utc"]


def test_a_truncated_latest_record_is_named_never_passed_over(usecase: Path) -> None:
    store = open_store(usecase)
    latest = files(usecase)["r3-latest"]
    truncate(latest)
    with pytest.raises(LatestUnknown) as caught:
        store.latest_runs(*TASK, 1)
    assert str(latest) in str(caught.value) and "the latest run of shop/orders/clean" in str(caught.value)
    with pytest.raises(LatestUnknown):
        store.latest_runs(*TASK, 2)
    with pytest.warns(UnreadableRecordWarning, match="r3-latest.json"):  # list still skips it
        assert [r.run_id for r in store.list_runs(*TASK)] == IDS[2::-1]


def test_a_truncated_previous_record_is_named_for_two_runs_and_for_the_run_before(usecase: Path) -> None:
    store = open_store(usecase)
    previous = files(usecase)["r2-previous"]
    truncate(previous)
    with pytest.warns(UnreadableRecordWarning, match="r2-previous.json"):  # it cannot be newer
        assert [r.run_id for r in store.latest_runs(*TASK, 1)] == ["r3-latest"]
    with pytest.raises(LatestUnknown, match="one of the 2 latest runs .*r2-previous.json"):
        store.latest_runs(*TASK, 2)
    with pytest.raises(LatestUnknown, match="the run before run r3-latest .*r2-previous.json"):
        store.latest_runs(*TASK, 1, before=store.find(*TASK, "r3"))


def test_an_old_damaged_record_is_skipped_with_a_warning(usecase: Path) -> None:
    store = open_store(usecase)
    truncate(files(usecase)["r0-oldest"])
    with pytest.warns(UnreadableRecordWarning, match="r0-oldest.json"):
        assert [r.run_id for r in store.latest_runs(*TASK, 2)] == ["r3-latest", "r2-previous"]


def test_a_damaged_old_record_rewritten_now_may_be_the_latest(usecase: Path) -> None:
    """Its modification time is the only safe clue: written after the latest run started."""
    oldest = files(usecase)["r0-oldest"]
    truncate(oldest, keep_mtime=False)
    with pytest.raises(LatestUnknown, match="r0-oldest.json"):
        open_store(usecase).latest_runs(*TASK, 1)


def test_a_record_without_a_start_time_written_late_cannot_be_placed(usecase: Path) -> None:
    store = open_store(usecase)
    path = files(usecase)["r1-middle"]
    data = json.loads(path.read_text(encoding="utf-8"))
    data["started_at"] = None
    data.pop("seal")  # as a writer that does not seal its records (a sealed one is refused outright)
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(LatestUnknown, match="r1-middle.json, which has no start time"):
        store.latest_runs(*TASK, 1)
    set_mtime(path, T0 + timedelta(hours=1, minutes=5))  # written long before the latest run started
    assert [r.run_id for r in store.latest_runs(*TASK, 1)] == ["r3-latest"]


def test_a_listed_record_must_be_the_run_its_name_says(usecase: Path) -> None:
    store = open_store(usecase)
    path = files(usecase)["r1-middle"]
    data = json.loads(path.read_text(encoding="utf-8").replace('"r1-middle"', '"r1-other"'))
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(UnreadableRecord, match="r1-middle.json: the record does not match its seal"):
        store.find(*TASK, "r1")
    data.pop("seal")  # as a writer that does not seal its records
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(UnreadableRecord, match="r1-middle.json: its run_id 'r1-other' is not its file name"):
        store.find(*TASK, "r1")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert "r1-other" not in [r.run_id for r in store.list_runs(*TASK)]
    assert any("r1-middle.json" in str(w.message) for w in caught)


# ---------------------------------------------------------------- the commands


def test_compare_and_verify_exit_2_naming_a_truncated_latest_record(usecase: Path) -> None:
    assert lineage(usecase, "compare").exit_code == 0  # the four runs hold the same data
    latest = files(usecase)["r3-latest"]
    truncate(latest)
    one_error_line(lineage(usecase, "compare"), latest)
    one_error_line(lineage(usecase, "compare", "--json"), latest)
    one_error_line(lineage(usecase, "compare", "--run-id1", "r1"), latest)  # B: the latest
    one_error_line(lineage(usecase, "verify"), latest)
    for args in (["--run-id1", "r1", "--run-id2", "r3"], ["--run-id2", "r3"]):  # named: unreadable too
        one_error_line(lineage(usecase, "compare", *args), latest)
    one_error_line(lineage(usecase, "verify", "--run-id", "r3"), latest)
    one_error_line(lineage(usecase, "verify", "--record", str(latest)), latest)


def test_list_search_and_show_skip_it_with_one_warning_line(usecase: Path) -> None:
    latest = files(usecase)["r3-latest"]
    truncate(latest)
    for args in (["list", "--json"], ["search", "--json"], ["show", "--json"], ["list"], ["show"]):
        result = lineage(usecase, *args)
        assert result.exit_code == 0
        if "--json" in args:
            json.loads(result.stdout)
        assert "r3-latest" not in result.stdout
        (line,) = result.stderr.splitlines()
        assert line.startswith("warning: skipping unreadable run record ") and str(latest) in line


def test_compare_the_run_before_a_named_one_when_that_is_damaged(usecase: Path) -> None:
    previous = files(usecase)["r2-previous"]
    truncate(previous)
    one_error_line(lineage(usecase, "compare", "--run-id2", "r3"), previous)
    verified = lineage(usecase, "verify", "--json")  # the latest run itself is readable
    assert verified.exit_code == 1 and json.loads(verified.stdout)["run"]["run_id"] == "r3-latest"
    assert "no longer exists" in verified.stdout  # (this store's data is not on disk)
    ok = lineage(usecase, "compare", "--run-id1", "r1", "--run-id2", "r3", "--json")
    assert ok.exit_code == 0 and ok.stderr == ""  # both named, both readable


def test_an_old_damaged_record_does_not_block_compare(usecase: Path) -> None:
    oldest = files(usecase)["r0-oldest"]
    truncate(oldest)
    result = lineage(usecase, "compare", "--json")
    doc = json.loads(result.stdout)
    assert result.exit_code == 0 and (doc["run_a"]["run_id"], doc["run_b"]["run_id"]) == ("r2-previous", "r3-latest")
    (line,) = result.stderr.splitlines()
    assert line.startswith("warning: ") and str(oldest) in line


@pytest.mark.parametrize("status", ["running", "error", "interrupted"])
def test_a_latest_run_that_did_not_succeed_is_not_proven_the_same(usecase: Path, status: str) -> None:
    write_run(open_store(usecase), "r4-newer", 4, status=status)
    compared = lineage(usecase, "compare", "--json")
    doc: dict[str, Any] = json.loads(compared.stdout)
    assert compared.exit_code == 1 and doc["data_proven_same"] is False
    assert [s["verdict"] for s in doc["steps"]] == ["unchanged", "unchanged"]  # its steps alone would pass
    assert doc["problems"] == [p for p in doc["problems"] if p.startswith("run B ") and status in p] != []
    human = lineage(usecase, "compare")
    assert human.exit_code == 1 and f"status {status}" in human.stdout
    verified = lineage(usecase, "verify", "--json")
    assert verified.exit_code == 1 and status in " ".join(json.loads(verified.stdout)["problems"])
