"""Damaged records, a few hundred ways (fixed seed): never a traceback, never "the same".

A real store: three runs of a small task on the pandas backend (same input, same output,
so ``compare`` and ``verify`` of the undamaged store exit 0), then made the same bytes on
every test run through the store (fixed run ids, start times an hour apart, fixed
durations; each file's modification time at its run's end). Each case
damages one record (truncated, bytes flipped, emptied, not UTF-8, not a JSON object, a
field of the wrong type), sometimes keeping its modification time (damage in place), and
runs ``compare``, ``verify``, ``list``, ``search`` and ``show`` through click's CliRunner:

- no traceback, ever; exit 2 comes with one line on stderr;
- an unreadable record named by run id is exit 2 naming its file, for compare and verify;
- without run ids, compare and verify exit 2 naming the file whenever it may be one of the
  runs they take (its modification time is not clearly older), and otherwise answer about
  the right runs with one warning line naming it;
- list, search and show exit 0, skip it with one warning line naming it, and ``--json``
  stays one JSON document;
- a flip that leaves a readable record never yields exit 0 from a compare or verify that
  involves it unless what decides the verdict (status, steps and their hashes) is intact.
"""
from __future__ import annotations

import json
import os
import random
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable, Optional

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner, Result

from ubunye import run_task
from ubunye.cli.app import cli
from ubunye.lineage.errors import UnreadableRecord
from ubunye.lineage.record import RunRecord, Step
from ubunye.lineage.store import FileStore, open_store

SEED = 20261214
CASES = 250
TASK = ("shop", "orders", "clean")
T0 = datetime(2026, 3, 1, 8, 0, tzinfo=timezone.utc)

CONFIG = """
CONFIG:
  inputs:
    orders: {format: parquet, path: "{{ task_dir }}/../../../data/orders.parquet"}
  outputs:
    clean: {format: parquet, path: "{{ task_dir }}/../../../lake/clean", mode: overwrite}
"""
CODE = """
from ubunye import Task


class Clean(Task):
    def transform(self, sources):
        orders = sources["orders"]
        return {"clean": orders[orders["amount"] > 0].reset_index(drop=True)}
"""

# (where, wrong value): every one of these makes the record unreadable
WRONG_TYPES: list[tuple[str, Any]] = [
    ("outputs", 5), ("inputs", [5]), ("inputs", {"a": 1}), ("outputs", "x"), ("started_at", 5),
    ("started_at", "not a date"), ("ended_at", []), ("status", []), ("status", 7), ("run_id", 7),
    ("run_id", ""), ("record_version", "2"), ("record_version", True), ("record_version", -1),
    ("variables", []), ("environment", "x"), ("environment", {"packages": 5}), ("timings", [1]),
    ("timings", [{"step": 5}]), ("timings", [{"step": "Reader", "input": 3}]), ("expectations", "all"),
    ("expectations", [None]), ("outputs.0.row_count", -1), ("outputs.0.row_count", "3"),
    ("outputs.0.row_count", 2.5), ("outputs.0.data_hash", 5), ("inputs.0.schema_hash", {"a": 1}),
    ("outputs.0", "x"), ("outputs.0.name", 0), ("duration_sec", "slow"), ("duration_sec", False),
    ("error", {"a": 1}), ("time_zone", 5), ("usecase", 5), ("task_name", "other"), ("code_hash", 1),
    ("outputs.0.hash_seconds", "1s"), ("model", [1]),
]
NOT_OBJECTS = [b"[]", b"[1, 2]", b'"text"', b"5", b"null", b"true", b"{}", b'{"run_id": null}',
               b"[" * 100_000, b"{" * 50_000]
# what decides compare's verdict on a step; verify also reads the data at its location and format
COMPARED = ("row_count", "schema_hash", "data_hash", "hash_method", "name", "direction")
VERIFIED = (*COMPARED, "location", "format")


def _truncate(rng: random.Random, data: bytes) -> bytes:
    return data[: rng.randrange(1, len(data))]


def _flip(rng: random.Random, data: bytes) -> bytes:
    out = bytearray(data)
    for _ in range(rng.choice((1, 1, 2, 3))):
        i = rng.randrange(len(out))
        out[i] ^= rng.randrange(1, 256)
    return bytes(out)


