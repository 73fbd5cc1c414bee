"""A ubunye-engine 0.8.0 task folder, run unchanged with `ubunye run` on pandas (issue 16).

The folder (``tests/fixtures/engine080/titanic/pipeline/clean_data``) is written as a
0.8.0 user writes it: ``format: s3`` + ``file_format``, ``ENGINE.profiles``,
``{{ env.NAME }}`` and ``{{ mode | default('DEV') }}`` in paths, ``transform: {type:
noop}``, ``from ubunye.core.interfaces import Task``, and expectations in 0.8.0's form
(``rules:``, ``quarantine`` with ``max_quarantine_rate``, ``reconcile``). The data
(``fixtures/engine080/data/titanic.csv``, 20 rows) is ours; what each row should do is
read from it here, not written down:

- 18 has no ``Survived``: the transform drops it (the reconcile's one lost row);
- 15 (age -1), 16 (sex "unknown") and 17 (both) break the two quarantine rules;
- 2 pays more than 60: the ``fare_under_60`` warning.

The Spark side and the Spark/pandas comparison are in
``integration/test_engine080_spark.py``.
"""
from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import ubunye
from ubunye.cli.app import cli

FIXTURES = Path(__file__).parent / "fixtures" / "engine080"
DATA = FIXTURES / "data" / "titanic.csv"
TASK = ("titanic", "pipeline", "clean_data")
FAILED_RULES = "_ubunye_failed_rules"


def titanic_rows() -> list[dict[str, str]]:
    with DATA.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def expected_split() -> tuple[set[int], dict[int, str]]:
    """The ids the cleaned output keeps and the quarantined ids with their broken rules,
    from the data and the config's rules (Age between 0 and 110, Sex male or female; a
    missing Age passes; a row without Survived is dropped by the transform)."""
    kept: set[int] = set()
    rejected: dict[int, str] = {}
    for row in titanic_rows():
        if row["Survived"] == "" or row["Pclass"] == "":
            continue
        broken = []
        if row["Age"] != "" and not 0 <= float(row["Age"]) <= 110:
            broken.append("Age_between")
        if row["Sex"] not in ("male", "female"):
            broken.append("Sex_one_of")
        if broken:
            rejected[int(row["PassengerId"])] = ",".join(broken)
        else:
            kept.add(int(row["PassengerId"]))
    return kept, rejected


