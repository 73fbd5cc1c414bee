"""Lying record or exit code: how a run ends (issue 19, "No silent success").

Task code that raises anything (``SystemExit`` with code 0 included, any ``BaseException``), a
signal, a time limit or a record that cannot be written must end as a failed run: exit non-zero,
one FAIL line, the record ``error`` with the reason, nothing written. A ``running`` record whose
process is gone reads as ``abandoned``. Each probe runs the real CLI in a real process.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import textwrap
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness import (
    Result,
    Usecase,
    assert_one_line_error,
    assert_unchanged,
    cli,
    record_status,
    spawn,
    task_code,
    tree_digest,
)

WAIT = 120  # seconds a blocked probe may take before the test gives up (never reached when it works)

CONFIG = """
CONFIG:
  inputs:
    people: {format: parquet, path: "{{ task_dir }}/../../../data/people.parquet"}
  outputs:
    out: {format: parquet, path: "{{ task_dir }}/../../../data/out_NAME", mode: overwrite}
"""

PASS = task_code('return {"out": sources["people"]}')


def task(uc: Usecase, name: str, code: str, engine: str = "") -> Path:
    """The task ``name`` reading people.parquet and writing ``data/out_<name>`` (overwrite)."""
    text = (f"ENGINE: {{{engine}}}\n" if engine else "") + textwrap.dedent(CONFIG).lstrip("\n")
    return uc.task(name, text.replace("NAME", name), code)


@pytest.fixture
def uc(tmp_path: Path) -> Usecase:
    usecase = Usecase(tmp_path / "uc")
    usecase.parquet("people.parquet")
    return usecase


def out_of(uc: Usecase, task: str) -> Path:
    return uc.root / "data" / f"out_{task}"


def ran(uc: Usecase, task: str, *extra: str, **kw: object) -> Result:
    return uc.run("-t", task, "--lineage", *extra, **kw)


def only_record(uc: Usecase, task: str) -> dict:
    records = uc.records(task)
    assert len(records) == 1, records
    return records[0]


def assert_failed(uc: Usecase, task: str, result: Result, *, code: int = 1, reason: str) -> dict:
    """Exit ``code``, one FAIL line naming ``reason``, the record ``error`` saying it, nothing written."""
    assert result.code == code, str(result)
    assert "Traceback" not in result.text, str(result)
    assert result.out == "", str(result)
    lines = [line for line in result.err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"FAIL shop/orders/{task}: "), str(result)
    assert reason in lines[0], str(result)
    record = only_record(uc, task)
    assert record["status"] == "error" and reason in record["error"], record["error"]
    assert record["ended_at"] is not None
    assert not out_of(uc, task).exists(), "a failed run wrote its output"
    return record


def listed(uc: Usecase, task: str) -> str:
    result = cli("lineage", "list", "-d", str(uc.root), "-u", "shop", "-p", "orders", "-t", task)
    assert result.code == 0, str(result)
    return result.out


# --------------------------------------------------------------- SystemExit and friends in task code


@pytest.mark.parametrize(
    "body, reason",
    [
        ("import sys\nsys.exit(0)", "SystemExit(0) raised by task code at transformations.py:7 in transform"),
        ("import sys\nsys.exit(1)", "SystemExit(1) raised by task code at transformations.py:7"),
        ("import sys\nsys.exit('bye now')", "SystemExit('bye now') raised by task code"),
        ("import sys\nsys.exit()", "SystemExit() raised by task code"),
        ("raise SystemExit", "SystemExit() raised by task code at transformations.py:6"),
        ("exit(0)", "SystemExit(0) raised by task code"),
        ("quit()", "SystemExit() raised by task code"),
        ("raise GeneratorExit('closing')", "GeneratorExit('closing') raised by task code"),
        ("class Boom(BaseException):\n    pass\nraise Boom('no')", "Boom('no') raised by task code"),
        ("import os\nraise SystemExit(os.EX_OK)", "SystemExit(0) raised by task code"),
        ("sources['people'].apply(lambda row: exit(0), axis=1)", "SystemExit(0) raised by task code"),
        ("def gen():\n    yield 1\n    raise SystemExit(0)\nlist(gen())", "SystemExit(0) raised by task code"),
    ],
    ids=["exit0", "exit1", "exit-text", "exit-none", "bare-raise", "exit-builtin", "quit-builtin",
         "generatorexit", "baseexception-subclass", "ex-ok", "in-pandas-apply", "in-generator"],
)
def test_lying_exit_code_base_exception_in_transform_is_a_failed_run(uc: Usecase, body: str, reason: str) -> None:
    task(uc, "t", task_code(body))
    result = ran(uc, "t")
    assert_failed(uc, "t", result, reason=reason)


def test_lying_exit_code_system_exit_in_setup(uc: Usecase) -> None:
    code = PASS.replace("class Probe(Task):\n", "class Probe(Task):\n    def setup(self):\n        raise SystemExit(0)\n\n")
    task(uc, "t", code)
    assert_failed(uc, "t", ran(uc, "t"), reason="SystemExit(0) raised by task code at transformations.py:6 in setup")


def test_lying_exit_code_system_exit_in_a_helper_module_names_its_line(uc: Usecase) -> None:
    folder = task(uc, "t", "from helper import stop\n" + task_code("stop()\nreturn {}"))
    (folder / "helper.py").write_text("import sys\n\n\ndef stop():\n    sys.exit(0)\n", encoding="utf-8")
    assert_failed(uc, "t", ran(uc, "t"), reason="SystemExit(0) raised by task code at helper.py:5 in stop")


def test_lying_exit_code_system_exit_without_lineage_still_fails(uc: Usecase) -> None:
    task(uc, "t", task_code("import sys\nsys.exit(0)"))
    result = uc.run("-t", "t")
    assert result.code == 1 and result.err.startswith("FAIL shop/orders/t: SystemExit(0)"), str(result)
    assert not out_of(uc, "t").exists() and not uc.lineage_dir.exists()


def test_lying_exit_code_overwrite_keeps_the_previous_output_when_task_exits(uc: Usecase) -> None:
    task(uc, "t", PASS)
    assert ran(uc, "t").code == 0
    before = tree_digest(uc.root, skip=[".ubunye", "shop"])
    task(uc, "t", task_code("import sys\nsys.exit(0)"))
    result = ran(uc, "t")
    assert result.code == 1, str(result)
    assert_unchanged(before, tree_digest(uc.root, skip=[".ubunye", "shop"]))
    assert sorted(record_status(uc.records("t"))) == ["error", "success"]


@pytest.mark.parametrize("where", ["module", "init"])
def test_lying_exit_code_system_exit_while_loading_the_task(uc: Usecase, where: str) -> None:
    if where == "module":
        code = "import sys\nsys.exit(0)\n" + PASS
        reason = "transformations.py:2: import failed: SystemExit(0) raised by task code"
    else:
        code = PASS.replace("class Probe(Task):\n", "class Probe(Task):\n    def __init__(self):\n        raise SystemExit(0)\n\n")
        reason = "Probe() failed: SystemExit(0) raised by task code"
    task(uc, "t", code)
    result = ran(uc, "t")
    assert result.code == 1 and result.out == "", str(result)
    (line,) = result.err.splitlines()
    assert line.startswith("FAIL shop/orders/t: ") and reason in line, line
    (record,) = uc.records("t")  # the task's code failed: a failed run, and its record says why
    assert record["status"] == "error" and reason in record["error"], record
    assert not out_of(uc, "t").exists() and all(not s.get("data_hash") for s in record["outputs"]), record
    checked = cli("validate", "-d", str(uc.root), "-u", "shop", "-p", "orders", "-t", "t")
    assert checked.code == 1 and reason in checked.err and "ok" not in checked.out, str(checked)


def test_lying_exit_code_task_dir_entry_point(uc: Usecase) -> None:
    folder = task(uc, "t", task_code("import sys\nsys.exit(0)"))
    result = cli("--task-dir", str(folder), "--backend", "pandas", "--lineage")
    assert result.code == 1 and "SystemExit(0) raised by task code" in result.err, str(result)
    assert record_status(uc.records("t")) == ["error"] and not out_of(uc, "t").exists()


def test_lying_exit_code_all_stops_at_the_task_that_exited(uc: Usecase) -> None:
    task(uc, "a", PASS)
    task(uc, "b", task_code("import sys\nsys.exit(0)"))
    task(uc, "c", PASS)
    result = uc.run("--all", "--lineage")
    assert result.code == 1, str(result)
    assert result.out.startswith("ok   shop/orders/a") and "FAIL shop/orders/b: SystemExit(0)" in result.err
    assert record_status(uc.records("a")) == ["success"] and out_of(uc, "a").exists()
    assert record_status(uc.records("b")) == ["error"] and not out_of(uc, "b").exists()
    assert uc.records("c") == [] and not out_of(uc, "c").exists()  # a pipeline stops at its failed task
    assert " error " in listed(uc, "b")


def test_lying_exit_code_keyboard_interrupt_raised_by_task_is_interrupted(uc: Usecase) -> None:
    task(uc, "t", task_code("raise KeyboardInterrupt"))
    result = ran(uc, "t")
    assert result.code == 130 and "FAIL shop/orders/t: interrupted" in result.err, str(result)
    assert record_status(uc.records("t")) == ["interrupted"] and not out_of(uc, "t").exists()


# --------------------------------------------------------------- signals

BLOCK = """
import os
os.mkfifo(os.path.join(self.task_dir, "in_transform.fifo"))
with open(os.path.join(self.task_dir, "in_transform.fifo"), "w") as ready:
    ready.write("in transform")
