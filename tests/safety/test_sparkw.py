"""sparkw's probes (issue 19, the pandas side of the Spark items): a quarantine never overwrites a
user column, and its two outputs always partition the output's rows (the record says so).
The Spark probes are in integration/test_safety_spark.py."""
from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from harness import PEOPLE, Usecase, assert_unchanged, cli, task_code, tree_digest

QUARANTINE = """
MODEL: etl
VERSION: "1"
CONFIG:
  inputs:
    people: {format: parquet, path: "{{ task_dir }}/../../../data/people.parquet"}
  outputs:
    clean: {format: parquet, path: "{{ task_dir }}/../../../out/clean"}
    rejected: {format: parquet, path: "{{ task_dir }}/../../../out/rejected"}
  expectations:
    clean:
      rules:
        - between: {column: age, min: 18, max: 130}
          severity: quarantine
      quarantine: rejected
"""


def test_data_loss_a_user_column_named_ubunye_failed_rules_is_refused_not_overwritten(tmp_path: Path) -> None:
    usecase = Usecase(tmp_path)
    people = PEOPLE.append_column("_ubunye_failed_rules", pa.array(["mine"] * PEOPLE.num_rows, pa.string()))
    usecase.parquet("people.parquet", people)
    usecase.task("split", QUARANTINE, task_code('return {"clean": sources["people"]}'))
    before = tree_digest(tmp_path, skip=[".ubunye"])
    result = usecase.run("-t", "split", "--lineage")
    assert result.code == 1, str(result)
    assert "Traceback" not in result.text, str(result)
    said = [line for line in result.text.splitlines() if "_ubunye_failed_rules" in line]
    assert len(said) == 1 and "output 'clean' has a column named _ubunye_failed_rules" in said[0], str(result)
    assert_unchanged(before, tree_digest(tmp_path, skip=[".ubunye"]))  # nothing written
    (record,) = usecase.records("split")
    assert record["status"] == "error" and "_ubunye_failed_rules" in str(record.get("error"))


def test_lying_record_quarantine_counts_and_equation_are_recorded_and_verify(tmp_path: Path) -> None:
    usecase = Usecase(tmp_path)
    usecase.parquet("people.parquet")
    usecase.task("split", QUARANTINE, task_code('return {"clean": sources["people"]}'))
    result = usecase.run("-t", "split", "--lineage")
    assert result.code == 0, str(result)
    (record,) = usecase.records("split")
    rows = {s["name"]: s["row_count"] for s in record["outputs"]}
    (equation,) = [e for e in record["expectations"] if e["kind"] == "quarantine_partition"]
    assert equation["passed"] and equation["rows"] == PEOPLE.num_rows == rows["clean"] + rows["rejected"]
    assert (equation["clean_rows"], equation["quarantined_rows"]) == (rows["clean"], rows["rejected"]) == (3, 1)
    verified = cli("lineage", "verify", "-d", str(tmp_path), "-u", "shop", "-p", "orders", "-t", "split")
    assert verified.code == 0, str(verified)
