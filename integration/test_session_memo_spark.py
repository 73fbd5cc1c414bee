"""What a run asks the JVM once per session instead of every time (classic and Connect).

Checked on the shared session: the remembered evidence equals fresh reads and
costs no py4j round trip the second time; a new session is looked up again;
the one remembered hashing Column serves frames of any shape with the right
sums; the observed sums read as JSON equal pyspark's own reading, exactly.
"""
from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Callable, Iterator

import pyspark
import pytest

from ubunye.lineage.evidence import spark_environment
from ubunye.spark import _compat, fingerprint_spark, native_available, rows_v1_sums_column
from ubunye.spark.jar import FACTS_MEMO, loaded_jar
from ubunye.spark.native import native_sums, sums_from_struct
from ubunye.spark.observe import METRIC, SumsObserver


@pytest.fixture
def round_trips(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Callable[[], Any]], tuple[Any, int]]]:
    """``count(fn)`` -> ``(fn(), py4j commands this thread sent meanwhile)`` (py4j's own
    garbage-collection thread is not counted)."""
    import py4j.clientserver

    sent = [0]
    me = threading.current_thread()
    send = py4j.clientserver.ClientServerConnection.send_command

    def counting(self: Any, command: str) -> Any:
        if threading.current_thread() is me:
            sent[0] += 1
        return send(self, command)

    monkeypatch.setattr(py4j.clientserver.ClientServerConnection, "send_command", counting)

    def count(fn: Callable[[], Any]) -> tuple[Any, int]:
        before = sent[0]
        value = fn()
        return value, sent[0] - before

    yield count


def frames(spark: Any) -> list[Any]:
    """Two frames of different shapes (the second with sums above 2^53)."""
    from pyspark.sql import functions as F

    narrow = spark.range(50).select(F.col("id"), F.concat(F.lit("n"), F.col("id").cast("string")).alias("name"))
    wide = spark.range(300).select(
        (F.col("id") * 1.25).alias("score"),
        (F.col("id") % 3 == 0).alias("flag"),
        F.array(F.lit("a"), (F.col("id") % 7).cast("string")).alias("tags"),
        F.date_add(F.lit("2024-02-28").cast("date"), F.col("id").cast("int")).alias("day"),
    )
    return [narrow, wide]


def test_evidence_is_read_once_and_equals_fresh_reads(spark: Any, round_trips: Any) -> None:
    first = spark_environment(spark)
    again, sent = round_trips(lambda: spark_environment(spark))
    assert again == first and sent == 0
    jar = loaded_jar(spark)
    assert jar is not None
    assert first == {
        "spark": spark.version,
        "java": spark._jvm.java.lang.System.getProperty("java.version"),
        "ubunye_spark_plugin": jar.version,
    }
    found, sent = round_trips(lambda: native_available(spark))
    assert found is True and sent == 0


def test_a_new_session_is_looked_up_again(spark: Any, round_trips: Any) -> None:
    assert native_available(spark)
    other = spark.newSession()
    assert _compat.session_memo(other) == {}
    found, sent = round_trips(lambda: native_available(other))
    assert found is True and sent > 0  # asked its own catalog
    _, sent = round_trips(lambda: native_available(other))
    assert sent == 0


def test_one_column_hashes_frames_of_any_shape(spark: Any, tmp_path: Path, round_trips: Any) -> None:
    narrow, wide = frames(spark)
    if _compat.star_expands_in_metrics(narrow):  # one Column, remembered for the session
        assert rows_v1_sums_column(narrow) is rows_v1_sums_column(wide)
    else:  # Spark 3.5's observed metrics refuse '*': a Column naming each frame's columns
        assert rows_v1_sums_column(narrow) is not rows_v1_sums_column(wide)
    observer = SumsObserver()
    observer.attach(narrow, "warm")  # the session's handles are looked up once
    for i, frame in enumerate((narrow, wide)):
        (handle, observed, why), sent = round_trips(lambda: observer.attach(frame, f"f{i}"))
        assert why is None and handle is not None and sent <= 2  # the Observation and observe()
        observed.write.mode("overwrite").parquet(str(tmp_path / f"f{i}"))
        same_pass, why = observer.result(handle, frame, spark=spark)
        assert why is None
        second_pass = fingerprint_spark(frame, engine="spark-native")
        assert (same_pass.row_count, same_pass.data_hash) == (second_pass.row_count, second_pass.data_hash)
        assert same_pass.schema_hash == second_pass.schema_hash


def test_observed_sums_read_as_json_equal_pysparks_reading(spark: Any, tmp_path: Path) -> None:
    # the Observation path (classic sessions whose driver lacks the planner node)
    wide = frames(spark)[1]
    observation = _compat.new_observation(wide, "json")
    observed = _compat.observe(wide, observation, rows_v1_sums_column(wide).alias(METRIC))
    observed.write.mode("overwrite").parquet(str(tmp_path / "json"))
    assert _compat.observation_arrived(observation, spark, 60.0, 0)
    ours = sums_from_struct(_compat.observation_metrics(observation)[METRIC])
    reference = observation.get[METRIC]  # pyspark 3.5 leaves a struct as a py4j JVM Row
    if not type(reference).__module__.startswith("py4j"):
        assert ours == sums_from_struct(reference)
    assert ours == native_sums(wide) and ours.rows == 300  # a second pass agrees
    assert max(ours.a, ours.b) > 2**53  # beyond a float's exact integers


