"""The reuse index (.known) on its own: what is published, where, and what a lookup trusts."""
from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path

import pytest

from ubunye.lineage.known import KNOWN_DIR, KnownHashes, location_key, publishable
from ubunye.lineage.record import RunRecord, Step
from ubunye.lineage.store import RecordStore

H = "sha256:" + "d" * 64
S = "sha256:" + "5" * 64
LOC = "/data/people.csv"


def signed(name: str = "people", data: str = H, **kw: object) -> Step:
    values = {"row_count": 2, "schema_hash": S, "data_hash": data, "hash_method": "rows-v1",
              "storage_signature": "files:sha256:abc", **kw}
    return Step(name, "input", "csv", "/masked/people.csv", **values)  # type: ignore[arg-type]


def stored(root: Path, run_id: str, *steps: Step, task: str = "clean") -> RunRecord:
    record = RunRecord(run_id=run_id, task_path=f"shop/orders/{task}", usecase="shop", package="orders",
                       task_name=task, status="success", started_at="2026-03-01T08:00:00+00:00",
                       inputs=list(steps))
    RecordStore(root).write(record)
    return record


def entries(root: Path) -> list[Path]:
    return sorted((root / KNOWN_DIR).rglob("*.json"))


def test_a_published_step_is_found_with_where_it_came_from(tmp_path: Path) -> None:
    record = stored(tmp_path, "run-1", signed())
    known = KnownHashes(RecordStore(tmp_path))
    known.publish(record, {"input:people": LOC})
    (entry,) = entries(tmp_path)
    key = hashlib.sha256(LOC.encode()).hexdigest()
    assert location_key(LOC) == key
    short = hashlib.sha256(b"files:sha256:abc").hexdigest()[:16]
    assert entry.parent == tmp_path / KNOWN_DIR / key and entry.name.startswith(short + "-")
    assert json.loads(entry.read_text()) == {
        "signature": "files:sha256:abc", "schema_hash": S, "data_hash": H, "task_path": "shop/orders/clean",
        "usecase": "shop", "package": "orders", "task": "clean", "run_id": "run-1", "step": "input:people"}
    asked: list[int] = []
    found = known.find(LOC, "files:sha256:abc", lambda: asked.append(1) or S)  # type: ignore[func-returns-value]
    assert found is not None
    assert (found.source, found.step.data_hash) == ("shop/orders/clean/run-1:input:people", H)
    assert asked == [1]  # the schema is hashed once, only when the signature is known
    assert known.find(LOC, "files:sha256:other", lambda: asked.append(1) or S) is None  # type: ignore[func-returns-value]
    assert asked == [1]
    assert known.find("/data/other.csv", "files:sha256:abc", lambda: S) is None
    assert known.find(LOC, "files:sha256:abc", lambda: "sha256:other-schema") is None


def test_publishing_the_same_step_twice_keeps_one_entry(tmp_path: Path) -> None:
    record = stored(tmp_path, "run-1", signed())
    known = KnownHashes(RecordStore(tmp_path))
    known.publish(record, {"input:people": LOC})
    known.publish(record, {"input:people": LOC})
    assert len(entries(tmp_path)) == 1


@pytest.mark.parametrize("change", [
    {"storage_signature": None}, {"data_hash": None}, {"schema_hash": None}, {"hash_method": "sha256-of-files"},
    {"hash_error": "boom"}, {"hash_pass": "reused"},
])
def test_only_a_signed_step_hashed_from_its_rows_is_published(tmp_path: Path, change: dict[str, object]) -> None:
    step = signed(**change)
    assert not publishable(step)
    KnownHashes(RecordStore(tmp_path)).publish(stored(tmp_path, "run-1", step), {"input:people": LOC})
    assert entries(tmp_path) == []


def test_a_step_without_its_real_location_is_not_published(tmp_path: Path) -> None:
    record = stored(tmp_path, "run-1", signed())
    KnownHashes(RecordStore(tmp_path)).publish(record, {"output:people": LOC})
    assert entries(tmp_path) == []
    assert publishable(signed(hash_pass="second-pass"))


