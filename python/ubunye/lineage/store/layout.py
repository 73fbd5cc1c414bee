"""The store's layout and the one order of runs, below the records, the index and the backends.

- :data:`SUFFIX`: a record object's name ends with it; :data:`STARTED`: the folder of a task's
  ``running`` records;
- :func:`run_order`: start time, then run id; :data:`CLOCK_SLACK`: how far a file's modification
  time may lag a run's start;
- :func:`stores_around`: the local stores a path lies in (writers stay out of them).
"""
from __future__ import annotations

import os
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Union

from ubunye._names import INDEX_DIR
from ubunye.lineage.record import RunRecord, parse_moment
from ubunye.lineage.store.blobs import DEFAULT_STORE

SUFFIX = ".json"
STARTED = "_started"
OLDEST = datetime.min.replace(tzinfo=timezone.utc)
# How much earlier than a run's start its file's modification time may read (coarse
# file-system clocks, a file server's clock): a damaged file written up to this long
# before a run started may still be newer than it.
CLOCK_SLACK = timedelta(seconds=2)


def started(record: RunRecord) -> datetime:
    """A run's start; the oldest time for a missing or wrongly typed one."""
    return parse_moment(record.started_at) or OLDEST


def run_order(record: RunRecord) -> tuple[datetime, str]:
    """The one order of runs: start time, then run id (two runs started at one instant
    still have one order, so neither is the other's run before)."""
    return started(record), record.run_id


def stores_around(path: Union[str, Path]) -> list[Path]:
    """The local record stores ``path`` lies in, for a writer that must stay out of them: each
    ancestor of its real location that is a default store folder (``<usecase>/.ubunye/lineage``),
    holds a store's index (``.index/records.sqlite3``, :mod:`.index`), or is a store's task folder
    (it holds ``_started/``: the store is three folders up)."""
    real = Path(os.path.realpath(path))
    tail = Path(DEFAULT_STORE).parts
    found = []
    for folder in (real, *real.parents):
        if folder.parts[-len(tail):] == tail or (folder / INDEX_DIR / "records.sqlite3").is_file():
            found.append(folder)
        elif (folder / STARTED).is_dir() and len(folder.parents) >= 3:
            found.append(folder.parents[2])
    return found
