"""What a Spark session is, read once: :class:`SparkFacts`, and the one engine choice.

Every question this package asks a session about itself (its Spark, Scala and Java
versions, Connect or classic, the plugin jar its driver loaded and whether that jar fits,
whether the plugin's functions are in the session, which of them, what the driver's
observation node takes) is asked here, once per session object, and kept as one immutable
value in the session's memo (:func:`ubunye.spark._compat.session_memo`). Everything else
reads that value: :func:`ubunye.spark.status` is it, ``native_available`` reads it, and
:func:`choose` turns it into the engine a fingerprint, a write's same-pass hash, ``lineage
verify`` and ``lineage diff --rows`` use, with its reason.

The value changes only through this package: :func:`ubunye.spark.install` forgets it, so
the next question reads the session again. A session that could not answer (an unreachable
catalog) is not remembered: it is asked again next time.

Importing this module imports nothing from pyspark.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, NamedTuple, Optional

from ubunye.spark import _compat
from ubunye.spark.jar import (ENTRY_OBJECT, FACTS_MEMO, SUMS_FUNCTION, JarError, JarMismatchWarning,
                              install, version_mismatch)
from ubunye.spark.reasons import loaded_or_unloadable, not_native_reason_of
from ubunye.spark.runtime import line_of

NATIVE = "spark-native"
FALLBACK = "spark-sql"
ENGINES = (NATIVE, FALLBACK)
SKETCH_FUNCTION = "ubunye_rows_v1_sketch"
FIND_FUNCTION = "ubunye_rows_v1_find"


@dataclass(frozen=True)
class SparkFacts:
    """A running session's line, the plugin jar it loaded and the engine fingerprints use."""

    spark: str  # "" when the session could not say (then these facts are not remembered)
    scala: Optional[str]  # None on Spark Connect (the server's JVM is elsewhere)
    java: Optional[str]  # java.version of the driver JVM; None on Spark Connect
    connect: bool
    jar: Optional[str]  # where the driver loaded the plugin from (path or URL), or its name
    jar_version: Optional[str]
    engine: str  # "spark-native" or "spark-sql" (the fallback)
    reason: Optional[str] = None  # one line when the engine is not the native one
    mismatch: Optional[str] = None  # a loaded jar that must not serve this session (warned)
    sketch: bool = False  # the native functions include the sketch aggregate
    find: bool = False  # ... and the find aggregate (lineage diff --rows)

    @property
    def native(self) -> bool:
        return self.engine == NATIVE

    @property
    def line(self) -> str:
        return line_of(self.spark) + (f"_{line_of(self.scala)}" if self.scala else "")

    def describe(self) -> str:
        """One line: ``Spark 4.1.1 / Scala 2.13.17 / Java 17.0.15: spark-native (jar ...)``."""
        head = f"Spark {self.spark or '?'}" + (f" / Scala {self.scala}" if self.scala else " (Connect)")
        head += f" / Java {self.java}" if self.java else ""
        tail = f" ({self.jar})" if self.engine == NATIVE and self.jar else f": {self.reason}" if self.reason else ""
        return f"{head}: {self.engine}{tail}"


class Choice(NamedTuple):
    """The engine to use and, when it is not the native one, one line saying why."""

    engine: str
    reason: Optional[str]


class _Unanswered(Exception):
    """The session could not answer a question: nothing is remembered."""


def facts(spark: Any) -> SparkFacts:
    """The facts of ``spark`` (classic or Connect), read once per session object."""
    memo = _compat.session_memo(spark)
    found = memo.get(FACTS_MEMO)
    if found is None:
        try:
            found = _read(spark)
        except _Unanswered as exc:
            return exc.args[0]  # answered for this call, asked again next time
        memo[FACTS_MEMO] = found
    return found


def forget(spark: Any) -> None:
    """Read the session again next time (after this package changed it: ``install``)."""
    _compat.session_memo(spark).pop(FACTS_MEMO, None)


