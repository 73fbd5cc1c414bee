"""Lying verdicts and where records go (issue 35).

- ``lineage diff`` and ``compare`` exit 0 only when :func:`ubunye.lineage.verdict.decide` proves
  the data the same: a hash unknown (input or output side), hashes not comparable (a record
  older than rows-v1, a 0.8.0 run whose input was not hashed), a run that failed (A or B) or is
  still running, the same run given twice (by id or as one record file) are never exit 0, and
  the reason is named;
- records only a damaged or forged store holds (one name twice, a malformed hash, a hash beside
  its error) are never proven; the trust hook (``decide``, ``verify_record``) and the report;
- a ``/Volumes/...`` store is used only where the volume exists; ``--lineage-dir`` implies
  ``--lineage``; a store never sits inside an input; ``lineage search`` finds tasks whose names
  begin with a dot (and never lists the store's own folders); no usecase is named as those.

The exit codes of every command, one test per row of docs/safety.md's table: test_verdicts_exit_codes.py.
"""
from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path
from typing import Any, Callable, Optional

import pytest

from harness import PEOPLE, Usecase, assert_one_line_error, cli, task_code
from test_outputs import ONE_OUT

FIXTURES = Path(__file__).parent.parent / "fixtures" / "records"
A080 = FIXTURES / "ubunye-engine-0.8.0" / "shop" / "orders" / "clean" / "f8d3997d-4212-4a3d-84b3-bdec1fb91fc9.json"
NOTEBOOK080 = FIXTURES / "ubunye-engine-0.8.0" / "shop" / "orders" / "clean" / "13fcbf59-5ff4-431d-8b70-45b34752d22b.json"
V1 = FIXTURES / "v1" / "shop" / "orders" / "clean" / "5b0c3c1e-9a57-4d43-8d7e-2f1f0c6a9b10.json"
RUN_A = "aaaaaaaa-0000-4000-8000-000000000001"
RUN_B = "bbbbbbbb-0000-4000-8000-000000000002"


def record(source: Path = A080, **changes: Any) -> dict[str, Any]:
    doc = json.loads(source.read_text(encoding="utf-8"))
    doc.update(changes)
    return doc


def store(root: Path, *docs: dict[str, Any]) -> Path:
    """The records ``docs`` in ``root/.ubunye/lineage`` (a running one as its start record)."""
    for doc in docs:
        folder = root / ".ubunye" / "lineage" / doc["usecase"] / doc["package"] / doc["task_name"]
        if doc["status"] == "running":
            folder = folder / "_started"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{doc['run_id']}.json").write_text(json.dumps(doc), encoding="utf-8")
    return root


def two_runs(tmp_path: Path, change: Callable[[dict[str, Any]], None] = lambda b: None,
             change_a: Callable[[dict[str, Any]], None] = lambda a: None) -> Path:
    """Run A (the 0.8.0 sample) and run B a minute later, same data unless ``change`` says."""
    a = record(run_id=RUN_A)
    b = record(run_id=RUN_B, started_at="2026-11-30T14:21:41.774586+00:00",
               ended_at="2026-11-30T14:21:42.261682+00:00")
    change_a(a)
    change(b)
    return store(tmp_path / "uc", a, b)


def simple_config(uc: Usecase, out: str = "out") -> str:
    """One parquet input (people) written to one parquet output (clean)."""
    src = uc.parquet("people.parquet", PEOPLE)
    return ONE_OUT.format(src=src, fmt="parquet", out=uc.root / "data" / out, mode="overwrite", extra="")


def lineage(root: Path, command: str, *args: str) -> Any:
    return cli("lineage", command, "-d", str(root), *args)


BOTH = ("--run-id1", RUN_A, "--run-id2", RUN_B)


def assert_not_proven(result: Any, *naming: str) -> None:
    assert result.code == 1, str(result)
    assert "Traceback" not in result.text, str(result)
    assert "no input or output differs" not in result.out, str(result)
    assert "NOT proven the same" in result.text, str(result)
    for word in naming:
        assert word in result.text, f"{word!r} not named:\n{result}"


# ---------------------------------------------------------------- the repros: diff said "no input or output differs"


