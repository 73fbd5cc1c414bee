"""Process facts: everything the package reads from /proc or the OS about a process, each checked
against a reading the test makes itself (its own parse of /proc/<pid>/stat, ``ps``, the shell, a
child process the test starts and kills).

What the package reads (lineage/ending.py): the pid, the host name, the boot id, a process's start
time (field 22 of /proc/<pid>/stat) and state (field 3), whether a pid exists (``kill(pid, 0)``),
and the names and exit codes of the signals that end a run. ``shown_status`` turns them into
``running`` or ``abandoned``: a live run is never shown abandoned, a dead one never running.
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

import pytest

from ubunye.lineage import ending
from ubunye.lineage.record import RunRecord

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux's /proc")


def stat_fields(pid: int) -> list[str]:
    """The test's own parse of /proc/<pid>/stat: fields 1.. (field 2, the name, in its parentheses)."""
    text = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    match = re.fullmatch(r"(\d+) \((.*)\) (.*)", text.strip(), re.S)
    assert match, text
    return [match.group(1), match.group(2), *match.group(3).split(" ")]


def boot_time() -> int:
    """Seconds since the epoch at boot (``btime`` of /proc/stat)."""
    for line in Path("/proc/stat").read_text(encoding="ascii").splitlines():
        if line.startswith("btime "):
            return int(line.split()[1])
    raise AssertionError("no btime in /proc/stat")


def ps_start(pid: int) -> datetime:
    """The start time ``ps`` prints for ``pid`` (to the second, local time of a UTC environment)."""
    out = subprocess.run(["ps", "-o", "lstart=", "-p", str(pid)], capture_output=True, text=True,
                         env={**os.environ, "TZ": "UTC", "LC_ALL": "C"}, check=True).stdout.strip()
    return datetime.strptime(out, "%a %b %d %H:%M:%S %Y").replace(tzinfo=timezone.utc)


def running(process: dict[str, Any]) -> RunRecord:
    return RunRecord(run_id="r", status="running", process=process, started_at="2026-01-01T00:00:00Z")


def facts_of(pid: int) -> dict[str, Any]:
    """What a record of ``pid`` on this host holds, read by the test (not by ``this_process``)."""
    return {"host": socket.gethostname(), "pid": pid,
            "boot_id": Path("/proc/sys/kernel/random/boot_id").read_text().strip(),
            "start_ticks": int(stat_fields(pid)[21])}


@pytest.fixture
def child() -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def wait_state(pid: int, states: str) -> str:
    for _ in range(200):  # bounded: at most 10 s
        state = stat_fields(pid)[2]
        if state in states:
            return state
        time.sleep(0.05)
    raise AssertionError(f"pid {pid} never reached {states!r}")


# --------------------------------------------------------------- what this_process reads
def test_this_process_is_the_pid_a_child_sees_as_its_parent() -> None:
    facts = ending.this_process()
    parent = subprocess.run(["sh", "-c", "echo $PPID"], capture_output=True, text=True, check=True).stdout
    assert facts["pid"] == int(parent) == os.getpid()
    assert facts["host"] == socket.gethostname() == os.uname().nodename


def test_start_ticks_are_field_22_and_the_start_ps_shows() -> None:
    facts = ending.this_process()
    assert facts["start_ticks"] == int(stat_fields(os.getpid())[21])
    started = boot_time() + facts["start_ticks"] / os.sysconf("SC_CLK_TCK")
    assert boot_time() <= started <= time.time()
    if shutil.which("ps") is None:
        pytest.skip("no ps here: field 22 checked against the test's own parse only")
    # two readings of one instant: ps rounds down to the second, btime too
    assert abs(started - ps_start(os.getpid()).timestamp()) <= 2


def test_boot_id_is_the_one_another_process_reads() -> None:
    other = subprocess.run([sys.executable, "-c", "print(open('/proc/sys/kernel/random/boot_id').read().strip())"],
                           capture_output=True, text=True, check=True).stdout.strip()
    assert ending.this_process()["boot_id"] == other
    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", other)


