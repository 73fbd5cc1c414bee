"""get_session on a session the run did not start (a stand-in session: no JVM)."""
from __future__ import annotations

import logging
from typing import Any, Optional

import pytest

from ubunye.engine.backends.spark_session import get_session

STATIC = {"spark.sql.extensions", "spark.jars", "spark.sql.warehouse.dir", "spark.executor.memory"}


class Conf:
    def __init__(self, values: dict[str, str]) -> None:
        self.values = dict(values)

    def get(self, key: str, default: Optional[str] = None) -> Optional[str]:
        return self.values.get(key, default)

    def isModifiable(self, key: str) -> bool:  # noqa: N802 - pyspark's name
        return key not in STATIC

    def set(self, key: str, value: str) -> None:
        if key in STATIC:
            raise RuntimeError(f"Cannot modify the value of a static config: {key}")
        self.values[key] = value

    def unset(self, key: str) -> None:
        self.values.pop(key, None)


class Catalog:
    def functionExists(self, name: str) -> bool:  # noqa: N802
        return False


class Session:
    """A running session with no plugin (its functions are missing)."""

    def __init__(self, values: dict[str, str]) -> None:
        self.conf, self.catalog = Conf(values), Catalog()


START = {"spark.sql.session.timeZone": "Africa/Johannesburg", "spark.sql.shuffle.partitions": "200",
         "spark.sql.ansi.enabled": "true"}


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if "cannot apply" in r.getMessage()]


def test_changed_settings_are_put_back_and_unset_ones_unset() -> None:
    session = Session(START)
    found, changes = get_session(session, time_zone="UTC", want_plugin=False, spark_conf={
        "spark.sql.shuffle.partitions": "3", "spark.sql.ansi.enabled": "True", "spark.sql.adaptive.enabled": "false"})
    assert found is session and changes is not None
    assert session.conf.values == {"spark.sql.session.timeZone": "UTC", "spark.sql.shuffle.partitions": "3",
                                   "spark.sql.ansi.enabled": "true", "spark.sql.adaptive.enabled": "false"}
    changes.restore()
    assert session.conf.values == START
    changes.restore()  # twice is harmless
    assert session.conf.values == START


def test_settings_that_cannot_be_applied_are_named_in_one_warning(
        caplog: pytest.LogCaptureFixture, packaged_jar: None) -> None:
    session = Session({**START, "spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension"})
    with caplog.at_level(logging.WARNING, logger="ubunye.engine"):
        _, changes = get_session(session, time_zone=None, spark_conf={
            "spark.sql.warehouse.dir": "/w", "spark.executor.memory": "3g", "spark.sql.shuffle.partitions": "200"})
    (warning,) = _warnings(caplog)
    assert "spark.sql.warehouse.dir=/w (the session has it unset)" in warning
    assert "spark.executor.memory=3g" in warning
    assert "spark.jars/spark.sql.extensions (the plugin" in warning and "mapInArrow fallback" in warning
    assert "shuffle" not in warning
    assert session.conf.values["spark.sql.session.timeZone"] == "Africa/Johannesburg"  # no time zone asked


def test_nothing_to_say_when_everything_applies(caplog: pytest.LogCaptureFixture) -> None:
    session = Session(START)
    with caplog.at_level(logging.WARNING, logger="ubunye.engine"):
        get_session(session, time_zone="UTC", want_plugin=False, spark_conf={"spark.sql.shuffle.partitions": "8"})
    assert _warnings(caplog) == []


def test_no_packaged_jar_no_plugin_named(caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a packaged jar a session this run started would lack the plugin too: not named."""
    from ubunye.spark import jar

    def missing(*a: Any, **k: Any) -> Any:
        raise jar.JarNotFoundError("no ubunye-spark jar in /nowhere")

    monkeypatch.setattr(jar, "jar_info", missing)
    session = Session(START)
    with caplog.at_level(logging.WARNING, logger="ubunye.engine"):
        get_session(session, time_zone=None, spark_conf={"spark.executor.memory": "3g"})
    (warning,) = _warnings(caplog)
    assert "spark.executor.memory=3g" in warning and "plugin" not in warning