def test_lying_exit_code_diff_with_an_unknown_input_hash_is_not_proven(tmp_path: Path) -> None:
    def unhashed(b: dict[str, Any]) -> None:
        b["inputs"][0].update(data_hash=None, hash_error="out of memory")

    root = two_runs(tmp_path, unhashed)
    assert_not_proven(lineage(root, "diff", *BOTH), "people", "out of memory")
    assert lineage(root, "compare", *BOTH).code == 1


def test_lying_exit_code_diff_with_an_unknown_output_hash_only_is_not_proven(tmp_path: Path) -> None:
    def unhashed(b: dict[str, Any]) -> None:
        b["outputs"][0].update(data_hash=None, schema_hash=None)

    root = two_runs(tmp_path, unhashed)
    assert_not_proven(lineage(root, "diff", *BOTH), "adults")
    assert_not_proven(lineage(root, "diff", *BOTH, "--name", "adults"), "adults")
    doc = json.loads(lineage(root, "diff", *BOTH, "--json").out)
    assert (doc["differs"], doc["proven_same"], doc["verdict"]) == (False, False, "not_proven"), doc


def test_lying_exit_code_diff_when_run_b_failed_is_not_proven(tmp_path: Path) -> None:
    root = two_runs(tmp_path, lambda b: b.update(status="error", error="boom"))
    assert_not_proven(lineage(root, "diff", *BOTH), "run B did not succeed")


def test_lying_exit_code_diff_when_run_a_failed_is_not_proven(tmp_path: Path) -> None:
    root = two_runs(tmp_path, change_a=lambda a: a.update(status="interrupted"))
    assert_not_proven(lineage(root, "diff", *BOTH), "run A did not succeed (status interrupted)")


def test_lying_exit_code_diff_of_a_running_run_is_not_proven(tmp_path: Path) -> None:
    root = two_runs(tmp_path, lambda b: b.update(status="running", ended_at=None, duration_sec=None))
    assert_not_proven(lineage(root, "diff", *BOTH), "run B")
    assert lineage(root, "diff").code == 1, "the default pair (the newest is running) is not proven either"


def test_lying_exit_code_a_run_against_itself_is_not_proven(tmp_path: Path) -> None:
    root = two_runs(tmp_path)
    same = ("--run-id1", RUN_A, "--run-id2", RUN_A)
    assert_not_proven(lineage(root, "diff", *same), "same run")
    assert_not_proven(lineage(root, "compare", *same), "same run")
    assert lineage(root, "diff", *BOTH).code == 0, "two runs of the same data are proven the same"
    assert lineage(root, "compare", *BOTH).code == 0


def test_lying_exit_code_compare_of_a_record_file_against_itself_is_not_proven(tmp_path: Path) -> None:
    root = two_runs(tmp_path)
    file = str(root / ".ubunye" / "lineage" / "shop" / "orders" / "clean" / f"{RUN_A}.json")
    assert_not_proven(lineage(root, "compare", "--record1", file, "--record2", file), "same run")


def test_lying_exit_code_a_080_run_with_an_unhashed_input_is_not_proven(tmp_path: Path) -> None:
    root = store(tmp_path / "uc", record(), record(NOTEBOOK080))  # 0.8.0's notebook run: input not hashed
    ids = ("--run-id1", "f8d3997d", "--run-id2", "13fcbf59")
    assert_not_proven(lineage(root, "diff", *ids), "people")
    assert lineage(root, "compare", *ids).code == 1


def test_lying_exit_code_a_record_older_than_rows_v1_is_not_proven(tmp_path: Path) -> None:
    root = store(tmp_path / "uc", record(), record(V1))
    ids = ("--run-id1", "f8d3997d", "--run-id2", "5b0c3c1e")
    assert_not_proven(lineage(root, "diff", *ids), "not comparable")


