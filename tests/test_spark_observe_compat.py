"""The private pyspark pieces behind same-pass hashing (ubunye.spark._compat), without Spark."""
from __future__ import annotations

from typing import Any

from ubunye.spark import _compat


class Future:
    def __init__(self, done_after: int) -> None:
        self.calls = 0
        self.done_after = done_after

    def isCompleted(self) -> bool:  # noqa: N802 - the JVM method name
        self.calls += 1
        return self.calls > self.done_after


class JObservation:
    def __init__(self, future: Future) -> None:
        self._future = future

    def future(self) -> Future:
        return self._future


class Classic:
    def __init__(self, done_after: int) -> None:
        self._jo = JObservation(Future(done_after))


class Bus:
    def __init__(self) -> None:
        self.waited: list[int] = []

    def waitUntilEmpty(self, ms: int) -> None:  # noqa: N802
        self.waited.append(ms)


class Session:
    """Just enough of a classic session for the listener bus call."""

    def __init__(self) -> None:
        self.bus = Bus()
        outer = self

        class Sc:
            def listenerBus(self) -> Bus:  # noqa: N802
                return outer.bus

        class Jsc:
            def sc(self) -> Sc:
                return Sc()

        class Context:
            _jsc = Jsc()

        self.sparkContext = Context()


def test_metrics_that_arrive_while_waiting_are_taken() -> None:
    assert _compat.observation_arrived(Classic(done_after=3), None, wait_sec=5.0, drain_ms=0)


def test_no_wait_takes_only_what_the_drained_bus_delivered() -> None:
    session = Session()
    assert not _compat.observation_arrived(Classic(done_after=10), session, wait_sec=0.0, drain_ms=250)
    assert session.bus.waited == [250]
    assert _compat.observation_arrived(Classic(done_after=0), session, wait_sec=0.0, drain_ms=250)
    assert session.bus.waited == [250]  # already there: no drain


def test_an_observation_never_attached_has_not_arrived() -> None:
    class Detached:
        _jo = None

    assert not _compat.observation_arrived(Detached(), None, wait_sec=0.0, drain_ms=0)


def test_connect_flows_by_name() -> None:
    class Info:
        flows = [("ubunye_out_1", {"rows_v1": {"rows": 3}}), ("other", {"n": 1})]

    class Written:
        executionInfo = Info()

    class NoInfo:
        executionInfo: Any = None

    assert _compat.connect_flows(Written()) == {"ubunye_out_1": {"rows_v1": {"rows": 3}}, "other": {"n": 1}}
    assert _compat.connect_flows(NoInfo()) == {}


def test_a_connect_frame_is_observed_only_where_the_write_brings_its_metrics_back(monkeypatch: Any) -> None:
    from ubunye.spark import observe

    class Frame35:  # pyspark 3.5's Connect DataFrame: no executionInfo
        def __init__(self) -> None:
            self.observed: list[str] = []

        def observe(self, name: str, column: Any) -> "Frame35":
            self.observed.append(name)
            return self

    class Frame4(Frame35):  # pyspark 4's: the write's observed metrics come back in executionInfo
        executionInfo = None

    for cls in (Frame35, Frame4):
        cls.__module__ = "pyspark.sql.connect.dataframe"
    monkeypatch.setattr(observe, "metric_column", lambda frame: "sums")
    old, new = Frame35(), Frame4()
    assert not _compat.connect_observes_writes(old) and _compat.connect_observes_writes(new)
    handle, frame, why = observe.SumsObserver().attach(old, "in_people")
    # left unobserved (a user's old["id"] would not resolve under the observation): second pass
    assert (handle, frame, old.observed) == (None, old, [])
    assert why is not None and "3.5" in why
    handle, frame, why = observe.SumsObserver().attach(new, "in_people")
    assert handle is not None and handle.path.kind == "connect" and why is None
    assert frame is new and new.observed == [handle.name]
