"""A task in the ubunye-engine 0.8.0 expectations form (rules, quarantine, reconcile),
run on pandas by tests/test_expectation_sets_engine.py and on Spark and pandas by
integration/test_expectation_sets_spark.py."""
from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

PEOPLE = pa.table(
    {
        "id": pa.array([1, 2, 3, 4, 5, 6], pa.int64()),
        "name": pa.array(["Thabo", "anna", "Sipho", "Lerato", "Zoë", "Gone"], pa.string()),
        "score": pa.array([71.5, 40.0, -1.0, 88.0, 120.0, 50.0], pa.float64()),
        "amount": pa.array([10, 20, 30, 40, 50, 5], pa.int64()),
        "city": pa.array(["Durban", "Soweto", "Durban", "Paris", "Cape Town", None], pa.string()),
    }
)

CONFIG = """
MODEL: etl
VERSION: "0.8.0"
CONFIG:
  inputs:
    people: {format: parquet, path: "{{ task_dir }}/../../../data/people.parquet"}
  outputs:
    scored: {format: parquet, path: "{{ task_dir }}/../../../out/scored"}
    rejected: {format: parquet, path: "{{ task_dir }}/../../../out/rejected"}
  expectations:
    people:
      rules:
        - columns: {id: int64, score: [float64, float32]}
    scored:
      rules:
        - not_null: id
        - unique: id
        - between: {column: score, min: 0, max: 100}
          severity: quarantine
        - one_of: {column: city, values: [Durban, Soweto]}
          severity: quarantine
          description: cities we deliver to
        - matches: {column: name, pattern: "[A-Z].*"}
          severity: warn
        - row_count: {min: 1}
      quarantine: rejected
      max_quarantine_rate: 0.6
      reconcile:
        - input: people
          rows: {max_lost: "20%", max_gained: 0}
          sum: {column: amount, tolerance: 5}
"""

CODE = """
from ubunye import Task


class Score(Task):
    def transform(self, sources):
        people = sources["people"]
        return {"scored": people[people["id"] != 6]}
"""


def make_task(root: Path, config: str = CONFIG, code: str = CODE) -> Path:
    """Write the data and the task folder under ``root``; returns the task folder."""
    (root / "data").mkdir(parents=True, exist_ok=True)
    pq.write_table(PEOPLE, root / "data" / "people.parquet")
    task = root / "shop" / "orders" / "scored"
    task.mkdir(parents=True, exist_ok=True)
    (task / "config.yaml").write_text(config, encoding="utf-8")
    (task / "transformations.py").write_text(code, encoding="utf-8")
    return task