def test_lying_verdict_the_trust_hook_makes_a_same_pair_not_proven() -> None:
    from ubunye.lineage.compare import compare_records
    from ubunye.lineage.record import RunRecord
    from ubunye.lineage.verdict import NOT_PROVEN, PROVEN_SAME, decide

    a = RunRecord.from_dict(record(run_id=RUN_A))
    b = RunRecord.from_dict(record(run_id=RUN_B))
    assert decide(a, b).outcome == PROVEN_SAME
    unsigned = decide(a, b, trust=lambda r: "unsigned" if r.run_id == RUN_B else None)
    assert (unsigned.outcome, unsigned.reasons, unsigned.exit_code) == (NOT_PROVEN, ("run B not proven: unsigned",), 1)
    b.outputs[0].data_hash = "sha256:" + "0" * 64  # a forged record proves no difference either
    assert decide(a, b, trust=lambda r: "forged").outcome == NOT_PROVEN
    assert not compare_records(a, b, trust=lambda r: "forged").data_proven_same


# ---------------------------------------------------------------- search: dot-named tasks and folders



@pytest.mark.parametrize("usecase,package,task", [("shop", "orders", ".hidden"), (".uc", "_pkg", "t"),
                                                  ("shop", ".index", "t")])
def test_lying_search_finds_runs_of_dot_named_tasks(tmp_path: Path, usecase: str, package: str, task: str) -> None:
    uc = Usecase(tmp_path / "uc", usecase=usecase, package=package)
    uc.task(task, simple_config(uc), task_code('return {"clean": sources["people"]}'))
    ran = uc.run("-t", task, "--lineage")
    assert ran.code == 0, str(ran)
    found = json.loads(cli("lineage", "search", "-d", str(uc.root), "--json").out)
    assert [r["task_path"] for r in found["runs"]] == [f"{usecase}/{package}/{task}"], found
    listed = cli("lineage", "list", "-d", str(uc.root), "--json")
    assert listed.code == 0 and json.loads(listed.out)["count"] == 1, str(listed)


# ---------------------------------------------------------------- where records go


def _records_under(store: Path) -> list[Path]:
    """The final records of shop/orders/t in ``store``."""
    return sorted((store / "shop" / "orders" / "t").glob("*.json"))


@pytest.mark.parametrize("how", ["run", "task-dir"])
def test_lying_record_lineage_dir_implies_lineage(tmp_path: Path, how: str) -> None:
    uc = Usecase(tmp_path / "uc")
    task = uc.task("t", simple_config(uc))
    if how == "run":
        ran = uc.run("-t", "t", "--lineage-dir", "recs")
    else:
        ran = cli("--task-dir", str(task), "--backend", "pandas", "--lineage-dir", str(uc.root / "recs"))
    assert ran.code == 0, str(ran)
    written = _records_under(uc.root / "recs")
    assert len(written) == 1 and json.loads(written[0].read_text())["status"] == "success", (written, str(ran))
    assert not (uc.root / ".ubunye").exists(), "the record went to the store named, not the default"


@pytest.fixture()
def no_volume() -> Any:
    """A catalog name that exists under no /Volumes here; whatever a run creates under /Volumes is
    removed afterwards (only what was not there before), so a failing probe leaves no trace."""
    mount = Path("/Volumes")
    existed = mount.exists()
    catalog = f"ubunye-probe-{uuid.uuid4().hex[:12]}"
    yield catalog, existed
    created = mount if not existed else mount / catalog
    if created.exists():
        shutil.rmtree(created)


def test_escape_a_volumes_store_is_refused_where_the_volume_does_not_exist(tmp_path: Path, no_volume: Any) -> None:
    catalog, existed = no_volume
    uc = Usecase(tmp_path / "uc")
    uc.task("t", simple_config(uc))
    store_path = f"/Volumes/{catalog}/s/v/x"
    ran = uc.run("-t", "t", "--lineage", "--lineage-dir", store_path)
    assert_one_line_error(ran, naming=[f"/Volumes/{catalog}/s/v"])
    assert Path("/Volumes").exists() == existed and not Path("/Volumes", catalog).exists(), "created under /Volumes"
    assert not (uc.root / "data" / "out").exists(), "the task ran although its record had nowhere to go"
    for command in ("list", "search"):
        read = cli("lineage", command, "-d", str(uc.root), "--lineage-dir", store_path)
        assert_one_line_error(read, naming=[f"/Volumes/{catalog}/s/v"])
    dbfs = uc.run("-t", "t", "--lineage-dir", f"dbfs:/Volumes/{catalog}/s/v/x")  # still not "mounted"
    assert_one_line_error(dbfs, naming=[f"/Volumes/{catalog}/s/v/x"])
    assert Path("/Volumes").exists() == existed and not Path("/Volumes", catalog).exists(), "created under /Volumes"