def test_a_record_that_no_longer_says_what_the_entry_says_is_not_trusted(tmp_path: Path) -> None:
    store = RecordStore(tmp_path)
    record = stored(tmp_path, "run-1", signed())
    KnownHashes(store).publish(record, {"input:people": LOC})
    (entry,) = entries(tmp_path)
    for field, value in (("data_hash", "sha256:" + "e" * 64), ("schema_hash", "sha256:x"),
                         ("signature", "files:sha256:zzz"), ("step", "input:others"), ("run_id", "run-gone")):
        doc = json.loads(entry.read_text())
        entry.write_text(json.dumps({**doc, field: value}))
        wanted_signature = value if field == "signature" else "files:sha256:abc"
        wanted_schema = value if field == "schema_hash" else S
        assert KnownHashes(store).find(LOC, str(wanted_signature), lambda: str(wanted_schema)) is None, field
        entry.write_text(json.dumps(doc))
    assert KnownHashes(store).find(LOC, "files:sha256:abc", lambda: S) is not None


def test_the_newest_entry_is_tried_first(tmp_path: Path) -> None:
    store = RecordStore(tmp_path)
    older = stored(tmp_path, "run-1", signed(data=H))
    newer = stored(tmp_path, "run-2", signed(data="sha256:" + "f" * 64))
    known = KnownHashes(store)
    known.publish(older, {"input:people": LOC})
    known.publish(newer, {"input:people": LOC})
    first, second = entries(tmp_path)
    for path, when in ((first, 1_000), (second, 2_000)):
        run = json.loads(path.read_text())["run_id"]
        stamp = when if run == "run-2" else when - 1_500  # run-2's entry is the newer file
        os.utime(path, (stamp, stamp))
    found = known.find(LOC, "files:sha256:abc", lambda: S)
    assert found is not None and found.source == "shop/orders/clean/run-2:input:people"


def test_entries_of_the_layout_before_are_still_read(tmp_path: Path) -> None:
    store = RecordStore(tmp_path)
    stored(tmp_path, "run-1", signed())
    old = tmp_path / KNOWN_DIR / f"{location_key(LOC)}.json"
    old.parent.mkdir(parents=True)
    entry = {"signature": "files:sha256:abc", "schema_hash": S, "data_hash": H, "task_path": "shop/orders/clean",
             "usecase": "shop", "package": "orders", "task": "clean", "run_id": "run-1", "step": "input:people"}
    old.write_text(json.dumps({"entries": ["not an entry", entry]}))
    found = KnownHashes(store).find(LOC, "files:sha256:abc", lambda: S)
    assert found is not None and found.source == "shop/orders/clean/run-1:input:people"
    old.write_text("[1, 2]")  # damaged: nothing, no failure
    assert KnownHashes(store).find(LOC, "files:sha256:abc", lambda: S) is None


def test_a_damaged_entry_is_skipped(tmp_path: Path) -> None:
    store = RecordStore(tmp_path)
    record = stored(tmp_path, "run-1", signed())
    KnownHashes(store).publish(record, {"input:people": LOC})
    (entry,) = entries(tmp_path)
    good = entry.read_text()
    for damaged in ("{not json", "[1]"):
        entry.write_text(damaged)
        assert KnownHashes(store).find(LOC, "files:sha256:abc", lambda: S) is None
    entry.write_text(good)
    assert KnownHashes(store).find(LOC, "files:sha256:abc", lambda: S) is not None


