"""Counting expectation breaks on a pandas DataFrame (vectorised)."""
from __future__ import annotations

import re
from typing import Any, Sequence

from ubunye.engine.expectations import Outcome, Rule, check_columns, missing_columns


def pandas_kinds(df: Any) -> list[tuple[str, str]]:
    """The rows-v1 canonical ``(name, kind)`` pairs of a pandas frame's columns."""
    import pyarrow as pa

    from ubunye.hashing.arrow import arrow_kinds

    schema = pa.Schema.from_pandas(df.iloc[:0], preserve_index=False)
    return list(arrow_kinds(schema))


def evaluate_pandas(df: Any, rules: Sequence[Rule]) -> list[Outcome]:
    """Check every rule on ``df``; one :class:`Outcome` per rule, in order."""
    rows = int(len(df))
    out: list[Outcome] = []
    for rule in rules:
        out.append(_one(df, rule, rows))
    return out


def _one(df: Any, rule: Rule, rows: int) -> Outcome:
    if rule.kind == "row_count":
        lo, hi = rule.params.get("min"), rule.params.get("max")
        bad = (lo is not None and rows < lo) or (hi is not None and rows > hi)
        return Outcome(int(bad), 1, f"{rows} rows" if bad else None)
    if rule.kind == "columns":
        return check_columns(rule, pandas_kinds(df))
    missing = missing_columns(rule, [str(c) for c in df.columns])
    if missing:
        return Outcome(rows, rows, missing)
    if rule.kind == "unique":
        keys = df[list(rule.key_columns)]
        keys = keys[keys.notna().all(axis=1)]
        return Outcome(int(keys.duplicated(keep="first").sum()), rows)
    col = df[rule.column]
    present = col.notna()
    if rule.kind == "not_null":
        return Outcome(int((~present).sum()), rows)
    values = col[present]
    if rule.kind == "between":
        bad = values.map(lambda v: _outside(v, rule.params.get("min"), rule.params.get("max")))
    elif rule.kind == "one_of":
        allowed = set(rule.params["values"])
        bad = ~values.isin(allowed)
    else:  # matches
        pattern = re.compile(rule.params["pattern"], re.DOTALL)
        bad = values.map(lambda v: pattern.fullmatch(str(v)) is None)
    return Outcome(int(bad.astype(bool).sum()), rows)


def _outside(value: Any, lo: Any, hi: Any) -> bool:
    # NaN compares false to everything: outside any range.
    if lo is not None and not value >= lo:
        return True
    if hi is not None and not value <= hi:
        return True
    return False
