"""Figures for the rows-v1 localisation sketch (docs/spec/rows-v1-localise.md).

1. Decode success: random differences of d rows (half removed, half added, random
   lanes), ``--trials`` per d, for each geometry given.
2. The sketch's extra cost on the Arrow path: rows-v1 lane sums of a frame with and
   without the sketch (same process, best of ``--repeat``).

    python bench/bench_sketch.py decode --trials 10000 --geometry 256x4 --d 50,100,150,170,200
    python bench/bench_sketch.py cost --rows 1000000 --columns 8
"""
from __future__ import annotations

import argparse
import time

import numpy as np


def decode_rate(cells: int, k: int, d: int, trials: int, seed: int = 1) -> tuple[int, int]:
    """(successes, wrong answers) over ``trials`` random differences of ``d`` rows."""
    from ubunye.hashing.sketch import Sketch

    rng = np.random.default_rng(seed * 1_000_003 + d)
    ok = wrong = 0
    for _ in range(trials):
        a = rng.integers(0, 2**64, size=d, dtype=np.uint64, endpoint=False)
        b = rng.integers(0, 2**64, size=d, dtype=np.uint64, endpoint=False)
        half = d // 2
        new = Sketch(cells, k).add_lanes(a[half:], b[half:])
        old = Sketch(cells, k).add_lanes(a[:half], b[:half])
        got = (new - old).decode()
        if got.complete:
            want_added = sorted(zip(a[half:].tolist(), b[half:].tolist()))
            want_removed = sorted(zip(a[:half].tolist(), b[:half].tolist()))
            if sorted(got.added) == want_added and sorted(got.removed) == want_removed:
                ok += 1
            else:
                wrong += 1
    return ok, wrong


def cost(rows: int, columns: int, repeat: int) -> dict[str, float]:
    import pyarrow as pa

    from ubunye.hashing.arrow import lane_sums, lane_totals

    rng = np.random.default_rng(7)
    data = {f"c{i}": (rng.integers(0, 10**9, rows) if i % 2 else rng.random(rows)) for i in range(columns)}
    table = pa.table(data)
    best: dict[str, float] = {}
    for label, fn in (("sums", lambda: lane_sums(table, workers=1)),
                      ("sums+sketch", lambda: lane_totals(table, workers=1))):
        times = []
        for _ in range(repeat):
            t = time.process_time()
            fn()
            times.append(time.process_time() - t)
        best[label] = min(times)
    best["extra"] = best["sums+sketch"] / best["sums"] - 1
    return best


def main() -> None:
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="what", required=True)
    d = sub.add_parser("decode")
    d.add_argument("--trials", type=int, default=10_000)
    d.add_argument("--geometry", default="256x4", help="cells x k, comma separated")
    d.add_argument("--d", default="10,50,100,150,170,180,200")
    c = sub.add_parser("cost")
    c.add_argument("--rows", type=int, default=1_000_000)
    c.add_argument("--columns", type=int, default=8)
    c.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    if args.what == "decode":
        for geometry in args.geometry.split(","):
            cells, k = (int(x) for x in geometry.split("x"))
            for n in (int(x) for x in args.d.split(",")):
                ok, wrong = decode_rate(cells, k, n, args.trials)
                print(f"{cells}x{k} d={n}: {ok}/{args.trials} decoded ({100 * ok / args.trials:.2f}%), {wrong} wrong",
                      flush=True)
    else:
        print(cost(args.rows, args.columns, args.repeat))


if __name__ == "__main__":
    main()
