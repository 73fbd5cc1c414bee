"""Observed metrics: a classic ``Observation`` built and attached in two py4j round trips, its
metrics read and waited for; and what a Spark Connect write carries back (issue 14)."""
from __future__ import annotations

from typing import Any

from ubunye.spark._compat.lines import _classic_frame_and_to_seq, _metrics_by_name, _observation_arrived_check
from ubunye.spark._compat.sessions import is_connect, remembered, session_memo, session_of

_OBSERVE_HANDLES = "compat.observe"  # memo key: (JVM Observation class, empty Seq)
_LISTENER_BUS = "compat.listener_bus"  # memo key: the SparkContext's listener bus


def new_observation(obj: Any, name: str) -> Any:
    """A classic ``Observation`` for a classic DataFrame. (``pyspark.sql.Observation``
    picks its kind by the process-wide flag, which is wrong in a process holding both
    kinds of session; on Connect, observe by name instead: see ``connect_flows``.)"""
    if is_connect(obj):
        raise TypeError("observe a Spark Connect DataFrame by name (its metrics come with each response)")
    from pyspark.sql.observation import Observation

    observation = object.__new__(Observation)  # the classic class, whatever is_remote() says
    observation.__init__(name)
    return observation


def observe(frame: Any, observation: Any, column: Any) -> Any:
    """``frame.observe(observation, column)`` for a classic frame and a new classic
    ``Observation``, in two py4j round trips instead of seven.

    pyspark's ``Observation._on`` looks the JVM class up and builds an empty
    Scala Seq on every call; here both are looked up once per session. Does
    what ``_on`` does (sets the private ``_jvm`` and ``_jo``); an
    ``Observation`` without those attributes goes through the public call.
    """
    private = (getattr(observation, "_jo", False) is None and hasattr(observation, "_name")
               and hasattr(frame, "_jdf") and hasattr(frame, "_sc") and hasattr(column, "_jc"))
    if is_connect(frame) or not private:
        return frame.observe(observation, column)
    DataFrame, _to_seq = _classic_frame_and_to_seq()

    session, sc = session_of(frame), frame._sc  # noqa: SLF001 - classic frames only
    memo = session_memo(session)
    handles = memo.get(_OBSERVE_HANDLES)
    if handles is None:
        handles = (getattr(sc._jvm, "org.apache.spark.sql.Observation"), _to_seq(sc, []))  # noqa: SLF001
        memo[_OBSERVE_HANDLES] = handles
    observation_class, no_more_columns = handles
    observation._jvm = sc._jvm  # noqa: SLF001
    observation._jo = observation_class(observation._name) if observation._name is not None else observation_class()
    observed = frame._jdf.observe(observation._jo, column._jc, no_more_columns)  # noqa: SLF001
    return DataFrame(observed, session)


def observation_metrics(observation: Any) -> dict[str, Any]:
    """The metrics of a classic ``Observation`` whose metrics arrived, by name.

    Read as the JVM row's JSON (``Row.json``: two round trips, nothing to
    unpickle) instead of pyspark's ``Observation.get`` (four round trips and
    a pickled row, about a millisecond more). Structs come back as dicts and
    numbers exactly (decimals as ``Decimal``, integers as ``int``). Without
    the private ``_jo``, or when the row has no JSON, pyspark's ``get``.
    """
    import decimal
    import json

    jo = getattr(observation, "_jo", None)
    if jo is None:
        return dict(observation.get)
    try:
        text = str(jo.getRow().json())
    except Exception:  # noqa: BLE001 - no getRow (Spark 3.5 before it), or a row with no JSON form
        return _metrics_by_name(jo, observation)
    metrics: dict[str, Any] = json.loads(text, parse_float=decimal.Decimal)
    return metrics


def observation_arrived(observation: Any, spark: Any, wait_sec: float, drain_ms: int) -> bool:
    """True once a classic ``Observation`` holds its metrics (private ``_jo``: the JVM
    ``Observation`` whose future completes when the listener bus delivers them).

    With ``wait_sec`` > 0, polls that long; with ``drain_ms`` > 0, first lets the
    listener bus deliver what is queued (a query that ran has then reported).
    """
    import time

    jo = getattr(observation, "_jo", None)
    if jo is None:
        return False
    arrived = _observation_arrived_check(jo, session_memo(spark))
    if drain_ms > 0 and not arrived():
        try:
            bus = remembered(session_memo(spark), _LISTENER_BUS, lambda: spark.sparkContext._jsc.sc().listenerBus())  # noqa: SLF001
            bus.waitUntilEmpty(drain_ms)
        except Exception:  # noqa: BLE001 - a bus that cannot be drained: rely on the future alone
            pass
    deadline = time.monotonic() + wait_sec
    pause = 0.001  # metrics usually arrive within a few ms of the write: poll soon, then back off
    while not arrived():
        if time.monotonic() >= deadline:
            return False
        time.sleep(pause)
        pause = min(pause * 2, 0.01)
    return True


def connect_observes_writes(frame: Any) -> bool:
    """Spark Connect: whether an observation on ``frame`` can hash it in a write's own pass
    (pyspark 4's client). Not on pyspark 3.5's: its server sends no observed metrics back
    for a command (a write; SPARK-45813 came in 4.0), its frames have no ``executionInfo``
    to read them from, and its ``CollectMetrics`` relation carries its child's plan id, so
    a column taken from the observed frame (``df["id"]``) cannot be resolved ("fail to
    find subplan with plan_id")."""
    return hasattr(type(frame), "executionInfo")


def connect_flows(written: Any) -> dict[str, Any]:
    """Spark Connect: the observed metrics (by observation name) the last action on
    ``written`` carried back in its response (``DataFrame.executionInfo.flows``)."""
    info = getattr(written, "executionInfo", None)
    if info is None:
        return {}
    return {str(name): metrics for name, metrics in (info.flows or [])}
