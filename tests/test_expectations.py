"""Expectation rules on pandas frames: counts of breaking rows, severity, record entries."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from ubunye.engine.checks_pandas import evaluate_pandas
from ubunye.engine.expectations import broken_line, parse_rule, result_entry

FILE = Path("config.yaml")


def frame() -> Any:
    import pandas as pd

    table = pa.table(
        {
            "id": pa.array([1, 2, 2, 3, None], pa.int64()),
            "age": pa.array([20.0, float("nan"), 17.0, None, 130.0], pa.float64()),
            "city": pa.array(["Durban", "Soweto", None, "Paris", "Durban"], pa.string()),
            "email": pa.array(["a@b.za", "bad", None, "x@y.com", "c@d"], pa.string()),
        }
    )
    return table.to_pandas(types_mapper=pd.ArrowDtype)


def check(**rule: Any) -> tuple[int, int, Any]:
    parsed = parse_rule(rule, FILE, "r")
    (outcome,) = evaluate_pandas(frame(), [parsed])
    return outcome.failed, outcome.total, outcome.detail


def test_not_null_counts_nulls_but_not_nan() -> None:
    assert check(kind="not_null", column="age")[:2] == (1, 5)
    assert check(kind="not_null", column="id")[:2] == (1, 5)


def test_unique_counts_repeated_non_null_keys() -> None:
    assert check(kind="unique", column="id")[:2] == (1, 5)
    assert check(kind="unique", columns=["id", "city"])[:2] == (0, 5)
    assert check(kind="unique", column="city")[:2] == (1, 5)


def test_between_is_inclusive_and_nan_is_outside() -> None:
    assert check(kind="between", column="age", min=18, max=130)[:2] == (2, 5)  # NaN and 17
    assert check(kind="between", column="age", max=100)[:2] == (2, 5)  # NaN and 130
    assert check(kind="between", column="id", min=2)[:2] == (1, 5)


def test_one_of_and_matches_let_nulls_pass() -> None:
    assert check(kind="one_of", column="city", values=["Durban", "Soweto"])[:2] == (1, 5)
    assert check(kind="matches", column="email", pattern=r"[^@]+@[^@]+\.[a-z]+")[:2] == (2, 5)


def test_row_count_and_columns() -> None:
    assert check(kind="row_count", min=1, max=5)[:2] == (0, 1)
    failed, total, detail = check(kind="row_count", min=6)
    assert (failed, total, detail) == (1, 1, "5 rows")
    assert check(kind="columns", columns=["id", "age"])[:2] == (0, 2)
    failed, total, detail = check(kind="columns", columns={"id": "int64", "age": "int64", "zip": "string"})
    assert (failed, total) == (2, 3)
    assert detail == "age is float64, expected int64; zip missing"
    failed, total, detail = check(kind="columns", columns=["id", "age"], exact=True)
    assert (failed, total) == (2, 4) and "city not expected" in detail


def test_missing_column_breaks_the_rule_and_says_so() -> None:
    failed, total, detail = check(kind="not_null", column="nope")
    assert (failed, total, detail) == (5, 5, "no column 'nope'")


def test_record_entry_and_broken_line() -> None:
    rule = parse_rule({"kind": "between", "column": "age", "min": 18, "name": "adult"}, FILE, "r")
    (outcome,) = evaluate_pandas(frame(), [rule])
    entry = result_entry("adults", "output", rule, outcome)
    assert entry == {
        "output": "adults", "rule": "adult", "kind": "between", "severity": "fail", "column": "age",
        "failed": 2, "total": 5, "passed": False, "side": "output",
    }
    assert broken_line(entry) == "adults: adult (between) broken by 2 of 5"


def test_duplicate_rule_names_are_refused() -> None:
    from ubunye.engine.errors import ConfigError
    from ubunye.engine.expectations import parse_rules

    with pytest.raises(ConfigError, match=r"r\[1\].name: rule name 'id_not_null' used twice"):
        parse_rules([{"kind": "not_null", "column": "id"}, {"kind": "not_null", "column": "id"}], FILE, "r")
