"""Hashes already proven, by location: where an unchanged input's hash comes from.

After a record is written, every step of it that carries a storage signature
(:mod:`ubunye.engine.snapshots`) and a rows-v1 data hash computed from its rows
is published here as one object per entry,
``<store>/.known/<sha256 of the location>/<signature id>-<entry id>.json``, naming
the record that holds the hash. A later run that finds the same signature at the same location, with the
same schema hash, takes the hash from that record (``hash_pass: "reused"``,
``hash_reused_from: "<task_path>/<run_id>:<direction>:<name>"``) instead of
scanning the data again.

The index is only a pointer: a match is used only after the record it points to
is loaded and its step says the same thing, so a deleted, moved or edited record
is never trusted; nor is one the store's signature policy does not prove
(:func:`ubunye.lineage.attestation.trust_reason`). Each entry is created only if absent through the store's backend
(a local folder or an object store), so two runs publishing for one location at
once both keep their entries: nothing is read, modified and written back.
Stores written before this layout kept one file per location,
``.known/<sha256 of the location>.json`` holding a list; those are still read.
The folder starts with a dot, so the record store never lists it.
"""
from __future__ import annotations

import hashlib
import json
import logging
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Optional

from ubunye.lineage.record import RunRecord, Step
from ubunye.lineage.store import AlreadyExists, BlobInfo, RecordStore
from ubunye._names import KNOWN_DIR

log = logging.getLogger(__name__)

KEEP = 16  # entries of a signature tried per location, newest first
REUSED = "reused"


@dataclass(frozen=True)
class KnownHash:
    """A step of a stored record whose hash holds for a signature at a location."""

    step: Step
    source: str  # "<task_path>/<run_id>:<direction>:<name>"


def location_key(location: str) -> str:
    """The index file name of a location (its text is not stored: it may hold secrets)."""
    return hashlib.sha256(location.encode("utf-8", "surrogateescape")).hexdigest()


def publishable(step: Step) -> bool:
    """A step whose hash was computed from its rows and whose files were signed."""
    return bool(
        step.storage_signature
        and step.data_hash
        and step.schema_hash
        and step.hash_method == "rows-v1"
        and step.hash_error is None
        and step.hash_pass != REUSED
    )


class KnownHashes:
    """The ``.known`` index of a lineage store."""

    def __init__(self, store: RecordStore) -> None:
        self.store = store
        self.folder = store.blobs.locate(KNOWN_DIR)
        self._policy_said = False  # a policy that cannot be used is said once, not per input

    def publish(self, record: RunRecord, locations: dict[str, str]) -> None:
        """Add the record's signed steps. ``locations`` maps ``"<direction>:<name>"`` to
        the step's real location (records keep it masked). Never raises."""
        for step in record.steps:
            where = locations.get(f"{step.direction}:{step.name}")
            if where is None or not publishable(step):
                continue
            entry = {
                "signature": step.storage_signature,
                "schema_hash": step.schema_hash,
                "data_hash": step.data_hash,
                "task_path": record.task_path,
                "usecase": record.usecase,
                "package": record.package,
                "task": record.task_name,
                "run_id": record.run_id,
                "step": f"{step.direction}:{step.name}",
            }
            try:
                self._add(location_key(where), entry)
            except (OSError, ValueError) as exc:
                log.warning("could not note the hash of %s in %s: %s", step.name, self.folder, exc)

    def find(self, location: str, signature: str, schema_hash: Callable[[], str]) -> Optional[KnownHash]:
        """The newest stored step that proved this signature at this location, with the
        schema hash ``schema_hash()`` gives (asked only when the signature is known)."""
        wanted: Optional[str] = None
        for entry in self._entries(location_key(location), signature):
            if entry.get("signature") != signature:
                continue
            wanted = schema_hash() if wanted is None else wanted
            if entry.get("schema_hash") != wanted:
                continue
            step = self._confirmed(entry)
            if step is not None:
                where = f"{entry['task_path']}/{entry['run_id']}:{entry['step']}"
                return KnownHash(step, where)
        return None

    # --- internals ---------------------------------------------------------
    def _entries(self, key: str, signature: str) -> list[dict[str, Any]]:
        """The entries for ``signature`` at a location, newest first (this layout, then the old file)."""
        blobs = self.store.blobs
        wanted = _short(signature) + "-"
        try:
            listed = [b for b in blobs.listdir(f"{KNOWN_DIR}/{key}")[0] if b.name.startswith(wanted)]
        except OSError:
            listed = []
        found: list[dict[str, Any]] = []
        for info in sorted(listed, key=lambda b: (b.modified, b.name), reverse=True)[:KEEP]:
            entry = _read(blobs, info)
            if entry is not None:
                found.append(entry)
        try:
            old = json.loads(blobs.get(f"{KNOWN_DIR}/{key}.json").decode("utf-8"))
        except (OSError, ValueError):
            old = None
        entries = old.get("entries") if isinstance(old, dict) else None
        if isinstance(entries, list):
            found.extend(e for e in entries if isinstance(e, dict))
        return found

    def _add(self, key: str, entry: dict[str, Any]) -> None:
        ident = hashlib.sha256(json.dumps(entry, sort_keys=True).encode("utf-8")).hexdigest()[:32]
        name = f"{KNOWN_DIR}/{key}/{_short(str(entry['signature']))}-{ident}.json"
        try:
            self.store.blobs.put_new(name, json.dumps(entry, indent=1).encode("utf-8"))
        except AlreadyExists:
            pass  # the very same entry is there already

    def _confirmed(self, entry: dict[str, Any]) -> Optional[Step]:
        """The step of the record the entry names, if it still says what the entry says."""
        try:
            record = self.store.find(str(entry["usecase"]), str(entry["package"]), str(entry["task"]),
                                     str(entry["run_id"]))
        except Exception:  # noqa: BLE001 - a missing or unreadable record proves nothing
            return None
        from ubunye.lineage.attestation import PolicyError, trust_reason

        try:
            if trust_reason(record, self.store, warn=False) is not None:  # a forged record proves nothing
                return None
        except PolicyError as exc:  # nothing can be proven: every input is hashed, and the run says why
            if not self._policy_said:
                self._policy_said = True
                from ubunye.lineage.attestation import UnsignedRecordWarning

                warnings.warn(f"{exc}: no recorded hash is reused (each input is hashed)",
                              UnsignedRecordWarning, stacklevel=2)
            return None
        for step in record.steps:
            if (f"{step.direction}:{step.name}" == entry.get("step") and publishable(step)
                    and step.storage_signature == entry.get("signature")
                    and step.schema_hash == entry.get("schema_hash")
                    and step.data_hash == entry.get("data_hash")):
                return step
        return None


def _short(signature: str) -> str:
    """The part of an entry's name that says its signature (so a lookup reads only its own)."""
    return hashlib.sha256(signature.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def _read(blobs: Any, info: BlobInfo) -> Optional[dict[str, Any]]:
    try:
        data = json.loads(blobs.get(info.key).decode("utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
