"""Lanes, lane sums and the two digests of rows-v1 (spec section 1)."""
from __future__ import annotations

import hashlib
from typing import Any, Iterable, NamedTuple, Sequence, Union

from ubunye.hashing.jsontext import compact_json

METHOD = "rows-v1"
"""The hash method's name, in every fingerprint and data hash."""

MASK64 = (1 << 64) - 1
KindPairs = Sequence[tuple[str, str]]


class LaneSums(NamedTuple):
    """Row count and the two lane sums; ``+`` adds the lanes modulo 2^64."""

    rows: int = 0
    a: int = 0
    b: int = 0

    def __add__(self, other: object) -> "LaneSums":  # type: ignore[override]
        if not isinstance(other, LaneSums):
            return NotImplemented
        return LaneSums(
            self.rows + other.rows, (self.a + other.a) & MASK64, (self.b + other.b) & MASK64
        )

    def __radd__(self, other: object) -> "LaneSums":
        if other == 0:  # so that sum() works
            return self
        return NotImplemented


class Totals(NamedTuple):
    """What one pass over rows gives: the lane sums and, when asked for, the localisation
    sketch's cells (a ``cells x 4`` uint64 array, see :mod:`ubunye.hashing.sketch`)."""

    sums: LaneSums = LaneSums()
    cells: Any = None

    def __add__(self, other: object) -> "Totals":  # type: ignore[override]
        if not isinstance(other, Totals):
            return NotImplemented
        if self.cells is None or other.cells is None:
            cells = self.cells if other.cells is None else other.cells
        else:
            cells = self.cells + other.cells  # uint64: wraps, modulo 2^64
        return Totals(self.sums + other.sums, cells)


def line_lanes(line: Union[bytes, str]) -> tuple[int, int]:
    """Lane A and lane B of one canonical line."""
    data = line.encode("utf-8") if isinstance(line, str) else line
    d = hashlib.sha256(data).digest()
    return int.from_bytes(d[0:8], "big"), int.from_bytes(d[8:16], "big")


def sums_of_lines(lines: Iterable[Union[bytes, str]]) -> LaneSums:
    """Lane sums of canonical lines, one at a time (the reference)."""
    rows = a = b = 0
    for line in lines:
        la, lb = line_lanes(line)
        rows += 1
        a = (a + la) & MASK64
        b = (b + lb) & MASK64
    return LaneSums(rows, a, b)


def canonical_schema(kinds: KindPairs) -> list[list[str]]:
    """The ``[name, kind]`` pairs sorted by name then kind (code point order)."""
    return [[name, kind] for name, kind in sorted((str(n), str(k)) for n, k in kinds)]


def schema_hash(kinds: KindPairs) -> str:
    """``sha256:`` of the canonical schema S."""
    s = compact_json(canonical_schema(kinds))
    return "sha256:" + hashlib.sha256(s.encode("ascii")).hexdigest()


def data_hash(kinds: KindPairs, sums: LaneSums) -> str:
    """``sha256:`` of P = method, row count, schema and lane sums."""
    payload = {
        "method": METHOD,
        "rows": int(sums.rows),
        "schema": canonical_schema(kinds),
        "sums": [int(sums.a) & MASK64, int(sums.b) & MASK64],
    }
    return "sha256:" + hashlib.sha256(compact_json(payload).encode("ascii")).hexdigest()