def files_under(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The folder's ``{{ env.NAME }}`` paths: the committed data, outputs under tmp_path."""
    monkeypatch.setenv("TITANIC_INPUT_PATH", str(DATA))
    monkeypatch.setenv("TITANIC_CLEAN_PATH", str(tmp_path / "out" / "cleaned"))
    return tmp_path


def run(usecase_dir: Path, records: Path, *extra: str) -> tuple[int, str, str]:
    usecase, package, task = TASK
    result = CliRunner().invoke(cli, ["run", "-d", str(usecase_dir), "-u", usecase, "-p", package, "-t", task,
                                      "--backend", "pandas", "-dt", "2024-01-02", "--lineage",
                                      "--lineage-dir", str(records), *extra])
    return result.exit_code, result.stdout, result.stderr


def only_record(records: Path) -> dict[str, Any]:
    (path,) = (records / "/".join(TASK)).glob("*.json")
    return json.loads(path.read_text())


def by_rule(record: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(e["output"], e["rule"]): e for e in record["expectations"]}


def test_the_080_folder_runs_unchanged_and_quarantines_the_breaking_rows(env: Path) -> None:
    before = files_under(FIXTURES)
    code, out, err = run(FIXTURES, env / "records")
    assert code == 0, err
    assert out.startswith("ok   titanic/pipeline/clean_data ("), out
    assert files_under(FIXTURES) == before  # the folder ran as committed and nothing was written into it

    kept, rejected = expected_split()
    assert len(rejected) == 3 and len(kept) == 16  # the data still says what this test is about
    cleaned_path = env / "out" / "cleaned" / "mode=DEV" / "dt=2024-01-02"  # {{ mode | default('DEV') }}, -dt
    rejected_path = env / "out" / "cleaned_rejected" / "mode=DEV" / "dt=2024-01-02"
    cleaned = pq.read_table(cleaned_path)
    quarantined = pq.read_table(rejected_path)
    assert set(cleaned.column("PassengerId").to_pylist()) == kept
    assert FAILED_RULES not in cleaned.column_names
    assert quarantined.column_names == [*cleaned.column_names, FAILED_RULES]
    got = dict(zip(quarantined.column("PassengerId").to_pylist(), quarantined.column(FAILED_RULES).to_pylist()))
    assert got == rejected  # the rules each row broke, comma-joined in the order they are declared

    record = only_record(env / "records")
    assert record["status"] == "success"
    steps = {s["name"]: s for s in record["inputs"] + record["outputs"]}
    assert set(steps) == {"titanic", "cleaned", "rejected"}
    assert (steps["titanic"]["row_count"], steps["cleaned"]["row_count"], steps["rejected"]["row_count"]) == (
        20, len(kept), len(rejected))
    for name, table in (("cleaned", cleaned), ("rejected", quarantined)):  # the record's hash is what was written
        fp = ubunye.fingerprint(table)
        assert (steps[name]["schema_hash"], steps[name]["data_hash"]) == (fp.schema_hash, fp.data_hash), name

    results = by_rule(record)
    for rule in ("columns", "PassengerId_not_null"):  # the input's rules, checked after the read
        assert results[("titanic", rule)]["side"] == "input" and results[("titanic", rule)]["passed"], rule
    for rule in ("PassengerId_not_null", "PassengerId_unique", "row_count"):
        assert results[("cleaned", rule)]["passed"], rule
    age, sex = results[("cleaned", "Age_between")], results[("cleaned", "Sex_one_of")]
    assert (age["kind"], age["severity"], age["column"], age["failed"], age["total"]) == (
        "between", "quarantine", "Age", 2, 19)
    assert (sex["kind"], sex["severity"], sex["column"], sex["failed"]) == ("one_of", "quarantine", "Sex", 2)
    fare = results[("cleaned", "fare_under_60")]
    assert (fare["severity"], fare["passed"]) == ("warn", False)
    assert "fare_under_60" in err  # a broken warning is said, the run still succeeds

    rows = results[("cleaned", "rows_from_titanic")]
    assert (rows["kind"], rows["severity"], rows["passed"]) == ("reconcile", "fail", True)
    assert (rows["failed"], rows["total"]) == (1, 20)  # one row lost (no Survived), quarantined rows carried over
    assert "1 lost" in rows["detail"] and "0 gained" in rows["detail"]
    sibsp = results[("cleaned", "SibSp_sum_from_titanic")]
    total_sibsp = sum(int(r["SibSp"]) for r in titanic_rows())
    assert (sibsp["kind"], sibsp["passed"]) == ("reconcile", True)
    assert str(total_sibsp) in sibsp["detail"]


def test_mode_picks_the_profile_and_the_path(env: Path) -> None:
    code, _, err = run(FIXTURES, env / "records", "-m", "PROD")
    assert code == 0, err
    assert (env / "out" / "cleaned" / "mode=PROD" / "dt=2024-01-02").is_dir()
    assert not (env / "out" / "cleaned" / "mode=DEV").exists()
    assert only_record(env / "records")["variables"]["mode"] == "PROD"


def copy_with(env: Path, old: str, new: str) -> Path:
    """A copy of the usecase with one line of the task's config changed."""
    usecase_dir = env / "pipelines"
    shutil.copytree(FIXTURES / "titanic", usecase_dir / "titanic")
    config = usecase_dir.joinpath(*TASK, "config.yaml")
    text = config.read_text()
    assert text.count(old) == 1, old
    config.write_text(text.replace(old, new))
    return usecase_dir


def test_a_quarantine_rate_above_the_limit_stops_the_run_before_any_write(env: Path) -> None:
    kept, rejected = expected_split()
    limit = len(rejected) / (len(kept) + len(rejected)) / 2  # half the share the data quarantines
    usecase_dir = copy_with(env, "max_quarantine_rate: 0.25", f"max_quarantine_rate: {limit:.3f}")
    code, out, err = run(usecase_dir, env / "records")
    assert code == 1 and out == ""
    lines = err.strip().splitlines()
    (line,) = [x for x in lines if not x.startswith("warn ")]  # one line says why; warnings may follow
    assert line.startswith("FAIL titanic/pipeline/clean_data: ") and "max_quarantine_rate" in line
    assert not (env / "out").exists()  # neither the output nor its quarantine output was written
    record = only_record(env / "records")
    assert record["status"] == "error"
    assert all(s["data_hash"] is None for s in record["outputs"])


def test_a_connector_this_project_does_not_have_is_refused_in_one_line(env: Path) -> None:
    usecase_dir = copy_with(env, "      format: s3\n      path: \"{{ env.TITANIC_INPUT_PATH }}\"",
                            "      format: rest_api\n      path: \"{{ env.TITANIC_INPUT_PATH }}\"")
    code, _, err = run(usecase_dir, env / "records")
    assert code == 2  # bad input (issue 19: was 1)
    (line,) = err.strip().splitlines()
    assert line.startswith("error: ") and "rest_api" in line and str(usecase_dir.joinpath(*TASK, "config.yaml")) in line
    assert not (env / "out").exists() and not (env / "records").exists()  # refused before anything ran
