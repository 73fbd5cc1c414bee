"""Find rows by their lanes in one hashing pass (``lineage diff --rows``).

Every row of the batches is hashed as rows-v1 hashes it; the pass sums all rows' lanes
(so the caller can check the data hash) and keeps the canonical lines of only the rows
whose lanes ``(A, B)`` are asked for: memory grows with the rows found, not the table.
"""
from __future__ import annotations

from typing import Any, Iterable, Optional, Union

from ubunye.hashing.digest import LaneSums

Lanes = tuple[int, int]


def match_lanes(batches: Iterable[Union[Any]], wanted: Iterable[Lanes]
                ) -> tuple[Optional[list[tuple[str, str]]], LaneSums, list[tuple[Lanes, str]]]:
    """``(kinds, sums, found)``: the rows-v1 kinds of the batches' schema (None when there
    was no batch), the row count and lane sums of every row, and ``((A, B), line)`` of each
    row whose lanes are in ``wanted`` (every copy)."""
    import numpy as np

    from ubunye.hashing.arrow import CHUNK_ROWS, _line_spans, _record_batches, line_array
    from ubunye.hashing.arrow_types import arrow_schema_kinds
    from ubunye.hashing.lanes_worker import span_lanes

    want = set(wanted)
    want_a = np.array(sorted({a for a, _ in want}), dtype=np.uint64)
    sums, kinds, found = LaneSums(), None, []
    for batch in _record_batches(batches):
        if kinds is None:
            kinds = arrow_schema_kinds(batch.schema)
        for start in range(0, batch.num_rows, CHUNK_ROWS):
            lines = line_array(batch.slice(start, CHUNK_ROWS), kinds)
            if len(lines) == 0:
                continue
            a, b = span_lanes(*_line_spans(lines))
            sums = sums + LaneSums(len(a), int(a.sum(dtype=np.uint64)), int(b.sum(dtype=np.uint64)))
            for i in np.flatnonzero(np.isin(a, want_a)).tolist():
                if (int(a[i]), int(b[i])) in want:
                    found.append(((int(a[i]), int(b[i])), lines[i].as_py()))
    return (None if kinds is None else [(n, k.text) for n, k in kinds]), sums, found