def _flip_char(rng: random.Random, data: bytes) -> bytes:
    """One letter or digit changed into another: the damage most likely to still parse."""
    alnum = b"0123456789abcdefABCDEF"
    out = bytearray(data)
    spots = [i for i, b in enumerate(out) if b in alnum]
    i = rng.choice(spots)
    out[i] = rng.choice([c for c in alnum if c != out[i]])
    return bytes(out)


def _not_utf8(rng: random.Random, data: bytes) -> bytes:
    if rng.random() < 0.3:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))
    out = bytearray(data)
    out[rng.randrange(len(out))] = rng.choice((0xFF, 0xFE, 0xC3, 0x80))
    return bytes(out)


def _wrong_type(rng: random.Random, data: bytes) -> bytes:
    doc = json.loads(data)
    where, value = rng.choice(WRONG_TYPES)
    *path, last = where.split(".")
    target = doc
    for part in path:
        target = target[int(part)] if isinstance(target, list) else target[part]
    if isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value
    return json.dumps(doc).encode("utf-8")


MUTATIONS: dict[str, Callable[[random.Random, bytes], bytes]] = {
    "truncate": _truncate,
    "flip": _flip,
    "flip-char": _flip_char,
    "empty": lambda rng, data: b"",
    "not-utf8": _not_utf8,
    "not-object": lambda rng, data: rng.choice(NOT_OBJECTS),
    "wrong-type": _wrong_type,
}


def _settle(store: FileStore) -> list[str]:
    """Make the real runs' records the same bytes on every test run (fixed run ids, times an
    hour apart, fixed durations), rewritten through the store, each file's modification time
    at its run's end; return the run ids, oldest first."""
    runs = sorted(store.list_runs(*TASK), key=lambda r: str(r.started_at))
    fixed = {r.run_id: f"{'abc'[i] * 8}-0000-4000-8000-{i:012d}" for i, r in enumerate(runs)}
    ids = []
    for hour, record in enumerate(runs):
        text = record.to_json()
        for old, new in fixed.items():
            text = text.replace(old, new)
        settled = RunRecord.from_dict(unsealed(text.encode("utf-8")))
        start = T0 + timedelta(hours=hour)
        settled.started_at = start.isoformat()
        settled.ended_at = (start + timedelta(minutes=5)).isoformat()
        settled.duration_sec = 300.0
        for timing in settled.timings:
            timing["seconds"] = 0.25
        for step in settled.steps:
            step.hash_seconds = 0.125
        store.path_for(*TASK, record.run_id).unlink()
        Path(store.started_path_for(*TASK, record.run_id)).unlink(missing_ok=True)
        path = store.write(settled)
        stamp = int((start + timedelta(minutes=5)).timestamp()) * 1_000_000_000
        os.utime(path, ns=(stamp, stamp))
        ids.append(settled.run_id)
    return ids


