"""Metamorphic tests of ``lineage compare``, ``diff`` and ``diff --rows`` on the pandas engine
(issue 42): a generated dataset and edit script, both runs through the real engine, the three
commands held to an oracle counted from the edit (tests/metamorphic_diff.py)."""
from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from metamorphic_diff import MAX_EXAMPLES, Case, cases, check, run_both


def run_case(case: Case) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        run_both(Path(tmp), case, "pandas")
        check(Path(tmp), case)


@settings(max_examples=MAX_EXAMPLES or 12)
@given(cases)
def test_compare_and_diff_report_exactly_the_edit(case: Case) -> None:
    run_case(case)
