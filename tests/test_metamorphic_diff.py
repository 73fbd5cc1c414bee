"""Metamorphic tests of ``lineage compare``, ``diff`` and ``diff --rows`` on the pandas engine
(issue 42): a generated dataset and edit script, both runs through the real engine, the three
commands held to an oracle counted from the edit (tests/metamorphic_diff.py)."""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings

import ubunye
from metamorphic_diff import MAX_EXAMPLES, Case, cases, check, run_both


def run_case(case: Case) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        run_both(Path(tmp), case, "pandas")
        check(Path(tmp), case)


@settings(max_examples=MAX_EXAMPLES or 12)
@given(cases)
def test_compare_and_diff_report_exactly_the_edit(case: Case) -> None:
    run_case(case)


def test_a_failed_run_names_its_outputs_not_written_beside_a_changed_input() -> None:
    """Found by the generator: run B's code raises after its input changed; ``diff`` listed the
    changed input and "run B did not succeed" but not output ``copy`` (hash unknown: not written),
    and ``diff --rows`` named neither that output nor the failed run."""
    run_case(Case(rows=((1, "ann", 20),), edits=(("insert", 0, (2, "bob", 21)),), fail="b"))


@pytest.mark.parametrize("case, code", [
    (Case(rows=((1, "ann", 20), (2, "bob", 21)), edits=(("rotate", 1),), reorder=True), 0),  # order only
    (Case(rows=((1, "ann", 20), (2, "bob", 21)), edits=(("duplicate", 0),), extra_a=True, fail="b"), 1),
])
def test_the_exit_codes_in_a_real_process(case: Case, code: int) -> None:
    """The exit codes of docs/safety.md's table, as a shell sees them (the in-process runs above
    read ``SystemExit``): 0 only when proven the same."""
    with tempfile.TemporaryDirectory() as tmp:
        run_both(Path(tmp), case, "pandas")
        env = {**os.environ, "PYTHONPATH": str(Path(ubunye.__file__).resolve().parents[1])}
        for args in (["compare"], ["diff"], ["diff", "--rows"]):
            got = subprocess.run([sys.executable, "-m", "ubunye", "lineage", *args, "-d", tmp, "-u", "shop", "-p",
                                  "orders", "-t", "clean"], env=env, capture_output=True, text=True, timeout=120)
            assert got.returncode == code and "Traceback" not in got.stderr, (args, got.stdout, got.stderr)
