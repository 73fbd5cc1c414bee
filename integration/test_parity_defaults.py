"""Parity of Spark and the pandas reader on inputs read with the default options.

A first set of cases for the parity harness (integration/parity.py); the cases of
each option, inference rule and layout live in test_parity_<area>.py files.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from parity import check

CASES = {
    "csv-plain": ("csv", "a,b\n1,x\n2,y\n"),
    "csv-mixed-numbers": ("csv", "a\n1\n2.5\n"),
    "json-plain": ("json", '{"a": 1, "b": "x"}\n{"a": 2}\n'),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_default_reads_agree(spark: Any, tmp_path: Path, case: str) -> None:
    fmt, text = CASES[case]
    path = tmp_path / f"data.{fmt}"
    path.write_text(text)
    outcome = check(spark, path, fmt, case=case)
    assert outcome.kind == "agree", str(outcome)


def test_an_option_the_pandas_reader_does_not_follow_is_a_difference_unless_spark_refuses(
        spark: Any, tmp_path: Path) -> None:
    """The harness itself: sep=';' read by Spark only is reported as 'differ', never as agreement."""
    path = tmp_path / "data.csv"
    path.write_text("a;b\n1;2\n")
    outcome = check(spark, path, "csv", {"sep": ";", "ignoredOption": "x"}, case="harness-sep", record=False)
    if outcome.kind == "agree":  # the pandas reader follows sep now: the harness still compares
        assert "a: int" in outcome.detail and "b: int" in outcome.detail
    else:
        assert outcome.kind == "differ" and "only pandas refused" in outcome.detail, str(outcome)
