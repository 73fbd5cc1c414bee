"""``status(spark)``: what a running session is, which plugin jar it loaded, which engine runs.

One call answers "is the native engine on, and if not, why": the session's Spark,
Scala and Java versions, the plugin jar its driver loaded (path and version), the
engine :func:`ubunye.spark.fingerprint_spark` will use, and a one-line reason when
that is not the native one (no jar for this line, a jar for another line, a JVM
too old for the jar, a session started without it, a Connect server without it).

Importing this module imports nothing from pyspark.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from ubunye.spark import _compat
from ubunye.spark.jar import ENTRY_OBJECT
from ubunye.spark.reasons import loaded_or_unloadable, not_native_reason_of
from ubunye.spark.runtime import line_of

NATIVE = "spark-native"
FALLBACK = "spark-sql"


@dataclass(frozen=True)
class SparkStatus:
    """A running session's line, the plugin jar it loaded and the engine fingerprints use."""

    spark: str
    scala: Optional[str]  # None on Spark Connect (the server's JVM is elsewhere)
    java: Optional[str]  # java.version of the driver JVM; None on Spark Connect
    connect: bool
    jar: Optional[str]  # where the driver loaded the plugin from (path or URL), or its name
    jar_version: Optional[str]
    engine: str  # "spark-native" or "spark-sql" (the fallback)
    reason: Optional[str] = None  # one line when the engine is not the native one

    @property
    def line(self) -> str:
        return line_of(self.spark) + (f"_{line_of(self.scala)}" if self.scala else "")

    def describe(self) -> str:
        """One line: ``Spark 4.1.1 / Scala 2.13.17 / Java 17.0.15: spark-native (jar ...)``."""
        head = f"Spark {self.spark}" + (f" / Scala {self.scala}" if self.scala else " (Connect)")
        head += f" / Java {self.java}" if self.java else ""
        tail = f" ({self.jar})" if self.engine == NATIVE and self.jar else f": {self.reason}" if self.reason else ""
        return f"{head}: {self.engine}{tail}"


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


def status(spark: Any) -> SparkStatus:
    """The line of a running session (classic or Connect), the jar it loaded and the engine."""
    from ubunye.spark.native import native_available

    connect = _compat.is_connect(spark)
    scala = None if connect else _compat.jvm_scala_version(spark)
    java = _compat.jvm_java_version(spark)
    loaded, unloadable = loaded_or_unloadable(spark, connect)  # unloadable: class files the JVM cannot load
    where = _class_location(spark, ENTRY_OBJECT) if loaded is not None else None
    native = native_available(spark)  # what fingerprint_spark's engine choice asks
    reason = None if native else unloadable or not_native_reason_of(spark, connect, scala, java, loaded)
    return SparkStatus(
        spark=str(spark.version), scala=scala, java=java, connect=connect,
        jar=where or (str(loaded.path) if loaded is not None else None),
        jar_version=loaded.version if loaded is not None else None,
        engine=NATIVE if native else FALLBACK, reason=reason,
    )
