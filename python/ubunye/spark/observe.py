"""The native rows-v1 sums observed on a DataFrame while a query runs it (same pass).

:class:`SumsObserver` attaches ``ubunye_rows_v1_sums(*)`` to a DataFrame with
``DataFrame.observe`` and, after an action ran the observed plan (a write),
turns the observed sums into a :class:`~ubunye.hashing.fingerprint.Fingerprint`.
One path per kind of session, each a class below, picked once per frame by
:meth:`SumsObserver.path_for` (the handle keeps it for reading and discarding):

- Classic sessions with the plugin (``_PlannedPath``): the plugin's planner node
  (:mod:`ubunye.spark.observations`), which hashes inside the stage's generated
  code; its sums are in the driver when the action returns.
- Classic sessions without it (an older jar on the driver, ``_ObservationPath``): a classic
  ``Observation``; its metrics reach the driver through the listener bus, so
  reading them waits (bounded) for the bus.
- Spark Connect (``_ConnectPath``): by observation *name*: the metrics come back in the response
  of the action (``executionInfo.flows``), which :meth:`SumsObserver.after_write`
  keeps. (Not an ``Observation`` object: pyspark's Connect client merges the
  Observations of a union's or join's two sides into one dict, so a frame
  observed that way and then joined with itself fails.) Not with pyspark 3.5's
  Connect client (:func:`ubunye.spark._compat.connect_observes_writes`): no frame is
  observed there, the caller hashes in a second pass.

What the observed sums cover is the caller's business: an output observed on
its write sees every written row; an input observed while the run's queries
read it may have been read in part or twice (the engine checks its count).
"""
from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence

from ubunye.hashing.digest import LaneSums, Totals
from ubunye.spark import _compat, observations

METRIC = "rows_v1"
WAIT_SEC = 120.0  # the longest wait for a finished write's metrics (classic)
DRAIN_MS = 10_000  # the longest wait for the listener bus to deliver queued events (classic)
_METRIC_COLUMN = "observe.metric_column"  # session memo key


@dataclass(frozen=True)
class Observed:
    """What :meth:`SumsObserver.attach` hands back: the handle to read the sums with."""

    name: str
    path: "_Path"  # the one path (kind of session) that observes this frame
    observation: Any = None  # the classic Observation (path "observation" only)
    partition_by: Optional[tuple[str, ...]] = None  # per-partition sums taken (planner node only)

    @property
    def planned(self) -> bool:
        """Observed by the plugin's planner node (:mod:`ubunye.spark.observations`)."""
        return self.path.kind == "planned"


Result = tuple[Any, Optional[str]]  # (Fingerprint, None) or (None, why)


class _Path:
    """One way of observing a frame's sums while a write runs it, for one kind of session."""

    kind = ""

    def attach(self, frame: Any, label: str, partition_by: Optional[Sequence[str]] = None) -> tuple[Observed, Any]:
        """``partition_by``: also the sums of each partition folder's rows, where the path can."""
        raise NotImplementedError

    def after_write(self, written: Any) -> None:
        """Keep what the write's own response carried (Spark Connect only)."""

    def result(self, handle: Observed, frame: Any, spark: Any, wait: bool) -> Result:
        raise NotImplementedError

    def discard(self, handle: Observed, spark: Any) -> None:
        """Drop what ``handle`` holds, unread."""


class _PlannedPath(_Path):
    """Classic session whose driver has the plugin's planner node: the sums are taken in the
    stage's generated code and are in the driver when the write returns."""

    kind = "planned"

    def attach(self, frame: Any, label: str, partition_by: Optional[Sequence[str]] = None,
               json: Any = None) -> tuple[Observed, Any]:
        keyed = tuple(partition_by) if partition_by and observations.takes_parts(_compat.session_of(frame)) else None
        return Observed(label, self, partition_by=keyed), observations.attach(frame, label, keyed, json)

    def result(self, handle: Observed, frame: Any, spark: Any, wait: bool) -> Result:
        """Without ``wait`` (a frame the run's queries may never have read), no partition
        reported means not read."""
        seen = observations.read(spark if spark is not None else _compat.session_of(frame), handle.name)
        if not wait and seen.partitions == 0:
            return None, "no query of the run read it"
        parts = None
        if handle.partition_by:
            from ubunye.hashing.partition_sums import to_record

            parts = to_record(handle.partition_by, seen.parts or {})
        return _fingerprint(frame, Totals(LaneSums(seen.rows, seen.a, seen.b), seen.cells), parts), None

    def discard(self, handle: Observed, spark: Any) -> None:
        observations.forget(spark, handle.name)


class _ObservationPath(_Path):
    """Classic session without the planner node (an older jar on the driver): a classic
    ``Observation`` of the native aggregate; its metrics come through the listener bus."""

    kind = "observation"

    def attach(self, frame: Any, label: str, partition_by: Optional[Sequence[str]] = None) -> tuple[Observed, Any]:
        column = metric_column(frame)
        observation = _compat.new_observation(frame, label)
        return Observed(label, self, observation), _compat.observe(frame, observation, column)

    def result(self, handle: Observed, frame: Any, spark: Any, wait: bool) -> Result:
        arrived = _compat.observation_arrived(
            handle.observation, spark, WAIT_SEC if wait else 0.0, 0 if wait else DRAIN_MS)
        if not arrived:
            return None, "the observed metrics did not arrive"
        return _fingerprint(frame, _compat.observation_metrics(handle.observation)[METRIC]), None


