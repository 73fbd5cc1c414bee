"""Sending OpenLineage events the ecosystem's way.

With ``openlineage-python`` installed (``pip install 'ubunye[openlineage]'``), events go
through its ``OpenLineageClient`` and so its transports (http, kafka, file, console,
composite ...) and its configuration: ``OPENLINEAGE_CONFIG``, ``./openlineage.yml``,
``OPENLINEAGE_URL``/``OPENLINEAGE_API_KEY`` and ``OPENLINEAGE__TRANSPORT__*``. When
``UBUNYE_OPENLINEAGE_URL`` is set it wins: an http transport to that URL (kept as an
alias). Without the package, the minimal HTTP sender (:func:`post_events`) POSTs to
that URL. Each event has passed the masking path when it was built; every error is
masked, and the API keys of the environment are made known to the masker first, so
a key is never printed. A URL's userinfo never reaches the client (it goes as HTTP Basic).

A send is proven only by a 2xx answer to every event: anything else (a transport that cannot be
built, a 3xx, 4xx or 5xx, a warning the client logs while sending) is one :class:`PostError`.
A live run's send (:func:`send_live`) never fails the run: its failure is one warning.
"""
from __future__ import annotations

import copy
import logging
import os
import threading
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional
from urllib.parse import urlsplit

from ubunye.lineage.openlineage import (URL_ENV, PostError, PostResult, basic_auth, endpoint, post_events,
                                         run_events)
from ubunye.lineage.record import RunRecord
from ubunye.masking import MaskFilter, mask, process

_KEY_VARIABLES = ("OPENLINEAGE_API_KEY", "OPENLINEAGE__TRANSPORT__AUTH__API_KEY", "OPENLINEAGE__TRANSPORT__AUTH__APIKEY")


def client_installed() -> bool:
    """Whether ``openlineage-python`` can be imported."""
    try:
        import openlineage.client  # noqa: F401
    except ImportError:
        return False
    except Exception:  # noqa: BLE001 - installed but broken: sending through it says why, in one line
        return True
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
    bare, credentials = endpoint(url)  # the client never sees a password: it prints URLs it cannot parse
    parts = urlsplit(bare)
    path = parts.path.lstrip("/") + (f"?{parts.query}" if parts.query else "")
    transport = {"type": "http", "url": f"{parts.scheme}://{parts.netloc}", "endpoint": path or "api/v1/lineage"}
    client = OpenLineageClient(config={"transport": transport})
    if credentials is not None:
        client.transport.config.custom_headers["Authorization"] = basic_auth(credentials)
    return client


def _refuse_unaccepted(response: Any, *args: Any, **kwargs: Any) -> None:
    """A requests response hook: anything but a 2xx is no acceptance (a 3xx is never followed)."""
    if not 200 <= response.status_code < 300:
        raise PostError(f"HTTP {response.status_code} {response.reason} from {response.url}")


def _checked(transport: Any) -> None:
    """Make every HTTP answer ``transport`` (and a composite's transports) gets a 2xx or an error."""
    for inner in getattr(transport, "transports", None) or ():
        _checked(inner)
    if getattr(transport, "kind", None) == "http":
        from requests import Session

        session = Session()
        session.hooks["response"].append(_refuse_unaccepted)
        transport.session = session  # the transport mounts its retrying adapter on it


def _official(event: dict[str, Any]) -> Any:
    """A RunEvent of the official client carrying a copy of our (already checked) dict facets: the
    client adds facets of its own (its ``tags``, attrs objects) to the event it is given."""
    from openlineage.client.event_v2 import InputDataset, Job, OutputDataset, Run, RunEvent, RunState

    event = copy.deepcopy(event)
    return RunEvent(
        eventType=RunState[event["eventType"]], eventTime=event["eventTime"], producer=event["producer"],
        run=Run(runId=event["run"]["runId"], facets=event["run"]["facets"]),
        job=Job(namespace=event["job"]["namespace"], name=event["job"]["name"], facets=event["job"]["facets"]),
        inputs=[InputDataset(namespace=d["namespace"], name=d["name"], facets=d["facets"],
                             inputFacets=d.get("inputFacets", {})) for d in event["inputs"]],
        outputs=[OutputDataset(namespace=d["namespace"], name=d["name"], facets=d["facets"],
                               outputFacets=d.get("outputFacets", {})) for d in event["outputs"]],
    )


