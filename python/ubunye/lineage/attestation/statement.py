"""A run record as an in-toto Statement v1 (``docs/spec/record-attestation.md``).

Subjects: the record itself (``record:<usecase>/<package>/<task>/<run_id>``, digest
``{"sha256": <the record's canonical digest>}``) and each input and output with a location and a
rows-v1 data hash (name: the location as recorded, masked; digest ``{"rowsV1": <64 hex>}``).
The predicate carries the record's identity, code, config and environment evidence, the
expectations, every step's counts and hashes, and the chain link. It is built from the record as
written, which is masked (:func:`ubunye.lineage.recorder.masked`), so no secret enters it unmasked.
"""
from __future__ import annotations

import json
import re
from typing import Any, Optional

from ubunye.lineage.record import RunRecord

STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE = "https://ubunye.dev/attestation/run-record/v1"
ROWS_V1 = "rowsV1"
_HEX64 = re.compile(r"^sha256:([0-9a-f]{64})$")
_IDENTITY = ("run_id", "usecase", "package", "task_name", "task_path", "status", "started_at", "ended_at",
             "record_version", "engine_version")


def record_subject(record: RunRecord) -> str:
    return f"record:{record.usecase}/{record.package}/{record.task_name}/{record.run_id}"


def rows_v1(step_hash: Optional[str]) -> Optional[str]:
    """The 64 hex digits of a rows-v1 ``sha256:`` data hash, or None."""
    found = _HEX64.match(step_hash or "")
    return found.group(1) if found else None


def subjects(record: RunRecord, digest: Optional[str] = None) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"name": record_subject(record), "digest": {"sha256": digest or record.digest()}}]
    for step in record.steps:
        hexed = rows_v1(step.data_hash) if step.hash_method in (None, "rows-v1") else None
        if step.location and hexed:
            out.append({"name": step.location, "digest": {ROWS_V1: hexed},
                        "annotations": {"direction": step.direction, "step": step.name}})
    return out


def predicate(record: RunRecord, chain: dict[str, Any]) -> dict[str, Any]:
    return {
        "record": {k: getattr(record, k) for k in _IDENTITY},
        "code_hash": record.code_hash,
        "config_hash": record.config_hash,
        "environment_hash": record.environment_hash,
        "environment": record.environment,
        "expectations": record.expectations,
        "steps": [{"direction": s.direction, "name": s.name, "location": s.location, "format": s.format,
                   "row_count": s.row_count, "schema_hash": s.schema_hash, "data_hash": s.data_hash}
                  for s in record.steps],
        "chain": chain,
    }


def statement(record: RunRecord, chain: dict[str, Any], digest: Optional[str] = None) -> dict[str, Any]:
    """The statement of ``record`` (as written) with its chain link ``chain``: ``{"seq": n,
    "previous": {"run_id", "sha256"} of the task's record n-1 in the store, or None for n = 1}``."""
    return {"_type": STATEMENT_TYPE, "subject": subjects(record, digest), "predicateType": PREDICATE_TYPE,
            "predicate": predicate(record, chain)}


def encode(doc: dict[str, Any]) -> bytes:
    """The payload bytes: JSON with sorted keys, no spaces, UTF-8."""
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def disagreement(doc: Any, record: RunRecord) -> Optional[str]:
    """Why the decoded statement ``doc`` is not this record's (None: it is)."""
    if not isinstance(doc, dict) or doc.get("_type") != STATEMENT_TYPE:
        return "its statement is not an in-toto Statement v1"
    if doc.get("predicateType") != PREDICATE_TYPE:
        return f"its statement's predicate type is not {PREDICATE_TYPE}"
    pred = doc.get("predicate")
    if not isinstance(pred, dict):
        return "its statement has no predicate"
    digest = record.digest()
    if doc.get("subject") != subjects(record, digest):
        return "its statement's subjects are not this record's (another record's, or the record was changed)"
    if pred != predicate(record, link(doc)):
        return "its statement's predicate is not this record's"
    return None


def link(doc: Any) -> dict[str, Any]:
    """The chain link a decoded statement names: ``{"seq": int >= 1, "previous": {"run_id",
    "sha256"} or None}``; ``{"seq": 0, "previous": None}`` when it names none that is valid."""
    try:
        chain = doc["predicate"]["chain"]
        seq, previous = chain["seq"], chain["previous"]
    except (KeyError, TypeError):
        return {"seq": 0, "previous": None}
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
        return {"seq": 0, "previous": None}
    if isinstance(previous, dict) and isinstance(previous.get("run_id"), str) and isinstance(
            previous.get("sha256"), str) and len(previous) == 2:
        return {"seq": seq, "previous": {"run_id": previous["run_id"], "sha256": previous["sha256"]}}
    return {"seq": seq, "previous": None}
