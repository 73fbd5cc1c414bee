"""Helpers for people debugging a rows-v1 mismatch: kinds and lines of a frame."""
from __future__ import annotations

from typing import Any, Optional

from ubunye.hashing.errors import RowsV1Error


def canonical_kinds(frame: Any) -> list[tuple[str, str]]:
    """``(name, kind)`` of each column of ``frame``, in table order (spec section 3).

    Raises :class:`~ubunye.hashing.errors.RowsV1Error` naming the column and
    type when a column has no canonical kind.
    """
    from ubunye.hashing.frames import frame_kind, port_kinds, to_arrow_source
    from ubunye.hashing.reference import parse_kinds

    kind = frame_kind(frame)
    if kind == "spark":
        from ubunye.hashing.registry import frame_kind_of

        return list(frame_kind_of(kind).kinds(frame))
    if kind == "port":
        return [(n, k.text) for n, k in parse_kinds(port_kinds(frame.schema))]
    from ubunye.hashing.arrow import arrow_kinds

    return arrow_kinds(to_arrow_source(frame).schema)


def canonical_lines(frame: Any, start: int = 0, stop: Optional[int] = None) -> list[str]:
    """The canonical lines of rows ``start`` to ``stop`` (exclusive) of ``frame``.

    Written by the row-at-a-time reference, so they read like the spec.
    """
    from ubunye.hashing.frames import frame_kind, port_kinds, to_arrow_source
    from ubunye.hashing.reference import arrow_rows, canonical_line_of, parse_kinds

    if frame_kind(frame) == "port":
        kinds = parse_kinds(port_kinds(frame.schema))
        rows = list(frame.collect())[start:stop]
        return [canonical_line_of(row, kinds) for row in rows]
    from ubunye.hashing.arrow_types import arrow_schema_kinds

    source = to_arrow_source(frame)
    kinds = arrow_schema_kinds(source.schema)
    lines: list[str] = []
    offset = 0
    for batch in source.batches:
        lo, hi = max(start - offset, 0), batch.num_rows if stop is None else min(stop - offset, batch.num_rows)
        if lo < hi:
            lines.extend(canonical_line_of(row, kinds) for row in arrow_rows(batch.slice(lo, hi - lo)))
        offset += batch.num_rows
        if stop is not None and offset >= stop:
            break
    return lines


def canonical_line(frame: Any, row: int = 0) -> str:
    """The canonical line of row number ``row`` of ``frame``."""
    lines = canonical_lines(frame, row, row + 1)
    if not lines:
        raise RowsV1Error(f"row {row} is out of range")
    return lines[0]
