"""Counting expectation breaks on a Spark DataFrame: one aggregate for every
row rule of a frame (one scan, which can also hash the frame), plus one for
each ``unique`` rule."""
from __future__ import annotations

from typing import Any, Optional, Sequence

from ubunye.engine.expectations import Outcome, Rule, check_columns, missing_columns


def spark_frame_kinds(df: Any) -> list[tuple[str, str]]:
    """The rows-v1 canonical ``(name, kind)`` pairs of a Spark frame's columns."""
    from ubunye.spark import spark_kinds

    return list(spark_kinds(df.schema))


def evaluate_spark(df: Any, rules: Sequence[Rule]) -> list[Outcome]:
    """Check every rule on ``df``; one :class:`Outcome` per rule, in order."""
    return evaluate_spark_with(df, rules)[0]


def evaluate_spark_with(df: Any, rules: Sequence[Rule], extra: Sequence[Any] = ()) -> tuple[list[Outcome], list[Any]]:
    """Check every rule on ``df`` and compute ``extra`` aggregate Columns in the same scan.

    Returns the outcomes (one per rule) and the values of ``extra`` (in order);
    the engine passes the rows-v1 sums aggregate here to hash an input in the
    scan that checks it.
    """
    from ubunye.spark._compat import functions_for

    F = functions_for(df)  # classic or Connect functions, by the frame's own kind

    columns = list(df.columns)
    floats = {f.name for f in df.schema.fields if f.dataType.typeName() in ("double", "float")}
    exprs: list[Any] = [F.count(F.lit(1)).alias("__rows")]
    for i, rule in enumerate(rules):
        cond = _broken(rule, columns, floats, F)
        if cond is not None:
            exprs.append(F.sum(F.when(cond, 1).otherwise(0)).alias(f"__r{i}"))
    exprs += [column.alias(f"__x{j}") for j, column in enumerate(extra)]
    first = df.agg(*exprs).collect()[0]
    rows = int(first["__rows"])
    out: list[Outcome] = []
    for i, rule in enumerate(rules):
        if rule.kind == "row_count":
            lo, hi = rule.params.get("min"), rule.params.get("max")
            bad = (lo is not None and rows < lo) or (hi is not None and rows > hi)
            out.append(Outcome(int(bad), 1, f"{rows} rows" if bad else None))
        elif rule.kind == "columns":
            out.append(check_columns(rule, spark_frame_kinds(df)))
        elif missing_columns(rule, columns):
            out.append(Outcome(rows, rows, missing_columns(rule, columns)))
        elif rule.kind == "unique":
            keys = [F.col(_q(c)) for c in rule.key_columns]
            groups = df.select(*keys).dropna().groupBy(*keys).count()
            repeats = groups.agg(F.sum(F.col("count") - 1).alias("n")).collect()[0]["n"]
            out.append(Outcome(int(repeats or 0), rows))
        else:
            out.append(Outcome(int(first[f"__r{i}"] or 0), rows))
    return out, [first[f"__x{j}"] for j in range(len(extra))]


def _q(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _broken(rule: Rule, columns: Sequence[str], floats: set[str], F: Any) -> Optional[Any]:
    """A boolean Column true on the rows that break a row rule (None: not a row rule)."""
    if rule.kind in ("row_count", "columns", "unique") or missing_columns(rule, columns):
        return None
    col = F.col(_q(str(rule.column)))
    if rule.kind == "not_null":
        return col.isNull()
    if rule.kind == "between":
        lo, hi = rule.params.get("min"), rule.params.get("max")
        inside = F.lit(True)
        if lo is not None:
            inside = inside & (col >= F.lit(lo))
        if hi is not None:
            inside = inside & (col <= F.lit(hi))
        # NaN sorts above every number in Spark; treat it as outside any range.
        nan = F.isnan(col) if rule.column in floats else F.lit(False)
        return col.isNotNull() & (~inside | nan)
    if rule.kind == "one_of":
        allowed = [v for v in rule.params["values"] if v is not None]  # nulls pass anyway
        return col.isNotNull() & ~col.isin(allowed)
    # matches: the whole value, "." matching line ends too (as re.fullmatch with DOTALL)
    pattern = "(?s)^(?:" + rule.params["pattern"] + r")\z"
    return col.isNotNull() & ~col.cast("string").rlike(pattern)

