"""Stored runs as OpenLineage run events, so existing lineage servers can ingest them.

``to_openlineage_events(records, base=usecase_dir)`` turns each record into the events
the run would have sent live: a ``START`` at ``started_at`` and, once the run ended, its
end event (``COMPLETE``, ``FAIL`` or ``ABORT``) at ``ended_at``, both with one run id.

The run id is a UUIDv7 derived from the record, so an export is the same each time:
its 48-bit millisecond timestamp is ``started_at`` (0 when unknown) and its other
74 bits are the first bits of ``sha256(record.run_id)``, with the version (7) and
variant (RFC 9562) bits set (:func:`ol_run_id`).

Datasets are named by the OpenLineage naming spec (:func:`dataset_name`): ``file`` and an
absolute path (a relative one made absolute against ``base``), ``s3://bucket``,
``gs://bucket``, ``abfss://container@account.dfs.core.windows.net``, ``hdfs://host:port``,
``dbfs``. Facets: ``inputStatistics``/``outputStatistics`` (row count), ``dataSource``,
``version`` (``datasetVersion``) for Delta, ``dataQualityAssertions`` for the expectations
checked on an input, the run facets ``test`` (every expectation, with its severity),
``processing_engine`` and, on failure, ``errorMessage``; every dataset carries the custom
facet ``ubunye_rows_v1`` (row count, schema hash, data hash, hash method, engine and pass),
whose JSON schema is ``docs/spec/openlineage/UbunyeRowsV1DatasetFacet.json``; ``schema``
from the step's columns when the record has them; the run facet ``parent`` (the pipeline's
run id and job ``usecase.package``) for a task run by ``run_pipeline`` or ``ubunye run`` of
several tasks. Every event passes the project's masking path. ``post_events(url, events)`` sends them with the standard library.
"""
from __future__ import annotations

import base64
import hashlib
import http.client
import json
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Iterable, Optional
from urllib.parse import urlsplit

from ubunye._version import __version__
from ubunye.lineage.context import uuid7
from ubunye.lineage.record import RunRecord, Step, parse_moment
from ubunye.masking import MaskedError, mask, mask_doc, process

URL_ENV = "UBUNYE_OPENLINEAGE_URL"
NAMESPACE = "ubunye"
# A URI naming this package and version (no project web address is declared yet).
PRODUCER = f"urn:ubunye:{__version__}"
_SPEC = "https://openlineage.io/spec"
RUN_EVENT_SCHEMA = f"{_SPEC}/2-0-2/OpenLineage.json#/$defs/RunEvent"
# each standard facet's _schemaURL, as the official client's generated models state them
FACET_SCHEMAS = {
    "inputStatistics": f"{_SPEC}/facets/1-0-0/InputStatisticsInputDatasetFacet.json#/$defs/InputStatisticsInputDatasetFacet",
    "outputStatistics": f"{_SPEC}/facets/1-0-2/OutputStatisticsOutputDatasetFacet.json#/$defs/OutputStatisticsOutputDatasetFacet",
    "errorMessage": f"{_SPEC}/facets/1-0-1/ErrorMessageRunFacet.json#/$defs/ErrorMessageRunFacet",
    "dataSource": f"{_SPEC}/facets/1-0-1/DatasourceDatasetFacet.json#/$defs/DatasourceDatasetFacet",
    "version": f"{_SPEC}/facets/1-0-1/DatasetVersionDatasetFacet.json#/$defs/DatasetVersionDatasetFacet",
    "dataQualityAssertions": f"{_SPEC}/facets/1-1-0/DataQualityAssertionsDatasetFacet.json#/$defs/DataQualityAssertionsDatasetFacet",
    "test": f"{_SPEC}/facets/1-0-1/TestRunFacet.json#/$defs/TestRunFacet",
    "processing_engine": f"{_SPEC}/facets/1-1-1/ProcessingEngineRunFacet.json#/$defs/ProcessingEngineRunFacet",
    "parent": f"{_SPEC}/facets/1-2-0/ParentRunFacet.json#/$defs/ParentRunFacet",
    "schema": f"{_SPEC}/facets/1-2-0/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet",
}
ROWS_V1_FACET = "ubunye_rows_v1"
# The facet's own schema, kept in the repository at ROWS_V1_SCHEMA_FILE. No web address is
# declared for the project yet, so its _schemaURL is a URN naming that file (the tests resolve it).
ROWS_V1_SCHEMA_FILE = "docs/spec/openlineage/UbunyeRowsV1DatasetFacet.json"
ROWS_V1_SCHEMA = f"urn:ubunye:spec:{ROWS_V1_SCHEMA_FILE}#/$defs/UbunyeRowsV1DatasetFacet"

