"""The issue-22 done-when case on pandas: per-partition sums, ``lineage diff --rows`` and
``--key`` (docs/spec/rows-v1-localise.md sections 5 and 7)."""
from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from test_lineage_diff import CODE, lineage, run_task

from ubunye.hashing import canonical_lines

CONFIG = """
MODEL: etl
VERSION: "0.1.0"
CONFIG:
  inputs:
    people: {format: csv, path: "{{ task_dir }}/../../../data/{{ dt }}/people.csv"}
  outputs:
    adults: {format: parquet, path: "{{ task_dir }}/../../../out/{{ dt }}/adults", partition_by: [team]}
"""
def write_people(folder: Path, dt: str, rows: list[tuple[int, str, int, str]]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=["id", "name", "age", "team"])
    (folder / "data" / dt).mkdir(parents=True)
    frame.to_csv(folder / "data" / dt / "people.csv", index=False)
    return frame


def digests(frame: pd.DataFrame) -> dict[str, str]:
    """Full row digest of each canonical line."""
    return {"sha256:" + hashlib.sha256(line.encode("utf-8")).hexdigest(): line for line in canonical_lines(frame)}


@pytest.fixture()
def two_runs(tmp_path: Path) -> tuple[Path, pd.DataFrame, pd.DataFrame]:
    task = tmp_path / "shop" / "orders" / "clean"
    task.mkdir(parents=True)
    (task / "config.yaml").write_text(CONFIG, encoding="utf-8")
    (task / "transformations.py").write_text(CODE, encoding="utf-8")
    rows = [(i, f"person {i}", 20 + i % 50, "abc"[i % 3]) for i in range(100)]
    old = write_people(tmp_path, "2024-01-01", rows)
    run_task(tmp_path, "2024-01-01")
    changed = [r for r in rows if r[0] != 40]  # removed (team b)
    changed[10] = (10, "person ten", 30, "b")  # updated (team b, was 30 too)
    changed.append((100, "person 100", 61, "b"))  # added (team b)
    new = write_people(tmp_path, "2024-01-02", changed)
    run_task(tmp_path, "2024-01-02")
    return tmp_path, old, new


def test_partitions_changed_are_exact_with_row_counts(two_runs: tuple[Path, pd.DataFrame, pd.DataFrame]) -> None:
    folder, old, new = two_runs
    doc = json.loads(lineage(folder, "diff", "--json").stdout)
    adults = next(s for s in doc["steps"] if s["name"] == "adults")
    before = old[old["age"] >= 18].groupby("team").size()
    after = new[new["age"] >= 18].groupby("team").size()
    # only team b's rows changed: 1 removed, 1 updated, 1 added
    assert adults["partitions"] == [{"partition": "team=b", "rows_before": int(before["b"]),
                                     "rows_after": int(after["b"])}]
    text = lineage(folder, "diff", "--name", "adults").stdout
    assert f"partitions changed: team=b ({before['b']} -> {after['b']} rows)" in text
    compare = json.loads(lineage(folder, "compare", "--json").stdout)
    assert any("partitions changed: team=b" in p for p in compare["problems"])


def test_rows_prints_the_four_changed_rows_of_the_input(two_runs: tuple[Path, pd.DataFrame, pd.DataFrame]) -> None:
    folder, old, new = two_runs
    result = lineage(folder, "diff", "--name", "people", "--rows")
    assert result.exit_code == 1, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 4 and result.stderr == ""
    got = {(line[0], json.loads(line[2:])["digest"]) for line in lines}
    d_old, d_new = digests(old), digests(new)
    assert got == {("-", d) for d in d_old.keys() - d_new.keys()} | {("+", d) for d in d_new.keys() - d_old.keys()}
    rows = [json.loads(line[2:]) for line in lines]
    assert {r["row"]["id"] for r in rows} == {10, 40, 100}
    assert all(json.dumps(r["row"], separators=(",", ":"), sort_keys=True) in {*d_old.values(), *d_new.values()}
               for r in rows)


def test_rows_of_a_partitioned_output_and_the_data_gone(two_runs: tuple[Path, pd.DataFrame, pd.DataFrame]) -> None:
    folder, _, _ = two_runs
    result = lineage(folder, "diff", "--name", "adults", "--rows")
    assert result.exit_code == 1 and len(result.stdout.splitlines()) == 4, result.stdout + result.stderr
    shutil.rmtree(folder / "out" / "2024-01-01")
    gone = lineage(folder, "diff", "--name", "adults", "--rows")
    assert gone.exit_code == 1
    assert [line[0] for line in gone.stdout.splitlines()] == ["+", "+"]
    assert gone.stderr.count("\n") == 1 and "output 'adults': run A's data is gone" in gone.stderr
    # the input of run A rewritten: its data no longer hashes to the record's data hash
    (folder / "data" / "2024-01-01" / "people.csv").write_text("id,name,age,team\n1,x,30,a\n", encoding="utf-8")
    moved = lineage(folder, "diff", "--name", "people", "--rows")
    assert moved.exit_code == 1 and "input 'people': run A's data is gone" in moved.stderr
    assert "data hash differs" in moved.stderr


