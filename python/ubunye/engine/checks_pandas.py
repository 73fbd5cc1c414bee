"""Counting expectation breaks on a pandas DataFrame (vectorised)."""
from __future__ import annotations

from typing import Any, Sequence

from ubunye.engine.expectations import Outcome, Rule, check_columns, missing_columns, not_numbers


def pandas_kinds(df: Any) -> list[tuple[str, str]]:
    """The rows-v1 canonical ``(name, kind)`` pairs of a pandas frame's columns: the kinds hashing
    gives them, read from the values (an object column's kind is its values' kind, a naive
    timestamp is an instant); the index is no column here."""
    from ubunye.hashing.arrow import arrow_kinds
    from ubunye.hashing.frames import pandas_to_arrow

    return list(arrow_kinds(pandas_to_arrow(df, index=False).schema))


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
        if rule.params.get("v080"):  # 0.8.0: every row of a repeated key, a null key one like any other
            return Outcome(int(keys.duplicated(keep=False).sum()), rows)
        keys = keys[keys.notna().all(axis=1)]
        return Outcome(int(keys.duplicated(keep="first").sum()), rows)
    failed = int(broken_rows(df, rule).sum())
    col = df[rule.column]
    if rule.kind == "between" and failed and not any(dtype_is(col.dtype, w) for w in ("integer", "float", "decimal")):
        return Outcome(failed, rows, not_numbers(rule, str(col.dtype)))
    return Outcome(failed, rows)


def broken_rows(df: Any, rule: Rule) -> Any:
    """A numpy bool array, true on the rows breaking a row rule (not_null, between,
    one_of, matches) whose column the frame has."""
    import numpy as np
    import pandas as pd

    col = df[rule.column]
    present = col.notna().to_numpy(dtype=bool, copy=True)
    if rule.params.get("v080") and rule.kind != "matches" and dtype_is(col.dtype, "float"):
        # the 0.8.0 form: NaN in a float column is missing, as null is (not_null breaks, between and one_of pass)
        present &= ~_nan_mask(col)
    if rule.kind == "not_null":
        return ~present
    values = col[present]
    if rule.kind == "between":
        bad = values.map(lambda v: _outside(v, rule.params.get("min"), rule.params.get("max")))
    elif rule.kind == "one_of":
        allowed = set(rule.params["values"])
        bad = ~values.isin(allowed)
    else:  # matches
        from ubunye.engine.regex import python_regex

        if rule.params.get("anywhere"):  # the 0.8.0 form: found anywhere, "." stops at "\n"
            found = python_regex(rule.params["pattern"], anywhere=True)
            bad = values.map(lambda v: found.search(str(v)) is None)
        else:  # ASCII classes, as Java's on Spark (ubunye.engine.regex)
            pattern = python_regex(rule.params["pattern"])
            bad = values.map(lambda v: pattern.fullmatch(str(v)) is None)
    mask = np.zeros(len(df), dtype=bool)
    mask[np.flatnonzero(present)] = bad.astype(bool).to_numpy(dtype=bool)
    return mask


def split_pandas(df: Any, rules: Sequence[Rule], column: str) -> tuple[Any, Any]:
    """The rows breaking none of ``rules``, and those breaking one or more with ``column``
    naming the rules each broke (comma-joined, in rule order)."""
    import numpy as np
    import pandas as pd
    import pyarrow as pa

    masks = [broken_rows(df, r) for r in rules]
    hit = np.logical_or.reduce(masks) if masks else np.zeros(len(df), dtype=bool)
    reasons = [",".join(r.name for r, m in zip(rules, masks) if m[i]) for i in np.flatnonzero(hit)]
    quarantined = df[hit].copy()
    quarantined[column] = pd.Series(reasons, index=quarantined.index, dtype=pd.ArrowDtype(pa.string()))
    return df[~hit], quarantined


def measure_pandas(df: Any, columns: Sequence[str]) -> tuple[int, dict[str, Any]]:
    """The row count and the totals of the numeric ``columns`` the frame has (nulls and
    NaN left out; integers summed exactly); a column missing or not numeric is left out."""
    import pandas as pd

    sums: dict[str, Any] = {}
    for name in columns:
        if name not in df.columns:
            continue
        col = df[name]
        if not any(dtype_is(col.dtype, what) for what in ("integer", "float", "decimal")):
            continue
        values = col[col.notna()]
        if dtype_is(col.dtype, "integer"):
            sums[name] = sum(int(v) for v in values)
        else:
            floats = values.astype("float64")
            sums[name] = float(floats[floats == floats].sum())
    return int(len(df)), sums


def _nan_mask(col: Any) -> Any:
    """A numpy bool array, true where a float column holds NaN (not where it holds null)."""
    import numpy as np

    if getattr(col.dtype, "pyarrow_dtype", None) is not None:  # pandas 1.5's to_numpy has no na_value here
        import pyarrow as pa
        import pyarrow.compute as pc

        return np.asarray(pc.fill_null(pc.is_nan(pa.chunked_array(pa.array(col.array))), False), dtype=bool)
    return np.isnan(col.to_numpy(dtype="float64", na_value=np.nan))


def dtype_is(dtype: Any, what: str) -> bool:
    """Whether a column's dtype is ``"integer"``, ``"float"`` or ``"decimal"`` (booleans are none), for
    numpy dtypes and ``pd.ArrowDtype`` alike: pandas before 2.0 (1.5.3 on Databricks 15.4 LTS)
    answers False for every ``pd.ArrowDtype`` in ``pd.api.types``, so the Arrow type is asked."""
    import pandas as pd

    arrow = getattr(dtype, "pyarrow_dtype", None)
    if arrow is not None:
        import pyarrow.types as pt

        return bool({"integer": pt.is_integer, "float": pt.is_floating, "decimal": pt.is_decimal}[what](arrow))
    if pd.api.types.is_bool_dtype(dtype) or what == "decimal":
        return False
    return bool(pd.api.types.is_integer_dtype(dtype) if what == "integer" else pd.api.types.is_float_dtype(dtype))


def _outside(value: Any, lo: Any, hi: Any) -> bool:
    # NaN compares false to everything: outside any range; so is a value that is no number
    # (a string, a date: comparing it with a number raises TypeError)
    try:
        if lo is not None and not value >= lo:
            return True
        if hi is not None and not value <= hi:
            return True
    except TypeError:
        return True
    return False
