"""``lineage diff --rows`` against one fingerprint pass (issue 22: at most 3x).

Two parquet tables of ``--rows`` rows x 8 columns that differ in ``--changed`` rows
(half of them updated: each update is one row removed and one added, so the sketch
decodes ``--changed`` differing rows), written to a temp folder as a run's files are.

- **fingerprint pass**: read one table and take its rows-v1 sums and sketch, one process
  (``lane_totals(workers=1)``): what a run pays to record a step.
- **diff --rows**: decode the two sketches, then read each table once and hash every row,
  keeping the rows whose lanes were decoded and checking the data hash
  (:func:`ubunye.lineage.diff_rows.scan_batches`, the pass ``lineage diff --rows`` makes
  per side on pandas).

CPU seconds of this process (``time.process_time``), best of ``--repeat``: the shared
machine's load makes wall time meaningless.

    python bench/bench_diff_rows.py --rows 1000000 --changed 100
"""
from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np


def make_tables(rows: int, changed: int, seed: int = 7) -> tuple[Any, Any]:
    import pyarrow as pa

    rng = np.random.default_rng(seed)
    cols = {"id": np.arange(rows, dtype=np.int64)}
    for i in range(3):
        cols[f"n{i}"] = rng.integers(0, 1_000_000, size=rows, dtype=np.int64)
    for i in range(2):
        cols[f"x{i}"] = rng.random(rows)
    cols["s0"] = pa.array(np.char.add("name-", rng.integers(0, 100_000, size=rows).astype(str)))
    cols["s1"] = pa.array(np.char.add("city-", rng.integers(0, 1_000, size=rows).astype(str)))
    old = pa.table(cols)
    n1 = cols["n1"].copy()
    updated = rng.choice(rows, size=changed // 2, replace=False)
    n1[updated] += 1
    new = old.set_column(old.schema.get_field_index("n1"), "n1", pa.array(n1))
    return old, new


def best(repeat: int, work: Callable[[], Any]) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(repeat):
        started = time.process_time()
        out = work()
        times.append(time.process_time() - started)
    return min(times), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--changed", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()

    import pyarrow.parquet as pq

    from ubunye.hashing.arrow import lane_totals
    from ubunye.hashing.sketch import Sketch
    from ubunye.io import read_arrow
    from ubunye.lineage.diff_rows import lanes_of, scan_batches

    old, new = make_tables(args.rows, args.changed)
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for name, table in (("old", old), ("new", new)):
            folder = Path(tmp) / name
            folder.mkdir()
            pq.write_table(table, folder / "part-00000.parquet")
            paths.append(folder)
        del old, new

        def fingerprint_pass(path: Path) -> Any:
            return lane_totals(read_arrow(path, "parquet").to_batches(), workers=1)

        one, totals_old = best(args.repeat, lambda: fingerprint_pass(paths[0]))
        totals_new = fingerprint_pass(paths[1])

        def diff_rows() -> tuple[int, int]:
            got = (Sketch(data=totals_new.cells) - Sketch(data=totals_old.cells)).decode()
            assert got.complete, got.summary()
            found = 0
            for path, names in ((paths[0], got.removed_names), (paths[1], got.added_names)):
                scan = scan_batches(read_arrow(path, "parquet").to_batches(), {lanes_of(n) for n in names})
                found += len(scan.lines)
            return len(got.removed) + len(got.added), found

        both, (decoded, found) = best(args.repeat, diff_rows)
    print(f"rows {args.rows:,} x 8 columns, {args.changed} differing rows ({decoded} decoded, {found} found)")
    print(f"one fingerprint pass (read + sums + sketch): {one:.2f} CPU s")
    print(f"diff --rows (decode + read and scan both sides): {both:.2f} CPU s = {both / one:.2f}x")


if __name__ == "__main__":
    main()
