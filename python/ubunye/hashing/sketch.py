"""The rows-v1 localisation sketch: which rows differ between two runs, from the records alone.

Spec: ``docs/spec/rows-v1-localise.md``. An invertible Bloom lookup table over the
rows' lanes: ``cells`` cells in ``k`` sub-tables, each cell four sums modulo 2^64
(row count, lane A, lane B, check value). Every row adds itself to one cell per
sub-table. Subtracting run A's sketch from run B's leaves only the rows that differ;
:meth:`Sketch.decode` peels them: count +1 is a row added in B, count -1 a row removed.

The cell rule (:func:`~ubunye.hashing.lanes_worker.lane_cells`, vectorised, and
:func:`~ubunye.hashing.lanes_worker.cell_index` / ``check_value`` for one row) lives
beside the hashing loop in :mod:`ubunye.hashing.lanes_worker`, whose worker process
imports nothing of this package.
"""
from __future__ import annotations

import base64
import math
import struct
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional

from ubunye.hashing.lanes_worker import (
    MASK64, SKETCH_CELLS, SKETCH_K, cell_index, check_geometry, check_value, lane_cells,
)

VERSION = "rows-v1-sketch/1"
"""The ``version`` of the record form; a reader refuses (ignores) any other."""


def row_name(a: int, b: int) -> str:
    """A decoded row's name: ``sha256:`` and the first 32 hex digits of its row digest
    (lanes A and B are the digest's first 16 bytes, big-endian)."""
    return f"sha256:{a & MASK64:016x}{b & MASK64:016x}"


@dataclass
class Decoded:
    """What peeling a difference found.

    ``added``/``removed``: ``(a, b)`` lanes of the rows in B not in A / in A not in B
    (one entry per copy). ``complete``: every cell peeled to zero, so the lists are the
    whole difference. Otherwise ``estimate`` is about how many rows differ, and
    ``at_least`` a sure lower bound (``saturated``: every cell of a sub-table is taken, so
    the estimate is only that bound).
    """

    added: list[tuple[int, int]] = field(default_factory=list)
    removed: list[tuple[int, int]] = field(default_factory=list)
    complete: bool = True
    estimate: int = 0
    at_least: int = 0
    saturated: bool = False

    @property
    def added_names(self) -> list[str]:
        return sorted(row_name(a, b) for a, b in self.added)

    @property
    def removed_names(self) -> list[str]:
        return sorted(row_name(a, b) for a, b in self.removed)

    def summary(self) -> str:
        """``2 rows removed, 2 added`` or ``about N rows differ``."""
        if not self.complete:
            word = "at least" if self.saturated else "about"
            return f"{word} {self.estimate} rows differ (too many to name from the records)"
        if not self.added and not self.removed:
            return "no row differs"
        removed = f"{len(self.removed)} row{'s' if len(self.removed) != 1 else ''} removed"
        return f"{removed}, {len(self.added)} added"


class Sketch:
    """Cells of one table (or of a difference), ``cells`` x 4 uint64."""

    def __init__(self, cells: int = SKETCH_CELLS, k: int = SKETCH_K, data: Any = None) -> None:
        import numpy as np

        self.width = check_geometry(cells, k)
        self.cells, self.k = cells, k
        if data is None:
            data = np.zeros((cells, 4), dtype=np.uint64)
        data = np.asarray(data, dtype=np.uint64)
        if data.shape != (cells, 4):
            raise ValueError(f"sketch data of shape {data.shape}, expected ({cells}, 4)")
        self.data = data

    # -- building -------------------------------------------------------------
    def add_lanes(self, a: Any, b: Any) -> "Sketch":
        """Add rows given as uint64 arrays of lanes (vectorised); returns self."""
        self.data += lane_cells(a, b, self.cells, self.k)
        return self

    def add_row(self, a: int, b: int, copies: int = 1) -> "Sketch":
        """Add (or, with ``copies=-1``, take out) one row by its lanes, in plain Python."""
        row = (copies & MASK64, (a * copies) & MASK64, (b * copies) & MASK64,
               (check_value(a, b) * copies) & MASK64)
        for j in range(self.k):
            i = cell_index(a, j, self.width)
            for col in range(4):
                self.data[i, col] = (int(self.data[i, col]) + row[col]) & MASK64
        return self

    def _same_shape(self, other: "Sketch") -> None:
        if (self.cells, self.k) != (other.cells, other.k):
            raise ValueError(f"sketches of different shapes: {self.cells}/{self.k} and {other.cells}/{other.k}")

    def merge(self, other: "Sketch") -> "Sketch":
        """The sketch of both tables' rows together (cell-wise sum)."""
        import numpy as np

        self._same_shape(other)
        with np.errstate(over="ignore"):
            return Sketch(self.cells, self.k, self.data + other.data)

    __add__ = merge

    def subtract(self, other: "Sketch") -> "Sketch":
        """``self - other``: the rows of self not in other count +1, the reverse -1."""
        import numpy as np

        self._same_shape(other)
        with np.errstate(over="ignore"):
            return Sketch(self.cells, self.k, self.data - other.data)

    __sub__ = subtract

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Sketch) and (self.cells, self.k) == (other.cells, other.k)
                and bool((self.data == other.data).all()))

    def rows(self) -> int:
        """Rows added (sub-table 0's counts, modulo 2^64)."""
        return int(sum(int(x) for x in self.data[: self.width, 0])) & MASK64

    # -- decoding -------------------------------------------------------------
    def decode(self) -> Decoded:
        """Peel this sketch (a difference ``B - A``) into added and removed rows."""
        return decode_cells([[int(v) for v in row] for row in self.data.tolist()], self.cells, self.k)

    # -- the record form ------------------------------------------------------
    def to_record(self) -> dict[str, Any]:
        """``{"version", "cells", "k", "data"}``: data is base64 of the cells' little-endian
        u64s, cell by cell (count, sum A, sum B, sum check)."""
        raw = self.data.astype("<u8").tobytes()
        return {"version": VERSION, "cells": self.cells, "k": self.k, "data": base64.b64encode(raw).decode("ascii")}

    @classmethod
    def from_record(cls, value: Any) -> "Sketch":
        """The sketch of a record field; ``ValueError`` naming what is wrong."""
        import numpy as np

        cells, k, cell = parse_record(value)
        return cls(cells, k, np.array(cell, dtype=np.uint64).reshape(cells, 4))


