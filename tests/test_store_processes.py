"""Atomicity and concurrency of the store, tested with real processes."""
from __future__ import annotations

import json
import shutil
import warnings
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from ubunye.lineage.store import FileStore

PROCESSES = 20

_RUN = textwrap.dedent(
    """
    import sys, time, uuid
    from pathlib import Path
    from ubunye.lineage.context import DataEvent, RunContext
    from ubunye.lineage.recorder import LineageRecorder

    usecase_dir, go = Path(sys.argv[1]), Path(sys.argv[2])
    deadline = time.monotonic() + 120
    while not go.exists():          # start together (poll, with a deadline)
        if time.monotonic() > deadline:
            sys.exit("no go signal within 120 s")
        time.sleep(0.005)
    recorder = LineageRecorder()
    context = RunContext(usecase="shop", package="orders", task="clean", usecase_dir=usecase_dir,
                         run_id=str(uuid.uuid4()), variables={"worker": sys.argv[3]})
    recorder.task_start(context=context, config={})
    recorder.task_end(context=context, config={}, outputs=[DataEvent(name="adults", direction="output")],
                      status="success", duration_sec=0.0)
    sys.exit(1 if recorder.write_errors else 0)
    """
)

_KILL_AFTER_START = textwrap.dedent(
    """
    import signal, sys
    from pathlib import Path
    from ubunye.lineage.context import RunContext
    from ubunye.lineage.recorder import LineageRecorder

    recorder = LineageRecorder()
    context = RunContext(usecase="shop", package="orders", task="clean", usecase_dir=Path(sys.argv[1]),
                         run_id=sys.argv[2])
    recorder.task_start(context=context, config={"MODEL": "etl"})
    print("started", flush=True)
    signal.pause()  # killed here, before task_end
    """
)

_WRITE_FOREVER = textwrap.dedent(
    """
    import sys
    from ubunye.lineage.record import RunRecord, Step
    from ubunye.lineage.store import FileStore

    store = FileStore(sys.argv[1])
    announce = int(sys.argv[2])  # say "writing" after this many writes: the test kills it then
    steps = [Step(name=f"s{i}", direction="output", location="/x" * 200) for i in range(300)]
    n = 0
    while True:
        record = RunRecord(run_id=f"r{n // 2:06d}", usecase="shop", package="orders", task_name="clean",
                           started_at=f"2026-01-01T00:00:00+00:00", outputs=steps)
        record.status = "running" if n % 2 == 0 else "success"
        record.duration_sec = float(n)
        store.write(record)
        n += 1
        if n == announce:
            print("writing", flush=True)
    """
)


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}


def test_twenty_processes_at_once_leave_twenty_records(tmp_path: Path) -> None:
    go = tmp_path / "go"
    procs = [
        subprocess.Popen([sys.executable, "-c", _RUN, str(tmp_path), str(go), str(i)], env=_env(),
                         stderr=subprocess.PIPE, text=True)
        for i in range(PROCESSES)
    ]
    go.touch()
    errors = [(p.wait(timeout=120), p.stderr.read() if p.stderr else "") for p in procs]
    assert [code for code, _ in errors] == [0] * PROCESSES, errors
    store = FileStore(tmp_path / ".ubunye" / "lineage")
    folder = store.task_dir("shop", "orders", "clean")
    assert sorted(p.suffix for p in folder.iterdir() if p.is_file()) == [".json"] * PROCESSES  # no temp files
    assert sorted(p.suffix for p in (folder / "_started").iterdir()) == [".json"] * PROCESSES
    runs = store.list_runs("shop", "orders", "clean")
    assert len({r.run_id for r in runs}) == PROCESSES
    assert {r.status for r in runs} == {"success"}
    assert sorted(r.variables["worker"] for r in runs) == sorted(str(i) for i in range(PROCESSES))


def test_process_killed_between_start_and_end_leaves_a_running_record(tmp_path: Path) -> None:
    run_id = "6a1d7c52-7a4e-4d8e-9a63-0d6f5b3f2e11"
    proc = subprocess.Popen([sys.executable, "-c", _KILL_AFTER_START, str(tmp_path), run_id], env=_env(),
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "started"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    store = FileStore(tmp_path / ".ubunye" / "lineage")
    assert not Path(store.path_for("shop", "orders", "clean", run_id)).exists()  # no final record
    path = Path(store.started_path_for("shop", "orders", "clean", run_id))
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["status"] == "running" and data["ended_at"] is None and data["model"] == "etl"
    assert store.find("shop", "orders", "clean", run_id[:8]).status == "running"


def test_process_killed_while_writing_never_leaves_a_truncated_record(tmp_path: Path) -> None:
    store = FileStore(tmp_path)
    for round_ in range(3):
        announce = 3 + 7 * round_  # kill at different points of the write loop: after 3, 10, 17 writes
        proc = subprocess.Popen([sys.executable, "-c", _WRITE_FOREVER, str(tmp_path), str(announce)],
                                env=_env(), stdout=subprocess.PIPE, text=True)
        try:
            assert proc.stdout is not None and proc.stdout.readline().strip() == "writing"
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # every listed record parses: a link is all or nothing
            runs = store.list_runs("shop", "orders", "clean")
        assert len(runs) >= 2 and all(len(r.outputs) == 300 for r in runs)
        assert {r.status for r in runs[1:]} == {"success"}  # only the newest may lack its final record
        shutil.rmtree(tmp_path / "shop")  # the next round writes the same run ids again