def test_key_pairs_the_updated_row(two_runs: tuple[Path, pd.DataFrame, pd.DataFrame]) -> None:
    folder, _, _ = two_runs
    result = lineage(folder, "diff", "--name", "people", "--rows", "--key", "id")
    assert result.exit_code == 1, result.stderr
    lines = result.stdout.splitlines()
    assert sorted(line[0] for line in lines) == ["+", "-", "~"]
    update = json.loads(next(line for line in lines if line[0] == "~")[2:])
    assert update["key"] == {"id": 10} and update["changed"] == ["name"]
    assert update["before"]["name"] == "person 10" and update["after"]["name"] == "person ten"
    assert lineage(folder, "diff", "--key", "id").exit_code == 2  # --key needs --rows
    doc = json.loads(lineage(folder, "diff", "--name", "people", "--rows", "--key", "id", "--json").stdout)
    assert [(r["sign"], r["row"]["id"]) for r in sorted(doc["rows"], key=lambda r: r["sign"])] == [("+", 100), ("-", 40)]
    assert [u["changed"] for u in doc["updates"]] == [["name"]] and doc["notes"] == []


def test_rows_of_two_runs_on_the_same_data_exit_0(tmp_path: Path) -> None:
    task = tmp_path / "shop" / "orders" / "clean"
    task.mkdir(parents=True)
    (task / "config.yaml").write_text(CONFIG.replace("{{ dt }}/people", "people"), encoding="utf-8")
    (task / "transformations.py").write_text(CODE, encoding="utf-8")
    (tmp_path / "data").mkdir()
    pd.DataFrame([(1, "a", 30, "x")], columns=["id", "name", "age", "team"]).to_csv(
        tmp_path / "data" / "people.csv", index=False)
    run_task(tmp_path, "2024-01-01")
    run_task(tmp_path, "2024-01-02")
    result = lineage(tmp_path, "diff", "--rows")
    assert result.exit_code == 0 and result.stdout == "" and result.stderr == ""


def test_rows_says_why_a_changed_step_has_no_row_to_read() -> None:
    """``--rows`` on a step whose difference was not decoded says so instead of printing nothing."""
    from ubunye.lineage.diff_rows import find_rows
    from ubunye.lineage.localise import RunDiff, StepChange, Where
    from ubunye.lineage.record import RunRecord

    steps = [StepChange("input", "big", "changed", Where(False, estimate=900, summary="about 900 rows differ")),
             StepChange("output", "old", "changed", reason="run A recorded no sketch of its rows"),
             StepChange("output", "same", "unchanged")]
    got = find_rows(RunDiff({}, {}, steps), RunRecord("a"), RunRecord("b"))
    assert got.rows == [] and got.notes == ["input 'big': no row to read (about 900 rows differ)",
                                            "output 'old': no row to read (run A recorded no sketch of its rows)"]


def test_rows_prints_as_many_copies_of_a_row_as_changed() -> None:
    """Run A held a row three times, run B once: two copies were removed (the sketch names the row
    twice), so ``--rows`` prints it twice, never once per copy the data holds."""
    from ubunye.lineage.diff_rows import Scan, find_rows
    from ubunye.lineage.localise import RunDiff, StepChange, Where
    from ubunye.lineage.record import RunRecord, Step

    line = '{"id":1,"name":"Ann"}'
    hexd = hashlib.sha256(line.encode("utf-8")).hexdigest()
    name = "sha256:" + hexd[:32]  # the sketch's name of a row: its two lanes
    data = "sha256:" + "d" * 64
    step = Step("out", "output", "parquet", "/lake/out", 3, "sha256:" + "5" * 64, data, "rows-v1")
    seen: list[set[tuple[int, int]]] = []

    def scan(record: RunRecord, s: Step, wanted: set[tuple[int, int]]) -> Scan:
        seen.append(wanted)
        lanes = (int(hexd[:16], 16), int(hexd[16:32], 16))
        return Scan(data, [(lanes, line)] * 3)  # the data holds three copies

    change = StepChange("output", "out", "changed", Where(True, [name, name], [], summary="2 rows removed"))
    got = find_rows(RunDiff({}, {}, [change]), RunRecord("a", outputs=[step]), RunRecord("b", outputs=[step]), scan)
    assert seen == [{(int(hexd[:16], 16), int(hexd[16:32], 16))}]
    assert [(r.sign, r.row) for r in got.rows] == [("-", {"id": 1, "name": "Ann"})] * 2 and got.notes == []


