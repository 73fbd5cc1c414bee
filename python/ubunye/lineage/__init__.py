"""Run records: the record model, the store, the recorder and the direct API.

Imported lazily so that ``ubunye lineage list`` starts without pandas, pyarrow
or pyspark:

- :func:`run` / :class:`LineageRun`: record a job that does not use the task engine.
- :class:`LineageRecorder`: the monitor every entry point uses.
- :class:`FileStore`, :func:`open_store`: where records live.
- :class:`RunRecord`, :class:`Step`, :class:`RunContext`, :class:`DataEvent`: the data.
- :func:`view`: the records as a notebook view (the lineage report's graph and tables).
- errors: :class:`LineageError` and its subclasses.
"""
from __future__ import annotations

from ubunye._lazy import lazy_getattr

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ubunye.lineage.api import LineageRun, run
    from ubunye.lineage.context import DataEvent, RunContext
    from ubunye.lineage.errors import (
        AmbiguousRunId,
        InvalidName,
        LineageError,
        RecordNotFound,
        RecordWriteError,
        UnreadableRecord,
    )
    from ubunye.lineage.record import RunRecord, Step
    from ubunye.lineage.recorder import LineageRecorder
    from ubunye.lineage.store import FileStore, open_store
    from ubunye.lineage.view import ReportView, view

_LAZY = {
    "run": "ubunye.lineage.api",
    "LineageRun": "ubunye.lineage.api",
    "LineageRecorder": "ubunye.lineage.recorder",
    "FileStore": "ubunye.lineage.store",
    "open_store": "ubunye.lineage.store",
    "RunRecord": "ubunye.lineage.record",
    "Step": "ubunye.lineage.record",
    "RunContext": "ubunye.lineage.context",
    "DataEvent": "ubunye.lineage.context",
    "LineageError": "ubunye.lineage.errors",
    "RecordNotFound": "ubunye.lineage.errors",
    "AmbiguousRunId": "ubunye.lineage.errors",
    "UnreadableRecord": "ubunye.lineage.errors",
    "InvalidName": "ubunye.lineage.errors",
    "RecordWriteError": "ubunye.lineage.errors",
    "view": "ubunye.lineage.view",
    "ReportView": "ubunye.lineage.view",
}

__all__ = sorted(_LAZY)


__getattr__ = lazy_getattr(__name__, globals(), _LAZY)
