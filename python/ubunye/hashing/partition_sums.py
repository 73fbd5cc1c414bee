"""Per-partition sums: the row count and lane sums of each partition of a table, in the
same pass as the table's sums and sketch.

Spec: ``docs/spec/rows-v1-localise.md`` section 7. The partition of a row is named by
a key (``day=2024-01-02/shop=7``) that the caller computes from a batch
(:mod:`ubunye.io.partition_write` names folders as Spark's ``partitionBy`` does); this
module only sums the rows' lanes per key, so it imports nothing above ``hashing``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable, Optional, Sequence, Union

from ubunye.hashing.digest import MASK64, LaneSums, Totals

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

VERSION = "rows-v1-partitions/1"
"""The ``version`` of the record form; a reader ignores any other."""

KeyFn = Callable[["pa.RecordBatch"], Sequence[str]]
"""The partition key of every row of a batch, in row order."""


def keyed_totals(batches: Iterable[Union["pa.RecordBatch", "pa.Table"]],
                 key_of: KeyFn) -> tuple[Totals, dict[str, LaneSums]]:
    """One pass over ``batches``: the table's totals (sums and sketch cells, as
    :func:`~ubunye.hashing.arrow.lane_totals` gives them) and the sums of each key's rows."""
    import numpy as np

    from ubunye.hashing.arrow import CHUNK_ROWS, _empty, _record_batches, row_lanes
    from ubunye.hashing.lanes_worker import lane_cells

    total = _empty(True)
    parts: dict[str, LaneSums] = {}
    for batch in _record_batches(batches):
        for start in range(0, batch.num_rows, CHUNK_ROWS):
            chunk = batch.slice(start, CHUNK_ROWS)
            a, b = row_lanes(chunk)
            keys = np.asarray(list(key_of(chunk)), dtype=object)
            total = total + Totals(LaneSums(len(a), int(a.sum(dtype=np.uint64)), int(b.sum(dtype=np.uint64))),
                                   lane_cells(a, b))
            names, which = np.unique(keys, return_inverse=True)
            sa = np.zeros(len(names), dtype=np.uint64)
            sb = np.zeros(len(names), dtype=np.uint64)
            np.add.at(sa, which, a)  # uint64: wraps, modulo 2^64
            np.add.at(sb, which, b)
            counts = np.bincount(which, minlength=len(names))
            for i, key in enumerate(names.tolist()):
                parts[key] = parts.get(key, LaneSums()) + LaneSums(int(counts[i]), int(sa[i]), int(sb[i]))
    return total, parts


def to_record(columns: Sequence[str], parts: dict[str, LaneSums]) -> dict[str, Any]:
    """The record form: ``{"version", "columns", "sums": {key: [rows, "<A>", "<B>"]}}``
    (lane sums as decimal text), keys sorted."""
    return {"version": VERSION, "columns": list(columns),
            "sums": {k: [int(s.rows), str(int(s.a) & MASK64), str(int(s.b) & MASK64)]
                     for k, s in sorted(parts.items())}}


def merge(records: Iterable[dict[str, LaneSums]]) -> dict[str, LaneSums]:
    """Sums of several passes' parts (Spark partitions) added key by key."""
    out: dict[str, LaneSums] = {}
    for parts in records:
        for key, sums in parts.items():
            out[key] = out.get(key, LaneSums()) + sums
    return out


def parse_record(value: Any) -> dict[str, tuple[int, int, int]]:
    """``{key: (rows, a, b)}`` of a record field; ``ValueError`` naming what is wrong."""
    if not isinstance(value, dict):
        raise ValueError(f"partition sums must be an object, not {type(value).__name__}")
    if value.get("version") != VERSION:
        raise ValueError(f"partition sums version {value.get('version')!r} is not {VERSION!r}")
    sums = value.get("sums")
    if not isinstance(sums, dict):
        raise ValueError("partition sums: 'sums' must be an object")
    out = {}
    for key, item in sums.items():
        try:
            rows, a, b = item
            if isinstance(rows, bool) or not isinstance(rows, int) or rows < 0:
                raise ValueError
            out[str(key)] = (rows, int(str(a)) & MASK64, int(str(b)) & MASK64)
        except (TypeError, ValueError):
            raise ValueError(f"partition sums of {key!r}: expected [rows, \"<A>\", \"<B>\"]") from None
    return out


def changed(old: Any, new: Any) -> Optional[list[dict[str, Any]]]:
    """The partitions whose rows differ between two record fields, sorted by key: each
    ``{"partition", "rows_before", "rows_after"}`` (None for a partition only on one
    side). None when either side has no readable sums or they partition by other columns."""
    if old is None or new is None:
        return None
    try:
        a, b = parse_record(old), parse_record(new)
    except ValueError:
        return None
    if list(old.get("columns") or []) != list(new.get("columns") or []):
        return None
    out = []
    for key in sorted(a.keys() | b.keys()):
        if a.get(key) != b.get(key):
            out.append({"partition": key, "rows_before": a[key][0] if key in a else None,
                        "rows_after": b[key][0] if key in b else None})
    return out


def describe(change: dict[str, Any]) -> str:
    """``day=2024-01-02 (120 -> 121 rows)``, ``day=2024-01-03 (added, 5 rows)``."""
    before, after = change["rows_before"], change["rows_after"]
    if before is None:
        return f"{change['partition']} (added, {after} rows)"
    if after is None:
        return f"{change['partition']} (removed, {before} rows)"
    return f"{change['partition']} ({before} -> {after} rows)"
