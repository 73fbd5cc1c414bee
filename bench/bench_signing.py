"""What signing and chaining cost (issue 36; targets: under 5 ms per record written, under 10% on
``ubunye lineage list`` at 100,000 records).

1. Per record: ``--records`` realistic records (the 0.8.0 sample, new ids and times) written to a
   local store with the project's store, once with signing off (``UBUNYE_SIGNING_KEY=off``) and
   once on (a fresh ed25519 key), in separate folders; the mean time per record of each and the
   difference. Also the signing work alone (statement, DSSE, ed25519) per record, in memory.
2. ``ubunye lineage list`` of that task (a fresh process, ``--repeat`` times, median) in each store:
   the signed store also holds ``_signed/`` and ``_chain/`` (two more objects per record).

Usage: ``.venv/bin/python bench/bench_signing.py [--records 100000] [--repeat 5]``
"""
from __future__ import annotations

import argparse
import os
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


def records(count: int, offset: int = 0) -> list[RunRecord]:
    template = RunRecord.from_json(SAMPLE.read_text(encoding="utf-8"))
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    out = []
    for i in range(offset, offset + count):
        record = RunRecord.from_dict(template.to_dict())
        record.run_id = str(uuid.UUID(int=i + 1, version=4))
        record.started_at = (start + timedelta(minutes=i)).isoformat()
        record.ended_at = (start + timedelta(minutes=i, seconds=30)).isoformat()
        record.status = "success"
        record.outputs = [Step.from_dict({**s.to_dict(), "row_count": i}) for s in record.outputs]
        out.append(record)
    return out


def write_all(root: Path, runs: list[RunRecord], key: str) -> float:
    """Seconds per record to write ``runs`` with ``UBUNYE_SIGNING_KEY=key``."""
    os.environ["UBUNYE_SIGNING_KEY"] = key
    store = FileStore(root)
    start = time.perf_counter()
    for record in runs:
        store.write(record)
    return (time.perf_counter() - start) / len(runs)


def sign_only(runs: list[RunRecord], signer: object) -> float:
    from ubunye.lineage.attestation import dsse
    from ubunye.lineage.attestation.statement import encode, statement

    start = time.perf_counter()
    for record in runs:
        dsse.sign(encode(statement(record, {"seq": 2, "previous": {"run_id": "x", "sha256": "0" * 64}})),
                  signer).to_json()  # type: ignore[arg-type]
    return (time.perf_counter() - start) / len(runs)


def list_time(root: Path, repeat: int) -> float:
    from bench_report import timed  # (this folder is on sys.path when run as a script)

    return timed([sys.executable, "-m", "ubunye", "lineage", "list", "-d", str(root), "--lineage-dir", str(root),
                  "-u", "shop", "-p", "orders", "-t", "clean", "-n", "20"], repeat)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    from ubunye.lineage.attestation.keys import Ed25519Signer

    runs = records(args.records)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        signer = Ed25519Signer.generate()
        key = base / "key.pem"
        key.write_bytes(signer.private_pem())
        print(f"sign only (statement + DSSE + ed25519): {sign_only(runs[:2000], signer) * 1e3:.3f} ms/record")
        off = write_all(base / "off", runs, "off")
        on = write_all(base / "on", runs, str(key))
        print(f"write {args.records} records: unsigned {off * 1e3:.3f} ms/record, signed {on * 1e3:.3f} ms/record, "
              f"signing and chaining add {(on - off) * 1e3:.3f} ms/record")
        list_off, list_on = list_time(base / "off", args.repeat), list_time(base / "on", args.repeat)
        print(f"lineage list -n 20 (median of {args.repeat}, cold processes): unsigned {list_off:.3f} s, "
              f"signed {list_on:.3f} s ({(list_on / list_off - 1) * 100:+.1f}%)")


if __name__ == "__main__":
    main()