class _ConnectPath(_Path):
    """Spark Connect: observed by *name*; the metrics come back in the write's own response
    (not an ``Observation`` object: pyspark's Connect client merges the Observations of a
    union's or join's two sides into one dict, so a frame observed that way and then joined
    with itself fails)."""

    kind = "connect"

    def __init__(self) -> None:
        self._flows: dict[str, Mapping[str, Any]] = {}  # metrics by observation name

    def attach(self, frame: Any, label: str, partition_by: Optional[Sequence[str]] = None) -> tuple[Observed, Any]:
        if not _compat.connect_observes_writes(frame):  # the frame is left as it was
            raise RuntimeError("a Spark Connect 3.5 client cannot read observed metrics back from a write")
        return Observed(label, self), frame.observe(label, metric_column(frame))

    def after_write(self, written: Any) -> None:
        self._flows.update(_compat.connect_flows(written))

    def result(self, handle: Observed, frame: Any, spark: Any, wait: bool) -> Result:
        metrics = self._flows.pop(handle.name, None)
        if metrics is None:
            return None, "no observed metrics came back with the write"
        return _fingerprint(frame, metrics[METRIC]), None

    def discard(self, handle: Observed, spark: Any) -> None:
        self._flows.pop(handle.name, None)


class SumsObserver:
    """Observes the native sums on frames of one session and reads them back.

    :meth:`path_for` picks, once per frame, the one path its session takes (planner node,
    classic ``Observation``, Spark Connect); the handle remembers it, so reading and
    discarding go to that same path.
    """

    def __init__(self) -> None:
        self._planned, self._observation, self._connect = _PlannedPath(), _ObservationPath(), _ConnectPath()

    def path_for(self, frame: Any) -> _Path:
        """The path that observes ``frame``: by the kind of its session and its driver's jar."""
        if _compat.is_connect(frame):
            return self._connect
        if observations.available(_compat.session_of(frame)):
            return self._planned
        return self._observation

    def attach(self, frame: Any, name: str, partition_by: Optional[Sequence[str]] = None,
               json: Optional[tuple[dict[str, str], dict[str, str]]] = None
               ) -> tuple[Optional[Observed], Any, Optional[str]]:
        """``(handle, observed frame, None)``, or ``(None, frame, why)`` when the sums
        cannot be observed (a column type with no canonical text, ...). ``partition_by``:
        the planner node also takes the sums of each partition folder's rows (the
        fingerprint's ``partitions``); other paths take none. ``json``: the writer's and
        reader's options of a json output, whose rows are hashed after a round trip through
        Spark's json writer and reader (:func:`ubunye.spark.observations.attach`; the plugin's
        planner node only)."""
        label = f"ubunye_{name}_{uuid.uuid4().hex[:8]}"
        try:
            path = self.path_for(frame)
            if json is not None and path is not self._planned:
                return None, frame, "a json round trip needs the plugin's planner node"
            if json is not None:
                handle, observed = path.attach(frame, label, partition_by, json)
            else:
                handle, observed = path.attach(frame, label, partition_by)
        except Exception as exc:  # noqa: BLE001 - the caller hashes in a pass of its own and says why
            return None, frame, _one_line(exc)
        return handle, observed, None

    def after_write(self, written: Any) -> None:
        """Keep the metrics a Spark Connect action on ``written`` carried back."""
        if _compat.is_connect(written):
            self._connect.after_write(written)

    def result(self, handle: Observed, frame: Any, *, spark: Any = None, wait: bool = True) -> Result:
        """The observed sums of ``frame`` as a Fingerprint, or ``(None, why)``.

        ``wait``: the observed plan surely ran (a write of it returned), so wait for
        its metrics; otherwise only drain the listener bus and take what is there
        (a frame the run's queries may never have read).
        """
        try:
            return handle.path.result(handle, frame, spark, wait)
        except Exception as exc:  # noqa: BLE001
            return None, _one_line(exc)

    def discard(self, handle: Observed, spark: Any) -> None:
        """Drop what ``handle`` holds, unread (the write it observed failed)."""
        try:
            handle.path.discard(handle, spark)
        except Exception:  # noqa: BLE001 - the write's own error is the one to report
            pass


def _fingerprint(frame: Any, sums: Any, partitions: Optional[dict[str, Any]] = None) -> Any:
    from ubunye.spark.fingerprint import fingerprint_from_sums

    return fingerprint_from_sums(frame.schema, sums, partitions=partitions)


def metric_column(frame: Any) -> Any:
    """The observed Column, ``ubunye_rows_v1_sums(*) AS rows_v1``, built once per session
    (it names no frame; on a classic session building it costs py4j round trips)."""
    from ubunye.spark.native import rows_v1_sums_column

    return _compat.remembered(_compat.frame_memo(frame), _METRIC_COLUMN, lambda: rows_v1_sums_column(frame).alias(METRIC))


def _one_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"
