"""Generated run-record stores for tests and benchmarks of what reads many records.

``pipeline_store(root, tasks=200, runs=50)`` writes a store whose tasks form chains of
pipelines (each task reads what the one before it wrote, so the lineage graph joins them),
with successes, failures, changed and unchanged data, warnings and broken expectations, all
derived from a seeded random generator (the same arguments give the same store).
"""
from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Union

from ubunye.lineage.record import RunRecord, Step
from ubunye.lineage.store import FileStore

_START = datetime(2026, 10, 1, tzinfo=timezone.utc)


def _hash(rng: random.Random) -> str:
    return "sha256:" + "".join(rng.choice("0123456789abcdef") for _ in range(64))


def pipeline_store(root: Union[str, Path], *, tasks: int = 200, runs: int = 50, chain: int = 5,
                   seed: int = 7) -> FileStore:
    """Write ``tasks`` × ``runs`` records under the lineage folder ``root``; returns the store.

    Tasks come in pipelines of ``chain`` tasks (``p<k>/t<i>``); about one run in twelve
    fails, and the data changes in about one run in four.
    """
    rng = random.Random(seed)
    store = FileStore(root)
    schema = _hash(rng)
    for t in range(tasks):
        package, position = f"p{t // chain:03d}", t % chain
        name = f"t{position}"
        source = f"/data/lake/p{t // chain:03d}/stage{position}"
        target = f"/data/lake/p{t // chain:03d}/stage{position + 1}"
        data_in, data_out, rows = _hash(rng), _hash(rng), rng.randint(1_000, 5_000_000)
        for r in range(runs):
            if rng.random() < 0.25:  # the data changed since the run before
                data_in, data_out, rows = _hash(rng), _hash(rng), max(0, rows + rng.randint(-5_000, 5_000))
            failed = rng.random() < 1 / 12
            started = _START + timedelta(hours=r * 6, minutes=t % 60, seconds=rng.randint(0, 59))
            duration = round(rng.uniform(2.0, 300.0), 3)
            record = RunRecord(
                run_id=f"{t:04d}{r:04d}-{rng.getrandbits(64):016x}",
                task_path=f"lake/{package}/{name}", usecase="lake", package=package, task_name=name,
                started_at=started.isoformat(), ended_at=(started + timedelta(seconds=duration)).isoformat(),
                duration_sec=duration, status="error" if failed else "success",
                error="ValueError: the source folder was empty" if failed else None,
                backend="spark", engine_version="0.1.0", code_hash=_hash(rng), config_hash=_hash(rng),
                expectations=[
                    {"output": "out", "rule": "id_not_null", "kind": "not_null", "severity": "fail",
                     "passed": not failed},
                    {"output": "out", "rule": "amount_between", "kind": "between", "severity": "warn",
                     "passed": rng.random() > 0.2},
                ],
                inputs=[Step("source", "input", "parquet", source, rows, schema, data_in, "rows-v1",
                             hash_engine="spark-native", hash_pass="second-pass")],
                outputs=[] if failed else [Step("out", "output", "parquet", target, rows - rows // 10, schema,
                                                data_out, "rows-v1", hash_engine="spark-native",
                                                hash_pass="same-pass")],
            )
            path = store.record_path(record)  # plain writes: a generated store needs no fsync per file
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(record.to_json(), encoding="utf-8")
    return store
