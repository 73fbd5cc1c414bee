"""The native engine: the plugin's ``ubunye_rows_v1_sketch`` aggregate.

The canonical line of each row is built and hashed on the executors inside one
aggregation; the driver receives three numbers (row count and the two lane
sums, as ``decimal(20,0)``) and, from the same lanes, the localisation sketch's
cells (``docs/spec/rows-v1-localise.md``; ``ubunye_rows_v1_sums`` gives the three
numbers alone, the only answer of a jar older than the sketch). The functions exist in a session when it started
with the plugin's ``spark.sql.extensions`` (classic sessions and Spark Connect
servers alike), after :func:`ubunye.spark.install` (classic only), or, on a classic
session whose driver has the jar for its line (``spark.jars`` alone), on first use:
Spark 4 registers the jar through its service loader, and on Spark 3.5 (whose pyspark
sessions skip the service loader) :func:`native_available` installs it.
"""
from __future__ import annotations

from typing import Any, Iterable, Optional

from ubunye.hashing.digest import MASK64, LaneSums, Totals
from ubunye.spark import _compat
from ubunye.spark.facts import FIND_FUNCTION, SKETCH_FUNCTION, facts
from ubunye.spark.jar import SUMS_FUNCTION

HASH_FUNCTION = "ubunye_rows_v1"
LINE_FUNCTION = "ubunye_row_line"
_COLUMN = "native.column:"  # session memo: the Column of a function over all columns


def native_available(spark: Any) -> bool:
    """True when the session has the plugin's SQL functions (classic or Connect).

    False also when the functions are there but come from a jar the driver loaded for
    another Spark line or Scala version (:func:`jar_problem`): a jar put on ``spark.jars``
    by hand registers itself through the service loader whatever line it was built for.
    Read from the session's facts (:func:`ubunye.spark.facts.facts`: asked once per
    session; :func:`ubunye.spark.install` has them read again).
    """
    return facts(spark).native


def jar_problem(spark: Any) -> Optional[str]:
    """Why the plugin jar a classic session's driver loaded must not serve it, or None.

    A jar of another Spark line or Scala version put on ``spark.jars`` by hand may load
    and register its functions through Spark's service loader; its functions are then in
    the session but built against other Catalyst internals, so they are not used (both
    versions named). One of the session's facts.
    """
    return facts(spark).mismatch


def column_args(df: Any) -> list[Any]:
    """Every top-level column of ``df``, as one ``*``.

    The star expands to the columns themselves, so names that differ only in
    case, or hold dots or backticks, reach the aggregate unchanged and never
    need resolving by name. On Spark 3.5, whose observed metrics refuse a star, the
    columns are bound to the frame's output one by one (on a 3.5 Connect session,
    named one by one, backtick-quoted: there names differing only in case clash).
    """
    functions = _compat.functions_for(df)
    if _compat.star_expands_in_metrics(df):
        return [functions.col("*")]
    bound = _compat.columns_by_position(df)  # Spark 3.5
    if bound is not None:
        return bound
    return [functions.col(_compat.quoted_name(name)) for name in df.columns]


def _all_columns_call(df: Any, function: str) -> Any:
    """``function(*)`` as a Column for ``df``'s session, built once per session.

    The Column names no frame (the star resolves against whichever frame it
    is used on), and building one on a classic session costs some twenty
    py4j round trips.
    """
    if not _compat.star_expands_in_metrics(df):  # Spark 3.5: the columns named, so per frame
        return _compat.call_function(df, function, *column_args(df))
    return _compat.remembered(_compat.frame_memo(df), _COLUMN + function,
                              lambda: _compat.call_function(df, function, *column_args(df)))


def rows_v1_sums_column(df: Any) -> Any:
    """A Column of the native aggregate over all of ``df``'s columns.

    Its value is ``struct<rows: bigint, sum_a: decimal(20,0), sum_b: decimal(20,0)>``;
    use it in ``df.agg(...)`` or ``df.observe(...)`` (to hash a table while it is
    written, in the same pass), then :func:`sums_from_struct` /
    :func:`ubunye.spark.fingerprint_from_sums`.
    """
    return _all_columns_call(df, SUMS_FUNCTION)


