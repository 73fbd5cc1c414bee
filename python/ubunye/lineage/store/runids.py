"""Run ids: UUID version 4, as the run record spec (version 2) says (``new_run_id``).

Ids that sort by time, UUID version 7 (RFC 9562: 48 bits of Unix milliseconds, the version,
12 random bits, the variant, 62 random bits), are understood where a caller gives them
(``ubunye.lineage.run(run_id=...)``): for a task whose runs have such ids, an object store's
index lists only the keys from the newest run's time on (:mod:`ubunye.lineage.store.index`).
The engine does not make them: the record spec names UUID4, and records must stay loadable by
readers that check it. Ids of any other form stay valid; they are just not placed by time.
"""
from __future__ import annotations

import os
import re
import time
import uuid
from typing import Optional

_V7 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def new_run_id() -> str:
    """A fresh run id: a UUID4 string (the run record spec's form)."""
    return str(uuid.uuid4())


def uuid7(millis: Optional[int] = None, rest: Optional[int] = None) -> str:
    """A UUID7 (RFC 9562) made now, or at ``millis`` (Unix milliseconds): its text sorts by that
    time. Its other 74 bits are ``rest`` (so the same inputs give the same id: OpenLineage's run
    ids of a record), else random."""
    ms = time.time_ns() // 1_000_000 if millis is None else millis
    bits = int.from_bytes(os.urandom(10), "big") if rest is None else rest
    value = (ms & (2**48 - 1)) << 80 | 0x7 << 76 | (bits >> 62 & 0xFFF) << 64 | 0b10 << 62 | bits & (2**62 - 1)
    return str(uuid.UUID(int=value))


def millis_of(run_id: str) -> Optional[int]:
    """The Unix milliseconds a UUID7 run id was made at; None for any other id."""
    if not _V7.match(run_id):
        return None
    return int(run_id[:8] + run_id[9:13], 16)


def id_floor(millis: int) -> str:
    """A text that sorts before every UUID7 id made at or after ``millis`` and after every
    one made before it."""
    text = f"{max(millis, 0):012x}"
    return f"{text[:8]}-{text[8:]}"
