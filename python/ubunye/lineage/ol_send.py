"""Sending OpenLineage events the ecosystem's way.

With ``openlineage-python`` installed (``pip install 'ubunye[openlineage]'``), events go
through its ``OpenLineageClient`` and so its transports (http, kafka, file, console,
composite ...) and its configuration: ``OPENLINEAGE_CONFIG``, ``./openlineage.yml``,
``OPENLINEAGE_URL``/``OPENLINEAGE_API_KEY`` and ``OPENLINEAGE__TRANSPORT__*``. When
``UBUNYE_OPENLINEAGE_URL`` is set it wins: an http transport to that URL (kept as an
alias). Without the package, the minimal HTTP sender (:func:`post_events`) POSTs to
that URL. Each event has passed the masking path when it was built; every error is
masked, and the API keys of the environment are made known to the masker first, so
a key is never printed.
"""
from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Any, Iterable, Optional
from urllib.parse import urlsplit

from ubunye.lineage.openlineage import URL_ENV, PostError, PostResult, post_events, run_events
from ubunye.lineage.record import RunRecord
from ubunye.masking import mask, process

_KEY_VARIABLES = ("OPENLINEAGE_API_KEY", "OPENLINEAGE__TRANSPORT__AUTH__API_KEY", "OPENLINEAGE__TRANSPORT__AUTH__APIKEY")


def client_installed() -> bool:
    """Whether ``openlineage-python`` can be imported."""
    try:
        import openlineage.client  # noqa: F401
    except ImportError:
        return False
    return True


def client_configured() -> bool:
    """Whether the official client has a configuration of its own (else it would print to the console)."""
    if any(os.environ.get(n) for n in ("OPENLINEAGE_CONFIG", "OPENLINEAGE_URL")):
        return True
    if any(n.startswith("OPENLINEAGE__TRANSPORT") for n in os.environ):
        return True
    return any(p.is_file() for p in (Path("openlineage.yml"), Path.home() / ".openlineage" / "openlineage.yml"))


def _client(url: Optional[str]) -> Any:
    from openlineage.client import OpenLineageClient

    if not url:
        return OpenLineageClient()  # openlineage.yml, OPENLINEAGE_URL, OPENLINEAGE__TRANSPORT__*
    parts = urlsplit(url)
    transport = {"type": "http", "url": f"{parts.scheme}://{parts.netloc}",
                 "endpoint": parts.path.lstrip("/") or "api/v1/lineage"}
    return OpenLineageClient(config={"transport": transport})


def _official(event: dict[str, Any]) -> Any:
    """A RunEvent of the official client carrying our (already checked) dict facets."""
    from openlineage.client.event_v2 import InputDataset, Job, OutputDataset, Run, RunEvent, RunState

    return RunEvent(
        eventType=RunState[event["eventType"]], eventTime=event["eventTime"], producer=event["producer"],
        run=Run(runId=event["run"]["runId"], facets=event["run"]["facets"]),
        job=Job(namespace=event["job"]["namespace"], name=event["job"]["name"], facets=event["job"]["facets"]),
        inputs=[InputDataset(namespace=d["namespace"], name=d["name"], facets=d["facets"],
                             inputFacets=d.get("inputFacets", {})) for d in event["inputs"]],
        outputs=[OutputDataset(namespace=d["namespace"], name=d["name"], facets=d["facets"],
                               outputFacets=d.get("outputFacets", {})) for d in event["outputs"]],
    )


def send_events(events: Iterable[dict[str, Any]], *, url: Optional[str] = None) -> PostResult:
    """Send ``events``: through the official client when installed, else POST to ``url``.

    Raises :class:`PostError` (masked, one line) when an event is not accepted.
    """
    for name in _KEY_VARIABLES:
        if os.environ.get(name):
            process().add(os.environ[name])
    if not client_installed():
        if not url:
            raise PostError("sending needs UBUNYE_OPENLINEAGE_URL (or OPENLINEAGE_URL), or openlineage-python")
        return post_events(url, events)
    client = _client(url)
    sent = 0
    try:
        for event in events:
            client.emit(_official(event))
            sent += 1
        client.close(timeout=10.0)
    except Exception as exc:  # noqa: BLE001 - any transport's failure is one masked line
        raise PostError(f"could not send OpenLineage events ({client.transport.kind}): "
                        f"{type(exc).__name__}: {exc}") from None
    return PostResult(mask(url) if url else f"openlineage-python ({client.transport.kind})", sent)


def send_live(record: RunRecord, *, namespace: str, base: Optional[Path]) -> None:
    """A ``monitors: [{type: openlineage}]`` run's event: START for a running record, else its end.

    A failure to send never fails the run: it is one masked warning.
    """
    event = run_events(record, base=base, namespace=namespace)[-1]
    try:
        send_events([event], url=os.environ.get(URL_ENV))
    except PostError as exc:
        warnings.warn(f"OpenLineage {event['eventType']} of run {record.run_id} not sent: {exc}", stacklevel=2)
