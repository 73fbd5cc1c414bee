"""Every private or moving pyspark detail the package relies on, in one place.

pyspark has two kinds of session: *classic* (a JVM in this process, reached
through py4j) and *Spark Connect* (a gRPC client; no JVM here). Public API
covers most of what we need on both; the few private attributes used below
(``builder._options``, ``spark._jvm``, ``spark._jsparkSession``) are read
only here, so a pyspark upgrade that moves them breaks one file.

Importing this module imports nothing from pyspark.
"""
from __future__ import annotations

from typing import Any, Optional

CONNECT_MODULE_PREFIX = "pyspark.sql.connect"


def is_connect(obj: Any) -> bool:
    """True for a Spark Connect session, DataFrame or Column (no JVM in this process)."""
    return type(obj).__module__.startswith(CONNECT_MODULE_PREFIX)


def is_spark_dataframe(obj: Any) -> bool:
    """True for a classic or Connect pyspark DataFrame, without importing pyspark."""
    module = type(obj).__module__
    return type(obj).__name__ == "DataFrame" and module.startswith("pyspark.sql")


def session_of(df: Any) -> Any:
    """The SparkSession a DataFrame belongs to (classic or Connect)."""
    return df.sparkSession


def builder_options(builder: Any) -> dict[str, Any]:
    """The options set so far on a ``SparkSession.builder`` (private ``_options``)."""
    options = getattr(builder, "_options", None)
    if not isinstance(options, dict):
        raise TypeError(
            f"expected a pyspark SparkSession.Builder, got {type(builder).__module__}."
            f"{type(builder).__name__}"
        )
    return options


def jvm(spark: Any) -> Any:
    """The py4j JVM view of a classic session; raises for Spark Connect."""
    if is_connect(spark):
        raise TypeError("a Spark Connect session has no JVM in this process")
    return spark._jvm  # noqa: SLF001 - classic sessions only


def jsession(spark: Any) -> Any:
    """The JVM ``SparkSession`` behind a classic session."""
    if is_connect(spark):
        raise TypeError("a Spark Connect session has no JVM in this process")
    return spark._jsparkSession  # noqa: SLF001 - classic sessions only


def jvm_scala_version(spark: Any) -> str:
    """The Scala library version of a classic session's JVM (``"2.13.17"``)."""
    return str(jvm(spark).scala.util.Properties.versionNumberString())


def jvm_java_version(spark: Any) -> Optional[str]:
    """``java.version`` of a classic session's driver JVM, or None on Connect."""
    if is_connect(spark):
        return None
    return str(jvm(spark).java.lang.System.getProperty("java.version"))


def jvm_class(spark: Any, name: str) -> Any:
    """A py4j handle on a JVM class or Scala object of a classic session.

    Raises :class:`LookupError` when the class is not on the driver classpath
    (py4j otherwise answers any unknown dotted name with a package object).
    """
    from py4j.java_gateway import JavaClass

    node = jvm(spark)
    for part in name.split("."):
        node = getattr(node, part)
    if not isinstance(node, JavaClass):
        raise LookupError(f"class {name} is not on the driver classpath")
    return node


def java_exception_text(exc: BaseException) -> str:
    """The message of a py4j / pyspark exception, without the Python traceback."""
    java = getattr(exc, "java_exception", None)
    if java is not None:
        try:
            return str(java.toString())
        except Exception:  # pragma: no cover - the gateway may be gone
            pass
    return str(exc)


def functions_for(obj: Any) -> Any:
    """The ``functions`` module that builds Columns for ``obj``'s kind of session.

    ``pyspark.sql.functions`` picks Connect or classic by a process-wide flag
    (``SPARK_CONNECT_MODE_ENABLED``), which is wrong in a process that holds
    both kinds of session; choosing by the DataFrame's own type is always right.
    """
    if is_connect(obj):
        from pyspark.sql.connect import functions as connect_functions

        return connect_functions
    from pyspark.sql import functions as classic_functions

    return classic_functions


def call_function(obj: Any, name: str, *cols: Any) -> Any:
    """``call_function(name, *cols)`` for ``obj``'s kind of session (classic or Connect)."""
    return functions_for(obj).call_function(name, *cols)


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
    future = jo.future()
    if drain_ms > 0 and not future.isCompleted():
        try:
            spark.sparkContext._jsc.sc().listenerBus().waitUntilEmpty(drain_ms)  # noqa: SLF001
        except Exception:  # noqa: BLE001 - a bus that cannot be drained: rely on the future alone
            pass
    deadline = time.monotonic() + wait_sec
    while not future.isCompleted():
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.01)
    return True


def connect_flows(written: Any) -> dict[str, Any]:
    """Spark Connect: the observed metrics (by observation name) the last action on
    ``written`` carried back in its response (``DataFrame.executionInfo.flows``)."""
    info = getattr(written, "executionInfo", None)
    if info is None:
        return {}
    return {str(name): metrics for name, metrics in (info.flows or [])}
