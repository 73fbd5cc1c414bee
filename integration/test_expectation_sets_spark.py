"""The ubunye-engine 0.8.0 expectations form on Spark: the same task (rules, quarantine,
reconcile) on Spark and on pandas leaves identical receipts (output hashes, the
quarantine output's included, and expectation entries); a quarantine rate above the
limit stops the Spark run before any write."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from expectations080_task import CONFIG, make_task  # noqa: E402
from ubunye import run_task  # noqa: E402
from ubunye.engine.runner import TaskFailed  # noqa: E402


def record(task: Path, run_id: str) -> dict[str, Any]:
    return json.loads(next((task.parents[2] / ".ubunye/lineage/shop/orders/scored").glob(f"{run_id}.json")).read_text())


def receipt(rec: dict[str, Any]) -> dict[str, Any]:
    steps = [(s["name"], s["row_count"], s["schema_hash"], s["data_hash"]) for s in rec["inputs"] + rec["outputs"]]
    return {"status": rec["status"], "steps": steps, "expectations": rec["expectations"]}


# Without rules of its own the input is hashed while the run reads it (Spark): the reconcile's
# count of it, before the transform, must not spoil that.
NO_INPUT_RULES = CONFIG.replace("    people:\n      rules:\n        - columns: {id: int64, score: [float64, float32]}\n", "")


@pytest.mark.parametrize("config", [CONFIG, NO_INPUT_RULES], ids=["input-rules", "no-input-rules"])
def test_same_0_8_0_task_on_spark_and_pandas_leaves_identical_receipts(spark: Any, tmp_path: Path,
                                                                       config: str) -> None:
    receipts = {}
    for label, options in {"spark": dict(backend="spark", spark=spark), "pandas": dict(backend="pandas")}.items():
        task = make_task(tmp_path / label, config=config)
        result = run_task(task, lineage=True, reuse_hashes=False, **options)
        assert result.ok, result.reason()
        receipts[label] = receipt(record(task, result.run_id))
    spark_receipt = receipts["spark"]
    assert [s[:2] for s in spark_receipt["steps"]] == [("people", 6), ("scored", 2), ("rejected", 3)]
    assert all(s[3] is not None for s in spark_receipt["steps"])
    rules = {e["rule"]: e for e in spark_receipt["expectations"]}
    assert (rules["score_between"]["failed"], rules["city_one_of"]["failed"]) == (2, 2)
    assert rules["rows_from_people"]["passed"] and rules["amount_sum_from_people"]["passed"]
    assert receipts["spark"] == receipts["pandas"]
    written = spark.read.parquet(str(tmp_path / "spark/out/rejected")).collect()
    assert sorted((r["id"], r["_ubunye_failed_rules"]) for r in written) == [
        (3, "score_between"), (4, "city_one_of"), (5, "score_between,city_one_of")]


def test_quarantine_rate_above_the_limit_stops_spark_before_any_write(spark: Any, tmp_path: Path) -> None:
    task = make_task(tmp_path, config=CONFIG.replace("max_quarantine_rate: 0.6", "max_quarantine_rate: 0.5"))
    with pytest.raises(TaskFailed, match=r"3 of 5 rows quarantined \(60.0%\), more than max_quarantine_rate 50.0%"):
        run_task(task, backend="spark", spark=spark, lineage=True)
    assert not (tmp_path / "out").exists()
