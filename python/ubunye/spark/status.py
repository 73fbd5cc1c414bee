"""``status(spark)``: what a running session is, which plugin jar it loaded, which engine runs.

One call answers "is the native engine on, and if not, why": the session's Spark,
Scala and Java versions, the plugin jar its driver loaded (path and version), the
engine :func:`ubunye.spark.fingerprint_spark` will use, and a one-line reason when
that is not the native one (no jar for this line, a jar for another line, a JVM
too old for the jar, a session started without it, a Connect server without it).
It is the session's facts (:mod:`ubunye.spark.facts`), read once per session.

Importing this module imports nothing from pyspark.
"""
from __future__ import annotations

from typing import Any

from ubunye.spark.facts import FALLBACK, NATIVE, SparkFacts, facts

SparkStatus = SparkFacts  # the public name of the session's facts
__all__ = ["FALLBACK", "NATIVE", "SparkStatus", "status"]


def status(spark: Any) -> SparkStatus:
    """The line of a running session (classic or Connect), the jar it loaded and the engine."""
    return facts(spark)