def sketch_of_lanes(lanes: Iterable[tuple[int, int]], cells: int = SKETCH_CELLS, k: int = SKETCH_K) -> Sketch:
    """The sketch of rows given by their lanes, one at a time (the reference)."""
    out = Sketch(cells, k)
    for a, b in lanes:
        out.add_row(a, b)
    return out


def difference(old: Any, new: Any) -> Optional[Decoded]:
    """The decoded difference of two record fields (``new - old``); None when either is
    missing, of another version or shape, or damaged. Plain Python (no numpy)."""
    if old is None or new is None:
        return None
    try:
        ca, ka, a = parse_record(old)
        cb, kb, b = parse_record(new)
    except ValueError:
        return None
    if (ca, ka) != (cb, kb):
        return None
    cell = [[(y - x) & MASK64 for x, y in zip(ra, rb)] for ra, rb in zip(a, b)]
    return decode_cells(cell, ca, ka)


def _pure(cell: list[list[int]], i: int, width: int) -> Optional[tuple[int, int, int]]:
    """``(sign, a, b)`` when cell ``i`` holds exactly one row once (count +-1, the check and
    the cell index agree), else None."""
    count, sa, sb, sc = cell[i]
    if count == 1:
        sign = 1
    elif count == MASK64:
        sign, sa, sb, sc = -1, (-sa) & MASK64, (-sb) & MASK64, (-sc) & MASK64
    else:
        return None
    if check_value(sa, sb) != sc or cell_index(sa, i // width, width) != i:
        return None
    return sign, sa, sb


def decode_cells(cell: list[list[int]], cells: int, k: int) -> Decoded:
    """Peel a difference given as ``cells`` lists of four ints (changed in place); plain
    Python, so that reading records needs no numpy."""
    width = check_geometry(cells, k)
    out = Decoded()
    queue = [i for i in range(cells) if cell[i][0] in (1, MASK64)]
    budget = 8 * cells  # a false pure cell can never loop for ever
    while queue and budget > 0:
        i = queue.pop()
        found = _pure(cell, i, width)
        if found is None:
            continue
        budget -= 1
        sign, a, b = found
        (out.added if sign == 1 else out.removed).append((a, b))
        take = (sign & MASK64, (a * sign) & MASK64, (b * sign) & MASK64, (check_value(a, b) * sign) & MASK64)
        for j in range(k):
            t = cell_index(a, j, width)
            cell[t] = [(cell[t][c] - take[c]) & MASK64 for c in range(4)]
            if cell[t][0] in (1, MASK64):
                queue.append(t)
    left = [sum(1 for i in range(j * width, (j + 1) * width) if any(cell[i])) for j in range(k)]
    if not any(left):
        return out
    out.complete = False
    peeled = len(out.added) + len(out.removed)
    counts = [sum(min(cell[i][0], (-cell[i][0]) & MASK64) for i in range(j * width, (j + 1) * width))
              for j in range(k)]  # sum of |count|: every row left is counted once per sub-table
    out.at_least = peeled + max(max(left), max(counts))
    if max(left) >= width:  # saturated: nothing better than the bound
        out.saturated = True
        out.estimate = out.at_least
        return out
    rest = sum(-width * math.log(1 - z / width) for z in left) / k
    out.estimate = max(out.at_least, peeled + round(rest))
    return out


def parse_record(value: Any) -> tuple[int, int, list[list[int]]]:
    """``(cells, k, cell lists)`` of a record field, without numpy; ``ValueError`` naming
    what is wrong."""
    if not isinstance(value, dict):
        raise ValueError(f"a sketch must be an object, not {type(value).__name__}")
    if value.get("version") != VERSION:
        raise ValueError(f"sketch version {value.get('version')!r} is not {VERSION!r}")
    cells, k = value.get("cells"), value.get("k")
    if not isinstance(cells, int) or not isinstance(k, int) or isinstance(cells, bool) or isinstance(k, bool):
        raise ValueError("sketch cells and k must be whole numbers")
    check_geometry(cells, k)
    try:
        raw = base64.b64decode(str(value.get("data", "")), validate=True)
    except ValueError as exc:
        raise ValueError(f"sketch data is not base64: {exc}") from None
    if len(raw) != cells * 32:
        raise ValueError(f"sketch data holds {len(raw)} bytes, expected {cells * 32}")
    words = struct.unpack(f"<{cells * 4}Q", raw)
    return cells, k, [list(words[i:i + 4]) for i in range(0, cells * 4, 4)]
