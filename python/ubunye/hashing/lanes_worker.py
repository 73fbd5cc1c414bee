"""The hashing loop of rows-v1, and the worker process that runs it on another core.

:func:`span_sums` is the one loop that hashes canonical lines (SHA-256 of each
line, lanes A and B summed modulo 2^64); :func:`ubunye.hashing.arrow.hash_lines`
calls it in the caller's process and :mod:`ubunye.hashing.parallel` runs this
file as a script in a worker process.

The worker is started by file path (``python .../lanes_worker.py CTL REP SLOT...``)
and imports only the standard library and numpy: no pyarrow, no pyspark, no
``ubunye`` package import, so it starts quickly and runs no code of the parent
program. Its protocol (all integers little-endian):

- the parent writes a chunk into slot file ``SLOT[i]`` (offsets then line
  bytes) and sends on ``CTL`` one request :data:`REQUEST` =
  ``(op=b"H", slot, offset width 4|8, rows, offset bytes, data bytes, base)``
  where ``base`` is the first offset; ``op=b"K"`` is the same and also asks for the
  localisation sketch's cells; ``op=b"Q"`` asks the worker to exit;
- the worker answers on ``REP`` with one :data:`REPLY` = ``(tag, slot, rows, a, b)``:
  tag ``b"S"`` once at start-up (ready), ``b"R"`` for a result, ``b"E"`` for an
  error, followed by ``rows`` bytes of UTF-8 message; a result of ``K`` is followed by
  the sketch cells (:data:`SKETCH_CELLS` x 4 little-endian u64). End of file on ``CTL``
  makes the worker exit (so it never outlives its parent's pipe).
"""
from __future__ import annotations

import os
import sys

if __name__ == "__main__" and sys.path and sys.path[0] and (
    os.path.realpath(sys.path[0]) == os.path.dirname(os.path.realpath(__file__))
):
    # Run as a script: do not let the modules beside this file (arrow.py ...)
    # shadow installed packages.
    del sys.path[0]

import hashlib
import struct
from typing import Any, Union

REQUEST = struct.Struct("<cIBqqqq")
REPLY = struct.Struct("<cIqQQ")
MASK64 = (1 << 64) - 1
KEEP_BYTES = 64 << 20
"""Buffers (here) and slot files (in the parent) larger than this are freed after use."""

Buffer = Union[bytes, bytearray, memoryview]


def span_sums(data: Buffer, bounds: list[int]) -> tuple[int, int, int]:
    """``(rows, a, b)`` of the lines ``data[bounds[i]:bounds[i + 1]]``."""
    return span_totals(data, bounds, sketch=False)[:3]  # type: ignore[return-value]


def span_totals(data: Buffer, bounds: list[int], sketch: bool = True) -> tuple[int, int, int, Any]:
    """``(rows, a, b, cells)`` of the lines ``data[bounds[i]:bounds[i + 1]]``: the lane
    sums and, with ``sketch``, the sketch cells of the default size (else None)."""
    import numpy as np

    n = len(bounds) - 1
    if n <= 0:
        return 0, 0, 0, (np.zeros((SKETCH_CELLS, 4), dtype=np.uint64) if sketch else None)
    lane_a, lane_b = span_lanes(data, bounds)
    a = int(lane_a.sum(dtype=np.uint64))
    b = int(lane_b.sum(dtype=np.uint64))
    return n, a, b, (lane_cells(lane_a, lane_b) if sketch else None)


def span_lanes(data: Buffer, bounds: list[int]) -> tuple[Any, Any]:
    """Lane A and lane B (uint64 arrays) of each line ``data[bounds[i]:bounds[i + 1]]``."""
    import numpy as np

    n = len(bounds) - 1
    view = data if isinstance(data, memoryview) else memoryview(data)
    sha = hashlib.sha256
    # (measured: this comprehension costs less CPU than a chain of map() calls
    # or than bytes.split on newline-joined lines)
    digests = b"".join([sha(view[a:b]).digest() for a, b in zip(bounds, bounds[1:])])
    words = np.frombuffer(digests, dtype=">u8").reshape(max(n, 0), 4)
    return words[:, 0].astype(np.uint64), words[:, 1].astype(np.uint64)


