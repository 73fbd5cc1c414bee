"""Metamorphic tests of ``lineage compare``, ``diff`` and ``diff --rows`` on the Spark engine
(issue 42): the generator and oracle of the pandas suite (tests/metamorphic_diff.py), both runs
on the shared session, a fixed seed and few examples."""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, seed, settings

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from metamorphic_diff import MAX_EXAMPLES, Case, cases, check, run_both  # noqa: E402


@seed(42)
@settings(max_examples=MAX_EXAMPLES or 1, derandomize=False, database=None, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(case=cases)
@example(case=Case(rows=((1, "ann", 20), (3, "bob", 21)), edits=(("insert", 0, (2, "bob", 21)), ("duplicate", 1)),
                   fail="b", extra_a=True, drop_column="output", gone="a"))  # the fast suite's regression
@example(case=Case(rows=((1, "ann", 20), (5, "zoë", 21), (7, "de la", 22)), reorder=True, extra_b=True, gone="b",
                   edits=(("update", 1, "name", "bob"), ("delete", 2), ("insert", 0, (9, "ann", 18)), ("duplicate", 0))))
def test_compare_and_diff_report_exactly_the_edit_on_spark(spark: Any, case: Case) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        run_both(Path(tmp), case, "spark")
        check(Path(tmp), case, every_pass=False)
