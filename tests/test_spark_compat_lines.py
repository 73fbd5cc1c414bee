"""_compat's per-line branches, with stand-ins for the py4j objects (no JVM here)."""
from __future__ import annotations

from typing import Any

import pytest

from ubunye.spark import _compat


class Flag:
    def __init__(self) -> None:
        self.value = False

    def isCompleted(self) -> bool:  # noqa: N802 - the JVM's name
        return self.value

    def isDefined(self) -> bool:  # noqa: N802
        return self.value


class JO4:
    """A Spark 4.x / late-3.5 JVM Observation: ``future()``."""

    def __init__(self) -> None:
        self.flag = Flag()
        self.futures = 0

    def future(self) -> Flag:
        self.futures += 1
        return self.flag


class Field:
    def __init__(self, owner: "JO35") -> None:
        self.owner, self.accessible = owner, False

    def setAccessible(self, on: bool) -> None:  # noqa: N802
        self.accessible = on

    def get(self, jo: Any) -> Flag:
        assert self.accessible and jo is self.owner, "the private field must be opened first"
        return jo.flag


class JO35:
    """A Spark 3.5.0 JVM Observation: no ``future()``, a private ``metrics`` Option."""

    def __init__(self) -> None:
        self.flag = Flag()

    def future(self) -> Any:
        raise RuntimeError("py4j.Py4JException: Method future([]) does not exist")

    def getClass(self) -> Any:  # noqa: N802
        owner = self

        class Cls:
            def getDeclaredField(self, name: str) -> Field:  # noqa: N802
                assert name == "metrics"
                return Field(owner)

        return Cls()


@pytest.mark.parametrize("make", [JO4, JO35])
def test_observation_arrival_is_read_on_every_line(make: Any) -> None:
    memo: dict[str, Any] = {}
    jo = make()
    arrived = _compat._observation_arrived_check(jo, memo)
    assert arrived() is False
    jo.flag.value = True
    assert arrived() is True
    assert memo[_compat._OBSERVATION_FUTURE] is (make is JO4)
    again = _compat._observation_arrived_check(make(), memo)  # the memo answers which API
    assert again() is False


def test_classic_frame_and_to_seq_for_the_installed_line() -> None:
    import pyspark

    frame, to_seq = _compat._classic_frame_and_to_seq()
    assert frame.__name__ == "DataFrame" and callable(to_seq)
    expected = "pyspark.sql.dataframe" if pyspark.__version__.startswith("3.") else "pyspark.sql.classic.dataframe"
    assert frame.__module__ == expected


class Session:
    def __init__(self, version: str) -> None:
        self.version = version


class Frame:
    def __init__(self, version: str) -> None:
        self.sparkSession = Session(version)


@pytest.mark.parametrize("version, star", [("3.5.0", False), ("3.5.9", False), ("4.0.0", True), ("4.3.0", True)])
def test_star_in_observed_metrics_only_from_spark_4(version: str, star: bool) -> None:
    assert _compat.star_expands_in_metrics(Frame(version)) is star


def test_quoted_names_keep_dots_and_backticks() -> None:
    assert _compat.quoted_name("a.b") == "`a.b`"
    assert _compat.quoted_name("x`y") == "`x``y`"
