"""JVM access and per-session facts: the py4j handles of a classic session (its JVM, its
JVM ``SparkSession``, its gateway's connection, Hadoop's configuration and ``Path``) and the memo
(:func:`session_memo`) that keeps what cannot change while a session lives, so a task run asks it
once per session. Imports nothing from pyspark."""
from __future__ import annotations

import threading
import weakref
from typing import Any, Optional

CONNECT_MODULE_PREFIX = "pyspark.sql.connect"

# Per-session memos (see session_memo): keyed on the session object itself, weakly.
_MEMOS: "weakref.WeakKeyDictionary[Any, dict[str, Any]]" = weakref.WeakKeyDictionary()
_MEMOS_LOCK = threading.Lock()
_HADOOP_HANDLES = "compat.hadoop"  # memo key: (JVM hadoop Path class, the context's hadoop conf)


def is_connect(obj: Any) -> bool:
    """True for a Spark Connect session, DataFrame or Column (no JVM in this process)."""
    return type(obj).__module__.startswith(CONNECT_MODULE_PREFIX)


def session_memo(spark: Any) -> dict[str, Any]:
    """A dict that lives as long as the session object ``spark`` (classic or Connect).

    For what cannot change during that session's life, so it is asked once
    instead of on every run: its Spark and Java versions, the plugin jar its
    driver loaded, py4j handles on JVM classes, the session's facts
    (:mod:`ubunye.spark.facts`, which ``install()`` has read again). Keyed on the session object, not on its SparkContext, because
    functions registered at runtime belong to one session; another session
    (``newSession()``, a new SparkContext, a Connect session) starts with an
    empty memo and is looked up again. An object that cannot be weakly
    referenced or hashed gets a fresh dict, so nothing is remembered for it.
    """
    try:
        with _MEMOS_LOCK:
            memo = _MEMOS.get(spark)
            if memo is None:
                memo = {}
                _MEMOS[spark] = memo
    except TypeError:  # not weakly referenceable, or unhashable
        return {}
    return memo


def frame_memo(df: Any) -> dict[str, Any]:
    """:func:`session_memo` of the session ``df`` belongs to; a fresh dict (nothing
    remembered) for a frame without a session."""
    try:
        return session_memo(session_of(df))
    except Exception:  # noqa: BLE001 - a frame without a session: build it each time
        return {}


def remembered(memo: dict[str, Any], key: str, read: Any) -> Any:
    """``memo[key]``, else ``read()`` (kept in ``memo`` unless it is None or False)."""
    value = memo.get(key)
    if value is None:
        value = read()
        if value is not None and value is not False:
            memo[key] = value
    return value


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


def close_thread_connection(spark: Any) -> None:
    """Close this thread's py4j connection (classic sessions): a call a signal interrupted still
    waits for its answer on it; the next call opens a new one."""
    _close_connection_of(spark.sparkContext._gateway)


def close_signalled_connection() -> None:
    """In a signal's handler (main thread): close this thread's py4j connection to the JVM of this
    process's classic Spark context, if pyspark is loaded and a context was started (else nothing).

    A py4j call the signal interrupted (a Spark action) still waits for its answer on that
    connection, and the JVM answers only once the action ends: closing it makes the next call on
    this thread (pyspark's own ``SCCallSiteSync.__exit__`` on the way up, then ending the record)
    open a new one instead of waiting behind the action for ever. Local only: no call into the
    JVM, no import of pyspark; needs no session object (the library API may not know one yet)."""
    import sys

    if "pyspark" not in sys.modules:
        return
    context = getattr(sys.modules["pyspark"], "SparkContext", None)
    gateway = getattr(context, "_gateway", None)
    if gateway is not None:
        _close_connection_of(gateway)


def _close_connection_of(gateway: Any) -> None:
    client = getattr(gateway, "_gateway_client", None)
    connection = client.get_thread_connection() if hasattr(client, "get_thread_connection") else None
    if connection is not None:
        connection.close()


def jvm_byte_array(spark: Any, size: int) -> Any:
    """A new JVM ``byte[size]`` (classic sessions), to be filled by a Hadoop stream's ``readFully``."""
    gateway = spark.sparkContext._gateway
    return gateway.new_array(gateway.jvm.byte, size)


def jvm_bytes(spark: Any, array: Any) -> bytes:
    """A JVM ``byte[]`` as Python bytes, in one round trip (py4j sends a returned array whole)."""
    return bytes(jvm(spark).java.util.Arrays.copyOf(array, len(array)))


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

    node = getattr(jvm(spark), name)  # one round trip for the whole dotted name
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


def in_spark_task() -> bool:
    """True inside a Spark task on a Python worker (a task context is set); imports no
    pyspark (asks only when ``pyspark.taskcontext`` is already loaded)."""
    import sys

    module = sys.modules.get("pyspark.taskcontext")
    return module is not None and module.TaskContext.get() is not None


def hadoop_configuration(spark: Any) -> Any:
    """The Hadoop configuration of a classic session's context (a py4j handle)."""
    if is_connect(spark):
        raise TypeError("a Spark Connect session has no JVM in this process")
    return spark.sparkContext._jsc.hadoopConfiguration()  # noqa: SLF001 - classic sessions only


def worker_python(spark: Any) -> Optional[str]:
    """The interpreter a classic session's Python workers run (``PYSPARK_PYTHON`` when
    the context started, else ``python3``); None on Spark Connect or when unknown."""
    if is_connect(spark):
        return None
    try:
        value = spark.sparkContext.pythonExec
    except Exception:  # noqa: BLE001 - a stopped or foreign context
        return None
    return None if value is None else str(value)


def hadoop_handles(spark: Any) -> tuple[Any, Any]:
    """(the JVM ``org.apache.hadoop.fs.Path`` class, the context's Hadoop configuration), looked up once."""
    memo = session_memo(spark)
    handles = memo.get(_HADOOP_HANDLES)
    if handles is None:
        sc = spark.sparkContext
        handles = (getattr(jvm(spark), "org.apache.hadoop.fs.Path"), sc._jsc.hadoopConfiguration())  # noqa: SLF001
        memo[_HADOOP_HANDLES] = handles
    return handles


def hadoop_path_exists(spark: Any, path: str) -> bool:
    """True when ``path`` exists on its Hadoop file system (classic sessions; three round
    trips: the Path class and the context's Hadoop configuration are looked up once)."""
    path_class, hadoop_conf = hadoop_handles(spark)
    hadoop_path = path_class(path)
    return bool(hadoop_path.getFileSystem(hadoop_conf).exists(hadoop_path))
