"""Lying record or exit code, data loss: how runs write and end, round 2 (issue 35).

- One writer per output: concurrent runs writing one output are serialised by a lock beside it,
  so the newest record always describes the rows the folder holds.
- SIGHUP (a closed terminal, a dropped SSH session), SIGUSR1 and SIGUSR2 end the record as
  SIGTERM does, with one FAIL line.
- Outputs handed in through the notebook's ``write(outputs=...)`` are marked so on the record.
- ``between`` on a column whose values are not numbers: a failed check naming the rule and column.
- A duplicate key in any YAML file the package reads: one line naming file, key and line, exit 2.
Each probe runs the real CLI (or the notebook API) in a real process where it matters.
"""
from __future__ import annotations

import signal
from pathlib import Path

import pytest

from harness import (PASS_CODE, Usecase, assert_one_line_error, assert_unchanged, cli, record_status, spawn, task_code,
                     tree_digest)
from test_ending import CONFIG, finished, task
from test_ending import test_lying_record_signal_sent_to_a_blocked_run_ends_its_record as signal_probe


@pytest.fixture
def uc(tmp_path: Path) -> Usecase:
    usecase = Usecase(tmp_path / "uc")
    usecase.parquet("people.parquet")
    return usecase


# --------------------------------------------------------------- signals

@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2],
                         ids=["sighup", "sigusr1", "sigusr2"])
def test_lying_record_hangup_or_user_signal_ends_the_record(uc: Usecase, signum: int) -> None:
    """The SIGTERM probe of test_ending.py, for the other signals that end a process."""
    signal_probe(uc, signum)


# --------------------------------------------------------------- duplicate YAML keys

# test_ending.py's task, its output named twice (lines 5 and 6)
DUPLICATE_OUTPUT = CONFIG.replace("NAME", "a") + CONFIG.splitlines()[-1].replace("NAME", "b") + "\n"


def test_lying_exit_code_duplicate_yaml_key_refused_naming_file_key_and_line(uc: Usecase) -> None:
    uc.task("t", DUPLICATE_OUTPUT, PASS_CODE)
    before = tree_digest(uc.root)
    naming = ["config.yaml", "CONFIG.outputs.out", "line 5", "line 6"]
    assert_one_line_error(uc.run("-t", "t"), code=2, naming=naming)
    checked = cli("validate", *uc.base_args(), "-t", "t")  # validate's report: one FAIL line per task, exit 1
    assert checked.code == 1 and checked.err.startswith("FAIL shop/orders/t: "), str(checked)
    assert all(word in checked.err for word in naming) and "Traceback" not in checked.text, str(checked)
    assert_unchanged(before, tree_digest(uc.root))


@pytest.mark.parametrize("text, key", [
    ("CONFIG:\n  params: {a: 1, a: 2}\n", "CONFIG.params.a"),
    ("ENGINE: {backend: pandas}\nENGINE: {backend: spark}\nCONFIG: {}\n", "ENGINE"),
    ("CONFIG:\n  params:\n    flag: yes\n  params:\n    flag: no\n", "CONFIG.params"),
    ("CONFIG:\n  params: {true: 1, yes: 2}\n", "CONFIG.params.yes"),
], ids=["flow-mapping", "top-level", "block-mapping", "same-bool-spelled-twice"])
def test_lying_exit_code_duplicate_yaml_key_variants(uc: Usecase, text: str, key: str) -> None:
    uc.task("t", text, PASS_CODE)
    assert_one_line_error(uc.run("-t", "t"), code=2, naming=["config.yaml", key, "appears twice"])


def test_lying_exit_code_duplicate_key_in_pipeline_yaml(uc: Usecase) -> None:
    uc.task("t", "CONFIG: {}\n", PASS_CODE)
    (uc.package_dir / "pipeline.yaml").write_text("tasks: [t]\ntasks: []\n", encoding="utf-8")
    assert_one_line_error(uc.run("--all"), code=2, naming=["pipeline.yaml", "tasks", "line 1", "line 2"])