# -- the localisation sketch's cell rule (docs/spec/rows-v1-localise.md) --------------
# Kept here, beside the hashing loop, because the worker process imports nothing of the
# package; ubunye.hashing.sketch re-exports it and holds the rest (merge, decode, text).
SKETCH_CELLS = 320
SKETCH_K = 5
GOLDEN = 0x9E3779B97F4A7C15
MIX_1 = 0xBF58476D1CE4E5B9
MIX_2 = 0x94D049BB133111EB


def mix64(x: int) -> int:
    """The SplitMix64 finaliser of one 64-bit value (Python ints, the spec's reference)."""
    x &= MASK64
    x = ((x ^ (x >> 30)) * MIX_1) & MASK64
    x = ((x ^ (x >> 27)) * MIX_2) & MASK64
    return x ^ (x >> 31)


def check_geometry(cells: int, k: int) -> int:
    """The width of each of the ``k`` sub-tables: ``cells / k``, a power of two >= 2."""
    width = cells // k if k > 0 else 0
    if k < 1 or cells != width * k or width < 2 or width & (width - 1):
        raise ValueError(f"a sketch of {cells} cells and k={k}: cells / k must be a power of two >= 2")
    return width


def cell_index(a: int, j: int, width: int) -> int:
    """Row ``a``'s cell in sub-table ``j`` (0-based): ``j * width`` + the top bits of a mix."""
    return j * width + (mix64(a ^ (((j + 1) * GOLDEN) & MASK64)) >> (64 - (width.bit_length() - 1)))


def check_value(a: int, b: int) -> int:
    """The check value of a row with lanes ``a``, ``b``."""
    return mix64(a ^ mix64(b))


def _mix_array(x: "Any") -> "Any":
    import numpy as np

    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * np.uint64(MIX_1)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(MIX_2)
        return x ^ (x >> np.uint64(31))


def lane_cells(a: "Any", b: "Any", cells: int = SKETCH_CELLS, k: int = SKETCH_K) -> "Any":
    """The sketch cells (``cells`` x 4 uint64: count, sum A, sum B, sum check) of rows with
    lanes ``a``, ``b`` (uint64 arrays), modulo 2^64."""
    import numpy as np

    width = check_geometry(cells, k)
    out = np.zeros((cells, 4), dtype=np.uint64)
    if len(a) == 0:
        return out
    a = np.asarray(a, dtype=np.uint64)
    b = np.asarray(b, dtype=np.uint64)
    check = _mix_array(a ^ _mix_array(b))
    for start in range(0, len(a), _EXACT_ROWS):
        _add_cells(out, a[start:start + _EXACT_ROWS], b[start:start + _EXACT_ROWS],
                   check[start:start + _EXACT_ROWS], width, k)
    return out


_EXACT_ROWS = 1 << 20
"""Rows per ``bincount``: 2^20 halves of < 2^32 each sum below 2^52, exact in a float64."""


def _add_cells(out: "Any", a: "Any", b: "Any", check: "Any", width: int, k: int) -> None:
    """Add the rows' cells into ``out``: per 32-bit half, ``bincount`` with float64 weights
    (exact here, see :data:`_EXACT_ROWS`; much faster than ``np.add.at`` on uint64)."""
    import numpy as np

    shift = 64 - (width.bit_length() - 1)
    low = np.uint64(0xFFFFFFFF)
    halves = [(v & low).astype(np.float64) for v in (a, b, check)]
    highs = [(v >> np.uint64(32)).astype(np.float64) for v in (a, b, check)]
    with np.errstate(over="ignore"):
        for j in range(k):
            idx = (_mix_array(a ^ np.uint64(((j + 1) * GOLDEN) & MASK64)) >> np.uint64(shift)).astype(np.intp)
            part = out[j * width:(j + 1) * width]
            part[:, 0] += np.bincount(idx, minlength=width).astype(np.uint64)
            for col in range(3):
                lo = np.bincount(idx, weights=halves[col], minlength=width).astype(np.uint64)
                hi = np.bincount(idx, weights=highs[col], minlength=width).astype(np.uint64)
                part[:, col + 1] += lo + (hi << np.uint64(32))


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _read_exact(fd: int, size: int) -> bytes:
    """``size`` bytes from ``fd``, or b"" at end of file before the first byte."""
    parts = []
    got = 0
    while got < size:
        part = os.read(fd, size - got)
        if not part:
            if got:
                raise EOFError(f"pipe closed after {got} of {size} bytes")
            return b""
        parts.append(part)
        got += len(part)
    return b"".join(parts)


