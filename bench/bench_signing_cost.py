"""Where the cost of signing and chaining a record goes (issue 36), unsigned and signed side by side.

1. ``--records`` records (the 0.8.0 sample, new ids and times, as ``bench_signing.records``) are
   written to two local stores in ONE process, alternating (record i unsigned, then record i signed),
   so both see the same load. Per phase: wall time (``perf_counter``) and CPU time
   (``process_time``) per record, and the counts of ``fsync``/``link``/``open``/``mkstemp`` calls per
   record (these do not depend on the machine's load). Phases: the record's canonical digest, the
   statement, the DSSE signature, the chain-top search, each ``put_new`` (record, chain place,
   envelope), and the ``fsync`` calls inside them.
2. ``--list-records`` records (default 100,000) made quickly in the store layout (record files
   written directly, signed through the package's own signer and chain, no fsync), then
   ``ubunye lineage list -n 20`` timed unsigned vs signed in fresh processes (``--repeat``, median).

Usage: ``PYTHONPATH=python .venv/bin/python bench/bench_signing_cost.py [--records 300]
[--list-records 100000] [--repeat 5]``
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_signing import records  # noqa: E402  (this folder)

WALL: dict[str, float] = defaultdict(float)
CPU: dict[str, float] = defaultdict(float)
CALLS: dict[str, int] = defaultdict(int)


@contextmanager
def phase(name: str) -> Iterator[None]:
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        yield
    finally:
        WALL[name] += time.perf_counter() - wall
        CPU[name] += time.process_time() - cpu
        CALLS[name] += 1


def _timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with phase(name):
            return fn(*args, **kwargs)
    return wrapper


def instrument() -> None:
    """Wrap the phases in place (module attributes, so callers see the wrappers)."""
    import tempfile as tempfile_
    from ubunye.lineage import record as record_mod
    from ubunye.lineage.attestation import chain, dsse, envelopes
    from ubunye.lineage.store import posix

    os.fsync = _timed("fsync", os.fsync)  # type: ignore[assignment]
    os.link = _timed("link", os.link)  # type: ignore[assignment]
    os.open = _timed("open", os.open)  # type: ignore[assignment]
    tempfile_.mkstemp = _timed("mkstemp", tempfile_.mkstemp)  # type: ignore[assignment]
    record_mod.RunRecord.digest = _timed("digest", record_mod.RunRecord.digest)  # type: ignore[method-assign]
    envelopes.statement = _timed("statement", envelopes.statement)  # type: ignore[attr-defined]
    dsse.sign = _timed("dsse sign", dsse.sign)  # type: ignore[assignment]
    chain._top = _timed("chain top search", chain._top)  # type: ignore[attr-defined]
    chain.read_place = _timed("read previous place", chain.read_place)  # type: ignore[assignment]
    put_new = posix.PosixBlobs.put_new

    def put(self: Any, key: str, data: bytes) -> None:
        kind = "put chain place" if "/_chain/" in key else "put envelope" if "/_signed/" in key \
            else "put key" if key.startswith("_keys/") else "put record"
        with phase(kind):
            put_new(self, key, data)
    posix.PosixBlobs.put_new = put  # type: ignore[method-assign]
    if hasattr(posix.PosixBlobs, "put_new_linked"):  # the envelope at its chain place and its run id
        posix.PosixBlobs.put_new_linked = _timed("put envelope (2 names)",  # type: ignore[method-assign]
                                                 posix.PosixBlobs.put_new_linked)


def snapshot() -> dict[str, tuple[float, float, int]]:
    return {k: (WALL[k], CPU[k], CALLS[k]) for k in set(WALL) | set(CALLS)}


def delta(after: dict[str, tuple[float, float, int]], before: dict[str, tuple[float, float, int]]
          ) -> dict[str, tuple[float, float, int]]:
    return {k: tuple(a - b for a, b in zip(v, before.get(k, (0.0, 0.0, 0))))  # type: ignore[misc]
            for k, v in after.items()}


def per_record(base: Path, count: int) -> None:
    from ubunye.lineage.attestation.keys import Ed25519Signer
    from ubunye.lineage.store import FileStore

    runs_off, runs_on = records(count), records(count)
    signer = Ed25519Signer.generate()
    key = base / "key.pem"
    key.write_bytes(signer.private_pem())
    key.chmod(0o600)  # a signing key is its owner's alone (the store refuses a key others may read)
    stores = {"off": FileStore(base / "w-off"), "on": FileStore(base / "w-on")}
    instrument()
    totals = {name: {} for name in stores}  # type: dict[str, dict[str, tuple[float, float, int]]]
    wall_total = {name: [0.0, 0.0] for name in stores}
    for off, on in zip(runs_off, runs_on):
        for name, record in (("off", off), ("on", on)):
            os.environ["UBUNYE_SIGNING_KEY"] = "off" if name == "off" else str(key)
            before, wall, cpu = snapshot(), time.perf_counter(), time.process_time()
            stores[name].write(record)
            wall_total[name][0] += time.perf_counter() - wall
            wall_total[name][1] += time.process_time() - cpu
            for k, v in delta(snapshot(), before).items():
                old = totals[name].get(k, (0.0, 0.0, 0))
                totals[name][k] = (old[0] + v[0], old[1] + v[1], old[2] + v[2])
    print(f"per record, {count} records each, alternating unsigned/signed in one process "
          f"(load average {os.getloadavg()[0]:.1f}):")
    print(f"{'phase':24} {'unsigned wall/cpu ms':>22} {'calls':>6}   {'signed wall/cpu ms':>20} {'calls':>6}")
    names = sorted(set(totals["off"]) | set(totals["on"]), key=lambda k: -totals["on"].get(k, (0, 0, 0))[0])
    for k in names:
        cells = []
        for name in ("off", "on"):
            w, c, n = totals[name].get(k, (0.0, 0.0, 0))
            cells.append(f"{w / count * 1e3:9.3f} / {c / count * 1e3:7.3f}   {n / count:6.2f}")
        print(f"{k:24} {cells[0]}   {cells[1]}")
    (w0, c0), (w1, c1) = wall_total["off"], wall_total["on"]
    print(f"{'whole write':24} {w0 / count * 1e3:9.3f} / {c0 / count * 1e3:7.3f}            "
          f"{w1 / count * 1e3:9.3f} / {c1 / count * 1e3:7.3f}")
    print(f"signing and chaining add {(w1 - w0) / count * 1e3:.3f} ms wall, {(c1 - c0) / count * 1e3:.3f} ms CPU "
          f"per record (signed/unsigned wall x{w1 / w0:.2f})")


def make_store(root: Path, count: int, signer: Any) -> None:
    """``count`` final records of one task written straight into the store layout (no fsync),
    signed through the package's own statement and signer with the chain links a store written one
    record at a time gets (place i: the envelope, linked at the run id; previous: record i-1)."""
    from ubunye.lineage.attestation import dsse
    from ubunye.lineage.attestation.chain import place_key
    from ubunye.lineage.attestation.envelopes import envelope_key, publish_key, task_key_of
    from ubunye.lineage.attestation.statement import encode, statement
    from ubunye.lineage.store.posix import PosixBlobs

    chunk, previous = 5000, None
    for first in range(0, count, chunk):
        for seq, record in enumerate(records(min(chunk, count - first), offset=first), start=first + 1):
            folder = root / task_key_of(record)
            if signer is not None:
                digest = record.digest()
                place = root / place_key(task_key_of(record), seq)
                place.parent.mkdir(parents=True, exist_ok=True)
                place.write_bytes(dsse.sign(encode(statement(record, {"seq": seq, "previous": previous}, digest)),
                                            signer).to_json())
                os.link(place, root / envelope_key(record))
                previous = {"run_id": record.run_id, "sha256": digest}
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{record.run_id}.json").write_bytes(record.to_json().encode("utf-8"))
    if signer is not None:
        publish_key(PosixBlobs(root), signer)


def list_side_by_side(base: Path, count: int, repeat: int) -> None:
    from ubunye.lineage.attestation.keys import Ed25519Signer

    signer = Ed25519Signer.generate()
    for name, who in (("l-off", None), ("l-on", signer)):
        if (base / name).exists():  # made by an earlier run (--dir): kept
            continue
        start, cpu = time.perf_counter(), time.process_time()
        make_store(base / name, count, who)
        print(f"made {count} records ({'signed' if who else 'unsigned'}) in {time.perf_counter() - start:.1f} s "
              f"wall, {time.process_time() - cpu:.1f} s CPU")
    times: dict[str, list[tuple[float, float]]] = {"l-off": [], "l-on": []}
    env = {**os.environ, "UBUNYE_SIGNING_KEY": "off"}
    for _ in range(repeat):  # alternating, so both see the same load
        for name in times:
            root = str(base / name)
            start = time.perf_counter()
            before = os.times()
            subprocess.run([sys.executable, "-m", "ubunye", "lineage", "list", "-d", root, "--lineage-dir", root,
                            "-u", "shop", "-p", "orders", "-t", "clean", "-n", "20"], check=True, capture_output=True,
                           env=env)
            after = os.times()
            times[name].append((time.perf_counter() - start,
                                after.children_user + after.children_system
                                - before.children_user - before.children_system))
    first_off, first_on = times["l-off"][0], times["l-on"][0]
    print(f"first lineage list (it builds the store's index, .index/, when there is none): unsigned "
          f"{first_off[0]:.1f} s wall / {first_off[1]:.1f} s CPU, signed {first_on[0]:.1f} s wall / {first_on[1]:.1f} s "
          f"CPU ({(first_on[1] / first_off[1] - 1) * 100:+.1f}% CPU)")
    times = {name: runs[1:] or runs for name, runs in times.items()}
    off = [statistics.median(x) for x in zip(*times["l-off"])]
    on = [statistics.median(x) for x in zip(*times["l-on"])]
    print(f"lineage list -n 20 at {count} records, median of {max(repeat - 1, 1)} later cold processes (load average "
          f"{os.getloadavg()[0]:.1f}): unsigned {off[0]:.3f} s wall / {off[1]:.3f} s CPU, signed {on[0]:.3f} s wall / "
          f"{on[1]:.3f} s CPU ({(on[0] / off[0] - 1) * 100:+.1f}% wall, {(on[1] / off[1] - 1) * 100:+.1f}% CPU)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=300)
    parser.add_argument("--list-records", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--stores", default=None, help="where the list stores are made and kept (l-off, l-on); "
                        "stores already there are used as they are (default: a temporary folder)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if args.list_records:
            list_side_by_side(Path(args.stores or tmp), args.list_records, args.repeat)
        if args.records:
            per_record(Path(tmp), args.records)


if __name__ == "__main__":
    main()