def test_lying_exit_code_yaml_merge_keys_and_aliases_still_load(uc: Usecase) -> None:
    config = """
    CONFIG:
      inputs:
        people: &parquet {format: parquet, path: "{{ task_dir }}/../../../data/people.parquet"}
      outputs:
        out:
          <<: *parquet
          mode: overwrite
          path: "{{ task_dir }}/../../../data/out"
    """
    uc.task("t", config, PASS_CODE)
    result = uc.run("-t", "t")
    assert result.code == 0, str(result)


# --------------------------------------------------------------- one writer per output

# Each run takes a ticket as its transform starts (O_EXCL files: 0, 1, 2, 3) and sleeps the longer
# the earlier it came, so without a lock the run that started first writes last: the folder then
# holds its rows while the newest record (by start) describes another run's.
RACE = """
import os, time
tickets = os.path.join(self.task_dir, "tickets")
os.makedirs(tickets, exist_ok=True)
turn = 0
while True:
    try:
        os.close(os.open(os.path.join(tickets, str(turn)), os.O_CREAT | os.O_EXCL))
        break
    except FileExistsError:
        turn += 1
time.sleep(0.2 * (RUNS - turn))
out = sources["people"].copy()
out["writer"] = os.getpid()
return {"out": out}
"""
RUNS = 4


def verify(uc: Usecase, name: str = "t") -> object:
    return cli("lineage", "verify", "-d", str(uc.root), "-u", "shop", "-p", "orders", "-t", name)


def test_lying_record_concurrent_runs_of_one_output_newest_record_holds(uc: Usecase) -> None:
    folder = task(uc, "t", task_code(RACE.replace("RUNS", str(RUNS))))
    procs = [spawn("run", *uc.base_args(), "-t", "t", "--lineage") for _ in range(RUNS)]
    results = [finished(p) for p in procs]
    assert all(r.code == 0 for r in results), "\n".join(map(str, results))
    records = uc.records("t")
    assert record_status(records) == ["success"] * RUNS
    checked = verify(uc)
    assert checked.code == 0, str(checked)  # the newest record describes the rows the folder holds
    starts = sorted(records, key=lambda r: (r["started_at"], r["run_id"]))
    ends = sorted(records, key=lambda r: (r["ended_at"], r["run_id"]))
    assert [r["run_id"] for r in starts] == [r["run_id"] for r in ends], "runs of one output overlapped"
    assert [p.name for p in folder.parent.parent.parent.joinpath("data").iterdir()
            if p.name.startswith(".")] == [], "a lock or staging file was left beside the output"


def test_data_loss_lock_left_by_a_killed_run_is_taken_over(uc: Usecase) -> None:
    task(uc, "t", task_code('return {"out": sources["people"]}'))
    stale = uc.root / "data" / ".out_t.ubunye-lock"  # what a run killed with SIGKILL leaves
    stale.write_text('{"run_id": "dead", "pid": 999999999, "host": "elsewhere"}', encoding="utf-8")
    result = uc.run("-t", "t", "--lineage", timeout=60)
    assert result.code == 0 and "waiting" not in result.err, str(result)
    assert not stale.exists() and verify(uc).code == 0


def test_traceback_or_hang_second_run_of_one_output_in_one_process_fails_at_once(uc: Usecase) -> None:
    import ubunye

    folder = task(uc, "t", task_code('return {"out": sources["people"]}'))
    first = ubunye.notebook(str(folder), backend="pandas", lineage=True)
    first.read()  # the first run holds the output's lock until it ends
    try:
        second = ubunye.run_task(str(folder), backend="pandas", lineage=True, raise_on_error=False)
        assert second.status == "error" and "being written by run " + first.run_id in str(second.error)
        assert first.write().status == "success"
    finally:
        first.close()
    again = ubunye.run_task(str(folder), backend="pandas", lineage=True)  # the lock was given back
    assert again.status == "success"


# --------------------------------------------------------------- outputs handed in

def lineage(uc: Usecase, verb: str, *args: str) -> object:
    return cli("lineage", verb, "-d", str(uc.root), "-u", "shop", "-p", "orders", "-t", "t", *args)


