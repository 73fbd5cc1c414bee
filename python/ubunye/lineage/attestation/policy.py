"""A store's signature policy, and the one trust rule every verdict asks: :func:`trust_reason`.

The policy is ``<store root>/ubunye-policy.json``, written once (create-only)::

    {"policy_version": 1, "require_signatures": true,
     "keys": [{"keyid": "<hex sha256 of the raw key>", "public_key": "<base64 of the 32 raw bytes>"}]}

``UBUNYE_TRUST_POLICY`` names a policy file outside the store that is used instead (an auditor
pins the keys without trusting anything the store holds). With a policy that requires
signatures, a record is proven only when its envelope is signed by one of the policy's keys, its
statement is this record's, and its chain link holds; else :func:`trust_reason` returns why, in
one line. Without one, the same checks run against the keys the store publishes and a failure is
a warning (:class:`UnsignedRecordWarning`), never a refusal.
"""
from __future__ import annotations

import json
import os
import warnings
from dataclasses import dataclass
from typing import Any, Optional

from ubunye.lineage.attestation.envelopes import checked_statement, link_problem
from ubunye.lineage.attestation.keys import Ed25519Verifier, SigningKeyError, public_text, verifier_from_text
from ubunye.lineage.errors import LineageError
from ubunye.lineage.record import RunRecord
from ubunye.lineage.store.blobs import AlreadyExists, BlobNotFound
from ubunye.userfiles import UserFileError, read_bytes

POLICY_FILE = "ubunye-policy.json"
POLICY_ENV = "UBUNYE_TRUST_POLICY"
POLICY_VERSION = 1


class PolicyError(LineageError, ValueError):
    """A policy file that cannot be used (one line naming the file and the key)."""


class UnsignedRecordWarning(UserWarning):
    """A record not proven by a signature, in a store whose policy does not require one."""


@dataclass(frozen=True)
class Policy:
    where: str
    require_signatures: bool
    verifiers: tuple[Ed25519Verifier, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"policy_version": POLICY_VERSION, "require_signatures": self.require_signatures,
                "keys": [{"keyid": v.keyid, "public_key": public_text(v.public)} for v in self.verifiers]}


def parse_policy(where: str, data: bytes) -> Policy:
    def bad(key: str, why: str) -> PolicyError:
        return PolicyError(f"policy {where}: {key} {why}")

    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise PolicyError(f"policy {where}: not a JSON document") from None
    if not isinstance(doc, dict):
        raise PolicyError(f"policy {where}: not a JSON object")
    if doc.get("policy_version") != POLICY_VERSION:
        raise bad("policy_version", f"must be {POLICY_VERSION}")
    require = doc.get("require_signatures")
    if not isinstance(require, bool):
        raise bad("require_signatures", "must be true or false")
    keys = doc.get("keys")
    if not isinstance(keys, list) or (require and not keys):
        raise bad("keys", "must be a list of keys (at least one when signatures are required)")
    verifiers = []
    for i, entry in enumerate(keys):
        if not isinstance(entry, dict) or not isinstance(entry.get("public_key"), str):
            raise bad(f"keys[{i}].public_key", "must be base64 of an ed25519 public key")
        try:
            verifier = verifier_from_text(entry["public_key"])
        except (SigningKeyError, ValueError) as exc:
            raise bad(f"keys[{i}].public_key", f"is not usable: {exc}") from None
        if entry.get("keyid", verifier.keyid) != verifier.keyid:
            raise bad(f"keys[{i}].keyid", f"is not the key's id ({verifier.keyid})")
        verifiers.append(verifier)
    return Policy(where, require, tuple(verifiers))


def load_policy(store: Any) -> Optional[Policy]:
    """The policy that holds for ``store`` (``UBUNYE_TRUST_POLICY``'s file, else the store's),
    or None; :class:`PolicyError` naming the file when it cannot be read or used."""
    pinned = os.environ.get(POLICY_ENV)
    if pinned:
        try:
            data = read_bytes(pinned, limit=1_000_000)  # a FIFO or /dev/zero: refused, never read
        except UserFileError as exc:
            raise PolicyError(f"policy {pinned} ({POLICY_ENV}): {exc.reason}") from None
        return parse_policy(pinned, data)
    try:
        data = store.blobs.get(POLICY_FILE)
    except BlobNotFound:
        return None
    except OSError as exc:
        raise PolicyError(f"policy {store.blobs.locate(POLICY_FILE)}: {exc.strerror or exc}") from None
    return parse_policy(str(store.blobs.locate(POLICY_FILE)), data)


def write_policy(store: Any, verifiers: list[Ed25519Verifier], require: bool = True) -> Policy:
    """Write the store's policy once; :class:`PolicyError` when one is there already."""
    where = str(store.blobs.locate(POLICY_FILE))
    policy = Policy(where, require, tuple(verifiers))
    try:
        store.blobs.put_new(POLICY_FILE, (json.dumps(policy.to_dict(), indent=2) + "\n").encode("utf-8"))
    except AlreadyExists:
        raise PolicyError(f"policy {where}: already there (a policy is written once)") from None
    return policy


def record_problem(store: Any, record: RunRecord, policy: Optional[Policy]) -> Optional[str]:
    """Why ``record`` is not proven by a signature and an intact chain link (None: it is).
    Without a policy the chain link is left to ``verify --chain``: a damaged record before it
    is named where it is read, not again as a warning about each record after it."""
    doc, why = checked_statement(store.blobs, record, list(policy.verifiers) if policy else None)
    if doc is None:
        return why
    return link_problem(store, record, doc) if policy is not None else None


def trust_reason(record: RunRecord, store: Any, *, warn: bool = True) -> Optional[str]:
    """None when ``record`` may be taken as evidence, else one line saying why it is not proven.

    Where the policy requires signatures, an unsigned, wrongly signed, mismatched or
    chain-breaking record gets its reason. Elsewhere it is taken, with an
    :class:`UnsignedRecordWarning` saying the same (``warn=False``: silently)."""
    policy = load_policy(store)
    if not warn and (policy is None or not policy.require_signatures):
        return None  # nothing to refuse, nothing to say
    problem = record_problem(store, record, policy)
    if problem is None:
        return None
    line = f"run {record.run_id} is not proven by its signature: {problem}"
    if policy is not None and policy.require_signatures:
        return line
    if warn:
        warnings.warn(f"{line} (the store's policy does not require signatures)", UnsignedRecordWarning,
                      stacklevel=2)
    return None