class _Heard(logging.Handler):
    """What the client's loggers say while it sends: WARNING and above kept (the client logs, and
    goes on, when a transport fails: kafka's delivery, a composite's member), the rest passed on masked."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.warnings: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        MaskFilter().filter(record)  # the message and any traceback, masked
        if record.levelno >= logging.WARNING:
            self.warnings.append(" ".join(str(record.msg).split()))
        elif record.levelno >= logging.getLogger().getEffectiveLevel():
            logging.getLogger().handle(record)


_SENDING = threading.Lock()  # one send at a time: the client's logger is taken over while it sends


@contextmanager
def _client_voice() -> Iterator[_Heard]:
    """The ``openlineage`` loggers' records go to a :class:`_Heard` (never as a traceback on stderr)."""
    logger = logging.getLogger("openlineage")
    heard = _Heard()
    with _SENDING:
        propagate = logger.propagate
        logger.addHandler(heard)
        logger.propagate = False
        try:
            yield heard
        finally:
            logger.removeHandler(heard)
            logger.propagate = propagate


def _why(exc: BaseException) -> str:
    """``Type: message`` of an error and of the cause it was raised from (a composite wraps it)."""
    text = f"{type(exc).__name__}: {exc}"
    cause = exc.__cause__
    return text if cause is None else f"{text} ({type(cause).__name__}: {cause})"


def _learn_secrets() -> None:
    """The API keys of the environment and the passwords of its OpenLineage URLs, made known to
    the masker (the client reads them itself)."""
    for name, value in os.environ.items():
        if name in _KEY_VARIABLES and value:
            process().add(value)
        elif name.startswith("OPENLINEAGE") and "://" in value:
            endpoint(value)


def send_events(events: Iterable[dict[str, Any]], *, url: Optional[str] = None) -> PostResult:
    """Send ``events``: through the official client when installed, else POST to ``url``.

    Raises :class:`PostError` (masked, one line) unless every event was accepted: whatever fails
    (building the transport, serialising, sending, a non-2xx answer, a warning the client logs)."""
    _learn_secrets()
    events = list(events)
    if not client_installed():
        if not url:
            raise PostError("sending needs UBUNYE_OPENLINEAGE_URL (or OPENLINEAGE_URL), or openlineage-python")
        return post_events(url, events)
    kind = "openlineage-python"
    with _client_voice() as heard:
        try:
            client = _client(url)
            kind = str(client.transport.kind)
            if kind == "noop":
                raise PostError("OpenLineage is disabled (OPENLINEAGE_DISABLED)")
            _checked(client.transport)
            for event in events:
                client.emit(_official(event))
            client.close(timeout=10.0)
        except Exception as exc:  # noqa: BLE001 - any transport's failure is one masked line
            raise PostError(f"could not send OpenLineage events ({kind}): {_why(exc)}") from None
    if heard.warnings:
        raise PostError(f"OpenLineage events not proven sent ({kind}): {heard.warnings[0]}")
    return PostResult(mask(endpoint(url)[0]) if url else f"openlineage-python ({kind})", len(events))


class OpenLineageWarning(UserWarning):
    """An OpenLineage event of a live run that was not sent (the run goes on)."""


def send_live(record: RunRecord, *, namespace: str, base: Optional[Path]) -> None:
    """A ``monitors: [{type: openlineage}]`` run's event: START for a running record, else its end.

    Nothing here fails or stops the run (building the event or the transport, sending, a SystemExit
    of a client): each failure is one masked :class:`OpenLineageWarning`; a signal still stops it.
    """
    kind = "START" if record.status == "running" else "end"
    try:
        event = run_events(record, base=base, namespace=namespace)[-1]
        kind = event["eventType"]
        send_events([event], url=os.environ.get(URL_ENV))
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - a monitor never fails a run
        why = str(exc) if isinstance(exc, PostError) else _why(exc)
        message = mask(" ".join(f"OpenLineage {kind} of run {record.run_id} not sent: {why}".split()))
        try:
            warnings.warn(OpenLineageWarning(message), stacklevel=2)
        except Exception:  # noqa: BLE001 - warnings turned into errors (-W error): said, not raised
            logging.getLogger("ubunye.lineage").error("%s", message)
