"""``ubunye lineage verify``: re-hash recorded files now, on records written by the recorder."""
from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path
from typing import Any, Optional

import pandas as pd
import pytest
from click.testing import CliRunner, Result

from ubunye.cli.app import cli
from ubunye.hashing import fingerprint
from ubunye.io import read_table
from ubunye.lineage.context import DataEvent, RunContext
from ubunye.lineage.record import RunRecord, Step
from ubunye.lineage.recorder import LineageRecorder
from ubunye.lineage.store import open_store
from ubunye.lineage.verify import choose_engine, file_format, verify_record

CSV = "id,name,age\n1,Thabo,34\n2,Anna,17\n3,Sipho,52\n"


def record_run(folder: Path, *, hash_inputs: bool = True) -> RunRecord:
    """A run that read people.csv and wrote adults.parquet, recorded by LineageRecorder."""
    (folder / "data").mkdir(exist_ok=True)
    (folder / "data" / "people.csv").write_text(CSV, encoding="utf-8")
    people = read_table(str(folder / "data" / "people.csv"), "csv")
    adults = people[people["age"] >= 18].reset_index(drop=True)
    (folder / "out").mkdir(exist_ok=True)
    adults.to_parquet(folder / "out" / "adults.parquet", index=False)
    written = read_table(str(folder / "out" / "adults.parquet"), "parquet")
    context = RunContext(usecase="shop", package="orders", task="clean", usecase_dir=folder,
                         run_id=str(uuid.uuid4()), backend="pandas")
    recorder = LineageRecorder(hash_inputs=hash_inputs)
    recorder.task_start(context=context)
    return recorder.task_end(
        context=context,
        inputs=[DataEvent("people", "input", "s3", str(folder / "data" / "people.csv"), frame=people)],
        outputs=[DataEvent("adults", "output", "parquet", "out/adults.parquet", frame=written)],
        status="success", duration_sec=0.1)


def run(folder: Path, *args: str) -> Result:
    result = CliRunner().invoke(cli, ["lineage", "verify", "-d", str(folder), *args])
    assert "Traceback" not in result.stderr, result.stderr
    return result


def test_untouched_data_verifies_exit_0(tmp_path: Path) -> None:
    record = record_run(tmp_path)
    assert record.outputs[0].data_hash == fingerprint(read_table(str(tmp_path / "out" / "adults.parquet"),
                                                                 "parquet")).data_hash
    result = run(tmp_path, "--json")
    assert result.exit_code == 0, result.stdout
    doc = json.loads(result.stdout)
    expected = verify_record(open_store(tmp_path).find("shop", "orders", "clean"), base_dir=tmp_path).to_dict()
    for step in [*doc["steps"], *expected["steps"]]:
        step.pop("seconds")  # the only field that depends on the clock
    assert doc == json.loads(json.dumps({"schema_version": 1, "command": "verify", **expected}))
    assert [(s["name"], s["format"], s["verdict"]) for s in doc["steps"]] == [
        ("people", "csv", "unchanged"), ("adults", "parquet", "unchanged")]  # "s3" resolved from the suffix
    human = run(tmp_path)
    assert human.exit_code == 0 and "data proven the same" in human.stdout


def test_a_file_changed_after_the_run_exits_1(tmp_path: Path) -> None:
    record_run(tmp_path)
    (tmp_path / "data" / "people.csv").write_text(CSV.replace("Anna", "Anne"), encoding="utf-8")
    result = run(tmp_path, "--json")
    assert result.exit_code == 1
    people, adults = json.loads(result.stdout)["steps"]
    assert people["verdict"] == "changed" and people["data_hash"]["verdict"] == "changed"
    assert people["row_count"]["verdict"] == "unchanged" and people["schema_hash"]["verdict"] == "unchanged"
    assert adults["verdict"] == "unchanged"
    human = run(tmp_path)
    assert human.exit_code == 1 and "input people: changed" in human.stdout


def test_a_deleted_output_is_missing_exit_1(tmp_path: Path) -> None:
    record_run(tmp_path)
    shutil.rmtree(tmp_path / "out")
    result = run(tmp_path, "--json")
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert doc["steps"][1]["verdict"] == "missing" and "no longer exists" in doc["steps"][1]["reason"]


def test_an_input_not_hashed_at_run_time_is_unknown_exit_1(tmp_path: Path) -> None:
    record_run(tmp_path, hash_inputs=False)
    result = run(tmp_path, "--json")
    assert result.exit_code == 1
    people = json.loads(result.stdout)["steps"][0]
    assert people["verdict"] == "unknown" and "recorded" in people["data_hash"]["reason"]


def test_verify_errors_exit_2(tmp_path: Path) -> None:
    record_run(tmp_path)
    assert run(tmp_path, "--run-id", "nope").exit_code == 2
    assert run(tmp_path, "--engine", "duck").exit_code == 2


def _fixed(fp: Any) -> Any:
    def hasher(location: str, fmt: Optional[str], engine: str) -> Any:
        return fp
    return hasher


def test_library_rules_without_files(tmp_path: Path) -> None:
    good = fingerprint(pd.DataFrame({"a": [1, 2]}))
    (tmp_path / "t.csv").write_text("a\n1\n2\n", encoding="utf-8")
    step = Step("t", "output", "csv", str(tmp_path / "t.csv"), good.row_count, good.schema_hash, good.data_hash,
                "rows-v1")
    record = RunRecord("r1", outputs=[step], status="success")
    assert verify_record(record, hasher=_fixed(good)).data_proven_same
    for status in ("running", "error", "interrupted"):  # the data matches, but the run did not succeed
        record.status = status
        result = verify_record(record, hasher=_fixed(good))
        assert not result.data_proven_same and result.steps[0].verdict == "unchanged"
        assert result.problems == [p for p in result.problems if status in p] and len(result.problems) == 1
    old = RunRecord("r2", record_version=1,
                    outputs=[Step("t", "output", "csv", str(tmp_path / "t.csv"), 2, "sha256:x", "sha256:x")])
    assert verify_record(old, hasher=_fixed(good)).steps[0].verdict == "not comparable"
    remote = RunRecord("r3", outputs=[Step("t", "output", "parquet", "s3://bucket/t", 2, "s", "d", "rows-v1")])
    check = verify_record(remote, engine="pandas", hasher=_fixed(good)).steps[0]
    assert check.verdict == "unknown" and "--engine spark" in (check.reason or "")
    assert not verify_record(RunRecord("r4")).data_proven_same  # nothing recorded proves nothing


def test_format_and_engine_choice(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "part-0000.parquet").write_bytes(b"")
    (tmp_path / "d" / "_SUCCESS").write_bytes(b"")
    assert file_format(Step("x", "output", "s3"), tmp_path / "d") == "parquet"
    assert file_format(Step("x", "output", "JSON"), None) == "json"
    assert file_format(Step("x", "output", "jdbc"), None) is None
    assert choose_engine(RunRecord("r", backend="pandas"), "auto") == "pandas"
    assert choose_engine(RunRecord("r", backend="spark"), "auto") == "spark"  # pyspark is installed here
    with pytest.raises(ValueError, match="unknown engine"):
        choose_engine(RunRecord("r"), "duck")
