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
  where ``base`` is the first offset; ``op=b"Q"`` asks the worker to exit;
- the worker answers on ``REP`` with one :data:`REPLY` = ``(tag, slot, rows, a, b)``:
  tag ``b"S"`` once at start-up (ready), ``b"R"`` for a result, ``b"E"`` for an
  error, followed by ``rows`` bytes of UTF-8 message. End of file on ``CTL``
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
from typing import Union

REQUEST = struct.Struct("<cIBqqqq")
REPLY = struct.Struct("<cIqQQ")
MASK64 = (1 << 64) - 1
KEEP_BYTES = 64 << 20
"""Buffers (here) and slot files (in the parent) larger than this are freed after use."""

Buffer = Union[bytes, bytearray, memoryview]


def span_sums(data: Buffer, bounds: list[int]) -> tuple[int, int, int]:
    """``(rows, a, b)`` of the lines ``data[bounds[i]:bounds[i + 1]]``."""
    import numpy as np

    n = len(bounds) - 1
    if n <= 0:
        return 0, 0, 0
    view = data if isinstance(data, memoryview) else memoryview(data)
    sha = hashlib.sha256
    # (measured: this comprehension costs less CPU than a chain of map() calls
    # or than bytes.split on newline-joined lines)
    digests = b"".join([sha(view[a:b]).digest() for a, b in zip(bounds, bounds[1:])])
    words = np.frombuffer(digests, dtype=">u8").reshape(n, 4)
    a = int(words[:, 0].astype(np.uint64).sum(dtype=np.uint64))
    b = int(words[:, 1].astype(np.uint64).sum(dtype=np.uint64))
    return n, a, b


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
                  off_bytes: int, data_bytes: int, base: int) -> tuple[int, int, int]:
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
    return span_sums(memoryview(buf)[:total], bounds)


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
            if op != b"H" or slot >= len(slots):
                raise ValueError(f"bad request op={op!r} slot={slot}")
            n, a, b = _hash_request(slots[slot], buffers[slot], width, rows, off_bytes, data_bytes, base)
            if len(buffers[slot]) > KEEP_BYTES:  # do not hold on to the memory of a rare huge chunk
                buffers[slot] = bytearray()
            os.write(rep, REPLY.pack(b"R", slot, n, a & MASK64, b & MASK64))
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
