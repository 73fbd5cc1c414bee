"""Hashing rows-v1 lines on two processes (``lane_sums(..., workers=2)``).

The worker process must give exactly the single-process sums, fail loudly
(never a wrong sum, never a hang) and stay out of Spark Python workers.
"""
from __future__ import annotations

import os
import signal
import sys
import types
from typing import Iterator

import numpy as np
import pyarrow as pa
import pytest

from ubunye.hashing import arrow, parallel
from ubunye.hashing.arrow import lane_sums
from ubunye.hashing.digest import LaneSums, data_hash
from ubunye.hashing.errors import RowsV1Error
from ubunye.hashing.parallel import HashWorkerError, LaneWorker
from ubunye.hashing.reference import reference_arrow_sums
from ubunye.spark.fallback import partition_sums
from ubunye.testing import load_fixtures

FIXTURES = load_fixtures()


@pytest.fixture
def warm() -> Iterator[LaneWorker]:
    """A running, ready shared worker (so that even the first chunk can go to it)."""
    parallel.warm_up()
    worker = parallel._worker
    assert worker is not None and worker.ready
    yield worker


@pytest.fixture
def cold() -> Iterator[None]:
    parallel.shutdown()
    yield
    parallel.shutdown()


def random_table(n: int, seed: int = 11) -> pa.Table:
    """Nulls, escapes and non-BMP text, doubles of every sort, nested lists, structs and maps."""
    rng = np.random.default_rng(seed)
    words = ["", "a", "é", "naïve", "日本語", "😀 x", 'q"uote', "back\\slash", "line\nbreak", "tab\t",
             "\u2028", "ctl\x01", "long " * 20]
    null = rng.random(n) < 0.1
    text = pa.array([None if z else words[i] for z, i in zip(null, rng.integers(0, len(words), n))], pa.string())
    doubles = rng.normal(0, 1e6, n)
    doubles[rng.random(n) < 0.01] = np.nan
    doubles[rng.random(n) < 0.01] = np.inf
    doubles[rng.random(n) < 0.01] = 1e-320
    sizes = rng.integers(0, 4, n)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int32)
    values = pa.array(rng.integers(-1000, 1000, int(offsets[-1])), pa.int32())
    lists = pa.ListArray.from_arrays(pa.array(offsets), values, mask=pa.array(rng.random(n) < 0.05))
    struct = pa.StructArray.from_arrays(
        [pa.array(rng.integers(-5, 5, n), pa.int64()), text],
        names=["k", "s"],
        mask=pa.array(rng.random(n) < 0.05),
    )
    position = np.arange(int(offsets[-1])) - np.repeat(offsets[:-1], sizes)  # unique keys per map
    keys = pa.array([f"k{i}é" for i in position], pa.string())
    maps = pa.MapArray.from_arrays(pa.array(offsets), keys, values)
    return pa.table({
        "id": pa.array(np.arange(n, dtype=np.int64)),
        "text": text,
        "x": pa.array(doubles, mask=rng.random(n) < 0.1),
        "flag": pa.array(rng.random(n) < 0.5, mask=rng.random(n) < 0.1),
        "bin": pa.array([b"\x00\xff" * int(i) for i in rng.integers(0, 3, n)], pa.binary()),
        "day": pa.array(rng.integers(-40_000, 40_000, n).astype("int32"), pa.int32()).cast(pa.date32()),
        "list": lists,
        "st": struct,
        "m": maps,
    })


@pytest.fixture(scope="module")
def big() -> pa.Table:
    return random_table(300_000)


@pytest.fixture(scope="module")
def big_sums(big: pa.Table) -> LaneSums:
    """Single-process sums of ``big`` (computed once: its nested columns are slow to write)."""
    return lane_sums([big], workers=1)


@pytest.fixture(scope="module")
def flat(big: pa.Table) -> pa.Table:
    """The quick columns of ``big`` (nulls, escapes, doubles), for the tests about the worker itself."""
    return big.select(["id", "text", "x", "flag", "day"])


@pytest.fixture(scope="module")
def flat_sums(flat: pa.Table) -> LaneSums:
    return lane_sums([flat], workers=1)


@pytest.mark.parametrize("fx", [f for f in FIXTURES if not f.expect.fails], ids=lambda f: f.name)
def test_fixtures_same_sums(fx, warm: LaneWorker, monkeypatch: pytest.MonkeyPatch) -> None:
    table = fx.arrow_table()
    monkeypatch.setattr(arrow, "CHUNK_ROWS", 2)  # many chunks, shared by both processes
    before = warm.rows_done
    two = lane_sums([table], workers=2)
    one = lane_sums([table], workers=1)
    assert two == one == reference_arrow_sums(table.to_batches())
    kinds = arrow.arrow_kinds(table.schema)
    assert data_hash(kinds, two) == fx.expect.data_hash
    if table.num_rows:
        assert parallel._worker is warm and warm.rows_done > before  # the worker did hash some lines


