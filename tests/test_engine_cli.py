"""`ubunye run`: exit codes, one line per task, records, --all order, record write failures."""
from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from ubunye.cli.app import cli

from test_engine_runner import CLEAN_CODE, CLEAN_CONFIG, PEOPLE, SUMMARY_CODE, SUMMARY_CONFIG, make_task


@pytest.fixture
def usecase(tmp_path: Path) -> Path:
    (tmp_path / "data").mkdir()
    pq.write_table(PEOPLE, tmp_path / "data" / "people.parquet")
    make_task(tmp_path, "clean", CLEAN_CONFIG, CLEAN_CODE)
    make_task(tmp_path, "summary", SUMMARY_CONFIG, SUMMARY_CODE)
    return tmp_path


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["run", *args])
    return result.exit_code, result.stdout, result.stderr


def base(usecase: Path) -> list[str]:
    return ["-d", str(usecase), "-u", "shop", "-p", "orders", "--backend", "pandas", "-dt", "2024-01-02"]


def test_success_exit_0_with_a_line_per_task(usecase: Path) -> None:
    code, out, err = run(*base(usecase), "-t", "clean", "-t", "summary", "--lineage", "--var", "who=me")
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("ok   shop/orders/clean (") and "record " in lines[0]
    recs = list((usecase / ".ubunye/lineage/shop/orders/summary").glob("*.json"))
    assert len(recs) == 1
    assert json.loads(recs[0].read_text())["variables"]["who"] == "me"
    for line, task in zip(lines, ("clean", "summary")):  # the engine and pass of each step, as recorded
        doc = json.loads(Path(line.split(", record ")[1].split(")")[0]).read_text())
        said = [f"pandas {s['hash_engine']} {s['hash_pass']}" for s in doc["inputs"] + doc["outputs"]]
        assert said and {s["hash_engine"] for s in doc["inputs"] + doc["outputs"]} == {"arrow"}, doc
        assert line.endswith("); hashed: " + ", ".join(dict.fromkeys(said))), (task, line)


