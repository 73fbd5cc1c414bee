"""The native rows-v1 sums observed on a DataFrame while a query runs it (same pass).

:class:`SumsObserver` attaches ``ubunye_rows_v1_sums(*)`` to a DataFrame with
``DataFrame.observe`` and, after an action ran the observed plan (a write),
turns the observed sums into a :class:`~ubunye.hashing.fingerprint.Fingerprint`.

- Classic sessions with the plugin: the plugin's planner node
  (:mod:`ubunye.spark.observations`), which hashes inside the stage's generated
  code; its sums are in the driver when the action returns.
- Classic sessions without it (an older jar on the driver): a classic
  ``Observation``; its metrics reach the driver through the listener bus, so
  reading them waits (bounded) for the bus.
- Spark Connect: by observation *name*: the metrics come back in the response
  of the action (``executionInfo.flows``), which :meth:`SumsObserver.after_write`
  keeps. (Not an ``Observation`` object: pyspark's Connect client merges the
  Observations of a union's or join's two sides into one dict, so a frame
  observed that way and then joined with itself fails.)

What the observed sums cover is the caller's business: an output observed on
its write sees every written row; an input observed while the run's queries
read it may have been read in part or twice (the engine checks its count).
"""
from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, Mapping, Optional

from ubunye.spark import _compat, observations

METRIC = "rows_v1"
WAIT_SEC = 120.0  # the longest wait for a finished write's metrics (classic)
DRAIN_MS = 10_000  # the longest wait for the listener bus to deliver queued events (classic)
_METRIC_COLUMN = "observe.metric_column"  # session memo key


@dataclass(frozen=True)
class Observed:
    """What :meth:`SumsObserver.attach` hands back: the handle to read the sums with."""

    name: str
    observation: Any = None  # classic Observation; None on Spark Connect (by name) and when planned
    planned: bool = False  # observed by the plugin's planner node (ubunye.spark.observations)


class SumsObserver:
    """Observes the native sums on frames of one session and reads them back."""

    def __init__(self) -> None:
        self._flows: dict[str, Mapping[str, Any]] = {}  # Spark Connect: metrics by name

    def attach(self, frame: Any, name: str) -> tuple[Optional[Observed], Any, Optional[str]]:
        """``(handle, observed frame, None)``, or ``(None, frame, why)`` when the sums
        cannot be observed (a column type with no canonical text, ...)."""
        label = f"ubunye_{name}_{uuid.uuid4().hex[:8]}"
        try:
            if not _compat.is_connect(frame) and observations.available(_compat.session_of(frame)):
                return Observed(label, planned=True), observations.attach(frame, label), None
            column = metric_column(frame)
            if _compat.is_connect(frame):
                return Observed(label), frame.observe(label, column), None
            observation = _compat.new_observation(frame, label)
            return Observed(label, observation), _compat.observe(frame, observation, column), None
        except Exception as exc:  # noqa: BLE001 - the caller hashes in a pass of its own and says why
            return None, frame, _one_line(exc)

    def after_write(self, written: Any) -> None:
        """Keep the metrics a Spark Connect action on ``written`` carried back."""
        if _compat.is_connect(written):
            self._flows.update(_compat.connect_flows(written))

    def result(self, handle: Observed, frame: Any, *, spark: Any = None, wait: bool = True) -> tuple[Any, Optional[str]]:
        """The observed sums of ``frame`` as a Fingerprint, or ``(None, why)``.

        ``wait``: the observed plan surely ran (a write of it returned), so wait for
        its metrics; otherwise only drain the listener bus and take what is there
        (a frame the run's queries may never have read).
        """
        if handle.planned:
            return self._planned_result(handle, frame, spark, wait)
        if handle.observation is None:
            metrics = self._flows.get(handle.name)
            if metrics is None:
                return None, "no observed metrics came back with the write"
        else:
            arrived = _compat.observation_arrived(
                handle.observation, spark, WAIT_SEC if wait else 0.0, 0 if wait else DRAIN_MS)
            if not arrived:
                return None, "the observed metrics did not arrive"
            try:
                metrics = _compat.observation_metrics(handle.observation)
            except Exception as exc:  # noqa: BLE001
                return None, _one_line(exc)
        try:
            from ubunye.spark import fingerprint_from_sums

            return fingerprint_from_sums(frame.schema, metrics[METRIC]), None
        except Exception as exc:  # noqa: BLE001
            return None, _one_line(exc)

    def discard(self, handle: Observed, spark: Any) -> None:
        """Drop what ``handle`` holds, unread (the write it observed failed)."""
        self._flows.pop(handle.name, None)
        if handle.planned:
            try:
                observations.forget(spark, handle.name)
            except Exception:  # noqa: BLE001 - the write's own error is the one to report
                pass

    @staticmethod
    def _planned_result(handle: Observed, frame: Any, spark: Any, wait: bool) -> tuple[Any, Optional[str]]:
        """The sums of a frame observed by the planner node. Without ``wait`` (a frame
        the run's queries may never have read), no partition reported means not read."""
        try:
            from ubunye.hashing.digest import LaneSums
            from ubunye.spark import fingerprint_from_sums

            seen = observations.read(spark if spark is not None else _compat.session_of(frame), handle.name)
            if not wait and seen.partitions == 0:
                return None, "no query of the run read it"
            return fingerprint_from_sums(frame.schema, LaneSums(seen.rows, seen.a, seen.b)), None
        except Exception as exc:  # noqa: BLE001
            return None, _one_line(exc)


def metric_column(frame: Any) -> Any:
    """The observed Column, ``ubunye_rows_v1_sums(*) AS rows_v1``, built once per session
    (it names no frame; on a classic session building it costs py4j round trips)."""
    from ubunye.spark import rows_v1_sums_column

    return _compat.remembered(_compat.frame_memo(frame), _METRIC_COLUMN, lambda: rows_v1_sums_column(frame).alias(METRIC))


def _one_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"
