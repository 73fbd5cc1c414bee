"""Every record of a task or a store checked for its signature and its chain
(``ubunye lineage verify --signatures --chain``).

A record is ``signed`` when its envelope is signed by a trusted key (the ``--key`` files given,
else the policy's), its statement is this record's and its chain link holds; else it is
``unsigned`` (no envelope: records of earlier versions, other writers, a start record) or
``not proven`` (a reason). Without a trusted key nothing is proven: the signatures are checked
against the keys the store publishes, which anyone who can write to the store can add.
"""
from __future__ import annotations

import sqlite3
import warnings
from dataclasses import dataclass, field
from typing import Any, Optional

from ubunye.lineage.attestation import chain as chain_
from ubunye.lineage.attestation.envelopes import checked_statement, link_problem
from ubunye.lineage.attestation.keys import Ed25519Verifier
from ubunye.lineage.attestation.policy import load_policy
from ubunye.lineage.attestation.statement import link
from ubunye.lineage.record import RunRecord

SIGNED, UNSIGNED, NOT_PROVEN = "signed", "unsigned", "not proven"


@dataclass
class RecordCheck:
    task: str
    run_id: str
    verdict: str
    reason: Optional[str] = None

    def to_dict(self) -> dict[str, Any]:
        return {"task": self.task, "run_id": self.run_id, "verdict": self.verdict, "reason": self.reason}


@dataclass
class Audit:
    pinned: bool  # the keys were given or named by a policy (else: the store's own, proving nothing)
    records: list[RecordCheck] = field(default_factory=list)
    chains: list[chain_.ChainReport] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    @property
    def problems(self) -> list[str]:
        out = [] if self.pinned else ["no trusted key: give --key or write a store policy (`ubunye lineage "
                                      "policy`); the store's own keys prove nothing"]
        out += [f"{c.task} run {c.run_id}: {c.verdict}" + (f" ({c.reason})" if c.reason else "")
                for c in self.records if c.verdict != SIGNED]
        out += [f"{r.task}: chain broken at {b}" for r in self.chains for b in r.breaks]
        out += [f"skipped unreadable record: {s}" for s in self.skipped]
        return out

    @property
    def proven(self) -> bool:
        return not self.problems and bool(self.records or any(c.length for c in self.chains))

    def to_dict(self) -> dict[str, Any]:
        return {"proven": self.proven, "pinned": self.pinned, "problems": self.problems,
                "records": [c.to_dict() for c in self.records], "chains": [c.to_dict() for c in self.chains]}


def audit(store: Any, tasks: list[tuple[str, str, str]], *, keys: Optional[list[Ed25519Verifier]] = None,
          signatures: bool = True, chain: bool = True) -> Audit:
    """Check every record of ``tasks`` in ``store``."""
    policy = load_policy(store)
    trusted = keys if keys else (list(policy.verifiers) if policy and policy.verifiers else None)
    result = Audit(pinned=trusted is not None)
    for usecase, package, task in tasks:
        name = f"{usecase}/{package}/{task}"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            runs = store.list_runs(usecase, package, task)
        result.skipped += [str(w.message) for w in caught if "skipping" in str(w.message)]
        signed = []
        for record in sorted(runs, key=lambda r: r.run_id):
            check, doc = _check(store, record, trusted)
            if signatures:
                result.records.append(check)
            if doc is not None:
                signed.append((record.run_id, record.digest(), record.ended_at, link(doc)))
        if chain:
            report = chain_.walk(name, store.blobs, name, signed)
            _remembered(store, report, signed)
            result.chains.append(report)
    return result


def _check(store: Any, record: RunRecord, trusted: Optional[list[Ed25519Verifier]]
           ) -> tuple[RecordCheck, Optional[dict[str, Any]]]:
    task = f"{record.usecase}/{record.package}/{record.task_name}"
    if record.status == "running":
        return RecordCheck(task, record.run_id, UNSIGNED, "a start record (only final records are signed)"), None
    doc, why = checked_statement(store.blobs, record, trusted)
    if doc is None:
        verdict = UNSIGNED if why and why.startswith("it is unsigned") else NOT_PROVEN
        return RecordCheck(task, record.run_id, verdict, why), None
    problem = link_problem(store, record, doc)
    if problem:
        return RecordCheck(task, record.run_id, NOT_PROVEN, problem), doc
    return RecordCheck(task, record.run_id, SIGNED), doc


def _remembered(store: Any, report: chain_.ChainReport, signed: list[tuple[str, str, Optional[str], dict[str, Any]]]
                ) -> None:
    """Hold ``report`` against the longest chain the store's index saw hold (a chain cut short at
    its end is a break too), and remember it when it holds."""
    index = getattr(store, "index", None)
    if index is None:
        return
    try:
        seen = index.chain_seen(report.task)
        by_seq = {entry[3]["seq"]: entry for entry in signed}
        if seen is not None:
            length, run_id, digest, _ = seen
            there = by_seq.get(length)
            if length > report.length or there is None or (there[0], there[1]) != (run_id, digest):
                report.breaks.append(f"place {length}: run {run_id}, seen there by this index, is gone or "
                                     f"changed (the chain now has {report.length} place(s))")
        if not report.breaks and report.length and report.length in by_seq:
            head = by_seq[report.length]
            index.chain_saw(report.task, report.length, head[0], head[1])
    except (sqlite3.Error, OSError):
        report.breaks.append("the index that remembers the chain cannot be read")
