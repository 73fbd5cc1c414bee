"""Parity of Spark and the pandas reader on inputs read with the default options.

A first set of cases for the parity harness (integration/parity.py); the cases of
each option, inference rule and layout live in test_parity_<area>.py files.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import parity
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


def test_only_the_readers_own_one_line_refusals_count_as_refusals(tmp_path: Path) -> None:
    """A TypeError (a bug), a bare ValueError or a refusal of several lines is not "refused": the
    harness raises, so the case fails instead of passing as "both refused"."""
    from ubunye.io import UnreadablePath, read_arrow

    missing = tmp_path / "nowhere.csv"
    with pytest.raises(UnreadablePath) as refused:
        read_arrow(missing, "csv")
    assert parity.pandas_refusal(refused.value) is refused.value
    for exc in (TypeError("unsupported operand"), ValueError("a bare one"), UnreadablePath("two\nlines")):
        with pytest.raises(AssertionError, match="not a one-line refusal of its own"):
            parity.pandas_refusal(exc)


def test_a_pandas_reader_bug_fails_the_case_even_when_spark_refuses(
        spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Spark refuses a missing path; a pandas reader that fails with a TypeError there was counted
    as "both refuse" before: now the harness raises."""
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise TypeError("a bug in the reader")

    monkeypatch.setattr(parity, "pandas_read", broken)
    with pytest.raises(AssertionError, match="TypeError, not a one-line refusal"):
        check(spark, tmp_path / "nowhere.csv", "csv", case="harness-type-error", record=False)
    monkeypatch.undo()
    assert check(spark, tmp_path / "nowhere.csv", "csv", case="harness-missing", record=False).kind == "both-refuse"
