"""Benchmark of the rows-v1 Python paths (prints rows/s, medians of several runs).

Tables (deterministic, seed 7):
- 8 columns x 1,000,000 rows: 2 bigint, 2 double, 2 strings of about 20
  characters, a date and a timestamp (about 190-byte lines);
- 2 columns x 1,000,000 rows: a bigint and a string of about 20 characters.

Measured side by side in one run: the vectorised Arrow path
(``ubunye.hashing.arrow.lane_sums``: one process, one process with its helper
thread, two processes with the hashing worker, and the auto choice), the
row-at-a-time reference (on a slice, scaled to rows/s), the pandas -> Arrow
conversion on its own, and ``fingerprint()`` of the pandas frame end to end.
Wall-clock and CPU seconds are both printed: on a shared machine the CPU
seconds say more about the code, the wall-clock ones about the moment.
The worker is started (and its start-up timed) before the timed runs, as a
long-lived program would have it; its CPU seconds are read from ``/proc``.
``busiest`` = rows per CPU-second of the busier of the two processes: the
wall-clock rate the run would have with a free core for each process. The
last line says whether the issue's target (>= 1,000,000 rows/s wall-clock on
the 8-column table, 2 cores) was met in this run, with the load average.
Usage: ``python bench/bench_rows_v1.py [--rows N] [--runs R] [--reference-rows M]``.
"""
from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any, Callable

import numpy as np
import pyarrow as pa


def eight_columns(n: int, seed: int = 7) -> pa.Table:
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 "))

    def strings(k: int) -> pa.Array:
        pool = ["".join(rng.choice(letters, size=int(rng.integers(16, 25)))) for _ in range(k)]
        return pa.array(np.array(pool, dtype=object)[rng.integers(0, k, size=n)], pa.string())

    return pa.table({
        "id": pa.array(np.arange(n, dtype=np.int64)),
        "customer": pa.array(rng.integers(-10**12, 10**12, size=n)),
        "amount": pa.array(np.round(rng.uniform(-1e5, 1e5, size=n), 2)),
        "ratio": pa.array(rng.random(size=n)),
        "name": strings(50_000),
        "city": strings(5_000),
        "day": pa.array(rng.integers(0, 20_000, size=n).astype("int32"), pa.int32()).cast(pa.date32()),
        "at": pa.array(rng.integers(0, 1_800_000_000_000_000, size=n), pa.int64()).cast(
            pa.timestamp("us", tz="UTC")),
    })


def two_columns(n: int, seed: int = 8) -> pa.Table:
    t = eight_columns(n, seed)
    return t.select(["id", "name"])


def worker_cpu() -> float:
    """CPU seconds used so far by the shared rows-v1 worker process (0 if none; Linux /proc)."""
    from ubunye.hashing.parallel import current_worker_pid

    pid = current_worker_pid()
    if pid is None:
        return 0.0
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def median_time(fn: Callable[[], Any], runs: int) -> tuple[float, float, float]:
    """Median wall-clock seconds, CPU seconds of this process (all threads) and
    CPU seconds of the worker process, over ``runs`` calls."""
    walls, cpus, wcpus = [], [], []
    for _ in range(runs):
        wcpu = worker_cpu()
        cpu, start = time.process_time(), time.perf_counter()
        fn()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
        wcpus.append(worker_cpu() - wcpu)
    return statistics.median(walls), statistics.median(cpus), statistics.median(wcpus)