def _pread_into(fd: int, buf: bytearray, size: int) -> None:
    view = memoryview(buf)
    got = 0
    while got < size:
        n = os.preadv(fd, [view[got:size]], got)
        if n <= 0:
            raise EOFError(f"slot file ended after {got} of {size} bytes")
        got += n


def _hash_request(slot_fd: int, buf: bytearray, width: int, rows: int,
                  off_bytes: int, data_bytes: int, base: int, sketch: bool = False) -> tuple[int, int, int, Any]:
    import numpy as np

    total = off_bytes + data_bytes
    if len(buf) < total:
        buf.extend(bytes(total - len(buf)))
    _pread_into(slot_fd, buf, total)
    if width not in (4, 8) or off_bytes != (rows + 1) * width:
        raise ValueError(f"bad request: {rows} rows with {off_bytes} offset bytes of width {width}")
    offsets = np.frombuffer(buf, dtype=f"<i{width}", count=rows + 1).astype(np.int64)
    bounds = (offsets - (base - off_bytes)).tolist()
    if bounds[0] != off_bytes or bounds[-1] != total:
        raise ValueError(f"bad request: offsets span {bounds[0]}..{bounds[-1]}, expected {off_bytes}..{total}")
    return span_totals(memoryview(buf)[:total], bounds, sketch)


def serve(ctl: int, rep: int, slots: list[int]) -> None:
    """Answer requests on ``ctl`` until ``Q`` or end of file."""
    buffers = [bytearray() for _ in slots]
    os.write(rep, REPLY.pack(b"S", 0, 0, 0, 0))
    while True:
        head = _read_exact(ctl, REQUEST.size)
        if not head:
            return
        op, slot, width, rows, off_bytes, data_bytes, base = REQUEST.unpack(head)
        if op == b"Q":
            return
        try:
            if op not in (b"H", b"K") or slot >= len(slots):
                raise ValueError(f"bad request op={op!r} slot={slot}")
            n, a, b, cells = _hash_request(slots[slot], buffers[slot], width, rows, off_bytes, data_bytes, base,
                                           sketch=op == b"K")
            if len(buffers[slot]) > KEEP_BYTES:  # do not hold on to the memory of a rare huge chunk
                buffers[slot] = bytearray()
            reply = REPLY.pack(b"R", slot, n, a & MASK64, b & MASK64)
            if cells is not None:  # op K: the sketch cells follow, SKETCH_CELLS x 4 little-endian u64
                reply += cells.astype("<u8").tobytes()
            _write_all(rep, reply)
        except Exception as exc:  # reported to the parent, which raises it
            message = f"{type(exc).__name__}: {exc}".encode("utf-8", "replace")[:4000]
            os.write(rep, REPLY.pack(b"E", slot, len(message), 0, 0) + message)


def main(argv: list[str]) -> int:
    ctl, rep, *slots = (int(x) for x in argv)
    try:
        import numpy  # noqa: F401  (imported before "ready", so start-up failures show)
    except Exception as exc:
        message = f"{type(exc).__name__}: {exc}".encode("utf-8", "replace")[:4000]
        os.write(rep, REPLY.pack(b"E", 0, len(message), 0, 0) + message)
        return 1
    serve(ctl, rep, slots)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:  # the parent's Ctrl-C reaches the whole process group
        sys.exit(130)
