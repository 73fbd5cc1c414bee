"""The result of hashing a frame with rows-v1, and the dispatch to an engine.

Spec: ``shared/spec/rows-v1.md``. A :class:`Fingerprint` either has a data hash
(and row count) or an ``error`` saying why not; the schema hash is never put in
place of a data hash.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Optional

from ubunye.hashing.digest import METHOD



@dataclass(frozen=True)
class Fingerprint:
    """The rows-v1 fingerprint of one table.

    - ``schema_hash``: ``sha256:`` of the canonical schema (None if the schema
      itself could not be made canonical).
    - ``data_hash``: ``sha256:`` of method, row count, schema and lane sums, or
      None when the rows could not be hashed (then ``error`` says why).
    - ``row_count``: rows hashed, or None with the data hash.
    - ``method``: always ``"rows-v1"``.
    - ``engine``: which implementation computed it: ``"arrow"``, ``"rows"``
      (reference / port), ``"spark-native"``, ``"spark-sql"`` ...
    - ``error``: ``"<ErrorType>: <message>"`` in one line, or None.
    - ``sums``: the two lane sums (A, B) as unsigned ints, for debugging.
    - ``reason``: on a Spark frame hashed by the fallback (``"spark-sql"``), one line
      saying why the native engine was not used (no jar, a jar for another line, a JVM
      too old for it, ``engine="spark-sql"`` asked for); else None. So
      ``assert fp.engine == "spark-native", fp.reason`` explains itself.
    - ``sketch``: the localisation sketch of the same rows
      (:class:`~ubunye.hashing.sketch.Sketch`), taken in the same pass, or None
      (an engine that does not compute it yet). Not part of :meth:`to_dict`.
    - ``partitions``: the per-partition sums of the same rows, in their record form
      (:mod:`ubunye.hashing.partition_sums`), for a table hashed with its partition
      columns named; else None. Not part of :meth:`to_dict`.
    """

    schema_hash: Optional[str]
    data_hash: Optional[str]
    row_count: Optional[int]
    method: str = METHOD
    engine: str = ""
    error: Optional[str] = None
    sums: Optional[tuple[int, int]] = None
    reason: Optional[str] = None
    sketch: Any = field(default=None, compare=False, repr=False)
    partitions: Optional[dict[str, Any]] = field(default=None, compare=False, repr=False)

    @property
    def ok(self) -> bool:
        return self.data_hash is not None

    def to_dict(self) -> dict[str, Any]:
        d = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("sketch", "partitions")}
        d["sums"] = list(self.sums) if self.sums is not None else None
        return d


ENGINES = ("arrow", "rows")


def fingerprint(frame: Any, *, engine: Optional[str] = None) -> Fingerprint:
    """The rows-v1 fingerprint of ``frame``.

    ``frame`` may be a pandas DataFrame, a pyarrow Table / RecordBatch /
    RecordBatchReader (hashed batch by batch), a polars DataFrame, a DuckDB
    relation, a pyspark DataFrame (delegated to the engine its frame kind
    registered, :mod:`ubunye.hashing.registry`) or a *port*: any object with
    ``collect()`` (rows as dicts) and ``schema`` (column name to kind).

    ``engine``: ``"arrow"`` (vectorised, the default for Arrow-able frames) or
    ``"rows"`` (the row-at-a-time reference). Spark frames take the Spark
    engines' names. A frame that cannot be hashed gives a fingerprint with
    ``data_hash = None`` and a one-line ``error`` (spec section 5); a frame
    type that is not supported at all raises ``TypeError``.
    """
    from ubunye.hashing.frames import frame_kind

    kind = frame_kind(frame)
    if kind == "spark":
        from ubunye.hashing.registry import frame_kind_of

        return frame_kind_of(kind).fingerprint(frame, engine=engine)
    if kind == "unknown":
        raise TypeError(
            f"cannot hash a {type(frame).__module__}.{type(frame).__name__}: expected a pandas, "
            "pyarrow, polars, DuckDB or Spark frame, or an object with collect() and schema"
        )
    if kind == "port":
        return _fingerprint_port(frame)
    if engine not in (None, *ENGINES):
        raise ValueError(f"unknown engine {engine!r} for a {kind} frame: expected one of {ENGINES}")
    return _fingerprint_arrow(frame, engine or "arrow")


def _failed(schema_hash: Optional[str], engine: str, exc: BaseException) -> Fingerprint:
    from ubunye.hashing.errors import one_line_error

    return Fingerprint(schema_hash, None, None, METHOD, engine, one_line_error(exc))


def _fingerprint_arrow(frame: Any, engine: str, key_of: Any = None, columns: Any = ()) -> Fingerprint:
    """The Arrow-path (or, ``engine="rows"``, the reference) fingerprint; with ``key_of``
    (each row's partition key of a batch) also the per-partition sums of ``columns``."""
    from ubunye.hashing.arrow_types import arrow_schema_kinds
    from ubunye.hashing.digest import schema_hash
    from ubunye.hashing.frames import UnsupportedFrame, to_arrow_source

    try:
        source = to_arrow_source(frame)
        kinds = [(n, k.text) for n, k in arrow_schema_kinds(source.schema)]
    except UnsupportedFrame:
        raise
    except Exception as exc:  # unreadable rows or a schema with no canonical form
        return _failed(None, engine, exc)
    shash = schema_hash(kinds)
    partitions = None
    try:
        if key_of is not None:
            from ubunye.hashing.partition_sums import keyed_totals, to_record

            totals, parts = keyed_totals(source.batches, key_of)
            partitions = to_record(columns, parts)
        elif engine == "rows":
            from ubunye.hashing.reference import reference_arrow_totals

            totals = reference_arrow_totals(source.batches)
        else:
            from ubunye.hashing.arrow import lane_totals

            totals = lane_totals(source.batches, workers=None, rows_hint=_known_rows(frame))  # auto: 2 cores if big
    except Exception as exc:  # a value with no canonical text, rows that cannot be read, a key not named
        return _failed(shash, engine, exc)
    return from_totals(shash, kinds, totals, engine, partitions=partitions)


def from_totals(shash: Optional[str], kinds: Any, totals: Any, engine: str,
                reason: Optional[str] = None, partitions: Optional[dict[str, Any]] = None) -> Fingerprint:
    """The fingerprint of one pass's :class:`~ubunye.hashing.digest.Totals` (sums and cells)."""
    from ubunye.hashing.digest import data_hash
    from ubunye.hashing.sketch import Sketch

    sums = totals.sums
    sketch = Sketch(data=totals.cells) if totals.cells is not None else None
    return Fingerprint(shash, data_hash(kinds, sums), sums.rows, METHOD, engine, None, (sums.a, sums.b),
                       reason=reason, sketch=sketch, partitions=partitions)


def fingerprint_partitioned(frame: Any, columns: Any, key_of: Any) -> Fingerprint:
    """The Arrow-path fingerprint of an in-memory frame with the per-partition sums of its
    ``columns`` (``key_of(batch)``: each row's partition key) taken in the same pass."""
    return _fingerprint_arrow(frame, "arrow", key_of, columns)


def _known_rows(frame: Any) -> Optional[int]:
    """Rows of an in-memory pandas / polars / Arrow frame (None for lazy ones: no query is run)."""
    name = type(frame).__name__
    if name in ("DataFrame", "Table", "RecordBatch"):
        shape = getattr(frame, "shape", None)
        if isinstance(shape, tuple) and shape and isinstance(shape[0], int):
            return shape[0]
    return None


def _fingerprint_port(frame: Any) -> Fingerprint:
    from ubunye.hashing.digest import data_hash, schema_hash
    from ubunye.hashing.frames import port_kinds
    from ubunye.hashing.reference import parse_kinds, reference_totals

    try:
        pairs = port_kinds(frame.schema)
        kinds = parse_kinds(pairs)
    except Exception as exc:
        return _failed(None, "rows", exc)
    texts = [(n, k.text) for n, k in kinds]
    shash = schema_hash(texts)
    try:
        totals = reference_totals(frame.collect(), kinds)
    except Exception as exc:
        return _failed(shash, "rows", exc)
    return from_totals(shash, texts, totals, "rows")
