"""Run ids: UUID version 4, as the run record spec (version 2) says (``new_run_id``).

UUID version 7 (RFC 9562: 48 bits of Unix milliseconds, the version, 12 random bits, the
variant, 62 random bits) is made for pipeline run ids (``uuid7``). An object store's index
does not rely on run ids sorting by time: each record is written with a time-ordered marker
(:func:`ubunye.lineage.store.index.marker_key`). Ids of any form stay valid.
"""
from __future__ import annotations

import os
import time
import uuid
from typing import Optional


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
