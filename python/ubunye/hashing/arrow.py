"""The vectorised rows-v1 path over Arrow record batches.

The canonical lines of a batch are built column by column with
``pyarrow.compute`` (Python is used only for the values that need it: binary,
nested values, floats outside the plain range, strings with characters to
escape), joined per row, then SHA-256 is taken of each line and the lanes are
summed with numpy ``uint64`` (wrapping, so modulo 2^64). Large inputs are
hashed on two cores (this process and one worker process, see
:mod:`ubunye.hashing.parallel`).

:func:`lane_sums` works batch by batch in bounded memory; it is also what the
Spark fallback runs inside ``mapInArrow`` on the executors (with ``workers=1``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Iterator, Optional, Union

from ubunye.hashing.arrow_types import arrow_schema_kinds
from ubunye.hashing.digest import LaneSums, Totals
from ubunye.hashing.errors import RowsV1Error
from ubunye.hashing.kinds import Kind
from ubunye.hashing.lanes_worker import span_totals

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

CHUNK_ROWS = 65_536


def arrow_kinds(schema: "pa.Schema") -> list[tuple[str, str]]:
    """``(name, kind text)`` of each column in table order (spec section 3).

    Raises :class:`RowsV1Error` naming the column and its type when a type has
    no canonical text or a top-level name is repeated.
    """
    return [(name, kind.text) for name, kind in arrow_schema_kinds(schema)]


def lane_sums(
    batches: Iterable[Union["pa.RecordBatch", "pa.Table"]],
    *,
    workers: Optional[int] = None,
    threads: bool = False,
    rows_hint: Optional[int] = None,
) -> LaneSums:
    """Row count and lane sums of all rows of ``batches``: :func:`lane_totals` without
    the sketch."""
    return lane_totals(batches, workers=workers, threads=threads, rows_hint=rows_hint, sketch=False).sums


def lane_totals(
    batches: Iterable[Union["pa.RecordBatch", "pa.Table"]],
    *,
    workers: Optional[int] = None,
    threads: bool = False,
    rows_hint: Optional[int] = None,
    sketch: bool = True,
) -> Totals:
    """Row count, lane sums and (``sketch``) the localisation sketch's cells of all rows of
    ``batches``, in one pass (vectorised, bounded memory).

    Batches are cut into chunks of :data:`CHUNK_ROWS`; the lines of one chunk
    are built at a time and hashed.

    ``workers``: ``1`` hashes in this process only; ``2`` (or more: at most
    two processes are used) also hashes on a second core in a worker process
    (:mod:`ubunye.hashing.parallel`; same sums, exactly); ``None`` (auto)
    uses the worker only for inputs of at least
    :data:`~ubunye.hashing.parallel.AUTO_MIN_ROWS` rows (counted up front for
    tables and lists of them or given as ``rows_hint``, otherwise as they
    arrive), with 2+ CPUs and never inside a Spark Python worker. A failed
    worker raises :class:`~ubunye.hashing.parallel.HashWorkerError`.

    ``threads`` (one process only; auto then means one process): build the
    next chunk's lines in a helper thread while this one hashes. Off by
    default: hashing holds the GIL and it did not measurably help
    (``bench/bench_rows_v1.py`` times it).
    """
    from ubunye.hashing.parallel import resolve_workers

    known = rows_hint if rows_hint is not None else _known_rows(batches)
    n = 1 if threads and workers is None else resolve_workers(workers, known)
    if threads and n > 1:
        raise ValueError(f"threads=True hashes in one process; it cannot be combined with workers={workers}")
    if n > 1:
        return _parallel_sums(batches, auto=workers is None, known=known, sketch=sketch)
    total = _empty(sketch)
    chunks = _chunks(batches)
    if not threads:
        for chunk, kinds in chunks:
            total = total + hash_lines(line_array(chunk, kinds), sketch)
        return total
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="rows-v1-lines") as pool:
        pending = None
        for chunk, kinds in chunks:
            future = pool.submit(line_array, chunk, kinds)
            if pending is not None:
                total = total + hash_lines(pending.result(), sketch)
            pending = future
        if pending is not None:
            total = total + hash_lines(pending.result(), sketch)
    return total


def _empty(sketch: bool) -> Totals:
    """The totals of no rows (with zero cells when the sketch is asked for)."""
    if not sketch:
        return Totals()
    import numpy as np

    from ubunye.hashing.lanes_worker import SKETCH_CELLS

    return Totals(LaneSums(), np.zeros((SKETCH_CELLS, 4), dtype=np.uint64))


def _known_rows(batches: object) -> Optional[int]:
    """Rows of a table, a batch or a list/tuple of them; None for an iterator."""
    import pyarrow as pa

    items = [batches] if isinstance(batches, (pa.Table, pa.RecordBatch)) else batches
    if not isinstance(items, (list, tuple)):
        return None
    if not all(isinstance(x, (pa.Table, pa.RecordBatch)) for x in items):
        return None
    return sum(x.num_rows for x in items)


def _parallel_sums(
    batches: Iterable[Union["pa.RecordBatch", "pa.Table"]], *, auto: bool, known: Optional[int], sketch: bool
) -> Totals:
    """:func:`lane_sums` with the shared worker process hashing some of the chunks.

    In auto mode with an unknown size the worker is taken once
    :data:`~ubunye.hashing.parallel.AUTO_MIN_ROWS` rows have been seen (or,
    if one is already running, after the first chunk); a worker that cannot
    start then is not an error (this process hashes alone). Every chunk is
    hashed exactly once, here or there; the worker's sums are collected
    before returning.
    """
    from ubunye.hashing import parallel

    total = _empty(sketch)
    worker: Optional[parallel.LaneWorker] = None
    tried = False
    seen = 0
    ok = False
    try:
        for chunk, kinds in _chunks(batches):
            lines = _plain_lines(line_array(chunk, kinds))
            seen += len(lines)
            if worker is None and not tried:
                if not auto or known is not None or seen >= parallel.AUTO_MIN_ROWS:
                    tried = True
                    worker = _take_worker(parallel, start=True, auto=auto)
                elif seen >= CHUNK_ROWS and parallel.current_worker_pid() is not None:
                    tried = True  # a running worker costs nothing to use
                    worker = _take_worker(parallel, start=False, auto=auto)
            if worker is not None:
                try:
                    total = total + worker.take_done()
                except parallel.HashWorkerError as exc:
                    if not (auto and not worker.ready):
                        raise
                    parallel.release_worker(worker, ok=False)  # it never started: hash alone
                    parallel.disable_auto(str(exc))
                    worker = None
                if worker is not None and worker.can_take():
                    worker.submit(lines, sketch)
                    continue
            total = total + hash_lines(lines, sketch)
        if worker is not None:
            total = total + worker.drain()
        ok = True
    finally:
        if worker is not None:
            parallel.release_worker(worker, ok)
    return total


def _take_worker(parallel: Any, *, start: bool, auto: bool) -> Any:
    try:
        return parallel.acquire_worker(start=start)
    except (OSError, parallel.HashWorkerError) as exc:  # OSError: no pipe or memory file left
        if not auto:
            if isinstance(exc, parallel.HashWorkerError):
                raise
            raise parallel.HashWorkerError(f"cannot start the rows-v1 hashing worker: {exc}") from exc
        parallel.disable_auto(str(exc))
        return None


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


def _plain_lines(lines: "pa.Array") -> "pa.Array":
    """``lines`` as a string/binary (or large) array without nulls."""
    import pyarrow as pa

    if lines.null_count:
        raise RowsV1Error("a canonical line is null")
    t = lines.type
    if not (pa.types.is_string(t) or pa.types.is_binary(t) or pa.types.is_large_string(t)
            or pa.types.is_large_binary(t)):
        lines = lines.cast(pa.string())
    return lines


def hash_lines(lines: "pa.Array", sketch: bool = False) -> Totals:
    """Row count, lane sums (and ``sketch`` cells) of a string (or binary) array of lines,
    in this process."""
    if len(lines) == 0:
        return _empty(sketch)
    data, bounds = _line_spans(lines)
    rows, a, b, cells = span_totals(data, bounds, sketch)
    return Totals(LaneSums(rows, a, b), cells)


def _line_spans(lines: "pa.Array") -> tuple[memoryview, list[int]]:
    """The data buffer of a non-empty array of lines and each line's bounds in it."""
    import numpy as np
    import pyarrow as pa

    n = len(lines)
    lines = _plain_lines(lines)
    large = pa.types.is_large_string(lines.type) or pa.types.is_large_binary(lines.type)
    off_type = np.int64 if large else np.int32
    _, off_buf, data_buf = lines.buffers()
    offsets = np.frombuffer(off_buf, dtype=off_type, count=n + 1, offset=lines.offset * np.dtype(off_type).itemsize)
    return (memoryview(data_buf) if data_buf is not None else memoryview(b"")), offsets.tolist()


def row_lanes(batch: "pa.RecordBatch") -> tuple[Any, Any]:
    """Lane A and lane B (uint64 arrays) of every row of ``batch``, in row order: the
    per-row numbers behind the lane sums (rows-v1 1.2)."""
    import numpy as np

    from ubunye.hashing.lanes_worker import span_lanes

    if batch.num_rows == 0:
        return np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.uint64)
    data, bounds = _line_spans(line_array(batch, arrow_schema_kinds(batch.schema)))
    return span_lanes(data, bounds)