def start_up(runs: int) -> tuple[float, float]:
    """Median wall seconds of a cold worker start (until ready), and of a warm call's check."""
    from ubunye.hashing import parallel

    colds = []
    for _ in range(runs):
        parallel.shutdown()
        colds.append(parallel.warm_up())
    return statistics.median(colds), statistics.median(parallel.warm_up() for _ in range(runs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--reference-rows", type=int, default=100_000,
                        help="rows the (slow) reference hashes per run")
    args = parser.parse_args()

    from ubunye.hashing import fingerprint
    from ubunye.hashing.arrow import lane_sums
    from ubunye.hashing.frames import pandas_to_arrow
    from ubunye.hashing.reference import reference_arrow_sums

    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    print(f"rows-v1 benchmark: {args.rows:,} rows, median of {args.runs} runs, "
          f"{os.cpu_count()} CPUs, load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} at start")
    cold, warm = start_up(args.runs)
    print(f"worker start-up: {cold:.3f} s wall cold (new process until ready), {warm * 1e3:.2f} ms warm")
    print("cpu s = this process (all threads) + worker process; 'busiest' = rows per CPU-s of the "
          "busier process (the wall-clock rate with a free core for each)")
    print(f"{'table':<10} {'path':<30} {'wall s':>8} {'cpu s':>8} {'worker':>7} {'rows/s':>12} "
          f"{'rows/cpu-s':>11} {'busiest':>11}")
    target = None
    for label, build in (("8 columns", eight_columns), ("2 columns", two_columns)):
        table = build(args.rows)
        ref_table = table.slice(0, args.reference_rows)
        assert lane_sums([ref_table], workers=1) == reference_arrow_sums(ref_table.to_batches()), "paths disagree"
        single = lane_sums([table], workers=1)
        assert lane_sums([table], workers=2) == single, "workers=2 disagrees with workers=1"
        rows = [
            ("vectorised, workers=1", args.rows, lambda: lane_sums([table], workers=1)),
            ("vectorised, workers=1 + thread", args.rows, lambda: lane_sums([table], workers=1, threads=True)),
            ("vectorised, workers=2", args.rows, lambda: lane_sums([table], workers=2)),
            ("vectorised, auto", args.rows, lambda: lane_sums([table])),
            ("reference (rows)", args.reference_rows,
             lambda: reference_arrow_sums(ref_table.to_batches())),
        ]
        df = table.to_pandas()  # numpy-backed numbers and timestamps, pandas' default strings
        rows.append(("pandas -> Arrow only", args.rows, lambda: pandas_to_arrow(df)))
        rows.append(("fingerprint(pandas), auto", args.rows, lambda: fingerprint(df)))
        rates = {}
        for name, n, fn in rows:
            wall, cpu, wcpu = median_time(fn, args.runs)
            rates[name] = (n / wall, wall * args.rows / n)
            scale = args.rows / n
            busiest = n / max(cpu, wcpu, 1e-9)
            note = f"   (timed on {n:,} rows, scaled)" if n != args.rows else ""
            print(f"{label:<10} {name:<30} {wall * scale:8.3f} {(cpu + wcpu) * scale:8.3f} {wcpu * scale:7.3f} "
                  f"{n / wall:12,.0f} {n / max(cpu + wcpu, 1e-9):11,.0f} {busiest:11,.0f}{note}")
            if label == "8 columns" and name == "vectorised, workers=2":
                target = (n / wall, busiest)
        one, two, ref, conv = (rates["vectorised, workers=1"], rates["vectorised, workers=2"],
                               rates["reference (rows)"], rates["pandas -> Arrow only"])
        print(f"{label:<10} workers=2 / workers=1 = {two[0] / one[0]:.2f}x wall; vectorised / reference = "
              f"{one[0] / ref[0]:.1f}x; pandas -> Arrow adds {100 * conv[1] / one[1]:.0f}% to the vectorised time")
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    if target is not None and args.rows == 1_000_000:
        met = "MET" if target[0] >= 1_000_000 else "NOT met"
        print(f"target >= 1,000,000 rows/s wall on the 8-column table with workers=2: {met} "
              f"({target[0]:,.0f} rows/s wall; {target[1]:,.0f} rows per CPU-s of the busier process); "
              f"load average {load[0]:.1f} at end")
    else:
        print(f"load average {load[0]:.1f} at end")


if __name__ == "__main__":
    main()