def test_an_observation_is_still_refused_a_second_frame(spark: Any) -> None:
    from pyspark.errors import PySparkAssertionError

    narrow = frames(spark)[0]
    observation = _compat.new_observation(narrow, "once")
    column = rows_v1_sums_column(narrow).alias(METRIC)
    _compat.observe(narrow, observation, column)
    # pyspark 4 raises PySparkAssertionError (an AssertionError); pyspark 3.5's Observation
    # refuses with a plain ``assert``: refused on both lines, by pyspark's own check
    refusal = PySparkAssertionError if int(pyspark.__version__.split(".")[0]) >= 4 else AssertionError
    with pytest.raises(refusal, match="(?i)only once"):
        _compat.observe(narrow, observation, column)


def test_hadoop_paths(spark: Any, tmp_path: Path, round_trips: Any) -> None:
    assert _compat.hadoop_path_exists(spark, str(tmp_path))
    missing, sent = round_trips(lambda: _compat.hadoop_path_exists(spark, str(tmp_path / "missing")))
    assert missing is False and sent <= 3


def test_connect_sessions_remember_their_functions(connect_native: Any, connect_plain: Any) -> None:
    assert native_available(connect_native)
    assert _compat.session_memo(connect_native)[FACTS_MEMO].native is True
    assert not native_available(connect_plain)
    assert _compat.session_memo(connect_plain)[FACTS_MEMO].native is False  # a fact: asked once
    df = connect_native.range(20)
    if _compat.star_expands_in_metrics(df):  # one Column per session: it names no frame
        assert rows_v1_sums_column(df) is rows_v1_sums_column(connect_native.range(5))
    else:  # Spark 3.5 refuses a star in observed metrics: the Column names each frame's columns
        assert str(rows_v1_sums_column(df)) == str(rows_v1_sums_column(connect_native.range(5)))
        assert str(rows_v1_sums_column(df)) != str(rows_v1_sums_column(df.withColumn("x", df["id"])))
    assert fingerprint_spark(df).row_count == 20


# What the session's facts are made of, as the JVM is asked them (py4j command text).
FACT_QUESTIONS = ("functionExists", "versionNumberString", "java.version", "buildInfoJson", "getCodeSource")


@pytest.fixture
def questions(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The py4j commands this thread sends that ask one of the session's facts."""
    import py4j.clientserver

    asked: list[str] = []
    me = threading.current_thread()
    send = py4j.clientserver.ClientServerConnection.send_command

    def counting(self: Any, command: str) -> Any:
        if threading.current_thread() is me and any(q in command for q in FACT_QUESTIONS):
            asked.append(command)
        return send(self, command)

    monkeypatch.setattr(py4j.clientserver.ClientServerConnection, "send_command", counting)
    yield asked


def test_two_writes_ask_the_session_its_facts_once(spark: Any, tmp_path: Path, questions: list[str]) -> None:
    from ubunye.engine.backends.spark_backend import SparkBackend
    from ubunye.engine.config import IOSpec

    session = spark.newSession()  # its own memo: nothing known yet
    backend = SparkBackend(session)
    narrow, wide = frames(session)
    first = backend.write(narrow, IOSpec("a", "output", "parquet", path=str(tmp_path / "a")), hash_output=True)
    asked_first = len(questions)
    assert asked_first > 0  # not vacuous: the first write read the facts through py4j
    second = backend.write(wide, IOSpec("b", "output", "parquet", path=str(tmp_path / "b")), hash_output=True)
    assert len(questions) == asked_first, questions[asked_first:]  # the second write asked none
    assert first.fingerprint.engine == second.fingerprint.engine == "spark-native"
    assert (first.fingerprint.row_count, second.fingerprint.row_count) == (50, 300)
    assert ubunye_status(session).engine == "spark-native" and len(questions) == asked_first


def ubunye_status(session: Any) -> Any:
    import ubunye.spark

    return ubunye.spark.status(session)


def test_two_fallback_writes_on_connect_ask_the_server_once(connect_plain: Any, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A server without the plugin: that the functions are missing is a fact too (it was asked
    again on every hash before), and the reason the fallback runs is the same on each write."""
    from ubunye.engine.backends.spark_backend import SparkBackend
    from ubunye.engine.config import IOSpec

    catalog = type(connect_plain.catalog)
    asked: list[str] = []
    exists = catalog.functionExists

    def counting(self: Any, name: str, *args: Any, **kwargs: Any) -> Any:
        asked.append(name)
        return exists(self, name, *args, **kwargs)

    monkeypatch.setattr(catalog, "functionExists", counting)
    session = connect_plain
    _compat.session_memo(session).clear()  # nothing known of it yet
    backend = SparkBackend(session)
    done = [backend.write(session.range(n), IOSpec(f"o{n}", "output", "parquet", path=str(tmp_path / f"o{n}")),
                          hash_output=True) for n in (10, 20)]
    assert [d.fingerprint.engine for d in done] == ["spark-sql", "spark-sql"]
    assert [d.fingerprint.row_count for d in done] == [10, 20]
    assert done[0].fingerprint.reason == done[1].fingerprint.reason and "Connect" in done[0].fingerprint.reason
    assert asked == ["ubunye_rows_v1_sums"], asked  # once for the session
