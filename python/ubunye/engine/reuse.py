"""Proven hashes carried between runs: sign what a run reads and writes, reuse what matches.

A run signs each parquet/Delta input and output (:mod:`ubunye.engine.snapshots`)
and, once its record is written, publishes the signed steps to the store's index
(:mod:`ubunye.lineage.known`). An input whose signature, place and schema hash
match a published step takes that step's hash instead of being scanned again.
"""
from __future__ import annotations

import time
from typing import Any, Mapping, Optional

from ubunye.engine.config import IOSpec
from ubunye.engine.snapshots import location_identity, storage_signature
from ubunye.lineage.known import REUSED, KnownHashes


class HashReuse:
    """Signing, lookup and publishing for one run (``store``: its lineage store)."""

    def __init__(self, store: Any, backend: Any, *, enabled: bool = True) -> None:
        self.known = KnownHashes(store)
        self.backend = backend
        self.enabled = enabled

    def signature(self, spec: IOSpec, delta_version: Optional[int]) -> Optional[str]:
        """What is at ``spec``'s location now (None where files alone do not decide the rows)."""
        return storage_signature(spec, spark=getattr(self.backend, "spark", None), delta_version=delta_version)

    def take(self, event: Any, spec: IOSpec, frame: Any) -> bool:
        """Give ``event`` (an input with its ``storage_signature`` set) the hash of the newest
        stored step of exactly these files; False, and nothing changed, when there is none.
        The frame's schema is read only when those files are known (for pandas it means
        building the Arrow schema from the data)."""
        if not self.enabled or not event.storage_signature:
            return False
        started = time.perf_counter()
        try:
            from ubunye.hashing.digest import schema_hash
            from ubunye.hashing.fingerprint import Fingerprint

            found = self.known.find(location_identity(spec.location), event.storage_signature,
                                    lambda: schema_hash(list(self.backend.port(frame).schema.items())))
        except Exception:  # noqa: BLE001 - no reuse: the input is hashed as usual
            return False
        if found is None:
            return False
        step = found.step
        event.fingerprint = Fingerprint(step.schema_hash, step.data_hash, step.row_count,
                                        engine=step.hash_engine or "", sketch=_sketch(step.sketch),
                                        partitions=step.partitions)
        event.hash_pass = REUSED
        event.hash_reused_from = found.source
        event.hash_seconds = time.perf_counter() - started
        return True

    def publish(self, record: Any, specs: Mapping[str, IOSpec]) -> None:
        """Note the record's signed steps (``specs`` by ``"<direction>:<name>"``) for later runs."""
        self.known.publish(record, {key: location_identity(s.location) for key, s in specs.items()})


def _sketch(field: Any) -> Any:
    """The reused step's sketch (same rows, so the same sketch), or None when it has none."""
    if field is None:
        return None
    from ubunye.hashing.sketch import Sketch

    try:
        return Sketch.from_record(field)
    except ValueError:
        return None