os.mkfifo(os.path.join(self.task_dir, "never.fifo"))
open(os.path.join(self.task_dir, "never.fifo")).read()  # blocks: nobody writes it
return {"out": sources["people"]}
"""


def start_blocked(uc: Usecase, folder: Path, *args: str) -> subprocess.Popen:
    """Start ``ubunye run`` and return once the task is blocked inside its transform (the task
    opens a FIFO this side reads: opening it returns only when the task is there)."""
    proc = spawn("run", *uc.base_args(), *args)
    fifo = folder / "in_transform.fifo"
    while not fifo.exists():  # the task makes the FIFO; a process that died instead is reported
        if proc.poll() is not None:
            out, err = proc.communicate()
            pytest.fail(f"the run ended before blocking: exit {proc.returncode}\n{out}\n{err}")
        try:
            proc.wait(timeout=0.05)
        except subprocess.TimeoutExpired:
            pass
    with open(fifo) as ready:  # returns once the task opened it for writing
        assert ready.read() == "in transform"
    return proc


def finished(proc: subprocess.Popen) -> Result:
    out, err = proc.communicate(timeout=WAIT)
    return Result(proc.returncode, out, err, list(map(str, proc.args)))


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "sigint"])
def test_lying_record_signal_sent_to_a_blocked_run_ends_its_record(uc: Usecase, signum: int) -> None:
    folder = task(uc, "t", task_code(BLOCK))
    proc = start_blocked(uc, folder, "-t", "t", "--lineage")
    assert record_status(uc.records("t")) == ["running"]
    proc.send_signal(signum)
    result = finished(proc)
    name = signal.Signals(signum).name
    assert_failed(uc, "t", result, code=128 + signum, reason=f"stopped by signal {int(signum)} ({name})")
    assert " error " in listed(uc, "t")


def test_lying_record_sigterm_during_all_runs_no_later_task(uc: Usecase) -> None:
    folder = task(uc, "a", task_code(BLOCK))
    task(uc, "b", PASS)
    proc = start_blocked(uc, folder, "--all", "--lineage")
    proc.terminate()
    result = finished(proc)
    assert result.code == 143, str(result)
    assert record_status(uc.records("a")) == ["error"] and uc.records("b") == []
    assert not out_of(uc, "b").exists()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "sigint"])
def test_lying_record_task_that_signals_itself(uc: Usecase, signum: int) -> None:
    task(uc, "t", task_code(f"import os\nos.kill(os.getpid(), {int(signum)})\nreturn {{'out': sources['people']}}"))
    result = ran(uc, "t")
    assert_failed(uc, "t", result, code=128 + signum, reason=f"stopped by signal {int(signum)}")


def test_lying_record_killed_run_is_listed_abandoned_and_refused(uc: Usecase) -> None:
    task(uc, "t", PASS)
    assert ran(uc, "t").code == 0
    folder = task(uc, "t", task_code(BLOCK))
    proc = start_blocked(uc, folder, "-t", "t", "--lineage")
    proc.kill()  # SIGKILL: nothing can end the record
    proc.communicate(timeout=WAIT)
    assert sorted(record_status(uc.records("t"))) == ["running", "success"]
    running = next(r for r in uc.records("t") if r["status"] == "running")
    assert running["process"]["pid"] == proc.pid and running["process"]["host"] == socket.gethostname()
    text = listed(uc, "t")
    assert " abandoned " in text and " running " not in text, text
    where = ["-d", str(uc.root), "-u", "shop", "-p", "orders", "-t", "t"]
    compared = cli("lineage", "compare", *where)
    assert compared.code == 1 and "abandoned" in compared.out, str(compared)
    verified = cli("lineage", "verify", *where, "--run-id", running["run_id"])
    assert verified.code == 1 and "abandoned" in verified.out, str(verified)
    shown = cli("lineage", "show", *where, "--run-id", running["run_id"])
    assert shown.code == 0 and "abandoned" in shown.err and json.loads(shown.out)["status"] == "running"


# --------------------------------------------------------------- timeout


def test_lying_record_timeout_stops_a_blocked_task(uc: Usecase) -> None:
    task(uc, "t", task_code(BLOCK), "timeout: 1")
    result = ran(uc, "t")
    assert_failed(uc, "t", result, reason="timed out after 1 s (ENGINE.timeout)")


def test_lying_record_timeout_not_reached_is_a_success_that_verifies(uc: Usecase) -> None:
    task(uc, "t", PASS, "timeout: 600")
    result = ran(uc, "t")
    assert result.code == 0 and record_status(uc.records("t")) == ["success"], str(result)
    where = ["-d", str(uc.root), "-u", "shop", "-p", "orders", "-t", "t"]
    assert cli("lineage", "verify", *where).code == 0


@pytest.mark.parametrize("value", ["-1", "0", "soon", "true", "[1]"])
def test_lying_exit_code_bad_timeout_refused_before_anything_runs(uc: Usecase, value: str) -> None:
    task(uc, "t", PASS, f"timeout: {value}")
    result = ran(uc, "t")
    assert_one_line_error(result, code=2, naming=["config.yaml", "ENGINE.timeout", "seconds"])
    assert uc.records("t") == [] and not out_of(uc, "t").exists()
    checked = cli("validate", "-d", str(uc.root), "-u", "shop", "-p", "orders", "-t", "t")
    assert checked.code != 0 and "ENGINE.timeout" in checked.err, str(checked)


# --------------------------------------------------------------- a record that cannot be written

HOOK = '''
import errno, os
_root = os.environ["PROBE_STORE"]
_err = getattr(errno, os.environ["PROBE_ERRNO"])
_open, _mkdir = os.open, os.mkdir


def _blocked(path):
    return os.path.abspath(os.fsdecode(path)).startswith(_root)


def _refuse(path):
    raise OSError(_err, os.strerror(_err), os.fsdecode(path))


def _open_probe(path, flags, *args, **kw):
    if flags & os.O_CREAT and _blocked(path):
        _refuse(path)
    return _open(path, flags, *args, **kw)


def _mkdir_probe(path, *args, **kw):
    if _blocked(path):
        _refuse(path)
    return _mkdir(path, *args, **kw)


os.open, os.mkdir = _open_probe, _mkdir_probe
'''


@pytest.mark.parametrize("err", ["EROFS", "ENOSPC", "EACCES"], ids=["read-only", "disk-full", "no-permission"])
def test_lying_record_store_that_cannot_be_written_stops_before_any_output(uc: Usecase, tmp_path: Path,
                                                                           err: str) -> None:
    """The store refuses every new file or folder (a process-level stand-in: tests run as root, where
    a chmod'ed folder stays writable); the run stops before it reads or writes any data."""
    task(uc, "t", PASS)
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(HOOK, encoding="utf-8")
    from harness import PACKAGE_ROOT

    env = {"PYTHONPATH": f"{hook}{os.pathsep}{PACKAGE_ROOT}", "PROBE_STORE": str(uc.lineage_dir), "PROBE_ERRNO": err}
    before = tree_digest(uc.root)
    result = ran(uc, "t", env=env)
    assert result.code == 1 and result.out == "", str(result)
    (line,) = result.err.splitlines()
    assert line.startswith("FAIL shop/orders/t: could not write run record") and "nothing was read or written" in line
    assert os.strerror(getattr(__import__("errno"), err)) in line
    assert_unchanged(before, tree_digest(uc.root))


def test_lying_record_file_where_the_store_should_be_stops_before_any_output(uc: Usecase) -> None:
    task(uc, "t", PASS)
    uc.lineage_dir.parent.mkdir(parents=True)
    uc.lineage_dir.write_text("not a folder")
    before = tree_digest(uc.root)
    result = ran(uc, "t")
    assert result.code == 1 and "nothing was read or written" in result.err, str(result)
    assert_unchanged(before, tree_digest(uc.root))


# --------------------------------------------------------------- abandoned, read from crafted records


def crafted(uc: Usecase, task: str, **fields: object) -> str:
    """A sealed ``running`` record of ``task`` with ``fields`` set; its run id."""
    from ubunye.lineage.record import RunRecord

    record = RunRecord(run_id=str(__import__("uuid").uuid4()), task_path=f"shop/orders/{task}", usecase="shop",
                       package="orders", task_name=task, status="running",
                       started_at=datetime.now(timezone.utc).isoformat())
    for key, value in fields.items():
        setattr(record, key, value)
    folder = uc.lineage_dir / "shop" / "orders" / task  # the record's place (the store's layout)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{record.run_id}.json").write_text(record.to_json(), encoding="utf-8")
    return record.run_id


def list_statuses(uc: Usecase, task: str) -> list[str]:
    from ubunye.cli.app import cli as app

    result = CliRunner().invoke(app, ["lineage", "list", "-d", str(uc.root), "-u", "shop", "-p", "orders", "-t",
                                      task, "--json"])
    assert result.exit_code == 0, result.output
    return [r["status"] for r in json.loads(result.stdout)["runs"]]


def test_lying_record_running_record_of_a_live_process_stays_running(uc: Usecase) -> None:
    from ubunye.lineage.ending import this_process

    crafted(uc, "t", process=this_process())
    assert list_statuses(uc, "t") == ["running"]


@pytest.mark.parametrize("pid", [0, -1, 2**31, 2**70])
def test_lying_record_a_pid_no_process_can_have_is_abandoned_not_a_traceback(uc: Usecase, pid: int) -> None:
    """``kill(0 or -1, 0)`` asks a process group or every process (it succeeds: running for ever);
    a pid past the C int raised OverflowError out of ``lineage list``."""
    from ubunye.lineage.ending import this_process

    crafted(uc, "t", process={**this_process(), "pid": pid})
    assert list_statuses(uc, "t") == ["abandoned"]


def test_lying_record_reused_pid_is_abandoned(uc: Usecase) -> None:
    from ubunye.lineage.ending import this_process

    me = this_process()
    assert me["start_ticks"] is not None, "no /proc/<pid>/stat here"
    crafted(uc, "t", process={**me, "start_ticks": me["start_ticks"] + 1})  # same pid, another process
    assert list_statuses(uc, "t") == ["abandoned"]


def test_lying_record_record_from_another_boot_is_abandoned(uc: Usecase) -> None:
    from ubunye.lineage.ending import this_process

    crafted(uc, "t", process={**this_process(), "boot_id": "another-boot"})
    assert list_statuses(uc, "t") == ["abandoned"]


def test_lying_record_other_host_is_running_until_older_than_the_limit(uc: Usecase) -> None:
    from ubunye.lineage.ending import ABANDONED_AFTER_SEC

    other = {"host": "some-other-host.invalid", "pid": 1, "boot_id": "x", "start_ticks": 1}
    crafted(uc, "t", process=other)
    old = datetime.now(timezone.utc) - timedelta(seconds=ABANDONED_AFTER_SEC + 60)
    crafted(uc, "t", process=other, started_at=old.isoformat())
    assert list_statuses(uc, "t") == ["running", "abandoned"]  # newest first


def test_lying_record_old_record_without_process_is_running_when_recent(uc: Usecase) -> None:
    crafted(uc, "t")
    assert list_statuses(uc, "t") == ["running"]
