"""The chain of a task's signed records in one store.

Each signed record claims the next place of its task's chain before it is written (the top
place found by doubling then bisecting: no listing, whatever the chain's length): a
create-only object ``<task>/_signed/<seq, 12 digits>`` holding the record's DSSE envelope itself,
whose signed statement names its place and the record before it (``{"seq": n, "previous":
{"run_id", "sha256"} of place n-1, or null for n = 1}``). The same bytes are then created at
``<task>/_signed/<run_id>.dsse.json`` (a local folder: a second link to the one synced file).
Two writers claiming one place: exactly one create wins, the other signs for the next place.

:func:`walk` checks a task's chain from its signed statements: places 1..N each held once, each
link naming the record of the place before with its digest, start times never going back, and
every claimed place's record present. A deleted, replaced, back-dated or copied record breaks it.
"""
from __future__ import annotations

import json
from datetime import timedelta
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from ubunye.lineage.attestation import dsse
from ubunye.lineage.store.blobs import AlreadyExists, BlobNotFound, Blobs, SecondExists, put_new_twice
from ubunye.lineage.record import parse_moment

CHAIN = "_signed"  # (the envelopes' folder: a place and its run's envelope are one file)
WIDTH = 12
TRIES = 64
# How far a record's end may read before its predecessor's (writers' clocks, runs ending at once)
# before it counts as back-dated.
SKEW = timedelta(minutes=10)


def place_key(task_key: str, seq: int) -> str:
    return f"{task_key}/{CHAIN}/{seq:0{WIDTH}d}"


def _places(blobs: Blobs, task_key: str) -> list[int]:
    try:
        infos = blobs.listdir(f"{task_key}/{CHAIN}")[0]
    except FileNotFoundError:
        return []
    # ASCII digits only: str.isdigit() takes '²' (int() then fails) and '١' (another place's number)
    return sorted(int(b.name) for b in infos if len(b.name) == WIDTH and b.name.isascii() and b.name.isdigit())


def read_place(blobs: Blobs, task_key: str, seq: int) -> Optional[dict[str, str]]:
    """Whose record place ``seq`` holds (``{"run_id", "sha256"}`` as its envelope's statement names
    them, not verified), or None when absent or damaged."""
    try:
        doc = json.loads(dsse.parse(blobs.get(place_key(task_key, seq))).payload.decode("utf-8"))
        run_id, digest = doc["predicate"]["record"]["run_id"], doc["subject"][0]["digest"]["sha256"]
    except (OSError, ValueError, RecursionError, LookupError, TypeError):
        return None
    if isinstance(run_id, str) and isinstance(digest, str):
        return {"run_id": run_id, "sha256": digest}
    return None


def _held(blobs: Blobs, task_key: str, seq: int) -> bool:
    head = getattr(blobs, "head", None)  # an object store: a HEAD request, no body
    if head is not None:
        return head(place_key(task_key, seq)) is not None
    try:
        blobs.get(place_key(task_key, seq))
    except BlobNotFound:
        return False
    return True


def _top(blobs: Blobs, task_key: str) -> int:
    """The highest place claimed, found with about 2 log2(n) reads of small objects (places are
    claimed in order, never removed; a gap someone made is stepped over by :func:`claim`)."""
    if not _held(blobs, task_key, 1):
        return 0
    low = 1
    while _held(blobs, task_key, low * 2):
        low *= 2
    high = low * 2  # held(low), not held(high)
    while high - low > 1:
        middle = (low + high) // 2
        if _held(blobs, task_key, middle):
            low = middle
        else:
            high = middle
    return low


def claim(blobs: Blobs, task_key: str, envelope_key: str, seal: Callable[[dict[str, Any]], bytes]
          ) -> dict[str, Any]:
    """Take the next place of the task's chain for a record: ``seal(link)`` is its envelope for the
    chain link ``link``, created at the place and at ``envelope_key`` (:class:`SecondExists` when
    that one is already there); returns the link."""
    seq = _top(blobs, task_key) + 1
    for attempt in range(2 * TRIES):
        if attempt == TRIES:  # many places taken above the top found (a gap below them): list them
            places = _places(blobs, task_key)
            seq = (places[-1] if places else 0) + 1
        chained = {"seq": seq, "previous": read_place(blobs, task_key, seq - 1) if seq > 1 else None}
        try:
            put_new_twice(blobs, place_key(task_key, seq), envelope_key, seal(chained))
        except SecondExists:
            raise
        except AlreadyExists:
            seq += 1
            continue
        return chained
    raise AlreadyExists(f"{task_key}/{CHAIN}: no free place after {2 * TRIES} tries")


@dataclass
class ChainReport:
    """Where a task's chain breaks (``breaks`` empty: it holds)."""

    task: str
    length: int = 0
    breaks: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"task": self.task, "length": self.length, "holds": not self.breaks, "breaks": list(self.breaks)}


def walk(task: str, blobs: Blobs, task_key: str, signed: list[tuple[str, str, Optional[str], dict[str, Any]]]
         ) -> ChainReport:
    """Check a task's chain. ``signed``: per record whose signature and statement verified,
    ``(run_id, digest, ended_at, link)``."""
    report = ChainReport(task)
    by_seq: dict[int, tuple[str, str, Optional[str], dict[str, Any]]] = {}
    for entry in signed:
        seq = entry[3]["seq"]
        if seq < 1:
            report.breaks.append(f"run {entry[0]} names no place in the chain")
        elif seq in by_seq:
            report.breaks.append(f"place {seq} is claimed by runs {by_seq[seq][0]} and {entry[0]}")
        else:
            by_seq[seq] = entry
    places = set(_places(blobs, task_key))
    top = max([*by_seq, *places], default=0)
    report.length = top
    expected = 1  # one line per run of places with nothing at all (a planted far place cannot make a long walk)
    for seq in sorted(places | set(by_seq)):
        if seq > expected:
            report.breaks.append(f"places {expected} to {seq - 1}: neither a chain place nor a signed record")
        expected = seq + 1
    for seq in sorted(places - set(by_seq)):
        held = read_place(blobs, task_key, seq)
        who = f"run {held['run_id']}" if held else "a run"
        report.breaks.append(f"place {seq}: the signed record of {who} is missing (deleted, replaced, "
                             "unsigned, or never written)")
    for seq in sorted(by_seq):
        run_id, _, ended, link = by_seq[seq]
        previous = link["previous"]
        if seq == 1:
            if previous is not None:
                report.breaks.append(f"place 1 (run {run_id}) names a record before it")
            continue
        before = by_seq.get(seq - 1)
        if previous is None:
            report.breaks.append(f"place {seq} (run {run_id}) names no record before it")
        elif before is not None and (previous["run_id"], previous["sha256"]) != (before[0], before[1]):
            report.breaks.append(f"place {seq} (run {run_id}) names run {previous['run_id']} before it, "
                                 f"but place {seq - 1} holds run {before[0]} (or another digest)")
        elif before is not None and _back(ended, before[2]):
            report.breaks.append(f"place {seq} (run {run_id}) ended before run {before[0]} of place "
                                 f"{seq - 1} (by more than {SKEW}): it is back-dated")
    return report


def _back(ended: Optional[str], before: Optional[str]) -> bool:
    a, b = parse_moment(ended), parse_moment(before)
    return a is None or (b is not None and a < b - SKEW)
