"""The record store at a million records: the index's answers from a fresh process.

Builds N records (default 1,000,000) in a temporary local store: ``--tasks`` tasks (default
10), one run a second, every 50th an error, each with an input and an output whose data
hash is unique to the run. Records are written in the store's layout (sealed JSON under ``<task>/<run_id>.json``, a
template made once by ``RunRecord`` and filled per run) without the per-record fsync, so
building is bounded by the disk. Then the index is built once (timed), and each query runs in a fresh process
(``python -c``), timing the query itself (imports excluded, printed apart):

- ``compare`` of the newest two runs of a task (latest 2 + compare_records)   target <= 100 ms
- ``show`` (the newest run of a task)                                           target <= 100 ms
- ``list -n 20``                                                                target <= 150 ms
- ``search --status error --since D`` across all tasks                          target <= 300 ms
- ``search --data-hash sha256:...``                                             target <= 100 ms

Usage: ``.venv/bin/python bench/bench_store.py [--records 1000000] [--tasks 10] [--repeat 5] [--keep DIR]``
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))
T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _hash(i: int) -> str:
    return f"sha256:{i:064x}"


def _build(args: tuple[str, int, int, int]) -> int:
    """Records ``start..stop``: one record made by :class:`RunRecord` is the template, each
    record is that document with its own fields, sealed as the store seals it."""
    from ubunye.lineage.record import SEAL_FIELD, RunRecord, Step, seal

    root, start, stop, tasks = args
    template = json.loads(RunRecord(
        run_id="x", task_path="bench/pkg/x", usecase="bench", package="pkg", task_name="x",
        started_at=T0.isoformat(), ended_at=T0.isoformat(), duration_sec=1.0, status="success",
        inputs=[Step("src", "input", "parquet", "/lake/src", 100, "sha256:schema", _hash(0), "rows-v1")],
        outputs=[Step("out", "output", "parquet", "/lake/out", 100, "sha256:schema", _hash(0), "rows-v1")],
    ).to_json())
    made = set()
    for i in range(start, stop):
        t = i % tasks
        folder = Path(root) / "bench" / "pkg" / f"task{t:02d}"
        if folder not in made:
            folder.mkdir(parents=True, exist_ok=True)
            made.add(folder)
        begun = T0 + timedelta(seconds=i)
        doc = dict(template)
        doc.pop(SEAL_FIELD)
        doc.update(run_id=f"{i:08d}-0000-4000-8000-000000000000", task_path=f"bench/pkg/task{t:02d}",
                   task_name=f"task{t:02d}", started_at=begun.isoformat(),
                   ended_at=(begun + timedelta(seconds=1)).isoformat(), status="error" if i % 50 == 0 else "success",
                   inputs=[{**template["inputs"][0], "data_hash": _hash(i)}],
                   outputs=[{**template["outputs"][0], "data_hash": _hash(i + 10**12)}])
        doc[SEAL_FIELD] = seal(doc)
        (folder / f"{doc['run_id']}.json").write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n",
                                                      encoding="utf-8")
    return stop - start


QUERY = """
import json, sys, time
began = time.perf_counter()
sys.path.insert(0, {python!r})
from ubunye.lineage.compare import compare_records
import ubunye.lineage.localise  # (`lineage diff`: imported here, so no query times an import)
from ubunye.lineage.search import list_task_runs, parse_since, runs_with_data_hash, search_runs
from ubunye.lineage.store import RecordStore
imported = time.perf_counter()
store = RecordStore({root!r}, index=True)
what = {what!r}
t = ("bench", "pkg", "task03")
if what == "compare":
    b, a = store.latest_runs(*t, 2)
    out = compare_records(a, b).data_proven_same
elif what == "show":
    out = store.find(*t).run_id
elif what == "list":
    out = len(list_task_runs(store, *t, limit=20).runs)
elif what == "search":
    out = len(search_runs(store, status="error", since=parse_since({since!r})).runs)
else:
    out = len(runs_with_data_hash(store, {data_hash!r}).runs)
done = time.perf_counter()
print(json.dumps({{"imports": imported - began, "query": done - imported, "out": out}}))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--tasks", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--keep", type=Path, default=None, help="build here (or reuse what is there) and keep it")
    opts = parser.parse_args()
    root = opts.keep or Path(tempfile.mkdtemp(prefix="ubunye-bench-store-"))
    print("load average (1, 5, 15 min): %.1f %.1f %.1f on %d cores" % (*os.getloadavg(), os.cpu_count() or 1))
    try:
        if not (root / "bench").is_dir():
            began = time.perf_counter()
            step = 20_000
            chunks = [(str(root), s, min(s + step, opts.records), opts.tasks) for s in range(0, opts.records, step)]
            with ProcessPoolExecutor(opts.workers) as pool:
                built = sum(pool.map(_build, chunks))
            print(f"built {built:,} records in {opts.tasks} tasks: {time.perf_counter() - began:.0f} s")
        from ubunye.lineage.store import RecordStore

        began = time.perf_counter()
        store = RecordStore(root, index=True)
        for u, p, t in store.iter_tasks():
            store.index.refresh(u, p, t)  # type: ignore[union-attr]
        print(f"index built from nothing (cold): {time.perf_counter() - began:.0f} s "
              f"({(root / '.index' / 'records.sqlite3').stat().st_size / 1e6:.0f} MB); "
              "load average %.1f %.1f %.1f" % os.getloadavg())
        past = time.time() - 3600  # the folders' stamps vouch (nothing written in the last seconds)
        for folder in (root / "bench" / "pkg").iterdir():
            os.utime(folder, (past, past))
        store = RecordStore(root, index=True)
        for u, p, t in store.iter_tasks():
            store.index.refresh(u, p, t)  # type: ignore[union-attr]
        since = (T0 + timedelta(seconds=opts.records * 9 // 10)).date().isoformat()
        targets = {"compare": 0.100, "show": 0.100, "list": 0.150, "search": 0.300, "data-hash": 0.100}
        for what, target in targets.items():
            code = QUERY.format(python=str(ROOT / "python"), root=str(root), what=what, since=since,
                                data_hash=_hash(opts.records // 3))
            runs = [json.loads(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                                              text=True).stdout) for _ in range(opts.repeat)]
            query = statistics.median(r["query"] for r in runs)
            imports = statistics.median(r["imports"] for r in runs)
            verdict = "ok" if query <= target else "OVER"
            print(f"{what:10s} query {query * 1000:7.1f} ms (target {target * 1000:.0f} ms: {verdict}), "
                  f"imports {imports * 1000:.0f} ms, answer {runs[0]['out']}")
        print("load average (1, 5, 15 min): %.1f %.1f %.1f" % os.getloadavg())
    finally:
        if opts.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