@pytest.mark.parametrize("where", ["/Volumes", "/Volumes/{c}/s", "/Volumes/{c}/s/../../x/y/z", "file:///Volumes/{c}"])
def test_escape_a_volumes_store_outside_a_volume_is_refused(tmp_path: Path, no_volume: Any, where: str) -> None:
    catalog, existed = no_volume
    uc = Usecase(tmp_path / "uc")
    uc.task("t", simple_config(uc))
    ran = uc.run("-t", "t", "--lineage-dir", where.format(c=catalog))
    assert_one_line_error(ran, naming=["/Volumes"])
    assert Path("/Volumes").exists() == existed and not Path("/Volumes", catalog).exists(), "created under /Volumes"


def test_escape_a_config_base_dir_on_a_missing_volume_is_refused(tmp_path: Path, no_volume: Any) -> None:
    catalog, existed = no_volume
    uc = Usecase(tmp_path / "uc")
    config = simple_config(uc).replace("CONFIG:\n", "CONFIG:\n  monitors:\n    - type: lineage\n      params:\n"
                                       f"        base_dir: /Volumes/{catalog}/s/v/x\n", 1)
    uc.task("t", config)
    naming = ["config.yaml", "CONFIG.monitors[0].params.base_dir", f"/Volumes/{catalog}/s/v"]
    assert_one_line_error(uc.run("-t", "t"), naming=naming)
    checked = cli("validate", *uc.base_args(), "-t", "t")  # validate: 1 for a task that is not valid
    assert checked.code == 1 and all(word in checked.err for word in naming), str(checked)
    assert Path("/Volumes").exists() == existed and not Path("/Volumes", catalog).exists(), "created under /Volumes"
    assert not (uc.root / "data" / "out").exists()


def pass_task(uc: Usecase, code: Optional[str] = None, out: str = "out") -> Path:
    """Task ``t``: people read, written as they are to ``data/<out>``."""
    return uc.task("t", simple_config(uc, out), code or task_code('return {"clean": sources["people"]}'))


def test_lying_verdict_the_report_shows_a_pair_with_a_failed_run_as_not_proven(tmp_path: Path) -> None:
    from ubunye.lineage.report_model import build_report
    from ubunye.lineage.store import open_store

    root = two_runs(tmp_path, lambda b: b.update(status="error", error="boom"))
    (task,) = build_report(open_store(root)).tasks
    against = next(r["vs_before"] for r in task["runs"] if r["run_id"] == RUN_B)
    assert against["counts"] == {"same": 2, "changed": 0, "unknown": 0}, against  # each step's hashes match
    assert against["outcome"] == "not_proven" and "run B did not succeed" in against["problems"][0], against


def test_lying_verdict_verify_asks_the_trust_hook(tmp_path: Path) -> None:
    from ubunye.lineage.store import open_store
    from ubunye.lineage.verify import verify_record

    uc = Usecase(tmp_path / "uc")
    pass_task(uc)
    assert uc.run("-t", "t", "--lineage").code == 0
    run = open_store(uc.root).find("shop", "orders", "t", None)
    assert verify_record(run, engine="pandas", base_dir=uc.root).data_proven_same
    refused = verify_record(run, engine="pandas", base_dir=uc.root, trust=lambda r: "unsigned")
    assert not refused.data_proven_same and refused.problems == ["the run not proven: unsigned"]


