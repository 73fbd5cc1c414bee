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

import re
from functools import partial
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Optional, Sequence

from ubunye.hashing.digest import MASK64, LaneSums, Totals

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

SUMS_SCHEMA = "rows bigint, a bigint, b bigint, cells binary, parts string"
# what a Python worker says when its interpreter lacks a module the fallback runs there
_MISSING_ON_WORKER = re.compile(r"(?:ModuleNotFoundError|ImportError): No module named '(ubunye|pyarrow)[\w.]*'")


def pyarrow_refusal() -> Optional[str]:
    """One line when this Python's pyarrow is too old for the fallback (Databricks 14.3 LTS's
    8.0.0: the native jar needs no pyarrow of its own, so that is the way there); else None."""
    from ubunye.hashing.arrow_types import pyarrow_too_old

    return pyarrow_too_old("the Spark fallback (mapInArrow)",
                           "put the plugin jar on the cluster (ubunye spark init-script) to hash natively, or ")


class WorkerImportError(RuntimeError):
    """Spark's Python workers cannot import ``ubunye`` or ``pyarrow`` (one-line message)."""
_PLACEHOLDER = "__ubunye_no_columns__"


def to_signed(x: int) -> int:
    """An unsigned 64-bit value as the signed ``bigint`` with the same bits."""
    x &= MASK64
    return x - (1 << 64) if x >= 1 << 63 else x


def partition_sums(
    batches: Iterable["pa.RecordBatch"], names: Optional[Sequence[str]] = None,
    keys: Optional[Sequence[str]] = None,
) -> Iterator["pa.RecordBatch"]:
    """``mapInArrow`` body: one row (rows, a, b, cells, parts) for the whole partition;
    ``cells`` are the partition's localisation sketch (little-endian u64s, cell by cell, as
    in the record form of ``docs/spec/rows-v1-localise.md``); with ``keys`` (partition
    columns), ``parts`` is the JSON of the sums of each partition folder's rows
    (``{key: [rows, "<A>", "<B>"]}``, section 7), else null.

    ``names``: the real column names, given back to the batches' columns (the
    DataFrame is handed over with positional names, see :func:`fallback_input`).
    Runs on a Python worker; module-level so that it is pickled by reference.
    """
    import pyarrow as pa

    from ubunye.hashing.arrow import lane_totals

    def renamed() -> Iterator["pa.RecordBatch"]:
        for batch in batches:
            if names is None:
                yield batch
            else:
                yield pa.RecordBatch.from_arrays(batch.columns, names=list(names))

    parts = None
    if keys:
        import json
        from functools import partial as bind

        from ubunye.hashing.partition_sums import keyed_totals, to_record
        from ubunye.io.partition_write import partition_keys

        totals, found = keyed_totals(renamed(), bind(partition_keys, columns=list(keys)))
        parts = json.dumps(to_record(keys, found)["sums"])
    else:
        totals = lane_totals(renamed(), workers=1)  # one process per Spark task
    sums = totals.sums
    yield pa.RecordBatch.from_arrays(
        [
            pa.array([sums.rows], pa.int64()),
            pa.array([to_signed(sums.a)], pa.int64()),
            pa.array([to_signed(sums.b)], pa.int64()),
            pa.array([totals.cells.astype("<u8").tobytes()], pa.binary()),
            pa.array([parts], pa.string()),
        ],
        names=["rows", "a", "b", "cells", "parts"],
    )


def fallback_input(df: Any) -> tuple[Any, Optional[list[str]]]:
    """The DataFrame the partitions hash, and the real names of its columns.

    Columns are renamed ``_c0``, ``_c1``, ... (pyspark's ``mapInArrow`` looks
    columns up by name, which fails for names such as ``a.b``); the workers
    put the real names back. Arrow batches without columns carry no row
    count, so a table with no columns is hashed through one all-null column:
    every row is then the line ``{}``, as the spec says (the kinds come from
    the original schema).
    """
    names = list(df.columns)
    if names:
        return df.toDF(*[f"_c{i}" for i in range(len(names))]), names
    from ubunye.spark._compat import functions_for

    return df.select(functions_for(df).lit(None).alias(_PLACEHOLDER)), None


def fallback_sums(df: Any) -> LaneSums:
    """Row count and lane sums of ``df`` through ``mapInArrow`` (classic or Connect)."""
    return fallback_totals(df).sums


def fallback_totals(df: Any) -> Totals:
    """Row count, lane sums and the sketch's cells of ``df`` through ``mapInArrow``."""
    return fallback_keyed(df, None)[0]


def fallback_keyed(df: Any, keys: Optional[Sequence[str]]) -> tuple[Totals, Optional[dict[str, LaneSums]]]:
    """:func:`fallback_totals` and, with ``keys`` (partition columns), the sums of each
    partition folder's rows, summed over Spark's partitions (else None)."""
    import json

    import numpy as np

    from ubunye.hashing.lanes_worker import SKETCH_CELLS
    from ubunye.hashing.partition_sums import merge, parse_record

    frame, names = fallback_input(df)
    try:
        rows = frame.mapInArrow(partial(partition_sums, names=names, keys=keys), SUMS_SCHEMA).collect()
    except Exception as exc:
        raise worker_import_error(exc, df) or exc
    total = Totals(LaneSums(), np.zeros((SKETCH_CELLS, 4), dtype=np.uint64))
    found = []
    for row in rows:
        cells = np.frombuffer(bytes(row["cells"]), dtype="<u8").astype(np.uint64).reshape(SKETCH_CELLS, 4)
        total = total + Totals(LaneSums(int(row["rows"]), int(row["a"]) & MASK64, int(row["b"]) & MASK64), cells)
        if keys and row["parts"] is not None:
            parsed = parse_record({"version": "rows-v1-partitions/1", "sums": json.loads(row["parts"])})
            found.append({k: LaneSums(*v) for k, v in parsed.items()})
    return total, (merge(found) if keys else None)


def missing_worker_module(text: str) -> Optional[str]:
    """``"ubunye"`` or ``"pyarrow"`` when ``text`` (a failed job's message) says a Python
    worker could not import it; else None."""
    found = _MISSING_ON_WORKER.search(text)
    return found.group(1) if found else None


def worker_import_error(exc: BaseException, df: Any) -> Optional[WorkerImportError]:
    """A :class:`WorkerImportError` saying what to do when ``exc`` is a worker that could
    not import ``ubunye`` or ``pyarrow``; None for any other failure."""
    from ubunye.spark import _compat

    missing = missing_worker_module(f"{_compat.java_exception_text(exc)}\n{exc}")
    if missing is None:
        return None
    try:
        runs = _compat.worker_python(_compat.session_of(df))
    except Exception:  # noqa: BLE001 - a frame without a session
        runs = None
    where = f"they run {runs}" if runs else "the workers of the session's Spark server"
    return WorkerImportError(
        f"Spark's Python workers cannot import {missing} ({where}); the spark-sql fallback "
        "(mapInArrow) needs ubunye and pyarrow there: point PYSPARK_PYTHON or "
        "spark.pyspark.python at a Python that has both, or add the plugin jar "
        "(ubunye.spark.configure) to hash without Python workers"
    )