_EVENT_TYPES = {"success": "COMPLETE", "error": "FAIL", "interrupted": "ABORT", "running": "START"}
# expectation severity -> OpenLineage's ("error" blocks the pipeline, "warn" only warns)
_SEVERITY = {"fail": "error", "warn": "warn", "quarantine": "warn"}
_HIVE_CATALOGS = ("spark_catalog", "hive_metastore")
_SCHEME_ALIASES = {"s3a": "s3", "s3n": "s3", "gcs": "gs", "abfs": "abfss", "wasb": "wasbs"}


def event_type(status: str) -> str:
    """The OpenLineage eventType of a run status (``OTHER`` for unknown ones)."""
    return _EVENT_TYPES.get(status, "OTHER")


def ol_run_id(record: RunRecord) -> str:
    """The record's OpenLineage run id: a UUIDv7, the same for each export of the record."""
    started = parse_moment(record.started_at)
    millis = 0 if started is None else int(started.timestamp() * 1000)
    rest = int.from_bytes(hashlib.sha256(record.run_id.encode("utf-8")).digest()[:10], "big") >> 6  # 74 bits
    return uuid7(millis, rest)


def _facet(facet: str, /, **fields: Any) -> dict[str, Any]:
    return {"_producer": PRODUCER, "_schemaURL": FACET_SCHEMAS[facet], **fields}


def dataset_name(location: Optional[str], fallback: str, *, base: Optional[Path] = None,
                 format: Optional[str] = None, hive_metastore: Optional[str] = None,
                 databricks_workspace: Optional[str] = None) -> tuple[str, str]:
    """(namespace, name) of a location, after the OpenLineage naming spec.

    ``s3://bucket/key`` -> (``s3://bucket``, ``key``); a local path -> (``file``, its absolute
    path, a relative one taken against ``base``); ``dbfs:/x`` -> (``dbfs``, ``/x``); a catalog
    table (``format`` ``table``) by :func:`table_name`; no location -> (``ubunye``, the step name).
    """
    from ubunye.locations import authority_and_path, local_path, parse  # the project's one reading of a location

    if not location:
        return NAMESPACE, fallback
    if format == "table":
        return table_name(location, hive_metastore=hive_metastore, databricks_workspace=databricks_workspace)
    if local_path(location) is not None:  # a plain path or a file: URL, absolute against base
        return "file", parse(location, base=base or Path.cwd()).path
    scheme, _, rest = location.partition(":")
    scheme = _SCHEME_ALIASES.get(scheme.lower(), scheme.lower())
    rest = rest[2:] if rest.startswith("//") else rest
    if scheme in ("abfss", "wasbs"):  # container@account is the authority, not user information
        host, _, path = rest.split("?", 1)[0].partition("/")
    else:  # user information (a password may hold "/" or "@") never reaches a name
        host, path = authority_and_path(rest)
    if scheme == "dbfs":
        return "dbfs", "/" + (host + "/" + path.lstrip("/")).strip("/")
    return f"{scheme}://{host}", path.lstrip("/") or "/"


def table_name(table: str, *, hive_metastore: Optional[str] = None,
               databricks_workspace: Optional[str] = None) -> tuple[str, str]:
    """(namespace, name) of a catalog table (case ignored, back quotes dropped, as Spark resolves it).

    A table of the Hive metastore (``db.t``; ``t`` is ``default.t``; ``spark_catalog.db.t`` and
    Databricks' ``hive_metastore.db.t``) -> (``hive://<metastore host:port>``, ``db.t``); a
    Unity Catalog table (``catalog.schema.t``, any other catalog) -> (``databricks://<workspace
    host>``, ``catalog.schema.t``). Without the metastore or workspace the namespace is the
    scheme alone (``hive``, ``databricks``).
    """
    parts = [p.strip().strip("`").lower() for p in table.split(".")]
    if len(parts) == 3 and parts[0] not in _HIVE_CATALOGS:
        return (f"databricks://{databricks_workspace}" if databricks_workspace else "databricks"), ".".join(parts)
    parts = (["default"] + parts)[-2:]
    return (f"hive://{hive_metastore}" if hive_metastore else "hive"), ".".join(parts)


