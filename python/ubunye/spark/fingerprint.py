"""``fingerprint_spark``: the rows-v1 fingerprint of a pyspark DataFrame.

Engine choice (``Fingerprint.engine``):

- ``"spark-native"``: the plugin's aggregate, when its functions exist in the
  session (extension configured, or :func:`ubunye.spark.install`);
- ``"spark-sql"``: the fallback without the jar (``mapInArrow`` and the
  vectorised Arrow path, :mod:`ubunye.spark.fallback`); same digest.

Both work on classic sessions and on Spark Connect. ``engine=`` forces one.
"""
from __future__ import annotations

import re
from typing import Any, Optional, Sequence

from ubunye.hashing.digest import LaneSums, Totals, schema_hash
from ubunye.hashing.errors import RowsV1Error, one_line_error
from ubunye.hashing.fingerprint import METHOD, Fingerprint, from_totals
from ubunye.spark import _compat, observations
from ubunye.spark.facts import ENGINES, FALLBACK, NATIVE, choose, facts

__all__ = ["ENGINES", "FALLBACK", "NATIVE", "choose_engine", "fingerprint_from_sums", "fingerprint_spark",
           "mismatch_reason", "spark_error"]

# "io.ubunye.spark.rowsv1.RowsV1Error: ..." (JVM) or "ubunye.hashing.errors.RowsV1Error: ..." (worker)
_ROWS_V1_ERROR = re.compile(r"(?:^|[\s:(])(?:[\w$]+\.)*RowsV1Error: ([^\n]+)")
_MAX_ERROR = 600


def mismatch_reason(spark: Any) -> Optional[str]:
    """On a classic session: why a loaded plugin jar cannot serve it (both versions named)."""
    return facts(spark).mismatch


def choose_engine(spark: Any, engine: Optional[str]) -> str:
    """The engine to use: ``engine`` if given (checked), else native when available."""
    return choose(facts(spark), engine).engine


def spark_error(exc: BaseException) -> str:
    """A one-line ``"<ErrorType>: <message>"`` for a failed Spark job.

    A rows-v1 error raised on an executor (JVM or Python worker) is reported as
    ``RowsV1Error: <its message>``; anything else as the exception's type and
    the first line of its message.
    """
    text = _compat.java_exception_text(exc)
    found = _ROWS_V1_ERROR.search(text) or _ROWS_V1_ERROR.search(str(exc))
    if found:
        return one_line_error(RowsV1Error(found.group(1).strip()))[:_MAX_ERROR]
    head = str(exc).split("\n\nJVM stacktrace", 1)[0]
    message = " ".join(head.split()) or repr(exc)
    return f"{type(exc).__name__}: {message}"[:_MAX_ERROR]


def fingerprint_from_sums(schema: Any, sums: Any, *, engine: str = NATIVE,
                          partitions: Optional[dict[str, Any]] = None) -> Fingerprint:
    """A :class:`Fingerprint` from a schema and the native aggregate's result.

    ``sums`` is the struct value of :func:`ubunye.spark.rows_v1_sums_column`
    (for example from ``df.observe``) or of :func:`ubunye.spark.native.rows_v1_sketch_column`
    (then the fingerprint carries the sketch), a :class:`LaneSums` or a :class:`Totals`.
    ``partitions``: the record form of the per-partition sums taken in the same pass.
    """
    from ubunye.spark.kinds import spark_kinds
    from ubunye.spark.native import totals_from_struct

    kinds = spark_kinds(schema)
    if isinstance(sums, LaneSums):
        sums = Totals(sums)
    totals = sums if isinstance(sums, Totals) else totals_from_struct(sums)
    return from_totals(schema_hash(kinds), kinds, totals, engine, partitions=partitions)


def fingerprint_spark(df: Any, *, engine: Optional[str] = None,
                      partition_by: Optional[Sequence[str]] = None) -> Fingerprint:
    """The rows-v1 fingerprint of a pyspark DataFrame (classic or Spark Connect).

    ``engine``: None (native when the functions exist, else the fallback),
    ``"spark-native"`` (raises :class:`~ubunye.spark.jar.JarError` when the
    functions are missing) or ``"spark-sql"``. A schema or value with no
    canonical text, or rows that cannot be read, give a fingerprint with
    ``data_hash = None`` and a one-line ``error`` (spec section 5). On the fallback,
    ``reason`` says in one line why the native engine was not used.

    ``partition_by``: the partition columns of a table written or read as ``key=value``
    folders; the pass then also records the sums of each folder's rows
    (``docs/spec/rows-v1-localise.md`` section 7): the fallback in its ``mapInArrow`` pass,
    the native engine through the plugin's planner node (a write to Spark's ``noop`` sink)
    when the driver's jar takes them, else none.
    """
    from ubunye.spark.fallback import fallback_keyed, pyarrow_refusal
    from ubunye.spark.kinds import spark_kinds
    from ubunye.spark.native import native_totals

    spark = _compat.session_of(df)
    known = facts(spark)
    chosen, why = choose(known, engine)
    refusal = pyarrow_refusal() if chosen == FALLBACK else None
    if refusal is not None:  # before any job: the workers would fail deep inside pyarrow
        return Fingerprint(None, None, None, METHOD, chosen, one_line_error(RowsV1Error(refusal)), reason=why)
    try:
        kinds = spark_kinds(df.schema)
    except RowsV1Error as exc:
        return Fingerprint(None, None, None, METHOD, chosen, one_line_error(exc), reason=why)
    except Exception as exc:  # the schema itself cannot be read (missing file, bad plan)
        return Fingerprint(None, None, None, METHOD, chosen, spark_error(exc), reason=why)
    shash = schema_hash(kinds)
    try:
        parts = None
        if chosen == NATIVE and partition_by and observations.takes_parts(spark):
            totals, parts = observations.keyed_pass(df, list(partition_by))
        elif chosen == NATIVE:
            totals = native_totals(df)
        else:
            totals, parts = fallback_keyed(df, list(partition_by) if partition_by else None)
    except Exception as exc:  # a value with no canonical text, or rows that cannot be read
        return Fingerprint(shash, None, None, METHOD, chosen, spark_error(exc), reason=why)
    from ubunye.hashing.partition_sums import to_record

    return from_totals(shash, kinds, totals, chosen, reason=why,
                       partitions=to_record(partition_by, parts) if parts is not None else None)
