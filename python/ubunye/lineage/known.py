"""Hashes already proven, by location: where an unchanged input's hash comes from.

After a record is written, every step of it that carries a storage signature
(:mod:`ubunye.engine.snapshots`) and a rows-v1 data hash computed from its rows
is published here: ``<lineage root>/.known/<sha256 of the location>.json`` lists
the newest signatures seen at that location, each with the record that holds the
hash. A later run that finds the same signature at the same location, with the
same schema hash, takes the hash from that record (``hash_pass: "reused"``,
``hash_reused_from: "<task_path>/<run_id>:<direction>:<name>"``) instead of
scanning the data again.

The index is only a pointer: a match is used only after the record it points to
is loaded and its step says the same thing, so a deleted, moved or edited record
is never trusted. Writes are atomic (a file renamed into place); two runs
publishing for one location at once may drop one entry, which only costs a scan.
The folder starts with a dot, so the record store never lists it.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

from ubunye.lineage.record import RunRecord, Step
from ubunye.lineage.store import FileStore

log = logging.getLogger(__name__)

KNOWN_DIR = ".known"
KEEP = 16  # signatures kept per location, newest first
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

    def __init__(self, store: FileStore) -> None:
        self.store = store
        self.folder = Path(store.root) / KNOWN_DIR

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
            except OSError as exc:
                log.warning("could not note the hash of %s in %s: %s", step.name, self.folder, exc)

    def find(self, location: str, signature: str, schema_hash: Callable[[], str]) -> Optional[KnownHash]:
        """The newest stored step that proved this signature at this location, with the
        schema hash ``schema_hash()`` gives (asked only when the signature is known)."""
        wanted: Optional[str] = None
        for entry in self._entries(location_key(location)):
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
    def _file(self, key: str) -> Path:
        return self.folder / f"{key}.json"

    def _entries(self, key: str) -> list[dict[str, Any]]:
        try:
            data = json.loads(self._file(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        entries = data.get("entries") if isinstance(data, dict) else None
        return [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []

    def _add(self, key: str, entry: dict[str, Any]) -> None:
        kept = [e for e in self._entries(key) if e.get("signature") != entry["signature"]]
        data = {"entries": [entry, *kept][:KEEP]}
        self.folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=self.folder)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, indent=1)
            os.replace(tmp, self._file(key))
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def _confirmed(self, entry: dict[str, Any]) -> Optional[Step]:
        """The step of the record the entry names, if it still says what the entry says."""
        try:
            path = self.store.path_for(str(entry["usecase"]), str(entry["package"]), str(entry["task"]),
                                       str(entry["run_id"]))
            record = self.store.load(path)
        except Exception:  # noqa: BLE001 - a missing or unreadable record proves nothing
            return None
        for step in record.steps:
            if (f"{step.direction}:{step.name}" == entry.get("step") and publishable(step)
                    and step.storage_signature == entry.get("signature")
                    and step.schema_hash == entry.get("schema_hash")
                    and step.data_hash == entry.get("data_hash")):
                return step
        return None