@pytest.mark.parametrize("fx", [f for f in FIXTURES if f.expect.fails], ids=lambda f: f.name)
def test_failing_fixtures_fail_the_same(fx, warm: LaneWorker) -> None:
    table = fx.arrow_table()
    with pytest.raises(RowsV1Error) as one:
        lane_sums([table], workers=1)
    with pytest.raises(RowsV1Error) as two:
        lane_sums([table], workers=2)
    assert str(two.value) == str(one.value)


def test_random_table_same_sums(big: pa.Table, big_sums: LaneSums, warm: LaneWorker) -> None:
    assert big_sums.rows == 300_000
    before = warm.rows_done
    assert lane_sums([big], workers=2) == big_sums
    assert warm.rows_done > before
    small = big.slice(123, 2_000)
    assert lane_sums([small], workers=2) == reference_arrow_sums(small.to_batches())


def test_auto_uses_the_worker_for_a_big_table(flat: pa.Table, flat_sums: LaneSums, warm: LaneWorker) -> None:
    before = warm.rows_done
    assert lane_sums([flat]) == flat_sums  # the size is known up front
    assert parallel._worker is warm and warm.rows_done > before


def test_auto_starts_the_worker_for_a_big_table(flat: pa.Table, flat_sums: LaneSums, cold: None) -> None:
    # (a cold worker may not be ready before this process has hashed every chunk itself)
    assert lane_sums([flat]) == flat_sums
    assert parallel.current_worker_pid() is not None


def test_auto_starts_the_worker_lazily_for_an_iterator(flat: pa.Table, flat_sums: LaneSums, cold: None) -> None:
    assert lane_sums(iter(flat.to_batches(max_chunksize=50_000))) == flat_sums  # starts at 200,000 rows seen
    assert parallel.current_worker_pid() is not None


def test_auto_stays_single_for_small_inputs(flat: pa.Table, cold: None) -> None:
    small = flat.slice(0, parallel.AUTO_MIN_ROWS - 1)
    one = lane_sums([small], workers=1)
    assert lane_sums([small]) == one
    assert lane_sums(iter(small.to_batches(max_chunksize=30_000))) == one
    assert parallel.current_worker_pid() is None


def test_workers_1_starts_no_process(flat: pa.Table, flat_sums: LaneSums, cold: None) -> None:
    assert lane_sums([flat], workers=1) == flat_sums
    assert lane_sums([flat], workers=1, threads=True) == flat_sums
    assert parallel.current_worker_pid() is None


def test_spark_worker_stays_single_process(flat: pa.Table, flat_sums: LaneSums, cold: None,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    assert parallel.resolve_workers(None, 10**9) == 2 or (os.cpu_count() or 1) < 2
    monkeypatch.setitem(sys.modules, "pyspark.worker", types.ModuleType("pyspark.worker"))
    assert parallel.in_spark_worker()
    assert parallel.resolve_workers(None, 10**9) == 1
    assert lane_sums([flat]) == flat_sums
    assert parallel.current_worker_pid() is None


def test_fallback_partition_hashes_in_one_process(flat: pa.Table, flat_sums: LaneSums, cold: None) -> None:
    """The mapInArrow body must not start a worker, even for a big partition."""
    out = list(partition_sums(iter(flat.to_batches(max_chunksize=65_536))))
    assert out[0].column(0).to_pylist() == [flat_sums.rows]
    assert parallel.current_worker_pid() is None


def test_bad_workers_value() -> None:
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="workers"):
            lane_sums([], workers=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="threads=True"):
        lane_sums([], workers=2, threads=True)


def test_threads_keep_auto_in_one_process(flat: pa.Table, flat_sums: LaneSums, cold: None) -> None:
    assert lane_sums([flat], threads=True) == flat_sums
    assert parallel.current_worker_pid() is None


def _killing(table: pa.Table, after: int) -> Iterator[pa.RecordBatch]:
    """Batches of ``table``; the worker is killed (and reaped) after ``after`` of them."""
    for i, batch in enumerate(table.to_batches(max_chunksize=20_000)):
        if i == after:
            worker = parallel._worker
            assert worker is not None and worker.rows_done + sum(r for r, *_ in worker._pending.values()) > 0
            os.kill(worker.pid, signal.SIGKILL)
            worker.proc.wait(timeout=30)
        yield batch