@pytest.fixture(scope="module")
def usecase(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fuzz")
    (root / "data").mkdir()
    pq.write_table(pa.table({"id": [1, 2, 3, 4], "amount": [5.0, -1.0, 2.5, 0.0]}), root / "data" / "orders.parquet")
    task = root.joinpath(*TASK)
    task.mkdir(parents=True)
    (task / "config.yaml").write_text(CONFIG, encoding="utf-8")
    (task / "transformations.py").write_text(CODE, encoding="utf-8")
    for _ in range(3):
        run_task(task, backend="pandas", lineage=True)
    return root


def invoke(usecase: Path, *args: str) -> Result:
    result = CliRunner().invoke(cli, ["lineage", args[0], "-d", str(usecase), *args[1:]])
    where = f"{' '.join(args)}: {result.stderr}{result.stdout[-500:]}"
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout, where
    assert result.exception is None or isinstance(result.exception, SystemExit), (where, result.exception)
    assert result.exit_code in (0, 1, 2), where
    if result.exit_code == 2:
        assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: "), where
    return result


def named_error(result: Result, path: Path, what: str) -> None:
    assert result.exit_code == 2 and str(path) in result.stderr and result.stdout == "", (what, result.stderr)


def one_warning(result: Result, path: Path, what: str) -> None:
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("warning: ") and str(path) in lines[0], (what, result.stderr)


def verdict_part(record: RunRecord, fields: tuple[str, ...]) -> Any:
    steps = [tuple(getattr(s, k) for k in fields) for s in record.steps]
    return (record.run_id, record.status, steps)


def test_damaged_records_never_read_as_the_same(usecase: Path) -> None:
    store = open_store(usecase)
    ids = _settle(store)  # oldest first
    files = {run_id: store.path_for(*TASK, run_id) for run_id in ids}
    originals = {run_id: (path.read_bytes(), path.stat().st_mtime_ns) for run_id, path in files.items()}
    truth = {run_id: store.find(*TASK, run_id) for run_id in ids}
    compared = invoke(usecase, "compare", "--json")  # the undamaged store: all the same
    assert compared.exit_code == 0 and compared.stderr == ""
    assert invoke(usecase, "verify").exit_code == 0

    rng = random.Random(SEED)
    seen: dict[str, int] = {"unreadable": 0, "readable": 0, "skipped-old": 0, "blocked": 0}
    for case in range(CASES):
        kind = rng.choice(sorted(MUTATIONS))
        victim = rng.choice(ids)
        in_place = rng.random() < 0.5  # damage that keeps the modification time
        path = files[victim]
        data, mtime = originals[victim]
        damaged = MUTATIONS[kind](rng, data)
        what = f"case {case}: {kind} of {victim} ({'in place' if in_place else 'rewritten'})"
        try:
            path.write_bytes(damaged)
            if in_place:
                os.utime(path, ns=(mtime, mtime))
            _check_case(usecase, store, ids, victim, path, truth, in_place, kind, what, seen)
        finally:
            path.write_bytes(data)
            os.utime(path, ns=(mtime, mtime))
    # the cases reached every branch of damage (a sealed record that still loads after damage
    # can only be one whose seal's key alone was hit; none of this seed's cases is)
    assert min(v for k, v in seen.items() if k != "readable") > 0, seen
    assert seen["readable"] == 0, seen


def _readable(store: FileStore, victim: str) -> Optional[RunRecord]:
    try:
        return store.find(*TASK, victim)
    except UnreadableRecord:
        return None


def _check_case(usecase: Path, store: FileStore, ids: list[str], victim: str, path: Path,
                truth: dict[str, RunRecord], in_place: bool, kind: str, what: str, seen: dict[str, int]) -> None:
    latest, previous = ids[-1], ids[-2]
    other = latest if victim != latest else previous
    record = _readable(store, victim)
    if kind in ("empty", "not-object", "wrong-type", "truncate", "not-utf8"):
        assert record is None, f"{what}: loaded as {record}"
    pair_json = invoke(usecase, "compare", "--json")
    latest_json = invoke(usecase, "verify", "--json")
    named_pair = invoke(usecase, "compare", "--run-id1", victim, "--run-id2", other, "--json")
    named_verify = invoke(usecase, "verify", "--run-id", victim, "--json")
    views = [invoke(usecase, "list", "--json"), invoke(usecase, "search", "--json"),
             invoke(usecase, "show", "--json"), invoke(usecase, "list"), invoke(usecase, "show")]
    human = invoke(usecase, "compare")

    if record is None:
        seen["unreadable"] += 1
        named_error(named_pair, path, what)
        named_error(named_verify, path, what)
        for view in views:
            assert view.exit_code == 0, (what, view.stderr)
            one_warning(view, path, what)
        listed, searched, shown = (json.loads(view.stdout) for view in views[:3])
        assert victim not in [r["run_id"] for r in listed["runs"] + searched["runs"]], what
        assert shown["record"]["run_id"] == (previous if victim == latest else latest), what
        assert not [line for line in views[3].stdout.splitlines() if line.startswith(victim[:8])], what
        for result, takes in ((pair_json, (latest, previous)), (latest_json, (latest,)), (human, (latest, previous))):
            if not in_place or victim in takes:  # it may be one of the runs taken
                seen["blocked"] += 1
                named_error(result, path, what)
            else:  # clearly older: skipped, and the answer is about the runs taken
                seen["skipped-old"] += 1
                assert result.exit_code == 0, (what, result.stdout[-500:])
                one_warning(result, path, what)
        if in_place and victim not in (latest, previous):
            doc = json.loads(pair_json.stdout)
            assert (doc["run_a"]["run_id"], doc["run_b"]["run_id"]) == (previous, latest), what
        return

    seen["readable"] += 1  # a flip that still parses, with every field of its type, and its seal
    assert record == truth[victim], f"{what}: damage read as another record"
    compared_intact = verdict_part(record, COMPARED) == verdict_part(truth[victim], COMPARED)
    verified_intact = verdict_part(record, VERIFIED) == verdict_part(truth[victim], VERIFIED)
    assert named_pair.exit_code != 0 or compared_intact, what
    assert named_verify.exit_code != 0 or verified_intact, what
    assert human.exit_code == pair_json.exit_code, what
    if pair_json.exit_code == 0:  # (the runs taken are placed by their start times)
        doc = json.loads(pair_json.stdout)
        assert (doc["run_a"]["run_id"], doc["run_b"]["run_id"]) == (previous, latest), what
        assert compared_intact or victim not in (previous, latest), what
    if latest_json.exit_code == 0:
        assert json.loads(latest_json.stdout)["run"]["run_id"] == latest, what
        assert verified_intact or victim != latest, what
    for view in views:
        assert view.exit_code == 0, (what, view.stderr)


@pytest.mark.parametrize("where, value", WRONG_TYPES, ids=[f"{w}={v!r}"[:40] for w, v in WRONG_TYPES])
def test_every_wrong_type_is_one_line_naming_the_field(tmp_path: Path, where: str, value: Any) -> None:
    store = FileStore(tmp_path)
    record = RunRecord(run_id="r1", task_path="/".join(TASK), usecase=TASK[0], package=TASK[1], task_name=TASK[2],
                       started_at=T0.isoformat(), status="success",
                       inputs=[Step("orders", "input", "parquet", "/in", 4, "s", "d", "rows-v1")],
                       outputs=[Step("clean", "output", "parquet", "/out", 2, "s", "d", "rows-v1")],
                       timings=[{"step": "Reader:parquet", "input": "orders", "seconds": 0.5}],
                       expectations=[{"output": "clean", "rule": "r", "passed": True}])
    path = store.write(record)
    assert store.find(*TASK, "r1") == record
    damaged = _wrong_type(_Always(where, value), path.read_bytes())
    path.write_bytes(damaged)  # sealed: refused, whatever the field
    with pytest.raises(UnreadableRecord) as caught:
        store.find(*TASK, "r1")
    assert "\n" not in str(caught.value)
    # as another writer (no seal) would have written it: the message names the field
    path.write_text(json.dumps(unsealed(damaged)), encoding="utf-8")
    with pytest.raises(UnreadableRecord) as caught:
        store.find(*TASK, "r1")
    message = str(caught.value)
    field = where.split(".")[0]
    assert message.startswith(f"unreadable run record {path}: ") and "\n" not in message
    assert field in message or where == "run_id", message


def unsealed(data: bytes) -> Any:
    """The decoded record without its seal: what a writer that does not seal would write."""
    doc = json.loads(data)
    doc.pop("seal", None)
    return doc


class _Always(random.Random):
    """A "random" source that always picks the given wrong type."""

    def __init__(self, where: str, value: Any) -> None:
        super().__init__(0)
        self.pick = (where, value)

    def choice(self, seq: Any) -> Any:
        return self.pick


@pytest.mark.parametrize("old, new", [('"name": "orders"', '"name": "ordexs"'),  # a changed name
                                      ('"name": "orders"', '"nbme": "orders"'),  # a key renamed: the field goes missing
                                      ('"outputs": [', '"outpuvs": [')])  # every output gone
def test_a_sealed_record_that_still_parses_after_damage_is_refused(tmp_path: Path, old: str, new: str) -> None:
    store = FileStore(tmp_path)
    record = RunRecord(run_id="r1", task_path="/".join(TASK), usecase=TASK[0], package=TASK[1], task_name=TASK[2],
                       started_at=T0.isoformat(), status="success",
                       inputs=[Step("orders", "input", "parquet", "/in", 4, "s", "d", "rows-v1")],
                       outputs=[Step("clean", "output", "parquet", "/out", 2, "s", "d", "rows-v1")])
    path = store.write(record)
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")
    with pytest.raises(UnreadableRecord, match="does not match its seal"):
        store.find(*TASK, "r1")
    doc = unsealed(path.read_bytes())  # the same damage in a record without a seal loads (another writer's)
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert store.find(*TASK, "r1") != record