def test_a_name_with_parentheses_and_spaces_does_not_shift_the_fields(tmp_path: Path) -> None:
    """Field 2 is the executable's name as the process chose it: ``a) 1 2 (`` must not move field 22."""
    sleep = shutil.which("sleep")
    assert sleep
    odd = tmp_path / "a) 1 2 3 ("
    odd.symlink_to(sleep)
    proc = subprocess.Popen([str(odd), "60"])
    try:
        fields = stat_fields(proc.pid)
        assert fields[1] == "a) 1 2 3 ("  # the kernel keeps the link's name: the case is real
        assert ending._start_ticks(proc.pid) == int(fields[21])
        assert ending.shown_status(running(facts_of(proc.pid))) == "running"
    finally:
        proc.kill()
        proc.wait()


# --------------------------------------------------------------- live never abandoned, dead never live
def test_a_live_run_is_running_and_the_same_pid_started_later_is_not_it(child: subprocess.Popen[bytes]) -> None:
    facts = facts_of(child.pid)
    assert ending.shown_status(running(facts)) == "running"
    assert ending.shown_status(running({**facts, "start_ticks": None})) == "running"  # an old record: pid only
    reused = {**facts, "start_ticks": facts["start_ticks"] - 1}  # the record's process started before this one
    assert ending.shown_status(running(reused)) == "abandoned"
    assert ending.shown_status(running({**facts, "boot_id": "another-boot"})) == "abandoned"


def test_this_process_is_never_abandoned() -> None:
    assert ending.shown_status(running(ending.this_process())) == "running"
    assert ending.shown_status(running(facts_of(os.getpid()))) == "running"


def test_a_killed_run_is_abandoned_before_and_after_its_parent_reaps_it(child: subprocess.Popen[bytes]) -> None:
    """A run killed (SIGKILL: no record written) whose parent has not waited for it yet is a zombie:
    ``kill(pid, 0)`` still succeeds and its start time is unchanged, but it runs nothing."""
    facts = facts_of(child.pid)
    child.kill()
    assert wait_state(child.pid, "ZX") in "ZX"  # not reaped: the pid still answers kill(pid, 0)
    os.kill(child.pid, 0)
    assert ending.shown_status(running(facts)) == "abandoned"
    assert "is gone" in ending.abandoned_reason(running(facts))
    child.wait()
    with pytest.raises(ProcessLookupError):
        os.kill(child.pid, 0)
    assert ending.shown_status(running(facts)) == "abandoned"


def test_a_stopped_run_is_still_running(child: subprocess.Popen[bytes]) -> None:
    """SIGSTOP pauses a run (state T); it continues on SIGCONT: it is not gone."""
    facts = facts_of(child.pid)
    child.send_signal(signal.SIGSTOP)
    try:
        assert wait_state(child.pid, "Tt") in "Tt"
        assert ending.shown_status(running(facts)) == "running"
    finally:
        child.send_signal(signal.SIGCONT)


def test_a_run_of_another_user_is_running(child: subprocess.Popen[bytes], monkeypatch: pytest.MonkeyPatch) -> None:
    """``kill(pid, 0)`` on another user's process fails with EPERM: it exists. (The test may run as
    root, who may signal every process: the kernel's answer for a non-root caller is given here.)"""
    facts = facts_of(child.pid)
    real_kill = os.kill

    def kill(pid: int, sig: int) -> None:
        if pid == child.pid and sig == 0:
            real_kill(pid, sig)  # it exists (else ProcessLookupError, as the kernel says)
            raise PermissionError(1, "Operation not permitted")
        real_kill(pid, sig)

    monkeypatch.setattr(ending.os, "kill", kill)
    assert ending.shown_status(running(facts)) == "running"
    child.kill()
    child.wait()
    assert ending.shown_status(running(facts)) == "abandoned"  # gone: ProcessLookupError before EPERM


@pytest.mark.parametrize("pid", [0, -1, True])
def test_a_pid_no_process_has_is_never_running(pid: Any) -> None:
    """``kill(0, 0)`` asks the caller's process group and ``kill(-1, 0)`` every process: both succeed,
    so a record with such a pid read as running for ever; ``True`` is an int to Python, not a pid."""
    facts = {**ending.this_process(), "pid": pid}
    assert ending.shown_status(running(facts)) == "abandoned"  # started in 2026-01: older than the limit