def test_publishing_never_raises(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    store = RecordStore(tmp_path)
    record = stored(tmp_path, "run-1", signed())
    (tmp_path / KNOWN_DIR).write_text("a file where the folder goes")
    with caplog.at_level(logging.WARNING, logger="ubunye.lineage.known"):
        KnownHashes(store).publish(record, {"input:people": LOC})
    (message,) = [r.getMessage() for r in caplog.records]
    assert message.startswith(f"could not note the hash of people in {tmp_path / KNOWN_DIR}: ")
    assert message.endswith(f"Not a directory: '{tmp_path / KNOWN_DIR / location_key(LOC)}'")  # the error itself


def test_a_location_whose_name_is_not_utf8_is_published_and_found(tmp_path: Path) -> None:
    odd = os.fsdecode(b"/data/caf\xe9.csv")  # a file name in Latin-1, as Python decodes it ("\udce9")
    assert location_key(odd) == hashlib.sha256(b"/data/caf\xe9.csv").hexdigest()
    store = RecordStore(tmp_path)
    known = KnownHashes(store)
    known.publish(stored(tmp_path, "run-1", signed()), {"input:people": odd})
    (entry,) = entries(tmp_path)
    assert entry.parent.name == location_key(odd)
    found = known.find(odd, "files:sha256:abc", lambda: S)
    assert found is not None and found.source == "shop/orders/clean/run-1:input:people"


def test_a_step_that_cannot_be_published_does_not_stop_the_next(tmp_path: Path) -> None:
    unsigned = signed("early", storage_signature=None)
    record = stored(tmp_path, "run-1", signed("nowhere"), unsigned, signed())
    KnownHashes(RecordStore(tmp_path)).publish(record, {"input:early": "/data/early.csv", "input:people": LOC})
    (entry,) = entries(tmp_path)  # "nowhere" has no location, "early" no signature: both skipped, people kept
    assert json.loads(entry.read_text())["step"] == "input:people"


def test_an_entry_is_named_by_its_signature_and_its_content(tmp_path: Path) -> None:
    """The name is fixed by what the entry says, whatever the writer: two writers (or two versions)
    publishing the same entry make one object, not two."""
    record = stored(tmp_path, "run-1", signed())
    KnownHashes(RecordStore(tmp_path)).publish(record, {"input:people": LOC})
    (entry,) = entries(tmp_path)
    doc = json.loads(entry.read_text())
    ident = hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()[:32]
    short = hashlib.sha256(b"files:sha256:abc").hexdigest()[:16]
    assert entry.name == f"{short}-{ident}.json"


def _old_layout(root: Path, *listed: dict[str, object]) -> None:
    old = root / KNOWN_DIR / f"{location_key(LOC)}.json"
    old.parent.mkdir(parents=True, exist_ok=True)
    old.write_text(json.dumps({"entries": list(listed)}))


def _entry(**kw: object) -> dict[str, object]:
    return {"signature": "files:sha256:abc", "schema_hash": S, "data_hash": H, "task_path": "shop/orders/clean",
            "usecase": "shop", "package": "orders", "task": "clean", "run_id": "run-1", "step": "input:people",
            **kw}


def test_a_lookup_passes_over_entries_of_another_signature_or_schema_or_record(tmp_path: Path) -> None:
    store = RecordStore(tmp_path)
    stored(tmp_path, "run-1", signed())
    _old_layout(tmp_path, _entry(signature="files:sha256:other"), _entry(schema_hash="sha256:old-schema"),
                _entry(run_id="run-gone"), _entry())
    asked: list[int] = []
    found = KnownHashes(store).find(LOC, "files:sha256:abc", lambda: asked.append(1) or S)  # type: ignore[func-returns-value]
    assert found is not None and found.source == "shop/orders/clean/run-1:input:people"
    assert asked == [1]  # the schema is hashed once, however many entries are tried


class Unlistable:
    """A store backend whose listing of the index fails (an object store that refuses to list it)."""

    def __init__(self, blobs: object) -> None:
        self._blobs = blobs

    def __getattr__(self, name: str) -> object:
        return getattr(self._blobs, name)

    def listdir(self, prefix: str) -> object:
        if prefix.startswith(KNOWN_DIR):
            raise PermissionError(13, "listing refused", prefix)
        return self._blobs.listdir(prefix)  # type: ignore[attr-defined]


def test_an_index_that_cannot_be_listed_still_reads_the_old_layout(tmp_path: Path) -> None:
    record = stored(tmp_path, "run-1", signed())
    store = RecordStore(tmp_path)
    known = KnownHashes(store)
    known.publish(record, {"input:people": LOC})
    store.blobs = Unlistable(store.blobs)  # type: ignore[assignment]
    assert known.find(LOC, "files:sha256:abc", lambda: S) is None  # no failure: nothing found
    _old_layout(tmp_path, _entry())
    found = known.find(LOC, "files:sha256:abc", lambda: S)
    assert found is not None and found.source == "shop/orders/clean/run-1:input:people"
