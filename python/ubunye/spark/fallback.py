"""The Spark fallback without the plugin jar: ``mapInArrow`` + the vectorised Arrow path.

Each partition reaches a Python worker as Arrow record batches;
:func:`ubunye.hashing.arrow.lane_sums` (the same code as the pandas/Arrow
engine) builds the canonical lines, hashes them and sums the lanes there, and
the partition answers with one row of three numbers (row count and the two
lane sums as signed 64-bit integers). The driver adds those rows modulo 2^64.

Why not ``to_json`` + ``sha2``: Spark's ``to_json`` writes doubles and floats
with the running JVM's ``Double.toString``/``Float.toString``, which differs
from the spec on JDK 17 and older for some values; the Arrow path writes the
JDK 19+ text on any JVM. It works on classic sessions and on Spark Connect
(Databricks serverless and shared clusters included), and needs pyarrow and
this package on the executors' Python.

What Arrow sees is what the spec hashes: user-defined types arrive as their
SQL type, timestamps as instants (whatever the session time zone),
``timestamp_ntz`` as wall-clock values, map keys of any scalar kind as typed
values.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Iterator

from ubunye.hashing.digest import MASK64, LaneSums

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

SUMS_SCHEMA = "rows bigint, a bigint, b bigint"
_PLACEHOLDER = "__ubunye_no_columns__"


def to_signed(x: int) -> int:
    """An unsigned 64-bit value as the signed ``bigint`` with the same bits."""
    x &= MASK64
    return x - (1 << 64) if x >= 1 << 63 else x


def partition_sums(batches: Iterable["pa.RecordBatch"]) -> Iterator["pa.RecordBatch"]:
    """``mapInArrow`` body: one row (rows, a, b) for the whole partition.

    Runs on a Python worker; module-level so that it is pickled by reference.
    """
    import pyarrow as pa

    from ubunye.hashing.arrow import lane_sums

    sums = lane_sums(batches)
    yield pa.RecordBatch.from_arrays(
        [
            pa.array([sums.rows], pa.int64()),
            pa.array([to_signed(sums.a)], pa.int64()),
            pa.array([to_signed(sums.b)], pa.int64()),
        ],
        names=["rows", "a", "b"],
    )


def fallback_input(df: Any) -> Any:
    """The DataFrame the partitions hash: ``df``, or one null column if it has none.

    Arrow batches without columns carry no row count, so a table with no
    columns is hashed through a single all-null column: every row is then the
    line ``{}``, as the spec says, and the kinds come from the original schema.
    """
    if df.columns:
        return df
    from pyspark.sql import functions as F

    return df.select(F.lit(None).alias(_PLACEHOLDER))


def fallback_sums(df: Any) -> LaneSums:
    """Row count and lane sums of ``df`` through ``mapInArrow`` (classic or Connect)."""
    rows = fallback_input(df).mapInArrow(partition_sums, SUMS_SCHEMA).collect()
    total = LaneSums()
    for row in rows:
        total = total + LaneSums(int(row["rows"]), int(row["a"]) & MASK64, int(row["b"]) & MASK64)
    return total