def test_lying_record_outputs_handed_in_are_marked_and_told_apart(uc: Usecase) -> None:
    import ubunye

    folder = task(uc, "t", task_code('return {"out": sources["people"]}'))
    assert ubunye.run_task(str(folder), backend="pandas", lineage=True).status == "success"
    nb = ubunye.notebook(str(folder), backend="pandas", lineage=True)
    sources = nb.read()
    made_elsewhere = sources["people"].head(2)  # not what the task's transform makes
    assert nb.write(outputs={"out": made_elsewhere}).status == "success"
    transformed, handed = uc.records("t") if uc.records("t")[0]["run_id"] != nb.run_id else uc.records("t")[::-1]
    assert handed["outputs"][0]["handed_in"] is True
    assert "handed_in" not in transformed["outputs"][0]  # records of transformed outputs are as before
    shown = lineage(uc, "show", "--run-id", nb.run_id)
    assert shown.code == 0 and '"handed_in": true' in shown.out, str(shown)
    told = lineage(uc, "trace", "--run-id", nb.run_id)
    assert told.code == 0 and "handed in by the caller" in told.out, str(told)
    compared = lineage(uc, "compare", "--run-id1", transformed["run_id"], "--run-id2", nb.run_id)
    assert "outputs_handed_in" in compared.out, str(compared)
    plain = lineage(uc, "trace", "--run-id", transformed["run_id"])
    assert plain.code == 0 and "handed in" not in plain.out, str(plain)


# --------------------------------------------------------------- between on values that are no numbers

def between_task(uc: Usecase, rule: str) -> Path:
    text = CONFIG.replace("NAME", "t") + f"  expectations:\n    out:\n      - {rule}\n"
    return uc.task("t", text, task_code('return {"out": sources["people"]}'))


@pytest.mark.parametrize("rule", [
    "{kind: between, column: name, min: 1, max: 5}",
    "{kind: between, column: name, max: 5, name: short_names}",
], ids=["min-max", "named-rule"])
def test_traceback_or_hang_between_on_a_string_column_names_rule_and_column(uc: Usecase, rule: str) -> None:
    between_task(uc, rule)
    result = uc.run("-t", "t", "--lineage")
    assert result.code == 1 and "Traceback" not in result.text and "TypeError" not in result.text, str(result)
    lines = [line for line in result.err.splitlines() if line.strip()]
    name = "short_names" if "short_names" in rule else "name_between"
    assert len(lines) == 1 and lines[0].startswith("FAIL shop/orders/t: "), str(result)
    assert name in lines[0] and "column 'name'" in lines[0] and "between compares numbers" in lines[0], lines[0]
    assert not (uc.root / "data" / "out_t").exists()
    (record,) = uc.records("t")
    assert record["status"] == "error" and record["expectations"][0]["failed"] == 3  # the non-null names


def test_traceback_or_hang_between_warn_on_a_string_column_is_recorded(uc: Usecase) -> None:
    between_task(uc, "{kind: between, column: name, min: 1, severity: warn}")
    result = uc.run("-t", "t", "--lineage")
    assert result.code == 0, str(result)
    (entry,) = uc.records("t")[0]["expectations"]
    assert entry["passed"] is False and "column 'name' holds" in entry["detail"], entry


def test_traceback_or_hang_between_on_numbers_still_passes_and_breaks(uc: Usecase) -> None:
    between_task(uc, "{kind: between, column: age, min: 18, max: 60, severity: warn}")
    assert uc.run("-t", "t", "--lineage").code == 0
    (entry,) = uc.records("t")[0]["expectations"]
    assert entry["failed"] == 1 and "detail" not in entry, entry  # 17.0 (NaN and null pass, as before)