def test_killed_worker_raises_and_is_replaced(flat: pa.Table, flat_sums: LaneSums, warm: LaneWorker) -> None:
    with pytest.raises(HashWorkerError, match=rf"worker \(pid {warm.pid}\).*(exited|gone)"):
        lane_sums(_killing(flat, after=4), workers=2)
    assert parallel.current_worker_pid() != warm.pid
    assert lane_sums([flat], workers=2) == flat_sums  # a new worker, right sums
    assert parallel.current_worker_pid() not in (None, warm.pid)


def test_killed_worker_in_auto_mode_raises_too(flat: pa.Table, warm: LaneWorker) -> None:
    with pytest.raises(HashWorkerError):
        lane_sums(_killing(flat, after=4), rows_hint=flat.num_rows)


def test_worker_error_reply_raises() -> None:
    worker = LaneWorker()
    try:
        worker.drain()  # nothing queued: returns at once
        while not worker.ready:
            worker._collect(block=True)
        worker._pending[99] = (1, 0, False)  # pretend a request for a slot that does not exist
        os.write(worker._ctl, parallel.lanes_worker.REQUEST.pack(b"H", 99, 4, 1, 8, 0, 0))
        with pytest.raises(HashWorkerError, match="failed: ValueError: bad request"):
            worker.drain()
        assert not worker.usable
    finally:
        worker.close(kill=True)


def test_stuck_worker_times_out(flat: pa.Table, monkeypatch: pytest.MonkeyPatch) -> None:
    worker = LaneWorker()
    try:
        while not worker.ready:
            worker._collect(block=True)
        os.kill(worker.pid, signal.SIGSTOP)
        monkeypatch.setattr(parallel, "RESULT_TIMEOUT_S", 0.2)
        worker.submit(arrow.line_array(flat.to_batches()[0].slice(0, 100), arrow.arrow_schema_kinds(flat.schema)))
        with pytest.raises(HashWorkerError, match="did not answer"):
            worker.drain()
        assert worker.proc.poll() is not None  # killed, not left stopped
    finally:
        worker.close(kill=True)


def test_interrupt_discards_the_worker(flat: pa.Table, flat_sums: LaneSums, warm: LaneWorker) -> None:
    def interrupted() -> Iterator[pa.RecordBatch]:
        for i, batch in enumerate(flat.to_batches(max_chunksize=20_000)):
            if i == 5:
                raise KeyboardInterrupt
            yield batch

    with pytest.raises(KeyboardInterrupt):
        lane_sums(interrupted(), workers=2)
    assert warm.proc.wait(timeout=30) is not None  # the worker with unanswered chunks is gone
    assert parallel.current_worker_pid() is None
    assert lane_sums([flat], workers=2) == flat_sums


def test_lane_sums_add_like_the_parts(flat: pa.Table, flat_sums: LaneSums, warm: LaneWorker) -> None:
    """Chunk boundaries do not matter: halves hashed apart add up to the whole."""
    head, tail = flat.slice(0, 150_001), flat.slice(150_001)
    assert lane_sums([head], workers=2) + lane_sums([tail], workers=2) == flat_sums
    assert lane_sums(iter(flat.to_batches(max_chunksize=10_000)), workers=2) == flat_sums


@pytest.mark.parametrize("program", ["/nonexistent/python", "false"])
def test_worker_that_cannot_start(program: str, flat: pa.Table, flat_sums: LaneSums, cold: None,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Explicit workers=2 raises; auto hashes alone and stops trying."""
    import shutil

    exe = shutil.which(program) or program
    monkeypatch.setattr(sys, "executable", exe)
    monkeypatch.setattr(parallel, "_auto_off", None)
    with pytest.raises(HashWorkerError, match="worker"):
        worker = LaneWorker()  # 'false' starts, then exits before saying ready
        try:
            while not worker.ready:
                worker._collect(block=True)
        finally:
            worker.close(kill=True)
    with pytest.raises(HashWorkerError, match="worker"):
        lane_sums([flat], workers=2)
    assert lane_sums([flat]) == flat_sums
    assert parallel._auto_off is not None and parallel.resolve_workers(None, 10**9) == 1


def test_big_slot_files_are_freed_after_a_call(flat: pa.Table, flat_sums: LaneSums, warm: LaneWorker,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel.lanes_worker, "KEEP_BYTES", 1_000)
    assert lane_sums([flat], workers=2) == flat_sums
    assert warm.rows_done > 0
    assert [os.fstat(fd).st_size for fd in warm._slots] == [0] * len(warm._slots)
    assert lane_sums([flat], workers=2) == flat_sums  # and they grow again


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/<pid>/maps")
def test_worker_loads_no_arrow_or_spark_library(warm: LaneWorker) -> None:
    with open(f"/proc/{warm.pid}/maps") as f:
        maps = f.read()
    assert "numpy" in maps  # the check can see loaded libraries
    assert "arrow" not in maps.lower() and "pyspark" not in maps