def test_the_ok_line_names_a_fallback_and_why(usecase: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A step hashed by the Spark SQL fallback is named so on the ok line, with the reason the
    fingerprint gave; a step without a data hash is counted (records stand in for a Spark run)."""
    from ubunye.cli.task_folders import hashed_by
    from ubunye.engine.result import TaskResult
    from ubunye.lineage.record import RunRecord, Step

    h = "sha256:" + "1" * 64
    record = RunRecord(run_id="r", backend="spark", inputs=[
        Step("a", "input", data_hash=h, hash_engine="spark-native", hash_pass="same-pass"),
        Step("b", "input", data_hash=None, hash_error="no frame")],
        outputs=[Step("o", "output", data_hash=h, hash_engine="spark-sql", hash_pass="second-pass"),
                 Step("p", "output", data_hash=h, hash_engine="spark-native", hash_pass="same-pass")])
    from types import SimpleNamespace as Fp

    result = TaskResult("u/p/t", "r", status="success", record=record)
    result.note_hash_reasons([Fp(fingerprint=Fp(engine="spark-native", reason=None)), Fp(fingerprint=None),
                              Fp(fingerprint=Fp(engine="spark-sql", reason="this session started\nwithout the ubunye-spark jar")),
                              Fp(fingerprint=Fp(engine="spark-sql", reason="a later step's reason"))])
    assert result.hash_reasons == {"spark-sql": "this session started\nwithout the ubunye-spark jar"}
    assert hashed_by(result) == ("; hashed: spark-native same-pass, spark-sql fallback second-pass, "
                                 "1 step(s) not hashed (fallback: this session started without the ubunye-spark jar)")
    assert hashed_by(TaskResult("u/p/t", "r", status="success")) == ""  # no record: nothing was hashed


def test_all_runs_pipeline_yaml_order(usecase: Path) -> None:
    (usecase / "shop/orders/pipeline.yaml").write_text("tasks: [clean, summary]\n")
    code, out, _ = run(*base(usecase), "--all")
    assert code == 0
    assert [line.split()[1] for line in out.splitlines()] == ["shop/orders/clean", "shop/orders/summary"]


def test_failed_task_exit_1_with_one_line_reason(usecase: Path) -> None:
    make_task(usecase, "clean", CLEAN_CONFIG, CLEAN_CODE.replace('>= self.params["min_age"]', ">= 0"))
    code, out, err = run(*base(usecase), "-t", "clean", "-t", "summary", "--lineage")
    assert code == 1
    assert out == ""
    assert err.strip().splitlines() == [
        "FAIL shop/orders/clean: expectations failed, nothing written: adults: age_between (between) broken by 1 of 2"
    ]


def test_invalid_config_exit_2_naming_file_and_key(usecase: Path) -> None:
    # bad input: one error line naming the file and key, exit 2 (issue 19; was FAIL ..., exit 1)
    make_task(usecase, "clean", CLEAN_CONFIG.replace("min: 18", "min: eighteen"), CLEAN_CODE)
    code, _, err = run(*base(usecase), "-t", "clean")
    assert code == 2
    (line,) = err.strip().splitlines()
    assert line.startswith("error: ")
    assert "config.yaml: CONFIG.expectations.adults[1].min: expected a number; got 'eighteen'" in line


@pytest.mark.parametrize(
    "args, message",
    [
        (["-t", "nope"], "no task folder"),
        (["-t", "clean", "--var", "novalue"], "expected k=v"),
        (["--all", "-t", "clean"], "not both"),
        ([], "no task to run"),
    ],
)
def test_usage_errors_exit_2(usecase: Path, args: list[str], message: str) -> None:
    code, _, err = run(*base(usecase), *args)
    assert code == 2
    assert message in err


def test_bad_backend_is_a_usage_error(usecase: Path) -> None:
    code, _, _ = run("-d", str(usecase), "-u", "shop", "-p", "orders", "-t", "clean", "--backend", "dask")
    assert code == 2


def test_record_that_cannot_be_written_exits_1_naming_the_path(usecase: Path) -> None:
    (usecase / "blocked").write_text("a file where the lineage folder should be")
    code, _, err = run(*base(usecase), "-t", "clean", "--lineage", "--lineage-dir", "blocked")
    assert code == 1
    assert "could not write run record" in err and str(usecase / "blocked") in err
    (line,) = err.strip().splitlines()  # said once, on the task's own line
    # the running record could not be written: the run stopped before reading or writing any data
    assert line.startswith("FAIL shop/orders/clean: could not write run record") and "nothing was read" in line
    assert not (usecase / "out").exists(), "an output was written by a run that could not record it"


def test_backend_from_config_and_all_by_name_without_pipeline_yaml(usecase: Path) -> None:
    for name, config, code in (("clean", CLEAN_CONFIG, CLEAN_CODE), ("summary", SUMMARY_CONFIG, SUMMARY_CODE)):
        make_task(usecase, name, "ENGINE: {backend: pandas}\n" + config, code)
    result = CliRunner().invoke(cli, ["run", "-d", str(usecase), "-u", "shop", "-p", "orders", "--all", "-dt", "x",
                                      "--lineage"])
    assert result.exit_code == 0, result.stderr
    assert [line.split()[1] for line in result.stdout.splitlines()] == ["shop/orders/clean", "shop/orders/summary"]
    rec = json.loads(next((usecase / ".ubunye/lineage/shop/orders/clean").glob("*.json")).read_text())
    assert rec["backend"] == "pandas"


def test_rehash_inputs_scans_an_input_an_earlier_record_proved(usecase: Path) -> None:
    def input_passes() -> list[str]:
        newest = max((usecase / ".ubunye/lineage/shop/orders/clean").glob("*.json"), key=lambda p: p.stat().st_mtime_ns)
        return [s["hash_pass"] for s in json.loads(newest.read_text())["inputs"]]

    assert run(*base(usecase), "-t", "clean", "--lineage")[0] == 0
    assert input_passes() == ["materialised"]
    assert run(*base(usecase), "-t", "clean", "--lineage")[0] == 0
    assert input_passes() == ["reused"]
    assert run(*base(usecase), "-t", "clean", "--lineage", "--rehash-inputs")[0] == 0
    assert input_passes() == ["materialised"]