def choose(known: SparkFacts, engine: Optional[str] = None, *, strict: bool = True) -> Choice:
    """The one engine choice: ``engine`` if given (checked), else native when the session
    has the functions from a jar for its own line, else the fallback with the reason.

    A loaded jar of another line gives a :class:`~ubunye.spark.jar.JarMismatchWarning`
    naming both versions; ``engine="spark-native"`` where it cannot run raises
    :class:`~ubunye.spark.jar.JarError` with the same reason (``strict=False``: the
    fallback and its reason, for a caller that only asks whether the native engine runs,
    such as a write deciding to hash in the same pass, which warns nothing).
    """
    if engine is not None and engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r} for a Spark DataFrame: expected one of {ENGINES}")
    if engine == FALLBACK:
        return Choice(FALLBACK, f"engine={FALLBACK!r} was asked for")
    if known.native:
        return Choice(NATIVE, None)
    if not strict:
        return Choice(FALLBACK, known.reason)
    if engine == NATIVE:
        raise JarError(
            known.mismatch
            or "engine='spark-native' needs the ubunye_rows_v1_sums function in this session: "
            "start it with ubunye.spark.configure(builder) (or spark.sql.extensions on the "
            "Spark Connect server), or call ubunye.spark.install(spark)"
        )
    if known.mismatch is not None:
        warnings.warn(known.mismatch, JarMismatchWarning, stacklevel=3)
    return Choice(FALLBACK, known.reason)


def _read(spark: Any) -> SparkFacts:
    """Ask the session everything, once (raises :class:`_Unanswered` holding the facts of
    this call when its catalog could not say whether the functions exist)."""
    connect = _compat.is_connect(spark)
    scala = None if connect else _quiet(_compat.jvm_scala_version, spark)
    java = _quiet(_compat.jvm_java_version, spark)
    version = _quiet(lambda s: str(s.version), spark)
    answered = version is not None
    version = version or ""  # "": the session could not say (not remembered)
    loaded, unloadable = loaded_or_unloadable(spark, connect)  # unloadable: class files too new
    mismatch = unloadable or (version_mismatch(loaded, version, scala) if loaded is not None else None)
    try:
        present = bool(spark.catalog.functionExists(SUMS_FUNCTION))
    except Exception:  # noqa: BLE001 - an unreachable catalog: not available, asked again
        present, answered = False, False
    if answered and not present and not connect and loaded is not None and mismatch is None:
        present = _install_loaded(spark, loaded)  # Spark 3.5: spark.jars alone registers nothing
    native = present and mismatch is None
    try:
        reason = None if native else mismatch or (
            not_native_reason_of(spark, connect, scala, java, loaded, version) if answered
            else "the session could not say its Spark version or functions; the Spark SQL fallback is used")
    except Exception as exc:  # noqa: BLE001 - a session that cannot say: the fallback runs anyway
        reason = f"the native functions are not in this session ({type(exc).__name__})"
    found = SparkFacts(
        spark=version, scala=scala, java=java, connect=connect,
        jar=(_class_location(spark, ENTRY_OBJECT) or str(loaded.path)) if loaded is not None else None,
        jar_version=loaded.version if loaded is not None else None,
        engine=NATIVE if native else FALLBACK, reason=reason, mismatch=mismatch,
        sketch=native and _exists(spark, SKETCH_FUNCTION), find=native and _exists(spark, FIND_FUNCTION),
    )
    if not answered:
        raise _Unanswered(found)
    return found


def _install_loaded(spark: Any, loaded: Any) -> bool:
    """Register the functions of a jar the driver loaded but that did not register itself.

    Spark 4 applies the jar's service-loader registration to every new session; Spark 3.5
    does so only in ``SparkSession.Builder.getOrCreate`` (Scala), not in the constructor
    pyspark 3.5 calls, so a pyspark 3.5 session started with only ``spark.jars`` has the jar
    but not its functions (only a jar for this session's line: checked before)."""
    try:
        install(spark, jar=loaded, refresh=False)
        return bool(spark.catalog.functionExists(SUMS_FUNCTION))
    except Exception:  # noqa: BLE001 - a jar that cannot be installed: the fallback decides
        return False


def _quiet(read: Any, spark: Any) -> Optional[str]:
    """``read(spark)``, or None when the session cannot say (no JVM at hand, unreachable)."""
    try:
        return read(spark)
    except Exception:  # noqa: BLE001 - not known: said as None
        return None


def _exists(spark: Any, function: str) -> bool:
    try:
        return bool(spark.catalog.functionExists(function))
    except Exception:  # noqa: BLE001 - a catalog that cannot say: not there
        return False


def _class_location(spark: Any, name: str) -> Optional[str]:
    """Where the driver loaded class ``name`` from (its code source URL), or None."""
    try:
        jvm = _compat.jvm(spark)
        loader = jvm.java.lang.Thread.currentThread().getContextClassLoader()
        cls = jvm.java.lang.Class.forName(name, False, loader)
        source = cls.getProtectionDomain().getCodeSource()
        return str(source.getLocation().toString()) if source is not None else None
    except Exception:  # noqa: BLE001 - not loadable here: no location to report
        return None
