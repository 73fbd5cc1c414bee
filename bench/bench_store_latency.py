"""Latency per record over loopback, per backend: write, find one run, list a task's runs.

Starts each server with ``scripts/servers.py`` (127.0.0.1, bounded), writes N records of one
task with one writer (each a start record and a final record), then times ``find`` of single
runs and ``list_runs`` of the task. Prints medians.

Usage: ``.venv/bin/python bench/bench_store_latency.py [--records 100] [--backends moto,azurite,gcs]``
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "integration"))


def _servers():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("ubunye_servers", ROOT / "scripts" / "servers.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules["ubunye_servers"] = module
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def measure(url: str, records: int) -> tuple[float, float, float]:
    from ubunye.lineage.record import RunRecord, Step
    from ubunye.lineage.store import open_store

    store = open_store(".", url)
    writes, ids = [], []
    for i in range(records):
        step = Step("o", "output", "parquet", "/lake/o", 3, "sha256:s", f"sha256:{i}", "rows-v1")
        record = RunRecord(run_id=f"r{i:05d}", task_path="b/p/t", usecase="b", package="p", task_name="t",
                           started_at=f"2026-01-01T00:{i // 60 % 60:02d}:{i % 60:02d}+00:00", status="running",
                           outputs=[step])
        began = time.perf_counter()
        store.write(record)
        writes.append(time.perf_counter() - began)
        record.status = "success"
        began = time.perf_counter()
        store.write(record)
        writes.append(time.perf_counter() - began)
        ids.append(record.run_id)
    finds = []
    for run_id in ids[:: max(1, records // 20)]:
        began = time.perf_counter()
        store.find("b", "p", "t", run_id)
        finds.append(time.perf_counter() - began)
    lists = []
    for _ in range(3):
        began = time.perf_counter()
        assert len(store.list_runs("b", "p", "t")) == records
        lists.append(time.perf_counter() - began)
    return statistics.median(writes), statistics.median(finds), statistics.median(lists)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=100)
    parser.add_argument("--backends", default="moto,azurite,gcs,files-api")
    opts = parser.parse_args()
    servers = _servers()
    print(f"{'backend':10s} {'write':>9s} {'find one':>9s} {'list ' + str(opts.records):>10s}")
    for name in opts.backends.split(","):
        if name == "files-api":
            import tempfile

            from files_api_server import FilesApiServer

            api = FilesApiServer(Path(tempfile.mkdtemp(prefix="ubunye-files-api-")))
            os.environ.update(DATABRICKS_HOST=api.host, DATABRICKS_TOKEN=api.token)
            try:
                figures = measure(f"dbfs:/Volumes/main/ops/bench/{uuid.uuid4().hex[:8]}", opts.records)
            finally:
                api.close()
        else:
            server = servers.start(name, seconds=900)
            os.environ.update(server.env)
            try:
                figures = measure(f"{server.url}/{uuid.uuid4().hex[:8]}", opts.records)
            finally:
                servers.stop(server)
        write, find, listed = figures
        print(f"{name:10s} {write * 1000:7.1f} ms {find * 1000:6.1f} ms {listed * 1000:7.0f} ms", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