def test_an_update_names_a_column_gone_or_added_even_when_it_held_null() -> None:
    from ubunye.lineage.diff_rows import Row, pair_updates

    before = Row("-", "output", "out", "sha256:" + "1" * 64, {"id": 1, "note": None, "age": 3})
    after = Row("+", "output", "out", "sha256:" + "2" * 64, {"id": 1, "age": 3, "team": None})
    rest, updates = pair_updates([before, after], ["id"])
    assert rest == [] and [u.changed for u in updates] == [["note", "team"]]


def test_the_spark_pass_names_rows_as_the_records_do() -> None:
    """The native pass asks the plugin for rows by name: ``name_of`` is ``lanes_of``'s inverse."""
    from ubunye.lineage.diff_rows import lanes_of
    from ubunye.spark.diff_scan import name_of

    line = '{"id":1,"name":"a"}'
    name = "sha256:" + hashlib.sha256(line.encode()).hexdigest()[:32]
    assert name_of(lanes_of(name)) == name
    assert name_of((1, 2**64 - 1)) == "sha256:0000000000000001ffffffffffffffff"


def test_key_naming_no_column_of_the_rows_says_so(two_runs: tuple[Path, pd.DataFrame, pd.DataFrame]) -> None:
    """A mistyped ``--key`` pairs nothing: said in one line per step, not passed over."""
    folder, _, _ = two_runs
    result = lineage(folder, "diff", "--name", "people", "--rows", "--key", "id,nope")
    assert result.exit_code == 1
    assert sorted(line[0] for line in result.stdout.splitlines()) == ["+", "+", "-", "-"]
    assert result.stderr.splitlines() == ["input 'people': no column 'nope' in its rows (--key): no row paired"]
    doc = json.loads(lineage(folder, "diff", "--rows", "--key", "id,nope", "--json").stdout)
    assert doc["updates"] == [] and len(doc["rows"]) == 8
    assert doc["notes"] == ["input 'people': no column 'nope' in its rows (--key): no row paired",
                            "output 'adults': no column 'nope' in its rows (--key): no row paired"]


def test_the_spark_pass_from_the_cli_starts_its_session_with_the_plugin_and_this_python(
        monkeypatch: pytest.MonkeyPatch, packaged_jar: None) -> None:
    """Run from the command line (no active session), ``--rows`` on a Spark run starts its
    session as ``ubunye hash --engine spark`` does: the plugin jar on it (the native pass),
    the Python workers on this Python (the mapInArrow pass), Delta's jars when a step is
    Delta. A bare session found neither, and its workers' ``python3`` had no pyarrow."""
    import importlib.util
    import os
    import sys
    from types import SimpleNamespace

    pytest.importorskip("pyspark")
    from pyspark.sql import SparkSession

    import ubunye.lineage.diff_rows as diff_rows
    from ubunye.lineage.localise import RunDiff, StepChange, Where
    from ubunye.lineage.record import RunRecord, Step
    from ubunye.spark import diff_scan, jar_path
    from ubunye.spark._compat import builder_options

    made: list[dict[str, str]] = []
    started = SimpleNamespace(sparkContext=SimpleNamespace(setLogLevel=lambda level: None))
    monkeypatch.setattr(SparkSession, "getActiveSession", staticmethod(lambda: None))
    monkeypatch.setattr(SparkSession.Builder, "getOrCreate", lambda self: made.append(dict(builder_options(self)))
                        or started)
    monkeypatch.setenv("PYSPARK_PYTHON", "python3")
    monkeypatch.delenv("PYSPARK_PYTHON")
    asked: list[object] = []
    monkeypatch.setattr(diff_scan, "spark_scan", lambda *args, spark=None: asked.append(spark) or (None, []))
    monkeypatch.setattr(diff_rows, "check_present", lambda step: None)

    def record(fmt: str) -> RunRecord:
        run = RunRecord("a", backend="spark")
        run.outputs = [Step("t", "output", fmt, "/nowhere", 1, "sha256:s", "sha256:d")]
        return run

    delta = importlib.util.find_spec("delta") is not None  # delta-spark (none for Spark 4.3)
    for fmt in ("parquet", "delta") if delta else ("parquet",):
        a, b = record(fmt), record(fmt)
        diff = RunDiff({}, {}, [StepChange("output", "t", "changed", Where(True, removed=["sha256:" + "0" * 32]))])
        diff_rows.scanner_for(a, b, diff)(a, a.outputs[0], {(0, 0)})
    assert asked == [started] * len(made) and len(made) == (2 if delta else 1)
    assert all(str(jar_path()) in options["spark.jars"].split(",") for options in made)
    assert os.environ["PYSPARK_PYTHON"] == sys.executable
    assert "spark.jars.packages" not in made[0]
    assert not delta or "delta-spark" in made[1]["spark.jars.packages"]
