"""The vectorised rows-v1 path over Arrow record batches.

The canonical lines of a batch are built column by column with
``pyarrow.compute`` (Python is used only for the values that need it: binary,
nested values, floats outside the plain range, strings with characters to
escape), joined per row, then SHA-256 is taken of each line and the lanes are
summed with numpy ``uint64`` (wrapping, so modulo 2^64).

:func:`lane_sums` works batch by batch in bounded memory; it is also what the
Spark fallback runs inside ``mapInArrow`` on the executors.
"""
from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Iterable, Iterator, Union

from ubunye.hashing.arrow_types import arrow_schema_kinds
from ubunye.hashing.digest import LaneSums
from ubunye.hashing.errors import RowsV1Error
from ubunye.hashing.kinds import Kind

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

CHUNK_ROWS = 65_536


def arrow_kinds(schema: "pa.Schema") -> list[tuple[str, str]]:
    """``(name, kind text)`` of each column in table order (spec section 3).

    Raises :class:`RowsV1Error` naming the column and its type when a type has
    no canonical text or a top-level name is repeated.
    """
    return [(name, kind.text) for name, kind in arrow_schema_kinds(schema)]


def lane_sums(batches: Iterable[Union["pa.RecordBatch", "pa.Table"]], *, threads: bool = False) -> LaneSums:
    """Row count and lane sums of all rows of ``batches`` (vectorised, bounded memory).

    Batches are cut into chunks of :data:`CHUNK_ROWS`; one chunk of lines is
    alive at a time (two with ``threads``). With ``threads`` the lines of the
    next chunk are built in a helper thread (Arrow and numpy release the GIL)
    while this thread hashes the current one. It is off by default: on the
    shared 2-core development machine it did not measurably help (see
    ``bench/bench_rows_v1.py``, which times both).
    """
    total = LaneSums()
    chunks = _chunks(batches)
    if not threads:
        for chunk, kinds in chunks:
            total = total + hash_lines(line_array(chunk, kinds))
        return total
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="rows-v1-lines") as pool:
        pending = None
        for chunk, kinds in chunks:
            future = pool.submit(line_array, chunk, kinds)
            if pending is not None:
                total = total + hash_lines(pending.result())
            pending = future
        if pending is not None:
            total = total + hash_lines(pending.result())
    return total


def _chunks(
    batches: Iterable[Union["pa.RecordBatch", "pa.Table"]]
) -> Iterator[tuple["pa.RecordBatch", list[tuple[str, Kind]]]]:
    for batch in _record_batches(batches):
        kinds = arrow_schema_kinds(batch.schema)
        if batch.num_rows == 0:
            continue
        for start in range(0, batch.num_rows, CHUNK_ROWS):
            yield batch.slice(start, CHUNK_ROWS), kinds


def canonical_lines(batch: "pa.RecordBatch") -> list[str]:
    """The canonical line of every row of ``batch`` (for debugging a mismatch)."""
    return line_array(batch, arrow_schema_kinds(batch.schema)).to_pylist()


def _record_batches(batches: Iterable[Union["pa.RecordBatch", "pa.Table"]]) -> Iterator["pa.RecordBatch"]:
    import pyarrow as pa

    if isinstance(batches, (pa.Table, pa.RecordBatch)):  # one table or batch given on its own
        batches = [batches]
    for item in batches:
        if isinstance(item, pa.Table):
            yield from item.to_batches(max_chunksize=CHUNK_ROWS)
        else:
            yield item


def line_array(batch: "pa.RecordBatch", kinds: list[tuple[str, Kind]]) -> "pa.StringArray":
    """The canonical lines of a batch as an Arrow string array.

    All pieces of all members go through one ``binary_join_element_wise``.
    A column without nulls contributes its pieces directly; a column with
    nulls becomes one member array first (prefix and pieces joined, the empty
    string where the value is null). Members carry a leading comma except the
    first; when the first column has nulls a leading ``{,`` is repaired.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    from ubunye.hashing.arrow_text import column_pieces
    from ubunye.hashing.jsontext import line_string

    n = batch.num_rows
    columns = dict(zip(batch.schema.names, batch.columns))
    texts = []
    for name, kind in sorted(kinds, key=lambda nk: nk[0]):
        try:
            pieces = column_pieces(columns[name], kind)
        except RowsV1Error as exc:
            raise RowsV1Error(f"column {name!r} of type {kind.text}: {exc}") from None
        nulls = max((p.null_count for p in pieces if not isinstance(p, str)), default=0)
        if nulls == n and n:
            continue
        texts.append((name, pieces, nulls))
    if not texts:
        return pa.array(["{}"] * n, pa.string())
    repair = texts[0][2] > 0
    parts: list[object] = ["{"]
    for i, (name, pieces, nulls) in enumerate(texts):
        prefix = ("," if i or repair else "") + line_string(name) + ":"
        if nulls:
            member = pc.binary_join_element_wise(prefix, *pieces, "")
            parts.append(pc.fill_null(member, ""))
        else:
            parts.extend([prefix, *pieces])
    parts.append("}")
    merged: list[object] = []
    for part in parts:  # neighbouring constants become one scalar
        if isinstance(part, str) and merged and isinstance(merged[-1], str):
            merged[-1] = merged[-1] + part
        else:
            merged.append(part)
    args = [pa.scalar(p, pa.string()) if isinstance(p, str) else p for p in merged]
    line = pc.binary_join_element_wise(*args, "")
    if repair:
        line = pc.replace_substring(line, "{,", "{", max_replacements=1)
    return line


def hash_lines(lines: "pa.Array") -> LaneSums:
    """Row count and lane sums of a string (or binary) array of lines."""
    import numpy as np
    import pyarrow as pa

    n = len(lines)
    if n == 0:
        return LaneSums()
    if lines.null_count:
        raise RowsV1Error("a canonical line is null")
    if pa.types.is_large_string(lines.type) or pa.types.is_large_binary(lines.type):
        off_type = np.int64
    else:
        if not (pa.types.is_string(lines.type) or pa.types.is_binary(lines.type)):
            lines = lines.cast(pa.string())
        off_type = np.int32
    _, off_buf, data_buf = lines.buffers()
    offsets = np.frombuffer(off_buf, dtype=off_type, count=n + 1, offset=lines.offset * np.dtype(off_type).itemsize)
    data = memoryview(data_buf) if data_buf is not None else memoryview(b"")
    bounds = offsets.tolist()
    sha = hashlib.sha256
    # (measured: this comprehension costs less CPU than a chain of map() calls)
    digests = b"".join([sha(data[a:b]).digest() for a, b in zip(bounds, bounds[1:])])
    words = np.frombuffer(digests, dtype=">u8").reshape(n, 4)
    a = int(words[:, 0].astype(np.uint64).sum(dtype=np.uint64))
    b = int(words[:, 1].astype(np.uint64).sum(dtype=np.uint64))
    return LaneSums(n, a, b)
