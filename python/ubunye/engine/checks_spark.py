"""Counting expectation breaks on a Spark DataFrame: one aggregate for every
row rule of a frame (one scan, which can also hash the frame), plus one for
each ``unique`` rule."""
from __future__ import annotations

from decimal import Decimal
from functools import reduce
from typing import Any, Optional, Sequence

from ubunye.engine.expectations import Outcome, Rule, check_columns, missing_columns, not_numbers

NUMERIC = ("byte", "short", "integer", "long", "float", "double", "decimal")  # Spark's typeName()s


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
    types = {f.name: f.dataType.typeName() for f in df.schema.fields}
    exprs: list[Any] = [F.count(F.lit(1)).alias("__rows")]
    for i, rule in enumerate(rules):
        cond = _broken(rule, types, F)
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
        elif rule.kind == "unique" and rule.params.get("v080"):
            # 0.8.0: every row of a repeated key, a null key one like any other
            keys = [F.col(_q(c)) for c in rule.key_columns]
            groups = df.groupBy(*keys).agg(F.count(F.lit(1)).alias("__n")).filter(F.col("__n") > 1)
            repeated = groups.agg(F.sum("__n").alias("n")).collect()[0]["n"]
            out.append(Outcome(int(repeated or 0), rows))
        elif rule.kind == "unique":
            # null keys left out by a filter (dropna names columns unquoted: a name with a dot or a
            # backtick failed), counted under a name no key column has (a key named "count" was ambiguous)
            keys = [F.col(_q(c)) for c in rule.key_columns]
            present = reduce(lambda a, b: a & b, [k.isNotNull() for k in keys])
            groups = df.filter(present).groupBy(*keys).agg(F.count(F.lit(1)).alias("__n"))
            repeats = groups.agg(F.sum(F.col("__n") - 1).alias("n")).collect()[0]["n"]
            out.append(Outcome(int(repeats or 0), rows))
        else:
            failed = int(first[f"__r{i}"] or 0)
            kind = types.get(str(rule.column))
            odd = failed and _numbers_against_text(rule, kind)
            out.append(Outcome(failed, rows, not_numbers(rule, kind) if odd else None))
    return out, [first[f"__x{j}"] for j in range(len(extra))]