def test_traceback_or_hang_run_waiting_for_an_output_says_so_and_ends_on_a_signal(uc: Usecase) -> None:
    import fcntl
    import os
    import select

    task(uc, "t", task_code('return {"out": sources["people"]}'))
    held = os.open(uc.root / "data" / ".out_t.ubunye-lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(held, fcntl.LOCK_EX)  # as a run writing data/out_t holds it
        os.write(held, b'{"run_id": "holder-run", "pid": 1, "host": "here"}')
        proc = spawn("run", *uc.base_args(), "-t", "t", "--lineage")
        ready, _, _ = select.select([proc.stderr], [], [], 60)
        assert ready, "the waiting run said nothing"
        waiting = proc.stderr.readline()
        assert "is being written by run holder-run (pid 1 on here)" in waiting and "waiting" in waiting, waiting
        proc.send_signal(signal.SIGTERM)
        result = finished(proc)
    finally:
        os.close(held)
    assert result.code == 143 and "Traceback" not in result.text, str(result)
    assert result.err.strip().splitlines()[-1].startswith("FAIL shop/orders/t: stopped by signal 15"), str(result)
    assert uc.records("t") == [] and not (uc.root / "data" / "out_t").exists()  # it never started


SCHEMA_CONFIG = """
CONFIG:
  inputs:
    people: {format: parquet, path: "{{ task_dir }}/../../../data/people.parquet", schema: "id BIGINT, name STRING, age DOUBLE"}
  outputs:
    out: {format: parquet, path: "{{ task_dir }}/../../../data/out_t", mode: overwrite}
  expectations:
    people:
      - {kind: between, column: NAME, min: 1}
"""


def test_lying_exit_code_between_on_a_column_the_schema_types_as_text_is_a_config_error(uc: Usecase) -> None:
    uc.task("t", SCHEMA_CONFIG.replace("NAME", "name"), task_code('return {"out": sources["people"]}'))
    before = tree_digest(uc.root)
    naming = ["CONFIG.expectations.people", "'name_between'", "column 'name' is string", "CONFIG.inputs.people.schema"]
    assert_one_line_error(uc.run("-t", "t", "--lineage"), code=2, naming=naming)
    checked = cli("validate", *uc.base_args(), "-t", "t")
    assert checked.code == 1 and all(word in checked.err for word in naming), str(checked)
    assert_unchanged(before, tree_digest(uc.root))


def test_lying_exit_code_between_on_a_numeric_schema_column_is_accepted(uc: Usecase) -> None:
    uc.task("t", SCHEMA_CONFIG.replace("NAME", "age"), task_code('return {"out": sources["people"]}'))
    result = uc.run("-t", "t", "--lineage")
    assert result.code == 0, str(result)


@pytest.mark.parametrize("plant", ["symlink", "hardlink", "fifo"])
def test_escape_planted_lock_file_is_never_written_through(uc: Usecase, plant: str) -> None:
    import os

    task(uc, "t", task_code('return {"out": sources["people"]}'))
    victim = uc.root / "victim.txt"
    victim.write_text("keep me", encoding="utf-8")
    lock = uc.root / "data" / ".out_t.ubunye-lock"
    {"symlink": lambda: lock.symlink_to(victim), "hardlink": lambda: os.link(victim, lock),
     "fifo": lambda: os.mkfifo(lock)}[plant]()
    result = uc.run("-t", "t", "--lineage", timeout=60)
    assert result.code == 1 and "Traceback" not in result.text, str(result)
    lines = [line for line in result.err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("FAIL shop/orders/t: ") and "writer lock" in lines[0], str(result)
    (record,) = uc.records("t")
    assert record["status"] == "error" and "writer lock" in record["error"]  # the failed run has its record
    assert victim.read_text(encoding="utf-8") == "keep me" and not (uc.root / "data" / "out_t").exists()


def test_lying_record_one_lock_for_every_spelling_of_a_local_output(tmp_path: Path) -> None:
    from ubunye.engine.writers import lock_path

    real = tmp_path / "data" / "out"
    real.mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "data")
    expected = tmp_path / "data" / ".out.ubunye-lock"
    spellings = [str(real), f"file://{real}", f"file:{real}", str(tmp_path / "link" / "out"), f"{real}/"]
    assert {lock_path(s) for s in spellings} == {expected}  # pandas and Spark name local outputs these ways
    assert [lock_path(s) for s in ("s3a://bucket/out", "hdfs://nn/out", "abfss://c@a.dfs.core.windows.net/o")] == [
        None, None, None]  # not locked: docs/safety.md says what holds there
