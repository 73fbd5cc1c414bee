"""What signing a record costs (issue 36): the calls a signed write makes, counted (they do not
depend on the machine's load), and the one object the chain place and the envelope now are.

A signed record used to make two more create-only objects (``_chain/<seq>`` and
``_signed/<run_id>.dsse.json``), each a synced file and a synced folder: 6 ``fsync`` per record
instead of 2. The envelope is now written once and linked at its chain place and at its run id
(one folder): 4.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from ubunye.lineage.attestation import chain, envelopes
from ubunye.lineage.attestation.keys import Ed25519Signer
from ubunye.lineage.record import RunRecord
from ubunye.lineage.store import FileStore


def _record(run_id: str, minute: int) -> RunRecord:
    return RunRecord.from_dict({"run_id": run_id, "usecase": "shop", "package": "orders", "task_name": "clean",
                                "task_path": "shop/orders/clean", "status": "success",
                                "started_at": f"2026-01-01T00:{minute:02d}:00+00:00",
                                "ended_at": f"2026-01-01T00:{minute:02d}:30+00:00"})


@pytest.fixture()
def signing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Ed25519Signer:
    signer = Ed25519Signer.generate()
    key = tmp_path / "key.pem"
    key.write_bytes(signer.private_pem())
    key.chmod(0o600)  # a key others may read signs nothing
    monkeypatch.setenv("UBUNYE_SIGNING_KEY", str(key))
    return signer


def _count(monkeypatch: pytest.MonkeyPatch, name: str) -> list[int]:
    calls = [0]
    real = getattr(os, name)

    def counted(*args: object, **kwargs: object) -> object:
        calls[0] += 1
        return real(*args, **kwargs)
    monkeypatch.setattr(os, name, counted)
    return calls


def test_signcost_a_signed_record_syncs_four_times_and_links_three(tmp_path: Path, signing: Ed25519Signer,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    store = FileStore(tmp_path / "store")
    store.write(_record("r-0", 0))  # folders made, the key published: the steady state follows
    fsyncs, links = _count(monkeypatch, "fsync"), _count(monkeypatch, "link")
    for i in range(1, 4):
        store.write(_record(f"r-{i}", i))
    assert fsyncs[0] == 3 * 4  # the record's file and folder; the envelope's file and folder
    assert links[0] == 3 * 3  # the record; the envelope at its chain place and at its run id


def test_signcost_the_chain_place_and_the_envelope_are_one_file(tmp_path: Path, signing: Ed25519Signer) -> None:
    store = FileStore(tmp_path / "store")
    for i in range(3):
        store.write(_record(f"r-{i}", i))
    folder = tmp_path / "store" / "shop" / "orders" / "clean" / "_signed"
    assert sorted(p.name for p in folder.iterdir()) == [*(f"{n:012d}" for n in (1, 2, 3)),
                                                        *(f"r-{i}.dsse.json" for i in range(3))]
    for i in range(3):
        place, by_id = folder / f"{i + 1:012d}", folder / f"r-{i}.dsse.json"
        assert os.path.samefile(place, by_id) and place.read_bytes() == by_id.read_bytes()
        assert chain.read_place(store.blobs, "shop/orders/clean", i + 1) == {
            "run_id": f"r-{i}", "sha256": store.find("shop", "orders", "clean", f"r-{i}").digest()}


def test_signcost_a_write_tried_again_after_its_envelope_landed_is_signed_once(
        tmp_path: Path, signing: Ed25519Signer) -> None:
    """The record's write failed after its envelope was stored (an object store's request): the
    write tried again keeps that envelope and claims no second place."""
    store = FileStore(tmp_path / "store")
    store.write(_record("r-0", 0))
    record = _record("r-1", 1)
    envelopes.sign_record(store.blobs, record, signing)  # as a write whose record then failed
    store.write(record)  # no RecordUnsigned
    assert chain._places(store.blobs, "shop/orders/clean") == [1, 2]
    doc, why = envelopes.checked_statement(store.blobs, store.find("shop", "orders", "clean", "r-1"), None)
    assert why is None and doc["predicate"]["chain"]["seq"] == 2


def test_signcost_an_envelope_of_the_run_signed_by_another_key_is_not_taken(tmp_path: Path,
                                                                         signing: Ed25519Signer) -> None:
    """The check above takes only this signer's envelope of this very record."""
    store = FileStore(tmp_path / "store")
    record = _record("r-1", 1)
    envelopes.sign_record(store.blobs, record, Ed25519Signer.generate())  # planted by another key
    with pytest.raises(Exception, match="was written unsigned: an envelope of this run is already stored"):
        store.write(record)
