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

EXAMPLES = int(os.environ.get("UBUNYE_ORACLE_EXAMPLES", "80"))


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


def test_the_generator_reaches_every_corner() -> None:
    """The strategy reaches every kind (at the top, nested, as a map key), the hard values, names
    that differ by case (guards against a narrowed strategy; kinds and values drawn apart, cheaply)."""
    import datetime as dt
    import math
    from decimal import Decimal

    from hypothesis import strategies as st

    from ubunye.hashing.temporal import Days, Micros

    seen: set[str] = set()

    def walk(kind: O.K.Kind, depth: int) -> None:
        seen.add(kind.tag if depth == 0 else f"nested {kind.tag}")
        if kind.tag == "map":
            seen.add(f"key {kind.children[0].tag}")
        for child in kind.children:
            walk(child, depth + 1)

    def corner(value: object, kind: O.K.Kind) -> None:
        if isinstance(value, float) and (math.isnan(value) or value == 0 and math.copysign(1, value) < 0):
            seen.add("nan or -0.0")
        elif isinstance(value, float) and 0 < abs(value) < 2.2250738585072014e-308:
            seen.add("subnormal")
        elif isinstance(value, (Days, Micros)):
            seen.add("far year")
        elif isinstance(value, dt.datetime) and value.tzinfo is not None and value.fold:
            seen.add("fold")
        elif isinstance(value, Decimal) and -value.as_tuple().exponent > kind.scale:
            seen.add("beyond scale")
        elif isinstance(value, str) and any("\ud800" <= c <= "\udfff" for c in value):
            seen.add("surrogate")

    @settings(max_examples=500)
    @given(O.kinds(2), O.names(0, 4))
    def kinds_and_names(kind: O.K.Kind, names: list[str]) -> None:
        walk(kind, 0)
        if len({n.lower() for n in names}) < len(names):
            seen.add("names differing by case")

    @settings(max_examples=200)
    @given(st.sampled_from(["float64", "float32", "date", "timestamp", "timestamp_ntz", "string", "decimal"])
           .flatmap(lambda t: st.tuples(O.decimal_kinds() if t == "decimal" else st.just(O.K.scalar(t))))
           .flatmap(lambda k: st.tuples(st.just(k[0]), O.values(k[0], wild=True))))
    def hard_values(kv: tuple[O.K.Kind, object]) -> None:
        corner(kv[1], kv[0])

    kinds_and_names()
    hard_values()
    tags = {"int8", "int64", "float32", "float64", "bool", "string", "binary", "date", "timestamp",
            "timestamp_ntz", "decimal", "list", "map", "struct"}
    want = tags | {f"key {t}" for t in tags - {"list", "map", "struct"}} | {
        "nested struct", "nested map", "nested list", "nan or -0.0", "subnormal", "far year", "fold",
        "beyond scale", "surrogate", "names differing by case"}
    assert want <= seen, sorted(want - seen)
