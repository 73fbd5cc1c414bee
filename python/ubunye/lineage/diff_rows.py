"""``lineage diff --rows``: the decoded changed rows, read from each run's data where it
still lies.

The records name the changed rows by the first 32 hex digits of their digests
(:mod:`ubunye.lineage.localise`). This module reads each side's data once (the recorded
location; a Delta table at the recorded version), hashes every row as rows-v1 does and
keeps only the rows whose lanes were decoded: no join, no shuffle, memory proportional
to the changed rows. The same pass sums every row's lanes, so it also checks that the
data read still is the run's data (its data hash equals the recorded one); when it is not,
or the data cannot be read, the side says so in one line and shows no row.

``--key``: removed and added rows with equal values in the key columns are paired into
updates naming the columns whose values changed.
"""
from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Optional, Sequence

from ubunye.lineage.localise import RunDiff, StepChange
from ubunye.lineage.record import RunRecord, Step

Lanes = tuple[int, int]


@dataclass
class Scan:
    """One pass over a side's rows: the rows whose lanes were asked for (their canonical
    lines) and the data hash of all rows read."""

    data_hash: Optional[str]
    lines: list[tuple[Lanes, str]] = field(default_factory=list)


@dataclass
class Row:
    """A changed row shown by ``--rows``: ``sign`` is ``-`` (only in run A) or ``+``."""

    sign: str
    direction: str
    name: str
    digest: str  # sha256:<64 hex> of the canonical line
    row: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"direction": self.direction, "name": self.name, "digest": self.digest, "row": self.row}

    def line(self) -> str:
        return f"{self.sign} {json.dumps(self.to_dict(), ensure_ascii=False, separators=(',', ':'))}"


@dataclass
class Update:
    """A removed and an added row with the same key (``--key``)."""

    direction: str
    name: str
    key: dict[str, Any]
    changed: list[str]
    before: Row
    after: Row

    def to_dict(self) -> dict[str, Any]:
        return {"direction": self.direction, "name": self.name, "key": self.key, "changed": self.changed,
                "before": self.before.row, "after": self.after.row,
                "digests": [self.before.digest, self.after.digest]}

    def line(self) -> str:
        return f"~ {json.dumps(self.to_dict(), ensure_ascii=False, separators=(',', ':'))}"


@dataclass
class RowsResult:
    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # one line per side whose data is gone
    updates: list[Update] = field(default_factory=list)


Scanner = Callable[[RunRecord, Step, set[Lanes]], Scan]


def lanes_of(name: str) -> Lanes:
    """The lanes of a decoded row name ``sha256:<32 hex>``."""
    hexd = name.split(":", 1)[1]
    return int(hexd[:16], 16), int(hexd[16:32], 16)


def scan_batches(batches: Iterable[Any], wanted: set[Lanes]) -> Scan:
    """Hash every row of Arrow ``batches``; keep the lines of the rows in ``wanted``."""
    from ubunye.hashing.digest import data_hash
    from ubunye.hashing.row_match import match_lanes

    kinds, sums, found = match_lanes(batches, wanted)
    return Scan(None if kinds is None else data_hash(kinds, sums), found)


def pandas_scan(record: RunRecord, step: Step, wanted: set[Lanes]) -> Scan:
    """Read a step's files with ubunye's Spark-compatible readers (the input's recorded
    reader settings; an output as its format's defaults) and scan them."""
    from ubunye.io import read_arrow
    from ubunye.locations import local_path

    path = local_path(step.location or "")
    if path is None:
        raise DataGone(f"{step.location!r} is not a local path (read it with the Spark backend)")
    check_present(step)
    options = dict(step.options or {}) if step.direction == "input" else (
        {"header": "true"} if step.format == "csv" else {})
    table = read_arrow(path, step.format, options=options, schema=step.schema)
    return scan_batches(table.to_batches(), wanted)


class DataGone(Exception):
    """A side's data cannot be read (one-line message)."""


def check_present(step: Step) -> None:
    """:class:`DataGone` when a step's local path no longer exists (paths elsewhere and
    tables are left to the reader)."""
    from pathlib import Path

    from ubunye.locations import local_path

    path = local_path(step.location or "") if step.format != "table" else None
    if path is not None and not Path(path).exists():
        raise DataGone(f"{step.location} no longer exists")


def _sides(change: StepChange) -> list[tuple[str, str, list[str]]]:
    where = change.where
    assert where is not None
    return [("-", "run A", where.removed), ("+", "run B", where.added)]


