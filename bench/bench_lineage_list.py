"""Cold start of ``ubunye lineage list`` on 1,000 records (target: under 0.5 s).

Writes N records (default 1,000) of one task into a temporary lineage folder
with the project's store, then times, as fresh subprocesses, side by side:

- ``python -c pass`` (the interpreter alone),
- ``ubunye --version`` (the CLI with no command),
- ``ubunye lineage list`` on an empty folder (imports and start-up only),
- ``ubunye lineage list`` and ``ubunye lineage list --json`` on the N records,
- ``ubunye lineage search --status error`` (every record read, few shown).

Each is run ``--repeat`` times; the median wall and CPU times and their ratios to
the interpreter alone are printed. It also checks whether pandas / pyarrow / pyspark were imported by
``lineage list`` and lists the slowest imports (``python -X importtime``).

Usage: ``.venv/bin/python bench/bench_lineage_list.py [--records 1000] [--repeat 7]``
"""
from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

from ubunye.lineage.record import RunRecord, Step
from ubunye.lineage.store import FileStore

SAMPLE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "records" / "ubunye-engine-0.8.0" / "shop" \
    / "orders" / "clean" / "0ec7d5ca-b0df-4d26-aeec-0e57fbefe77c.json"
CHECK = ("import sys\nfrom ubunye.cli.app import main\nmain(sys.argv[1:])\n"
         "print('HEAVY', sorted(m for m in ('pandas', 'pyarrow', 'pyspark', 'numpy') if m in sys.modules),"
         " file=sys.stderr)")


def write_records(root: Path, count: int) -> None:
    """``count`` realistic records (the 0.8.0 sample, with new ids and times)."""
    template = RunRecord.from_json(SAMPLE.read_text(encoding="utf-8"))
    store = FileStore(root)
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    for i in range(count):
        record = RunRecord.from_dict(template.to_dict())
        record.run_id = str(uuid.UUID(int=i + 1, version=4))
        record.started_at = (start + timedelta(minutes=i)).isoformat()
        record.status = "error" if i % 50 == 0 else "success"
        record.outputs = [Step.from_dict({**s.to_dict(), "row_count": i}) for s in record.outputs]
        store.write(record)


def timed(argv: list[str], repeat: int) -> tuple[float, float]:
    """Median wall time and median CPU time (user + system) of ``repeat`` cold runs.

    CPU time is reported beside wall time because this machine is shared: when
    other jobs load it, wall time grows with the wait for a core, CPU time much less.
    """
    walls, cpus = [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        walls.append(time.perf_counter() - t0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


def top_imports(argv: list[str], n: int) -> list[tuple[int, str]]:
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", CHECK, *argv], capture_output=True,
                          text=True, check=True)
    rows = []
    for line in proc.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)", line)
        if m and len(m.group(3)) <= 2:  # top-level imports only
            rows.append((int(m.group(2)), m.group(4)))
    return sorted(rows, reverse=True)[:n]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    ubunye = str(Path(sys.executable).with_name("ubunye"))
    with tempfile.TemporaryDirectory() as tmp:
        lineage = Path(tmp) / "lineage"
        t0 = time.perf_counter()
        write_records(lineage, args.records)
        print(f"wrote {args.records} records in {time.perf_counter() - t0:.2f} s "
              f"({sum(p.stat().st_size for p in lineage.rglob('*.json')) / 1e6:.1f} MB)")
        task = ["-d", tmp, "--lineage-dir", "lineage", "-u", "shop", "-p", "orders", "-t", "clean"]
        cases = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "ubunye --version": [ubunye, "--version"],
            "ubunye lineage list (empty folder)": [ubunye, "lineage", "list", "-d", tmp, "--lineage-dir", "none",
                                                   "-u", "shop", "-p", "orders", "-t", "clean"],
            "ubunye lineage list": [ubunye, "lineage", "list", *task],
            "ubunye lineage list --json": [ubunye, "lineage", "list", *task, "--json"],
            "ubunye lineage search --status error": [ubunye, "lineage", "search", "-d", tmp, "--lineage-dir",
                                                      "lineage", "--status", "error"],
        }
        results = {name: timed(argv, args.repeat) for name, argv in cases.items()}
        base_wall, base_cpu = results["python -c pass"]
        print(f"\nmedian of {args.repeat} cold subprocess runs, {args.records} records, "
              f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs:")
        print(f"  {'':<40} {'wall':>8}  {'ratio':>6}   {'cpu':>8}  {'ratio':>6}")
        for name, (wall, cpu) in results.items():
            print(f"  {name:<40} {wall * 1000:5.0f} ms  x{wall / base_wall:5.1f}   "
                  f"{cpu * 1000:5.0f} ms  x{cpu / base_cpu:5.1f}")
        wall, cpu = results["ubunye lineage list"]
        verdict = "under" if wall < 0.5 else "OVER"
        print(f"\nlineage list: {wall:.3f} s wall ({cpu:.3f} s CPU) -> {verdict} the 0.5 s target")
        proc = subprocess.run([sys.executable, "-c", CHECK, "lineage", "list", *task], capture_output=True,
                              text=True, check=True)
        print("heavy modules imported by lineage list:", proc.stderr.strip().splitlines()[-1])
        print("\nslowest top-level imports of lineage list (cumulative, ms):")
        for micros, module in top_imports(["lineage", "list", *task], 8):
            print(f"  {micros / 1000:6.1f}  {module}")


if __name__ == "__main__":
    main()
