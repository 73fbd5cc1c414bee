"""Benchmark of the rows-v1 Python paths (prints rows/s, medians of several runs).

Tables (deterministic, seed 7):
- 8 columns x 1,000,000 rows: 2 bigint, 2 double, 2 strings of about 20
  characters, a date and a timestamp (about 190-byte lines);
- 2 columns x 1,000,000 rows: a bigint and a string of about 20 characters.

Measured side by side in one run: the vectorised Arrow path
(``ubunye.hashing.arrow.lane_sums``, alone and with its helper thread), the
row-at-a-time reference (on a slice, scaled to rows/s), the pandas -> Arrow
conversion on its own, and ``fingerprint()`` of the pandas frame end to end.
Wall-clock and CPU seconds are both printed: on a shared machine the CPU
seconds say more about the code, the wall-clock ones about the moment.
Usage: ``python bench/bench_rows_v1.py [--rows N] [--runs R] [--reference-rows M]``.
"""
from __future__ import annotations

import argparse
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


def median_time(fn: Callable[[], Any], runs: int) -> tuple[float, float]:
    """Median wall-clock seconds and median CPU seconds (all threads) of ``runs`` calls."""
    walls, cpus = [], []
    for _ in range(runs):
        cpu, start = time.process_time(), time.perf_counter()
        fn()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


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

    import os

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"rows-v1 benchmark: {args.rows:,} rows, median of {args.runs} runs, "
          f"{os.cpu_count()} CPUs, load average {load:.1f} at start")
    print(f"{'table':<10} {'path':<30} {'wall s':>8} {'cpu s':>8} {'rows/s':>12} {'rows/cpu-s':>12}")
    for label, build in (("8 columns", eight_columns), ("2 columns", two_columns)):
        table = build(args.rows)
        ref_table = table.slice(0, args.reference_rows)
        assert lane_sums([ref_table]) == reference_arrow_sums(ref_table.to_batches()), "paths disagree"
        rows = [
            ("vectorised (arrow)", args.rows, lambda: lane_sums([table])),
            ("vectorised, helper thread", args.rows, lambda: lane_sums([table], threads=True)),
            ("reference (rows)", args.reference_rows,
             lambda: reference_arrow_sums(ref_table.to_batches())),
        ]
        df = table.to_pandas()  # numpy-backed numbers and timestamps, pandas' default strings
        rows.append(("pandas -> Arrow only", args.rows, lambda: pandas_to_arrow(df)))
        rows.append(("fingerprint(pandas frame)", args.rows, lambda: fingerprint(df)))
        rates = {}
        for name, n, fn in rows:
            wall, cpu = median_time(fn, args.runs)
            rates[name] = (n / wall, wall * args.rows / n)
            note = f"   (timed on {n:,} rows, scaled)" if n != args.rows else ""
            print(f"{label:<10} {name:<30} {wall * args.rows / n:8.3f} {cpu * args.rows / n:8.3f} "
                  f"{n / wall:12,.0f} {n / max(cpu, 1e-9):12,.0f}{note}")
        vec, ref, conv = (rates["vectorised (arrow)"], rates["reference (rows)"],
                          rates["pandas -> Arrow only"])
        print(f"{label:<10} vectorised / reference = {vec[0] / ref[0]:.1f}x; pandas -> Arrow adds "
              f"{100 * conv[1] / vec[1]:.0f}% to the vectorised time")


if __name__ == "__main__":
    main()
