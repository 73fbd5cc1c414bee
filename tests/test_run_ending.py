"""How a run ends, through the library entry points (run_task, run_pipeline, the notebook helper,
ubunye.lineage.run): one mapping (lineage/ending.py), SystemExit is a failed run, signals opt in,
ENGINE.timeout, a record that cannot be written stops the run before any data."""
from __future__ import annotations

import json
import os
import signal
import threading
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

import ubunye
from ubunye.engine.runner import TaskFailed, notebook, run_pipeline, run_task
from ubunye.lineage import ending
from ubunye.lineage.ending import Stopped, TimedOut, describe, end_status, reraise

from test_engine_runner import PEOPLE, make_task

CONFIG = """
ENGINE: {backend: pandas}
CONFIG:
  inputs:
    people: {format: parquet, path: "{{ task_dir }}/../../../data/people.parquet"}
  outputs:
    out: {format: parquet, path: "{{ task_dir }}/../../../data/out", mode: overwrite}
"""


def code(body: str) -> str:
    lines = "\n".join("        " + line for line in body.strip().splitlines())
    return f"import os, signal, sys\nfrom ubunye import Task\n\n\nclass T(Task):\n    def transform(self, sources):\n{lines}\n"


EXIT0 = code("sys.exit(0)")
PASS = code('return {"out": sources["people"]}')


@pytest.fixture
def usecase(tmp_path: Path) -> Path:
    (tmp_path / "data").mkdir()
    pq.write_table(PEOPLE, tmp_path / "data" / "people.parquet")
    return tmp_path


def records(usecase: Path, task: str = "t") -> list[dict[str, Any]]:
    folder = usecase / ".ubunye" / "lineage" / "shop" / "orders" / task
    return [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))]


def test_one_mapping() -> None:
    assert end_status(None) == "success"
    assert end_status(KeyboardInterrupt()) == "interrupted"
    for exc in (ValueError("x"), SystemExit(0), SystemExit(None), GeneratorExit(), Stopped(15), TimedOut(2.0)):
        assert end_status(exc) == "error", exc
    assert reraise(KeyboardInterrupt()) and reraise(Stopped(15))
    assert not reraise(SystemExit(0)) and not reraise(TimedOut(1)) and not reraise(ValueError())
    assert describe(ValueError("bad")) == "ValueError: bad"
    assert describe(SystemExit(0), "transformations.py:3 in transform") == (
        "SystemExit(0) raised by task code at transformations.py:3 in transform")
    assert describe(Stopped(15)) == "stopped by signal 15 (SIGTERM)" and Stopped(2).exit_code == 130
    assert describe(TimedOut(1.5)) == "timed out after 1.5 s (ENGINE.timeout)"


def test_run_task_system_exit_raises_task_failed_with_an_error_record(usecase: Path) -> None:
    task = make_task(usecase, "t", CONFIG, EXIT0)
    with pytest.raises(TaskFailed, match=r"SystemExit\(0\) raised by task code at transformations.py:7"):
        run_task(task, lineage=True)
    result = run_task(task, lineage=True, raise_on_error=False)
    assert result.status == "error" and isinstance(result.error, SystemExit)
    assert [r["status"] for r in records(usecase)] == ["error", "error"]
    assert not (usecase / "data" / "out").exists()


def test_run_pipeline_stops_at_the_task_that_exited(usecase: Path) -> None:
    make_task(usecase, "a", CONFIG, EXIT0)
    make_task(usecase, "b", CONFIG, PASS)
    results = run_pipeline(usecase, "shop", "orders", ["a", "b"], lineage=True, raise_on_error=False)
    assert [r.status for r in results] == ["error"] and records(usecase, "b") == []


def test_notebook_step_that_exits_ends_the_record_and_propagates(usecase: Path) -> None:
    nb = notebook(make_task(usecase, "t", CONFIG, EXIT0), lineage=True)
    nb.read()
    with pytest.raises(SystemExit):
        nb.transform()
    assert nb.result.status == "error"
    (record,) = records(usecase)
    assert record["status"] == "error" and record["error"].startswith("SystemExit(0) raised by task code")


def test_lineage_run_block_that_exits_is_an_error(usecase: Path) -> None:
    with pytest.raises(SystemExit):
        with ubunye.lineage.run("shop/orders/t", usecase_dir=usecase) as run:
            raise SystemExit(0)
    assert run.record.status == "error" and run.record.error == "SystemExit(0) raised by task code"