def rows_v1_hash_column(df: Any) -> Any:
    """A Column of the native ``ubunye_rows_v1`` aggregate: the data hash as a string."""
    return _all_columns_call(df, HASH_FUNCTION)


def row_line_column(df: Any) -> Any:
    """A Column with each row's canonical line (the debugging scalar ``ubunye_row_line``)."""
    return _all_columns_call(df, LINE_FUNCTION)


def rows_v1_sketch_column(df: Any) -> Any:
    """A Column of the native ``ubunye_rows_v1_sketch`` aggregate: the struct of
    :func:`rows_v1_sums_column` with the sketch's ``cells`` (binary, the record form's bytes)."""
    return _all_columns_call(df, SKETCH_FUNCTION)


def sketch_available(spark: Any) -> bool:
    """True when the session's native functions include the sketch aggregate (a jar older
    than it has only the sums). One of the session's facts."""
    return facts(spark).sketch


def find_available(spark: Any) -> bool:
    """True when the session has the native functions and among them the find aggregate
    (``lineage diff --rows``; a jar older than it has not). One of the session's facts."""
    return facts(spark).find


def native_find(df: Any, names: Iterable[str]) -> tuple[LaneSums, list[tuple[tuple[int, int], str]]]:
    """One native pass over ``df`` (``ubunye_rows_v1_find``): the row count and lane sums
    of every row, and ``((A, B), line)`` of every row (every copy) whose name
    ``sha256:<32 hex>`` is in ``names``, sorted by line."""
    functions = _compat.functions_for(df)
    column = _compat.call_function(df, FIND_FUNCTION, functions.lit(" ".join(sorted(set(names)))), *column_args(df))
    value = df.agg(column.alias("f")).collect()[0]["f"]
    found = [((int(r["a"]) & MASK64, int(r["b"]) & MASK64), str(r["line"])) for r in value["found"]]
    return sums_from_struct(value), found


def cells_from_bytes(raw: Any) -> Any:
    """The sketch cells (``cells x 4`` uint64) of the record form's bytes."""
    import numpy as np

    from ubunye.hashing.lanes_worker import SKETCH_CELLS

    return np.frombuffer(bytes(raw), dtype="<u8").astype(np.uint64).reshape(SKETCH_CELLS, 4)


def totals_from_struct(value: Any) -> Totals:
    """:class:`Totals` from the sums or sketch aggregate's struct value (cells None for the sums')."""
    get = value.asDict() if hasattr(value, "asDict") else dict(value)
    raw = get.get("cells")
    return Totals(sums_from_struct(get), None if raw is None else cells_from_bytes(raw))


def sums_from_struct(value: Any) -> LaneSums:
    """:class:`LaneSums` from the aggregate's struct value (a Row or a dict)."""
    get = value.asDict() if hasattr(value, "asDict") else dict(value)
    return LaneSums(int(get["rows"]), int(get["sum_a"]) & MASK64, int(get["sum_b"]) & MASK64)


def native_totals(df: Any) -> Totals:
    """Row count, lane sums and sketch cells of ``df`` in one native pass (the sums alone,
    cells None, when the session's jar has no sketch aggregate)."""
    if not sketch_available(_compat.session_of(df)):
        return Totals(native_sums(df))
    row = df.agg(rows_v1_sketch_column(df).alias("s")).collect()[0]
    return totals_from_struct(row["s"])


def native_sums(df: Any) -> LaneSums:
    """Row count and lane sums of ``df`` through the native aggregate."""
    row = df.agg(rows_v1_sums_column(df).alias("s")).collect()[0]
    value: Optional[Any] = row["s"]
    if value is None:  # pragma: no cover - the aggregate always answers a struct
        raise RuntimeError(f"{SUMS_FUNCTION} returned null")
    return sums_from_struct(value)
