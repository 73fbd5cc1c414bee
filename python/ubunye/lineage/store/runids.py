"""Run ids that sort by time: UUID version 7 (RFC 9562).

The first 48 bits are the Unix time in milliseconds, then the version, 12 random bits, the
variant and 62 random bits. Their text (lower-case hex with dashes) sorts by the millisecond
the id was made, so an object store can list a task's newer records from a key on
(:mod:`ubunye.lineage.store.index`). Ids of other forms (given by a caller, or UUID4 ids of
earlier versions) stay valid; they are just not placed by time.
"""
from __future__ import annotations

import os
import re
import time
import uuid
from typing import Optional

_V7 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def new_run_id(millis: Optional[int] = None) -> str:
    """A fresh run id (UUID7) made now, or at ``millis`` (Unix milliseconds)."""
    ms = time.time_ns() // 1_000_000 if millis is None else millis
    rand = int.from_bytes(os.urandom(10), "big")
    value = (ms & (2**48 - 1)) << 80 | 0x7 << 76 | (rand >> 62 & 0xFFF) << 64 | 0b10 << 62 | rand & (2**62 - 1)
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