def _assertions(step: Step, expectations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for e in expectations:
        if e.get("output") == step.name and e.get("side", "output") == step.direction:
            item = {"assertion": str(e.get("kind") or e.get("rule")), "success": bool(e.get("passed")),
                    "name": str(e.get("rule") or e.get("kind")),
                    "severity": _SEVERITY.get(str(e.get("severity")), "error")}
            if e.get("column"):
                item["column"] = str(e["column"])
            out.append(item)
    return out


def _dataset(step: Step, record: RunRecord, naming: dict[str, Any], ended: bool) -> dict[str, Any]:
    namespace, name = dataset_name(step.location, step.name, format=step.format, **naming)
    facets: dict[str, Any] = {"dataSource": _facet("dataSource", name=namespace, uri=namespace)}
    if ended and step.columns:
        facets["schema"] = _facet("schema", fields=[{"name": c["name"], "type": c["type"]} for c in step.columns])
    if ended:
        facets[ROWS_V1_FACET] = {
            "_producer": PRODUCER, "_schemaURL": ROWS_V1_SCHEMA, "stepName": step.name, "format": step.format,
            "rowCount": step.row_count, "schemaHash": step.schema_hash, "dataHash": step.data_hash,
            "method": step.hash_method, "engine": step.hash_engine, "hashPass": step.hash_pass,
            "hashError": step.hash_error,
        }
        if step.delta_version is not None:
            facets["version"] = _facet("version", datasetVersion=str(step.delta_version))
    dataset: dict[str, Any] = {"namespace": namespace, "name": name, "facets": facets}
    if not ended:
        return dataset
    kind = "input" if step.direction == "input" else "output"
    own: dict[str, Any] = {}
    if step.row_count is not None:
        own[f"{kind}Statistics"] = _facet(f"{kind}Statistics", rowCount=step.row_count)
    assertions = _assertions(step, record.expectations) if kind == "input" else []
    if assertions:
        own["dataQualityAssertions"] = _facet("dataQualityAssertions", assertions=assertions)
    if own:
        dataset[f"{kind}Facets"] = own
    return dataset


def _tests(record: RunRecord) -> list[dict[str, Any]]:
    return [{"name": f"{e.get('output')}.{e.get('rule') or e.get('kind')}",
             "status": "pass" if e.get("passed") else "fail",
             "severity": _SEVERITY.get(str(e.get("severity")), "error"),
             "type": str(e.get("kind") or e.get("rule"))} for e in record.expectations]


def _parent(record: RunRecord, namespace: str) -> Optional[dict[str, Any]]:
    """The ``parent`` facet of a task run of a pipeline: the pipeline's run id and job name."""
    pipeline = record.pipeline or {}
    try:
        run_id = str(uuid.UUID(str(pipeline.get("run_id"))))
    except ValueError:  # no pipeline, or another writer's id that is no UUID: no parent to name
        return None
    return _facet("parent", run={"runId": run_id}, job={"namespace": namespace, "name": str(pipeline.get("name"))})


def _event(record: RunRecord, kind: str, namespace: str, naming: dict[str, Any]) -> dict[str, Any]:
    ended = kind != "START"
    run_facets: dict[str, Any] = {"processing_engine": _facet(
        "processing_engine", name=f"ubunye-{record.backend}" if record.backend else "ubunye",
        version=record.engine_version or __version__)}
    if ended and record.error:
        run_facets["errorMessage"] = _facet("errorMessage", message=record.error, programmingLanguage="python")
    if ended and record.expectations:
        run_facets["test"] = _facet("test", tests=_tests(record))
    parent = _parent(record, namespace)
    if parent is not None:
        run_facets["parent"] = parent
    task_path = record.task_path or f"{record.usecase}/{record.package}/{record.task_name}"
    return {
        "eventType": kind,
        "eventTime": (record.ended_at if ended else None) or record.started_at,
        "run": {"runId": ol_run_id(record), "facets": run_facets},
        "job": {"namespace": namespace, "name": task_path.replace("/", "."), "facets": {}},
        "inputs": [_dataset(s, record, naming, ended) for s in record.inputs],
        "outputs": [_dataset(s, record, naming, ended) for s in record.outputs],
        "producer": PRODUCER,
        "schemaURL": RUN_EVENT_SCHEMA,
    }


def run_events(record: RunRecord, *, base: Optional[Path] = None, namespace: str = NAMESPACE,
               hive_metastore: Optional[str] = None, databricks_workspace: Optional[str] = None
               ) -> list[dict[str, Any]]:
    """The START event of a record and, once it ended, its end event (masked).

    ``base`` makes relative paths absolute; ``hive_metastore`` (``host:port``) and
    ``databricks_workspace`` (its host) name the namespaces of catalog tables (:func:`table_name`)."""
    naming = {"base": base, "hive_metastore": hive_metastore, "databricks_workspace": databricks_workspace}
    events = [_event(record, "START", namespace, naming)]
    if record.status != "running":
        events.append(_event(record, event_type(record.status), namespace, naming))
    return [mask_doc(e) for e in events]


def to_openlineage_event(record: RunRecord, *, base: Optional[Path] = None) -> dict[str, Any]:
    """The last event of a record: its end event (its START when still running)."""
    return run_events(record, base=base)[-1]


def stored_runs(store: Any, *, usecase: Optional[str] = None, package: Optional[str] = None,
                task: Optional[str] = None) -> list[RunRecord]:
    """Every readable run of the selected tasks of ``store``, oldest first within each task."""
    return [r for u, p, t in store.iter_tasks()
            if usecase in (None, u) and package in (None, p) and task in (None, t)
            for r in reversed(store.list_runs(u, p, t))]


def to_openlineage_events(records: Iterable[RunRecord], *, base: Optional[Path] = None,
                          namespace: str = NAMESPACE, **naming: Optional[str]) -> list[dict[str, Any]]:
    """Each record's START and end event, records in the order given (``naming``: :func:`run_events`'s)."""
    return [e for r in records for e in run_events(r, base=base, namespace=namespace, **naming)]
@dataclass
class PostResult:
    """How many events were sent to which URL."""

    url: str
    sent: int

    def to_dict(self) -> dict[str, Any]:
        return {"url": self.url, "sent": self.sent}


class PostError(MaskedError, RuntimeError):
    """An event the lineage server did not accept."""


def endpoint(url: str) -> tuple[str, Optional[tuple[str, str]]]:
    """``url`` without its userinfo, and the ``(user, password)`` it carried (None without one).

    The password is made known to the masker first: no text, ours or a client's, shows it. No
    sender hands a URL with userinfo on (a client may print a URL it cannot parse, password and all)."""
    from ubunye.locations import split_userinfo

    bare, user, password = split_userinfo(url)
    if password:
        process().add(password)
    return bare, None if user is None else (user, password or "")


def basic_auth(credentials: tuple[str, str]) -> str:
    """The ``Authorization`` value of HTTP Basic for ``(user, password)``."""
    return "Basic " + base64.b64encode(":".join(credentials).encode("utf-8")).decode("ascii")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A 3xx is no acceptance: never followed (urllib would turn a POST answered 302 into a GET
    without the event), it is an HTTPError like a 4xx."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def post_events(url: str, events: Iterable[dict[str, Any]], *, timeout: float = 10.0) -> PostResult:
    """POST each event as JSON to ``url``; raises :class:`PostError` naming the URL (without its
    userinfo, which goes as HTTP Basic) unless every answer is a 2xx."""
    bare, credentials = endpoint(url)
    try:
        scheme = urlsplit(bare).scheme
    except ValueError as exc:
        raise PostError(f"{URL_ENV}={bare!r} is not a URL: {exc}") from None
    if scheme not in ("http", "https"):
        raise PostError(f"{URL_ENV}={bare!r} is not an http(s) URL")
    headers = {"Content-Type": "application/json"}
    if credentials is not None:
        headers["Authorization"] = basic_auth(credentials)
    opener = urllib.request.build_opener(_NoRedirect)
    sent = 0
    for event in events:
        try:
            body = json.dumps(mask_doc(event)).encode("utf-8")  # what leaves the process is masked
            request = urllib.request.Request(bare, data=body, method="POST", headers=headers)
            with opener.open(request, timeout=timeout) as response:
                response.read()
        except urllib.error.HTTPError as exc:
            raise PostError(f"{bare} refused run {event['run']['runId']}: HTTP {exc.code} {exc.reason}") from None
        except (urllib.error.URLError, OSError, ValueError, TypeError, http.client.HTTPException) as exc:
            reason = getattr(exc, "reason", exc)
            raise PostError(f"could not send to {bare}: {type(exc).__name__}: {reason}") from None
        sent += 1
    return PostResult(mask(bare), sent)
