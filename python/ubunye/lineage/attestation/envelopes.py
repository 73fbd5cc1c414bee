"""Signing a record as it is stored, and checking a stored record against its envelope.

Where things live in a store (``docs/spec/record-attestation.md``)::

    <usecase>/<package>/<task>/_signed/<seq>                 the task's chain places (:mod:`.chain`):
                                                            each the envelope of the record there
    <usecase>/<package>/<task>/_signed/<run_id>.dsse.json   the same envelope, by run id
    _keys/<keyid>.pub                                      the signers' public keys (PEM), for readers

All are created only if absent. The record object itself is unchanged (byte for byte what the
run record spec says), so readers that know nothing of signatures read every store as before.
Only final records are signed; a ``running`` start record never is.
"""
from __future__ import annotations

import json
from typing import Any, Optional

from ubunye.lineage.attestation import chain as chain_
from ubunye.lineage.attestation import dsse
from ubunye.lineage.attestation.keys import Signer, Verifier, public_pem, verifier_from_text
from ubunye.lineage.attestation.statement import disagreement, encode, link, statement
from ubunye.lineage.record import RunRecord
from ubunye.lineage.store.blobs import AlreadyExists, BlobNotFound, Blobs

SIGNED = chain_.CHAIN  # the envelopes and the chain places: one folder
KEYS = "_keys"
ENVELOPE_SUFFIX = ".dsse.json"

_published: set[tuple[str, str]] = set()  # (store root, keyid): public key written this process


def task_key_of(record: RunRecord) -> str:
    return f"{record.usecase}/{record.package}/{record.task_name}"


def envelope_key(record: RunRecord) -> str:
    return f"{task_key_of(record)}/{SIGNED}/{record.run_id}{ENVELOPE_SUFFIX}"


def key_file(keyid: str) -> str:
    return f"{KEYS}/{keyid}.pub"


def sign_record(blobs: Blobs, record: RunRecord, signer: Signer) -> dict[str, Any]:
    """Claim the record's chain place with its signed envelope (create-only, also at its run id's
    name) and, once per process, write the signer's public key; returns the statement."""
    digest = record.digest()
    stored = _stored_statement(blobs, record, signer)
    if stored is not None:  # a write tried again after its envelope landed (the record did not)
        publish_key(blobs, signer)
        return stored

    signed: dict[str, Any] = {}

    def seal(chained: dict[str, Any]) -> bytes:
        signed["doc"] = statement(record, chained, digest)
        return dsse.sign(encode(signed["doc"]), signer).to_json()

    chain_.claim(blobs, task_key_of(record), envelope_key(record), seal)
    publish_key(blobs, signer)
    return signed["doc"]


def _stored_statement(blobs: Blobs, record: RunRecord, signer: Signer) -> Optional[dict[str, Any]]:
    """The statement of this record's envelope already stored, when this signer signed it for this
    very record; else None."""
    try:
        envelope = dsse.parse(blobs.get(envelope_key(record)))
    except BlobNotFound:
        return None
    except dsse.EnvelopeError:
        raise AlreadyExists("an envelope of this run is already stored") from None
    if envelope.verified_by([verifier_from_text(public_pem(signer.public_raw()).decode("ascii"))]):
        try:
            doc = json.loads(envelope.payload.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            doc = None
        if doc is not None and disagreement(doc, record) is None:
            return doc
    raise AlreadyExists("an envelope of this run is already stored")


def publish_key(blobs: Blobs, signer: Signer) -> None:
    mark = (str(blobs.root), signer.keyid)
    if mark in _published:
        return
    try:
        blobs.put_new(key_file(signer.keyid), public_pem(signer.public_raw()))
    except AlreadyExists:
        pass
    _published.add(mark)


def read_envelope(blobs: Blobs, record: RunRecord) -> tuple[Optional[dsse.Envelope], Optional[str]]:
    """The record's envelope, or None and why not (one phrase). A record whose names are not
    folder names (a record file given by path) names no envelope: it is unsigned."""
    from ubunye._names import validate_name

    try:
        for kind, name in (("usecase", record.usecase), ("package", record.package),
                           ("task", record.task_name), ("run id", record.run_id)):
            validate_name(kind, name)
    except ValueError:
        return None, "it is unsigned (its names cannot name an envelope in the store)"
    try:
        data = blobs.get(envelope_key(record))
    except BlobNotFound:
        return None, "it is unsigned (no envelope beside it)"
    except OSError as exc:
        return None, f"its envelope cannot be read: {exc.strerror or exc}"
    try:
        return dsse.parse(data), None
    except dsse.EnvelopeError as exc:
        return None, f"its envelope is damaged: {exc}"


def published_verifiers(blobs: Blobs, envelope: dsse.Envelope) -> list[Verifier]:
    """The keys the store itself holds for an envelope's key ids (no trust: any writer can add one)."""
    found: list[Verifier] = []
    for keyid, _ in envelope.signatures:
        if len(keyid) != 64 or not all(c in "0123456789abcdef" for c in keyid):
            continue
        try:
            verifier = verifier_from_text(blobs.get(key_file(keyid)).decode("ascii"))
        except (OSError, ValueError):
            continue
        if verifier.keyid == keyid:
            found.append(verifier)
    return found


def checked_statement(blobs: Blobs, record: RunRecord, verifiers: Optional[list[Verifier]]
                      ) -> tuple[Optional[dict[str, Any]], Optional[str]]:
    """The record's statement when its envelope is signed by one of ``verifiers`` (None: by the
    key the store publishes for it) and it is this record's; else None and why not."""
    envelope, why = read_envelope(blobs, record)
    if envelope is None:
        return None, why
    if envelope.payload_type != dsse.PAYLOAD_TYPE:
        return None, f"its envelope's payload type is not {dsse.PAYLOAD_TYPE}"
    keys = published_verifiers(blobs, envelope) if verifiers is None else verifiers
    if not envelope.verified_by(keys):
        named = ", ".join(k[:16] for k, _ in envelope.signatures) or "no key"
        whose = "a key the store publishes" if verifiers is None else "a key the policy names"
        return None, f"its envelope is not signed by {whose} (signed by key id {named})"
    try:
        doc = json.loads(envelope.payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None, "its signed statement is not JSON"
    problem = disagreement(doc, record)
    return (None, problem) if problem else (doc, None)


def link_problem(store: Any, record: RunRecord, doc: dict[str, Any]) -> Optional[str]:
    """Why the statement's chain link does not hold in ``store`` (None: it does)."""
    chained = link(doc)
    previous = chained["previous"]
    if chained["seq"] < 1:
        return "its statement names no place in the task's chain"
    if chained["seq"] == 1:
        return None if previous is None else "its chain link is damaged"
    if previous is None:
        return "its chain link names no record before it"
    from ubunye.lineage.errors import LineageError

    try:
        before = store.find(record.usecase, record.package, record.task_name, previous["run_id"])
    except LineageError:
        return f"its chain is broken: the record before it (run {previous['run_id'][:40]}) is missing or unreadable"
    if before.run_id != previous["run_id"] or before.digest() != previous["sha256"]:
        return f"its chain is broken: the record before it (run {previous['run_id'][:40]}) was changed"
    return None