def test_hang_search_never_lists_the_stores_own_folders(tmp_path: Path) -> None:
    """The known-hash folder holds a folder per location ever hashed: listing each (a request per
    location on an object store) to look for tasks would make every search slower with each run."""
    from ubunye.lineage.store import RecordStore
    from ubunye.lineage.store.posix import PosixBlobs

    root = two_runs(tmp_path) / ".ubunye" / "lineage"
    for i in range(3):
        (root / ".known" / f"{i:064x}" / "x" / "y").mkdir(parents=True)
    (root / ".index").mkdir()
    listed: list[str] = []

    class Counting(PosixBlobs):
        def listdir(self, prefix: str) -> Any:
            listed.append(prefix)
            return super().listdir(prefix)

    assert RecordStore(Counting(root)).iter_tasks() == [("shop", "orders", "clean")]
    assert not [p for p in listed if p.startswith((".known", ".index"))], listed


@pytest.mark.parametrize("name", [".index", ".known"])
def test_lying_record_a_usecase_named_as_the_stores_own_folder_is_refused(tmp_path: Path, name: str) -> None:
    uc = Usecase(tmp_path / "uc", usecase=name)
    pass_task(uc)
    assert_one_line_error(uc.run("-t", "t", "--lineage"), naming=[name, "record store"])
    assert not (uc.root / "data" / "out").exists()


def test_lying_exit_code_a_record_naming_one_output_twice_is_not_proven(tmp_path: Path) -> None:
    """A damaged or forged run B lists output 'adults' twice, the first changed: matching by name kept
    only the last (unchanged) one, and the pair was proven the same."""
    def twice(b: dict[str, Any]) -> None:
        b["outputs"] = [dict(b["outputs"][0], data_hash="sha256:" + "0" * 64, row_count=99), b["outputs"][0]]

    root = two_runs(tmp_path, twice)
    assert_not_proven(lineage(root, "compare", *BOTH), "appears more than once in run B")
    assert_not_proven(lineage(root, "diff", *BOTH), "appears more than once in run B")


@pytest.mark.parametrize("value", ["", "sha256:", "x", "sha256:" + "A" * 64])
def test_lying_exit_code_two_records_with_the_same_malformed_hash_are_not_proven(tmp_path: Path, value: str) -> None:
    def damaged(doc: dict[str, Any]) -> None:
        doc["outputs"][0]["data_hash"] = value

    root = two_runs(tmp_path, damaged, damaged)
    assert_not_proven(lineage(root, "compare", *BOTH), "not a rows-v1 hash")
    assert_not_proven(lineage(root, "diff", *BOTH), "not a rows-v1 hash")


def test_lying_exit_code_diff_of_a_changed_output_of_a_failed_run_says_the_run_failed(tmp_path: Path) -> None:
    def failed(b: dict[str, Any]) -> None:
        b.update(status="error", error="boom")
        b["outputs"][0].update(data_hash="sha256:" + "0" * 64)

    result = lineage(two_runs(tmp_path, failed), "diff", *BOTH)
    assert result.code == 1 and "output 'adults'" in result.out, str(result)
    assert "not proven: run B did not succeed (status error)" in result.out, str(result)


def test_lying_exit_code_a_data_hash_beside_its_hash_error_is_not_proven(tmp_path: Path) -> None:
    """No writer records a data hash and a hash error on one step: such a record (damaged, forged)
    does not prove its hash."""
    root = two_runs(tmp_path, lambda b: b["outputs"][0].update(hash_error="out of memory"))
    assert_not_proven(lineage(root, "compare", *BOTH), "hash failed: out of memory")
    assert_not_proven(lineage(root, "diff", *BOTH), "hash failed: out of memory")


@pytest.mark.parametrize("store", ["data/people.parquet", "data/people.parquet/records"])
def test_escape_a_store_inside_an_input_is_refused(tmp_path: Path, store: str) -> None:
    """Records written inside an input folder would change what the next run reads."""
    import pyarrow.parquet as pq

    uc = Usecase(tmp_path / "uc")
    pass_task(uc)
    folder = uc.root / "data" / "people.parquet"
    folder.unlink()
    folder.mkdir()
    pq.write_table(PEOPLE, folder / "part-0.parquet")
    ran = uc.run("-t", "t", "--lineage-dir", store)
    assert_one_line_error(ran, naming=["config.yaml", "CONFIG.inputs.people.path", "record store"])
    assert sorted(p.name for p in folder.iterdir()) == ["part-0.parquet"], "the input changed"