def test_signals_are_the_callers_unless_asked(usecase: Path) -> None:
    """handle_signals=True: a SIGINT in the task ends the record as error and raises Stopped; the
    host's handlers are back after. (SIGINT: were the handler missing, a KeyboardInterrupt, not death.)"""
    assert threading.current_thread() is threading.main_thread()
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    task = make_task(usecase, "t", CONFIG, code(
        "assert signal.getsignal(signal.SIGINT) is not signal.default_int_handler\n"
        "os.kill(os.getpid(), signal.SIGINT)\nreturn {'out': sources['people']}"))
    with pytest.raises(Stopped) as stopped:
        run_task(task, lineage=True, handle_signals=True)
    assert stopped.value.signum == signal.SIGINT
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before
    (record,) = records(usecase)
    assert record["status"] == "error" and record["error"] == "stopped by signal 2 (SIGINT)"
    make_task(usecase, "u", CONFIG, code("seen = signal.getsignal(signal.SIGINT)\nraise ValueError(repr(seen))"))
    result = run_task(usecase / "shop/orders/u", raise_on_error=False)  # default: the host's handler left alone
    assert repr(before[0]) in str(result.error), result.error


def test_a_signal_while_a_record_ends_waits_until_it_is_written() -> None:
    from ubunye.lineage.ending import ending_signals, held

    steps: list[str] = []
    with pytest.raises(Stopped) as stopped:
        with ending_signals():
            with held():
                os.kill(os.getpid(), signal.SIGINT)  # SIGINT: without the handler, a KeyboardInterrupt
                steps.append("record written")
            steps.append("not reached")
    assert steps == ["record written"] and stopped.value.signum == signal.SIGINT


def test_a_signal_taken_by_another_thread_reaches_a_main_thread_blocked_in_a_call() -> None:
    """As in a Spark driver: the main thread waits in a socket call (py4j) while another thread
    takes the signal; the run must still be stopped (without forwarding it waits forever: here it
    would time out instead)."""
    import socket

    from ubunye.lineage.ending import ending_signals

    waiting, other = socket.socketpair()
    waiting.settimeout(20)
    main = Path(f"/proc/self/task/{threading.get_native_id()}/syscall")

    def take() -> None:  # once the main thread sits in poll/recvfrom, this thread takes a SIGINT
        while main.read_text().split()[0] not in ("7", "45", "271"):  # x86-64 poll, recvfrom, ppoll
            pass
        signal.pthread_kill(threading.get_ident(), signal.SIGINT)

    taker = threading.Thread(target=take)
    try:
        with pytest.raises(Stopped) as stopped:
            with ending_signals():
                taker.start()
                waiting.recv(1)  # nobody sends: only the signal ends this wait
        assert stopped.value.__context__ is None, "the wait ran out before the signal reached it"
    finally:
        taker.join()
        waiting.close()
        other.close()


def test_timeout_in_run_task(usecase: Path) -> None:
    task = make_task(usecase, "t", CONFIG.replace("{backend: pandas}", "{backend: pandas, timeout: 0.2}"),
                     code("threading_event = __import__('threading').Event()\nthreading_event.wait()"))
    alarm = signal.getsignal(signal.SIGALRM)
    result = run_task(task, lineage=True, raise_on_error=False)
    assert result.status == "error" and isinstance(result.error, TimedOut)
    assert records(usecase)[0]["error"] == "timed out after 0.2 s (ENGINE.timeout)"
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0) and signal.getsignal(signal.SIGALRM) == alarm


def test_timeout_off_the_main_thread_warns_that_it_is_not_enforced(usecase: Path) -> None:
    task = make_task(usecase, "t", CONFIG.replace("{backend: pandas}", "{backend: pandas, timeout: 30}"), PASS)
    caught: list[Any] = []

    def work() -> None:
        with pytest.warns(RuntimeWarning, match="only in the main thread") as got:
            caught.append(run_task(task).status)
        caught.append(len(got))

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert caught == ["success", 1]


def test_disk_full_at_the_start_record_touches_no_data(usecase: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ubunye.lineage import store
    from ubunye.lineage.errors import RecordWriteError

    def full(self: Any, record: Any) -> Any:
        raise RecordWriteError(self.record_path(record), "No space left on device")

    read: list[str] = []
    monkeypatch.setattr(store.FileStore, "write", full)
    from ubunye.engine.backends import pandas_backend

    original = pandas_backend.PandasBackend.read
    monkeypatch.setattr(pandas_backend.PandasBackend, "read", lambda self, spec: read.append(spec.name) or original(self, spec))
    result = run_task(make_task(usecase, "t", CONFIG, PASS), lineage=True, raise_on_error=False)
    assert result.status == "error" and "No space left on device; nothing was read or written" in result.reason()
    assert read == [] and not (usecase / "data" / "out").exists()


def test_abandoned_only_for_running_records() -> None:
    from ubunye.lineage.record import RunRecord

    gone = {"host": ending.socket.gethostname(), "pid": 2**22 + 1, "boot_id": None, "start_ticks": None}
    assert ending.shown_status(RunRecord(run_id="r", status="running", process=gone)) == "abandoned"
    assert ending.shown_status(RunRecord(run_id="r", status="error", process=gone)) == "error"