def test_the_reason_names_the_rule_that_decided(child: subprocess.Popen[bytes]) -> None:
    facts = {**facts_of(child.pid), "pid": str(child.pid)}  # a pid as text: not this host's rule
    record = running(facts)
    assert ending.shown_status(record) == "abandoned"
    assert "days ago" in ending.abandoned_reason(record)


# --------------------------------------------------------------- signals
@pytest.mark.parametrize("signum", [int(s) for s in ending.ENDING_SIGNALS])
def test_a_signal_is_named_and_ends_with_the_code_the_shell_gives(signum: int) -> None:
    name = subprocess.run(["sh", "-c", f"kill -l {signum}"], capture_output=True, text=True, check=True).stdout.strip()
    stopped = ending.Stopped(signum)
    assert str(stopped) == f"stopped by signal {signum} (SIG{name.removeprefix('SIG')})"
    code = subprocess.run(["sh", "-c", f"sh -c 'kill -{signum} $$'; echo $?"], capture_output=True, text=True).stdout
    assert stopped.exit_code == int(code)


# --------------------------------------------------------------- an output's writer lock
def test_an_output_lock_names_the_pid_the_kernel_says_holds_it(tmp_path: Path) -> None:
    """The lock file of an output names its holder (run id, pid, host) for the line another run
    prints while it waits; the kernel's own table (/proc/locks: FLOCK, pid, inode) must agree."""
    import json

    from ubunye.engine import writers

    path = tmp_path / ".ubunye-lock"
    spec = type("Spec", (), {"name": "out", "location": str(tmp_path)})()
    fd = writers._lock(path, spec, "run-1")
    try:
        held = json.loads(path.read_text())
        inode = os.fstat(fd).st_ino
        holders = [int(f[4]) for f in (line.split() for line in Path("/proc/locks").read_text().splitlines())
                   if len(f) > 5 and f[1] == "FLOCK" and int(f[5].rsplit(":", 1)[1]) == inode]
        assert holders == [os.getpid()] == [held["pid"]]
        assert held == {"run_id": "run-1", "pid": os.getpid(), "host": socket.gethostname()}
        assert writers._holder(fd) == f"run run-1 (pid {os.getpid()} on {socket.gethostname()})"
    finally:
        os.close(fd)
    assert not [line for line in Path("/proc/locks").read_text().splitlines()
                if line.split()[5].endswith(f":{inode}") and "FLOCK" in line]  # closed: released


# --------------------------------------------------------------- the rows-v1 hashing worker across fork
def in_child(call: Any) -> int:
    """The exit code of a forked child running ``call`` (0 when it returns True)."""
    child = os.fork()
    if child == 0:  # the child: only simple calls, then _exit
        code = 1
        try:
            code = 0 if call() else 2
        finally:
            os._exit(code)
    for _ in range(600):  # bounded: at most 30 s
        done, status = os.waitpid(child, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.05)
    os.kill(child, signal.SIGKILL)
    os.waitpid(child, 0)
    raise AssertionError("the forked child did not end")


def test_a_forked_child_leaves_the_parents_hashing_worker_alone() -> None:
    """The shared worker belongs to the process that started it (its owner pid): a child forked after
    it started (a notebook's multiprocessing, a task forking) neither uses it nor stops it, also when
    the child's interpreter ends normally and runs the atexit ``shutdown``. The worker's parent, as
    the kernel says (/proc/<pid>/stat field 4), is this process."""
    from ubunye.hashing import parallel

    parallel.warm_up()
    worker = parallel._worker
    assert worker is not None and worker.ready
    assert int(stat_fields(worker.pid)[3]) == os.getpid() == worker.owner

    def sees_none() -> bool:
        return parallel.acquire_worker(start=False) is None and parallel.current_worker_pid() is None

    def shuts_down() -> bool:
        parallel.shutdown()  # what the child's atexit runs
        return True

    assert in_child(sees_none) == 0  # it saw no worker of its own and started none
    assert in_child(shuts_down) == 0
    import pyarrow as pa

    from ubunye.hashing.arrow import lane_sums

    table = pa.table({"id": pa.array(range(1000), pa.int64())})
    assert lane_sums([table], workers=2) == lane_sums([table], workers=1)  # the parent's worker still answers
    assert parallel.current_worker_pid() == worker.pid and stat_fields(worker.pid)[2] not in "ZX"