def _q(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _numbers_against_text(rule: Rule, kind: Optional[str]) -> bool:
    """A ``between`` rule with a number for a bound on a column whose values are no numbers: each
    value breaks it, as on pandas (where comparing them fails). Bounds that are texts compare as
    texts, and the 0.8.0 form keeps 0.8.0's comparison (Spark's cast)."""
    bounds = [rule.params.get(k) for k in ("min", "max")]
    numbers = any(isinstance(b, (int, float, Decimal)) and not isinstance(b, bool) for b in bounds)
    return rule.kind == "between" and kind not in NUMERIC and numbers and not rule.params.get("v080")


def _broken(rule: Rule, types: dict[str, str], F: Any) -> Optional[Any]:
    """A boolean Column true on the rows that break a row rule (None: not a row rule); ``types``:
    the frame's columns and their Spark type names."""
    if rule.kind in ("row_count", "columns", "unique") or missing_columns(rule, list(types)):
        return None
    col = F.col(_q(str(rule.column)))
    nan = F.isnan(col) if types[str(rule.column)] in ("double", "float") else F.lit(False)
    if _numbers_against_text(rule, types.get(str(rule.column))):
        return col.isNotNull()  # no value of it is a number: none lies in the range (not a cast's guess)
    if rule.params.get("v080") and rule.kind != "matches":
        # the 0.8.0 form: NaN in a float column is missing, as null is (not_null breaks, between and one_of pass)
        if rule.kind == "not_null":
            return col.isNull() | nan
        return col.isNotNull() & ~nan & ~_inside(rule, col, F)
    if rule.kind == "not_null":
        return col.isNull()
    if rule.kind == "between":  # NaN sorts above every number in Spark; treat it as outside any range.
        return col.isNotNull() & (~_inside(rule, col, F) | nan)
    if rule.kind == "one_of":
        return col.isNotNull() & ~_inside(rule, col, F)
    from ubunye.engine.regex import java_regex

    # matches: the whole value, "." matching line ends too (as re.fullmatch with DOTALL); the 0.8.0
    # form: found anywhere (Java's find), "." stops at "\n" only. Python's syntax, Java's ASCII classes.
    pattern = java_regex(rule.params["pattern"], anywhere=bool(rule.params.get("anywhere")))
    return col.isNotNull() & ~col.cast("string").rlike(pattern)


def _inside(rule: Rule, col: Any, F: Any) -> Any:
    """True where a non-null value passes a between or one_of rule."""
    if rule.kind == "one_of":
        return col.isin([v for v in rule.params["values"] if v is not None])  # nulls pass anyway
    lo, hi = rule.params.get("min"), rule.params.get("max")
    inside = F.lit(True)
    if lo is not None:
        inside = inside & (col >= F.lit(lo))
    if hi is not None:
        inside = inside & (col <= F.lit(hi))
    return inside


def split_spark(df: Any, rules: Sequence[Rule], column: str) -> tuple[Any, Any]:
    """The rows breaking none of ``rules``, and those breaking one or more with ``column``
    naming the rules each broke (comma-joined, in rule order)."""
    from ubunye.spark._compat import functions_for

    F = functions_for(df)
    types = {f.name: f.dataType.typeName() for f in df.schema.fields}
    conds = [(r, F.coalesce(_broken(r, types, F), F.lit(False))) for r in rules
             if _broken(r, types, F) is not None]
    hit = reduce(lambda a, b: a | b, [c for _, c in conds]) if conds else F.lit(False)
    reasons = F.concat_ws(",", *[F.when(c, F.lit(r.name)) for r, c in conds]) if conds else F.lit("")
    quarantined = df.filter(hit).withColumn(column, reasons.cast("string"))
    return df.filter(~hit), quarantined


def measure_spark(df: Any, columns: Sequence[str]) -> tuple[int, dict[str, Any]]:
    """The row count and the totals of the numeric ``columns`` the frame has (nulls and
    NaN left out), in one scan; a column missing or not numeric is left out."""
    from ubunye.spark._compat import functions_for

    F = functions_for(df)
    types = {f.name: f.dataType.typeName() for f in df.schema.fields}  # a decimal's is "decimal", any precision
    floats = ("float", "double")
    wanted = [c for c in columns if types.get(c) in ("byte", "short", "integer", "long", "decimal") + floats]
    exprs = [F.count(F.lit(1)).alias("__rows")]
    for i, name in enumerate(wanted):
        col = F.col(_q(name))
        # Spark's sum: long for whole numbers, decimal for decimals, double for floats (NaN left out)
        exprs.append(F.sum(F.when(~F.isnan(col), col) if types[name] in floats else col).alias(f"__s{i}"))
    first = df.agg(*exprs).collect()[0]
    sums: dict[str, Any] = {}
    for i, name in enumerate(wanted):
        value = first[f"__s{i}"]
        sums[name] = value if value is not None else 0.0 if types[name] in floats else 0
    return int(first["__rows"]), sums


def materialise_spark(df: Any) -> Any:
    """``df`` evaluated once, into blocks the later queries read instead of the plan.

    A quarantine splits one frame into two outputs; evaluated once per count and
    once per write, a non-deterministic column (``rand()``, ``uuid()``, a
    non-deterministic UDF, an unstable source) can put a row in both outputs or
    in neither. ``localCheckpoint(eager=True)`` runs the plan once now and cuts the
    lineage: the blocks (memory and disk) are read from then on, and a lost block
    fails the query instead of computing the rows again. ``persist()`` would not
    do: an evicted block is recomputed from the plan, silently, with other values.
    """
    try:
        return df.localCheckpoint(eager=True)
    except Exception as exc:  # noqa: BLE001 - a session that cannot hold it: no split we can vouch for
        from ubunye.engine.errors import EngineError

        text = str(exc)
        java = getattr(exc, "java_exception", None)  # py4j's own error (3.5): its first line names only the call
        if java is not None:
            try:
                text = str(java.toString())
            except Exception:  # noqa: BLE001 - the JVM gone: keep py4j's line
                pass
        first = (text.strip().splitlines() or [type(exc).__name__])[0]
        raise EngineError(f"quarantine needs the output evaluated once (localCheckpoint), which this "
                          f"session refused: {first}") from exc
