"""What is remembered per Spark session, and what is never remembered (without Spark).

``ubunye.spark._compat.session_memo`` holds, per session object, facts that
cannot change while the session lives. The rules checked here: a new session
is asked again, the session's facts (missing functions too) are read once and again
after ``install()``, a session that could not answer is asked again, and the memo never
keeps a session alive.
"""
from __future__ import annotations

import gc
import weakref
from typing import Any, Optional

from ubunye.lineage.evidence import spark_environment
from ubunye.spark import _compat
from ubunye.spark.facts import facts
from ubunye.spark.native import native_available


class Catalog:
    """``functionExists`` answering from a list, counting the questions."""

    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)
        self.asked = 0

    def functionExists(self, name: str) -> bool:  # noqa: N802 - pyspark's name
        self.asked += 1
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, Exception):
            raise answer
        return bool(answer)


class Session:
    """A session-shaped object without a JVM; counts reads of its version
    (``version=None``: reading it fails, as on an unreachable server)."""

    def __init__(self, *answers: Any, version: Optional[str] = "4.1.1") -> None:
        self.catalog = Catalog(*answers)
        self._version = version
        self.version_reads = 0

    @property
    def version(self) -> str:
        self.version_reads += 1
        if self._version is None:
            raise RuntimeError("the server is not reachable")
        return self._version


def test_one_memo_per_session_object() -> None:
    first, second = Session(False), Session(False)
    _compat.session_memo(first)["fact"] = 1
    assert _compat.session_memo(first) == {"fact": 1}
    assert _compat.session_memo(first) is _compat.session_memo(first)
    assert _compat.session_memo(second) == {}


def test_the_memo_does_not_keep_a_session_alive() -> None:
    session = Session(True)
    assert native_available(session)
    ref = weakref.ref(session)
    del session
    gc.collect()
    assert ref() is None


def test_an_object_that_cannot_be_weakly_referenced_remembers_nothing() -> None:
    plain = object()  # no __weakref__
    _compat.session_memo(plain)["fact"] = 1
    assert _compat.session_memo(plain) == {}
    assert _compat.session_memo(None) == {}


def test_remembered_keeps_values_but_never_none_or_false() -> None:
    memo: dict[str, Any] = {}
    reads: list[str] = []

    def read(value: Any) -> Any:
        def go() -> Any:
            reads.append("read")
            return value

        return go

    assert _compat.remembered(memo, "none", read(None)) is None
    assert _compat.remembered(memo, "none", read(None)) is None
    assert _compat.remembered(memo, "false", read(False)) is False
    assert _compat.remembered(memo, "false", read(False)) is False
    assert len(reads) == 4 and memo == {}
    assert _compat.remembered(memo, "found", read("4.1.1")) == "4.1.1"
    assert _compat.remembered(memo, "found", read("other")) == "4.1.1"
    assert len(reads) == 5 and memo == {"found": "4.1.1"}


def test_the_session_facts_are_read_once_per_session_object() -> None:
    session = Session(True)
    assert native_available(session)
    first = session.catalog.asked  # the sums, sketch and find functions: one question each
    assert first == 3
    assert native_available(session) and native_available(session)
    assert facts(session) is facts(session)
    assert session.catalog.asked == first and session.version_reads == 1
    another = Session(True)  # a new session is looked up again
    assert native_available(another)
    assert another.catalog.asked == first


def test_missing_functions_are_a_fact_until_install_has_the_session_read_again(monkeypatch: Any) -> None:
    from ubunye.spark import jar

    session = Session(False, True)  # the functions exist after install() ran
    assert not native_available(session)
    assert not native_available(session)
    assert session.catalog.asked == 1  # remembered: no question per write
    entry = type("Entry", (), {"install": lambda self, jsession: None})()
    monkeypatch.setattr(jar, "session_mismatch", lambda spark, jar=None: None)
    monkeypatch.setattr(jar, "loaded_jar", lambda spark: None)
    monkeypatch.setattr(jar._compat, "jvm_class", lambda spark, name: entry)
    monkeypatch.setattr(jar._compat, "jsession", lambda spark: None)
    jar.install(session)  # what ubunye.spark.install runs
    assert native_available(session)
    assert session.catalog.asked == 4  # read again once: sums, sketch, find


def test_an_unreachable_catalog_is_not_available_and_asked_again() -> None:
    session = Session(RuntimeError("gone"), True)
    assert not native_available(session)
    assert native_available(session)
    asked = session.catalog.asked
    assert native_available(session)
    assert session.catalog.asked == asked  # answered: remembered


def test_spark_evidence_is_read_once_per_session() -> None:
    session = Session(False)
    first = spark_environment(session)
    assert first == {"spark": "4.1.1", "java": None, "ubunye_spark_plugin": "fallback"}
    assert spark_environment(session) == first
    assert session.version_reads == 1  # the version is remembered
    assert session.catalog.asked == 1  # and "fallback": a session's facts (install reads them again)
    assert spark_environment(Session(False)) == first  # another session: read again, same facts


def test_a_version_that_could_not_be_read_is_read_again() -> None:
    session = Session(False, version=None)
    assert spark_environment(session)["spark"] is None
    assert spark_environment(session)["spark"] is None
    assert session.version_reads == 2
