"""Where run records live: a record store over a byte backend chosen by the store's URL.

- :mod:`.blobs`: the byte interface (create-only put, get, list), the scheme table
  :func:`open_blobs` that backends join (:func:`~.blobs.register`) and the one default folder
  :data:`DEFAULT_STORE`;
- :mod:`.posix`: local folders and ``/Volumes`` mounts; :mod:`.objects`: S3, GCS and
  Azure through obstore (the optional extra ``ubunye[stores]``); :mod:`.filesapi`: the
  Databricks Files API;
- :mod:`.layout`: the store's folder names and the one order of runs;
- :mod:`.records`: the record logic, written once above the backends (it imports the
  built-in ones, so that any store URL opens).
"""
from __future__ import annotations

from pathlib import Path

from ubunye._names import validate_name  # the one name check, shared with the engine (re-exported)
from ubunye.lineage.store.blobs import (
    DEFAULT_STORE,
    AlreadyExists,
    BlobError,
    BlobInfo,
    Blobs,
    BlobNotFound,
    is_url,
    join,
    open_blobs,
)
from ubunye.lineage.store.layout import CLOCK_SLACK, STARTED, SUFFIX, run_order, stores_around
from ubunye.lineage.store.records import (
    FileStore,
    LatestUnknown,
    RecordStore,
    UnreadableRecordWarning,
    open_store,
)

DEFAULT_LINEAGE_DIR = Path(DEFAULT_STORE)

__all__ = [
    "AlreadyExists", "BlobError", "BlobInfo", "BlobNotFound", "Blobs", "CLOCK_SLACK", "DEFAULT_LINEAGE_DIR",
    "DEFAULT_STORE", "FileStore", "LatestUnknown", "RecordStore", "STARTED", "SUFFIX", "UnreadableRecordWarning",
    "is_url", "join", "open_blobs", "open_store", "run_order", "stores_around", "validate_name",
]
