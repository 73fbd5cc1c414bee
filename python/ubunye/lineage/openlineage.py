"""Stored runs as OpenLineage run events, so existing lineage servers can ingest them.

``to_openlineage_events(records)`` turns each record into one ``RunEvent``
(a plain dict, one JSON document per event). Every dataset carries the custom
facet ``ubunye_rows_v1`` with the row count, schema hash, data hash and hash
method, plus the standard ``inputStatistics`` / ``outputStatistics`` row count
when it is known. ``post_events(url, events)`` sends them with the standard
library (no client package needed).
"""
from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any, Iterable, Optional
from urllib.parse import urlsplit

from ubunye._version import __version__
from ubunye.lineage.record import RunRecord, Step
from ubunye.masking import MaskedError, mask, mask_doc

URL_ENV = "UBUNYE_OPENLINEAGE_URL"
NAMESPACE = "ubunye"
# A URI naming this package and version (no project web address is declared yet).
PRODUCER = f"urn:ubunye:{__version__}"
RUN_EVENT_SCHEMA = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
FACET_SCHEMA = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetFacet"
STATS_IN_SCHEMA = "https://openlineage.io/spec/facets/1-0-2/InputStatisticsInputDatasetFacet.json"
STATS_OUT_SCHEMA = "https://openlineage.io/spec/facets/1-0-2/OutputStatisticsOutputDatasetFacet.json"
ERROR_SCHEMA = "https://openlineage.io/spec/facets/1-0-1/ErrorMessageRunFacet.json"
ROWS_V1_FACET = "ubunye_rows_v1"

_EVENT_TYPES = {"success": "COMPLETE", "error": "FAIL", "interrupted": "ABORT", "running": "START"}


def event_type(status: str) -> str:
    """The OpenLineage eventType of a run status (``OTHER`` for unknown ones)."""
    return _EVENT_TYPES.get(status, "OTHER")


def dataset_name(location: Optional[str], fallback: str) -> tuple[str, str]:
    """(namespace, name) of a location, after the OpenLineage naming rules.

    ``s3://bucket/key`` -> (``s3://bucket``, ``key``); a local path -> (``file``,
    the path); no location -> (``ubunye``, the step name).
    """
    from ubunye.locations import local_path  # the project's one reading of a location

    if not location:
        return NAMESPACE, fallback
    local = local_path(location)  # a plain path or a file: URL (one letter is a Windows drive)
    if local is not None:
        return "file", local
    parts = urlsplit(location)
    return f"{parts.scheme}://{parts.netloc}", parts.path.lstrip("/") or parts.netloc


def _dataset(step: Step) -> dict[str, Any]:
    namespace, name = dataset_name(step.location, step.name)
    facets: dict[str, Any] = {
        ROWS_V1_FACET: {
            "_producer": PRODUCER,
            "_schemaURL": FACET_SCHEMA,
            "stepName": step.name,
            "format": step.format,
            "rowCount": step.row_count,
            "schemaHash": step.schema_hash,
            "dataHash": step.data_hash,
            "method": step.hash_method,
            "hashError": step.hash_error,
        }
    }
    dataset: dict[str, Any] = {"namespace": namespace, "name": name, "facets": facets}
    if step.row_count is not None:
        key, stats, schema = (("inputFacets", "inputStatistics", STATS_IN_SCHEMA) if step.direction == "input"
                              else ("outputFacets", "outputStatistics", STATS_OUT_SCHEMA))
        dataset[key] = {stats: {"_producer": PRODUCER, "_schemaURL": schema, "rowCount": step.row_count}}
    return dataset


def to_openlineage_event(record: RunRecord) -> dict[str, Any]:
    """One run record as one OpenLineage RunEvent."""
    run_facets: dict[str, Any] = {}
    if record.error:
        run_facets["errorMessage"] = {"_producer": PRODUCER, "_schemaURL": ERROR_SCHEMA,
                                      "message": record.error, "programmingLanguage": "python"}
    task_path = record.task_path or f"{record.usecase}/{record.package}/{record.task_name}"
    return {
        "eventType": event_type(record.status),
        "eventTime": record.ended_at or record.started_at,
        "run": {"runId": record.run_id, "facets": run_facets},
        "job": {"namespace": NAMESPACE, "name": task_path.replace("/", "."), "facets": {}},
        "inputs": [_dataset(s) for s in record.inputs],
        "outputs": [_dataset(s) for s in record.outputs],
        "producer": PRODUCER,
        "schemaURL": RUN_EVENT_SCHEMA,
    }


def stored_runs(store: Any, *, usecase: Optional[str] = None, package: Optional[str] = None,
                task: Optional[str] = None) -> list[RunRecord]:
    """Every readable run of the selected tasks of ``store``, oldest first within each task."""
    return [r for u, p, t in store.iter_tasks()
            if usecase in (None, u) and package in (None, p) and task in (None, t)
            for r in reversed(store.list_runs(u, p, t))]


def to_openlineage_events(records: Iterable[RunRecord]) -> list[dict[str, Any]]:
    """Records as RunEvents, in the order given."""
    return [to_openlineage_event(r) for r in records]


@dataclass
class PostResult:
    """How many events were sent to which URL."""

    url: str
    sent: int

    def to_dict(self) -> dict[str, Any]:
        return {"url": self.url, "sent": self.sent}


class PostError(MaskedError, RuntimeError):
    """An event the lineage server did not accept."""


def post_events(url: str, events: Iterable[dict[str, Any]], *, timeout: float = 10.0) -> PostResult:
    """POST each event as JSON to ``url``; raises :class:`PostError` naming the URL."""
    if urlsplit(url).scheme not in ("http", "https"):
        raise PostError(f"{URL_ENV}={url!r} is not an http(s) URL")
    sent = 0
    for event in events:
        body = json.dumps(mask_doc(event)).encode("utf-8")  # what leaves the process is masked
        request = urllib.request.Request(url, data=body, method="POST",
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                response.read()
        except urllib.error.HTTPError as exc:
            raise PostError(f"{url} refused run {event['run']['runId']}: HTTP {exc.code} {exc.reason}") from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise PostError(f"could not send to {url}: {reason}") from None
        sent += 1
    return PostResult(mask(url), sent)
