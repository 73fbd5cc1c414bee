"""Why a session's fingerprints do not use the native engine: one line naming both sides.

The texts of ``ubunye.spark.status(spark).reason`` and ``Fingerprint.reason``: no jar for
this line, a jar for another line (both versions named), a JVM too old for the jar, a
session started without it, a Spark Connect server without it. (A module of its own so
that callers need not import ``ubunye.spark.status``, whose name the package's
``status`` function holds.)

Importing this module imports nothing from pyspark.
"""
from __future__ import annotations

from typing import Any, Optional

from ubunye.spark.jar import (
    EXTENSIONS_CLASS,
    JarMismatchError,
    JarNotFoundError,
    jar_info,
    java_mismatch,
    loaded_jar,
    version_mismatch,
)


def not_native_reason_of(spark: Any, connect: bool, scala: Optional[str], java: Optional[str],
                          loaded: Any, version: Optional[str] = None) -> str:
    """The reason for a session whose Spark/Scala/Java versions and loaded jar (or None) are known."""
    version = version or str(spark.version)
    if connect:
        try:
            path = str(jar_info(spark=version, scala=None).path)
        except JarNotFoundError:
            path = "<ubunye.spark.jar_path(spark=..., scala=...)>"
        return ("the Spark Connect server has no ubunye functions; start it with "
                f"spark.jars={path} (the jar for its Spark line and Scala); the Spark SQL "
                "fallback is used")
    if loaded is not None:
        problem = version_mismatch(loaded, version, scala)
        if problem is not None:
            return problem
        return ("the ubunye-spark jar is on the driver classpath but its functions are not "
                "in this session: call ubunye.spark.install(spark), or start the session with "
                f"spark.sql.extensions={EXTENSIONS_CLASS}; the Spark SQL fallback is used")
    try:
        packaged = jar_info(spark=version, scala=scala)
    except JarNotFoundError as exc:
        return str(exc)
    return java_mismatch(packaged, java) or (
        "this session started without the ubunye-spark jar: start it with "
        "ubunye.spark.configure(builder) (or spark.jars=ubunye.spark.jar_path()); the Spark "
        "SQL fallback is used")


def loaded_or_unloadable(spark: Any, connect: bool) -> tuple[Any, Optional[str]]:
    """The plugin jar a classic session's driver loaded (or None), and a line when its class
    files are too new for the driver's JVM (then no jar is returned)."""
    if connect:
        return None, None
    try:
        return loaded_jar(spark), None
    except JarMismatchError as exc:
        return None, str(exc)
    except Exception:  # noqa: BLE001 - a BuildInfo that cannot be read: not our jar
        return None, None
