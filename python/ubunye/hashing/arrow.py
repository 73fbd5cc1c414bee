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
_NEEDS_ESCAPE = r'[\x00-\x1f"\\]'


def arrow_kinds(schema: "pa.Schema") -> list[tuple[str, str]]:
    """``(name, kind text)`` of each column in table order (spec section 3).

    Raises :class:`RowsV1Error` naming the column and its type when a type has
    no canonical text or a top-level name is repeated.
    """
    return [(name, kind.text) for name, kind in arrow_schema_kinds(schema)]


def lane_sums(batches: Iterable[Union["pa.RecordBatch", "pa.Table"]]) -> LaneSums:
    """Row count and lane sums of all rows of ``batches`` (vectorised, bounded memory)."""
    total = LaneSums()
    for batch in _record_batches(batches):
        kinds = arrow_schema_kinds(batch.schema)
        for start in range(0, batch.num_rows, CHUNK_ROWS):
            chunk = batch.slice(start, CHUNK_ROWS)
            total = total + hash_lines(line_array(chunk, kinds))
    return total


def canonical_lines(batch: "pa.RecordBatch") -> list[str]:
    """The canonical line of every row of ``batch`` (for debugging a mismatch)."""
    return line_array(batch, arrow_schema_kinds(batch.schema)).to_pylist()


def _record_batches(batches: Iterable[Union["pa.RecordBatch", "pa.Table"]]) -> Iterator["pa.RecordBatch"]:
    import pyarrow as pa

    for item in batches:
        if isinstance(item, pa.Table):
            yield from item.to_batches(max_chunksize=CHUNK_ROWS)
        else:
            yield item


def line_array(batch: "pa.RecordBatch", kinds: list[tuple[str, Kind]]) -> "pa.StringArray":
    """The canonical lines of a batch as an Arrow string array."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from ubunye.hashing.arrow_text import column_text
    from ubunye.hashing.jsontext import line_string

    n = batch.num_rows
    columns = dict(zip(batch.schema.names, batch.columns))
    members = []
    for name, kind in sorted(kinds, key=lambda nk: nk[0]):
        try:
            text = column_text(columns[name], kind)
        except RowsV1Error as exc:
            raise RowsV1Error(f"column {name!r} of type {kind.text}: {exc}") from None
        if text.null_count == len(text):
            continue
        # each member carries a leading comma; a null member is the empty string
        prefix = pa.scalar("," + line_string(name) + ":", pa.string())
        member = pc.binary_join_element_wise(prefix, text, "")
        members.append(pc.fill_null(member, "") if text.null_count else member)
    if not members:
        return pa.array(["{}"] * n, pa.string())
    # (binary_join_element_wise with null_handling="skip" drops rows in pyarrow 26)
    line = pc.binary_join_element_wise("{", *members, "}", "")
    return pc.replace_substring(line, "{,", "{", max_replacements=1)


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
        lines = lines.cast(pa.string()) if not pa.types.is_string(lines.type) else lines
        off_type = np.int32
    _, off_buf, data_buf = lines.buffers()
    offsets = np.frombuffer(off_buf, dtype=off_type, count=n + 1, offset=lines.offset * np.dtype(off_type).itemsize)
    data = memoryview(data_buf) if data_buf is not None else memoryview(b"")
    sha = hashlib.sha256
    bounds = offsets.tolist()
    digests = b"".join([sha(data[a:b]).digest() for a, b in zip(bounds, bounds[1:])])
    words = np.frombuffer(digests, dtype=">u8").reshape(n, 4)
    a = int(words[:, 0].astype(np.uint64).sum(dtype=np.uint64))
    b = int(words[:, 1].astype(np.uint64).sum(dtype=np.uint64))
    return LaneSums(n, a, b)
