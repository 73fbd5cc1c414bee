"""What the parquet footer costs a storage signature: a local folder of N parquet files signed with
and without the footers (the same listing, in one run, side by side).

    .venv/bin/python bench/bench_footer_signature.py [files] [rows per file]
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from ubunye.engine import snapshots
from ubunye.engine.config import IOSpec


def main() -> None:
    files = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    rows = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "t"
        folder.mkdir()
        table = pa.table({"id": pa.array(range(rows), pa.int64()), "s": [f"v{i}" for i in range(rows)]})
        for i in range(files):
            pq.write_table(table, folder / f"part-{i:05d}.parquet")
        spec = IOSpec(name="t", direction="input", format="parquet", path=str(folder))
        real = snapshots.footer_digest
        timings: dict[str, list[float]] = {"with footers": [], "without footers": []}
        for _ in range(3):  # interleaved, best of three each
            for label in timings:
                snapshots.footer_digest = real if label == "with footers" else (lambda seek, read, size: "")
                started = time.perf_counter()
                snapshots.storage_signature(spec)
                timings[label].append(time.perf_counter() - started)
        snapshots.footer_digest = real
        for label, seconds in timings.items():
            best = min(seconds)
            print(f"{label:16s} {files} files: {best * 1000:8.1f} ms ({best / files * 1e6:6.1f} us per file)")


if __name__ == "__main__":
    main()