def _step(record: RunRecord, change: StepChange) -> Step:
    steps = record.inputs if change.direction == "input" else record.outputs
    return next(s for s in steps if s.name == change.name)


def find_rows(diff: RunDiff, a: RunRecord, b: RunRecord, scanner: Optional[Scanner] = None,
              key: Optional[Sequence[str]] = None) -> RowsResult:
    """The decoded changed rows of every step of ``diff``, read from each run's data."""
    from ubunye.masking import current

    scan = scanner or pandas_scan
    out = RowsResult()
    for change in diff.steps:
        if change.where is None or not change.where.complete:
            if not change.proven_same:  # nothing decoded to look for (or a hash unknown): said, not passed over
                why = change.where.summary if change.where is not None else (change.reason or "rows not named")
                out.notes.append(f"{change.direction} {change.name!r}: no row to read ({current().text(why)})")
            continue
        found: list[Row] = []
        for (sign, label, names), record in zip(_sides(change), (a, b)):
            if not names:
                continue
            step = _step(record, change)
            wanted = Counter(lanes_of(n) for n in names)
            what = f"{change.direction} {change.name!r}: {label}'s data"
            try:
                got = scan(record, step, set(wanted))
            except DataGone as exc:
                out.notes.append(f"{what} is gone: {current().text(str(exc))}")
                continue
            except Exception as exc:  # noqa: BLE001 - unreadable: said in one line, the other side goes on
                out.notes.append(f"{what} cannot be read: {current().error(exc)}")
                continue
            if got.data_hash != step.data_hash:
                out.notes.append(f"{what} is gone: {step.location} no longer holds the rows the run hashed "
                                 f"(their data hash differs)")
                continue
            for lanes, line in sorted(got.lines, key=lambda x: x[1]):
                if wanted[lanes] > 0:
                    wanted[lanes] -= 1
                    digest = "sha256:" + hashlib.sha256(line.encode("utf-8")).hexdigest()
                    found.append(Row(sign, change.direction, change.name, digest, json.loads(line)))
        if key:
            missing = [repr(k) for k in key if found and not any(k in r.row for r in found)]
            if missing:  # a mistyped key pairs nothing: said, not passed over
                out.notes.append(f"{change.direction} {change.name!r}: no column {', '.join(missing)} in its rows "
                                 f"(--key): no row paired")
            found, updates = pair_updates(found, key)
            out.updates += updates
        out.rows += found
    return out


def pair_updates(rows: list[Row], key: Sequence[str]) -> tuple[list[Row], list[Update]]:
    """Pair each removed row with an added row of the same key values (in order); the rest
    stay as they are. A key column missing from a row leaves the row unpaired."""
    def key_of(row: Row) -> Optional[str]:
        if any(k not in row.row for k in key):
            return None
        return json.dumps([row.row[k] for k in key], sort_keys=True)

    added: dict[str, list[Row]] = {}
    for r in rows:
        k = key_of(r)
        if r.sign == "+" and k is not None:
            added.setdefault(k, []).append(r)
    updates, paired = [], set()
    for r in rows:
        k = key_of(r)
        if r.sign != "-" or k is None or not added.get(k):
            continue
        after = added[k].pop(0)
        paired.update((id(r), id(after)))
        names = sorted(r.row.keys() | after.row.keys())
        changed = [c for c in names if r.row.get(c, None) != after.row.get(c, None) or (c in r.row) != (c in after.row)]
        updates.append(Update(r.direction, r.name, {c: r.row[c] for c in key}, changed, r, after))
    return [r for r in rows if id(r) not in paired], updates


def scanner_for(a: RunRecord, b: RunRecord, diff: RunDiff) -> Scanner:
    """The pandas readers, unless a run was on Spark or a changed step is a Delta table:
    then a Spark pass (:mod:`ubunye.spark.diff_scan`) for those runs."""
    def spark_needed(record: RunRecord, step: Step) -> bool:
        return record.backend == "spark" or step.format == "delta"

    # one session for both runs: with Delta's jars when a step of either run is Delta
    delta = any(s.format == "delta" for r in (a, b) for s in r.steps)

    def scan(record: RunRecord, step: Step, wanted: set[Lanes]) -> Scan:
        if spark_needed(record, step):
            from ubunye.spark.diff_scan import session, spark_scan

            check_present(step)
            data_hash, found = spark_scan(step.format, step.location, step.direction == "input",
                                          step.options, step.schema, step.delta_version, wanted,
                                          spark=session(delta))
            return Scan(data_hash, found)
        return pandas_scan(record, step, wanted)

    return scan
