"""The 0.8.0 expectations form through the real engine on pandas: quarantine split and
its always-written output, max_quarantine_rate stopping the run before any write,
reconcile rows and sum, and the record entries."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from expectations080_task import CODE, CONFIG, PEOPLE, make_task
from ubunye import run_task
from ubunye.engine.runner import TaskFailed
from ubunye.hashing import fingerprint


def record(root: Path) -> dict[str, Any]:
    (path,) = (root / ".ubunye/lineage/shop/orders/scored").glob("*.json")
    return json.loads(path.read_text())


def rows(path: Path) -> list[dict[str, Any]]:
    return sorted(pq.read_table(path).to_pylist(), key=lambda r: r["id"])


def test_quarantine_splits_rows_and_records_both_outputs(tmp_path: Path) -> None:
    result = run_task(make_task(tmp_path), backend="pandas", lineage=True)
    assert result.ok
    assert [r["id"] for r in rows(tmp_path / "out/scored")] == [1, 2]
    rejected = rows(tmp_path / "out/rejected")
    assert [(r["id"], r["_ubunye_failed_rules"]) for r in rejected] == [
        (3, "score_between"), (4, "city_one_of"), (5, "score_between,city_one_of")]
    assert pq.read_table(tmp_path / "out/rejected").schema.field("_ubunye_failed_rules").type == pa.string()
    rec = record(tmp_path)
    outs = {o["name"]: o for o in rec["outputs"]}
    expected_rejected = PEOPLE.filter(pa.array([False, False, True, True, True, False])).append_column(
        "_ubunye_failed_rules", pa.array(["score_between", "city_one_of", "score_between,city_one_of"]))
    assert outs["rejected"]["row_count"] == 3
    assert outs["rejected"]["data_hash"] == fingerprint(expected_rejected).data_hash
    assert outs["scored"]["data_hash"] == fingerprint(PEOPLE.slice(0, 2)).data_hash


def test_record_entries_as_0_8_0_writes_them(tmp_path: Path) -> None:
    run_task(make_task(tmp_path), backend="pandas", lineage=True)
    got = {e["rule"]: e for e in record(tmp_path)["expectations"]}
    assert got["columns"]["side"] == "input" and got["columns"]["passed"]
    assert {k: got["score_between"][k] for k in ("kind", "severity", "column", "failed", "total", "passed")} == {
        "kind": "between", "severity": "quarantine", "column": "score", "failed": 2, "total": 5, "passed": False}
    assert got["rows_from_people"] == {
        "output": "scored", "rule": "rows_from_people", "kind": "reconcile", "severity": "fail", "column": None,
        "failed": 1, "total": 6, "passed": True, "side": "output",
        "detail": "6 rows read from people, 5 reached scored: 1 lost, 0 gained (at most 20% lost, at most 0 gained)"}
    assert got["amount_sum_from_people"]["column"] == "amount" and got["amount_sum_from_people"]["passed"]
    assert got["amount_sum_from_people"]["detail"] == (
        "sum of amount in people 155, of amount in scored 150: difference -5 (at most 5)")
    assert got["name_matches"]["severity"] == "warn" and got["name_matches"]["failed"] == 1


def test_quarantine_output_is_written_empty_when_no_row_breaks(tmp_path: Path) -> None:
    config = CONFIG.replace("min: 0, max: 100", "min: -10, max: 200").replace("[Durban, Soweto]",
                                                                              "[Durban, Soweto, Paris, Cape Town]")
    run_task(make_task(tmp_path, config=config), backend="pandas", lineage=True)
    table = pq.read_table(tmp_path / "out/rejected")
    assert table.num_rows == 0 and table.column_names == [*PEOPLE.column_names, "_ubunye_failed_rules"]
    assert table.schema.field("_ubunye_failed_rules").type == pa.string()
    assert len(rows(tmp_path / "out/scored")) == 5
    outs = {o["name"]: o for o in record(tmp_path)["outputs"]}
    assert outs["rejected"]["row_count"] == 0 and outs["rejected"]["data_hash"] is not None


def test_quarantine_rate_above_the_limit_stops_before_any_write(tmp_path: Path) -> None:
    with pytest.raises(TaskFailed) as err:
        run_task(make_task(tmp_path, config=CONFIG.replace("max_quarantine_rate: 0.6", "max_quarantine_rate: 0.5")),
                 backend="pandas", lineage=True)
    assert "scored: 3 of 5 rows quarantined (60.0%), more than max_quarantine_rate 50.0%" in str(err.value)
    assert not (tmp_path / "out").exists()
    rec = record(tmp_path)
    assert rec["status"] == "error" and all(o["data_hash"] is None for o in rec["outputs"])
    assert {e["rule"] for e in rec["expectations"]} >= {"score_between", "rows_from_people"}


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (('max_lost: "20%"', 'max_lost: "10%"'),
         "scored: rows_from_people (reconcile): 6 rows read from people, 5 reached scored: 1 lost"),
        (("tolerance: 5", "tolerance: 4"),
         "scored: amount_sum_from_people (reconcile): sum of amount in people 155, of amount in scored 150"),
        (("tolerance: 5", 'tolerance: "3%"'), "amount_sum_from_people (reconcile)"),
    ],
)
def test_a_broken_reconcile_stops_before_any_write(tmp_path: Path, change: tuple[str, str], says: str) -> None:
    with pytest.raises(TaskFailed) as err:
        run_task(make_task(tmp_path, config=CONFIG.replace(*change)), backend="pandas", lineage=True)
    assert says in str(err.value)
    assert not (tmp_path / "out").exists()


def test_reconcile_measures_the_input_as_read_before_the_transform_changes_it(tmp_path: Path) -> None:
    code = CODE.replace('people = sources["people"]', 'people = sources["people"]\n        people["amount"] = 0')
    run_task(make_task(tmp_path, config=CONFIG.replace("tolerance: 5", 'tolerance: "100%"'), code=code),
             backend="pandas", lineage=True)
    got = {e["rule"]: e for e in record(tmp_path)["expectations"]}
    assert got["amount_sum_from_people"]["detail"] == (
        "sum of amount in people 155, of amount in scored 0: difference -155 (at most 100%)")


GAIN = CODE.replace('return {"scored": people[people["id"] != 6]}',
                    'extra = people[people["id"] <= 2].assign(id=[7, 8], amount=0)\n'
                    '        return {"scored": pd.concat([people[people["id"] != 6], extra])}').replace(
    "from ubunye import Task", "import pandas as pd\nfrom ubunye import Task")


@pytest.mark.parametrize(("max_gained", "passed"), [("0", False), ("1", True), ('"10%"', False), ('"20%"', True)])
def test_rows_gained_are_held_to_max_gained(tmp_path: Path, max_gained: str, passed: bool) -> None:
    """A transform that adds rows (6 read, 7 reach the output: 1 gained): max_gained decides,
    in rows or as a share of the rows read (10% of 6 is 0.6, 20% is 1.2)."""
    config = CONFIG.replace("max_gained: 0", f"max_gained: {max_gained}")
    detail = (f"6 rows read from people, 7 reached scored: 0 lost, 1 gained "
              f"(at most 20% lost, at most {max_gained.strip(chr(34))} gained)")
    if not passed:
        with pytest.raises(TaskFailed) as err:
            run_task(make_task(tmp_path, config=config, code=GAIN), backend="pandas", lineage=True)
        assert f"scored: rows_from_people (reconcile): {detail}" in str(err.value)
        assert not (tmp_path / "out").exists()
    else:
        assert run_task(make_task(tmp_path, config=config, code=GAIN), backend="pandas", lineage=True).ok
        assert len(rows(tmp_path / "out/scored")) == 4  # 7 less the 3 quarantined
    got = {e["rule"]: e for e in record(tmp_path)["expectations"]}["rows_from_people"]
    assert (got["passed"], got["failed"], got["total"], got["detail"]) == (passed, 1, 6, detail)


def test_quarantined_rows_count_as_carried_over(tmp_path: Path) -> None:
    config = CONFIG.replace('max_lost: "20%"', "max_lost: 1")
    run_task(make_task(tmp_path, config=config), backend="pandas", lineage=True)
    got = {e["rule"]: e for e in record(tmp_path)["expectations"]}
    assert got["rows_from_people"]["passed"] and got["rows_from_people"]["failed"] == 1


def test_transform_returning_the_quarantine_output_is_refused(tmp_path: Path) -> None:
    code = CODE.replace('return {"scored": people[people["id"] != 6]}',
                        'return {"scored": people, "rejected": people}')
    with pytest.raises(TaskFailed) as err:
        run_task(make_task(tmp_path, code=code), backend="pandas", lineage=True)
    assert "returned 'rejected', the quarantine output of 'scored'; the engine fills it" in str(err.value)
    assert not (tmp_path / "out").exists()


def test_quarantine_rule_on_a_missing_column_stops_the_run(tmp_path: Path) -> None:
    config = CONFIG.replace("{column: city, values", "{column: town, values")
    with pytest.raises(TaskFailed) as err:
        run_task(make_task(tmp_path, config=config), backend="pandas", lineage=True)
    assert "town_one_of (one_of) broken by 5 of 5 (no column 'town')" in str(err.value)
    assert not (tmp_path / "out").exists()
