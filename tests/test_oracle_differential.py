"""Differential suite, fast variant (issue 42): every Python path hashes a generated frame alike.

The generator (tests/oracle_frames.py) draws frames over every kind of rows-v1; each is hashed by
the port (row by row from Python values), the Arrow table through the vectorised path and the
reference, the table in chunks with its instants in another zone, pandas (Arrow-backed), polars
and DuckDB: all give one ``(schema_hash, data_hash, rows)`` or all refuse. A failing example,
shrunk, is kept in tests/fixtures/oracle/ and replayed by :func:`test_kept_cases_agree`.
The Spark variant (integration/test_oracle_spark.py) adds Spark's native and fallback engines.
"""
from __future__ import annotations

import os

import pytest
from hypothesis import given, settings

import oracle_frames as O

EXAMPLES = int(os.environ.get("UBUNYE_ORACLE_EXAMPLES", "150"))


def disagreement(case: O.Case) -> str:
    """Empty when every path agrees; else one line per distinct outcome, naming its paths."""
    outcomes = O.python_outcomes(case)
    by_outcome: dict[O.Outcome, list[str]] = {}
    for path, result in outcomes.items():
        by_outcome.setdefault(result, []).append(path)
    if len(by_outcome) == 1:
        return ""
    return "\n".join(f"{', '.join(paths)}: {result}" for result, paths in by_outcome.items())


@settings(max_examples=EXAMPLES)
@given(O.cases())
def test_python_paths_agree(case: O.Case) -> None:
    found = disagreement(case)
    assert not found, found + "\n" + O.case_to_json(case)


@pytest.mark.parametrize("name,case", O.fixture_cases(), ids=lambda x: x if isinstance(x, str) else "")
def test_kept_cases_agree(name: str, case: O.Case) -> None:
    found = disagreement(case)
    assert not found, f"{name}:\n{found}"
