"""Every private or moving pyspark detail the package relies on, in one place.

pyspark has two kinds of session: *classic* (a JVM in this process, reached
through py4j) and *Spark Connect* (a gRPC client; no JVM here). Public API
covers most of what we need on both; the few private attributes used below
(``builder._options``, ``spark._jvm``, ``spark._jsparkSession``, the JVM
context ``_jsc``, a classic frame's ``_jdf`` / ``_sc``, a Column's ``_jc``, an
``Observation``'s ``_jo``) are read only here, so a pyspark upgrade that moves
them breaks one file.

Each py4j call is a round trip to the JVM; what cannot change while a session
lives (class handles, versions) is kept in :func:`session_memo`, so a task
run asks it once per session rather than once per run.

Importing this module imports nothing from pyspark.
"""
from __future__ import annotations

import threading
import weakref
from typing import Any, Optional

CONNECT_MODULE_PREFIX = "pyspark.sql.connect"

# Per-session memos (see session_memo): keyed on the session object itself, weakly.
_MEMOS: "weakref.WeakKeyDictionary[Any, dict[str, Any]]" = weakref.WeakKeyDictionary()
_MEMOS_LOCK = threading.Lock()
_OBSERVE_HANDLES = "compat.observe"  # memo key: (JVM Observation class, empty Seq)
_HADOOP_HANDLES = "compat.hadoop"  # memo key: (JVM hadoop Path class, the context's hadoop conf)
_LISTENER_BUS = "compat.listener_bus"  # memo key: the SparkContext's listener bus


def is_connect(obj: Any) -> bool:
    """True for a Spark Connect session, DataFrame or Column (no JVM in this process)."""
    return type(obj).__module__.startswith(CONNECT_MODULE_PREFIX)


def session_memo(spark: Any) -> dict[str, Any]:
    """A dict that lives as long as the session object ``spark`` (classic or Connect).

    For what cannot change during that session's life, so it is asked once
    instead of on every run: its Spark and Java versions, the plugin jar its
    driver loaded, py4j handles on JVM classes, the plugin's functions *once
    they exist* (a missing function is never remembered: ``install()`` may add
    it later). Keyed on the session object, not on its SparkContext, because
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


# --- Per Spark line (issue 13): where 3.5 and 4.x differ --------------------------------------
# 3.5 has no ``pyspark.sql.classic`` (the classic DataFrame and Column helpers live in
# ``pyspark.sql.dataframe`` / ``pyspark.sql.column``); the JVM ``Observation`` of 3.5
# patches before ``future()`` keeps its metrics in a private ``Option`` field. Both
# kinds of session call the plugin functions by name (``call_function``, 3.5+), and
# ``mapInArrow`` exists on every supported line, so those need no branch.

_OBSERVATION_FUTURE = "compat.observation_future"  # memo key: does the JVM Observation have future()


def _classic_frame_and_to_seq() -> tuple[Any, Any]:
    """The classic ``DataFrame`` class and pyspark's ``_to_seq`` helper on this line."""
    try:  # Spark 4.x
        from pyspark.sql.classic.column import _to_seq
        from pyspark.sql.classic.dataframe import DataFrame
    except ImportError:  # Spark 3.5
        from pyspark.sql.column import _to_seq  # type: ignore[no-redef]
        from pyspark.sql.dataframe import DataFrame  # type: ignore[no-redef]
    return DataFrame, _to_seq


def _observation_arrived_check(jo: Any, memo: dict[str, Any]) -> Any:
    """A no-argument callable: True once the JVM ``Observation`` ``jo`` holds its metrics.

    Spark 4.x and the later 3.5 patches complete ``jo.future()``; earlier 3.5 patches
    have no ``future()`` (a py4j error) and set the private ``metrics`` field (a Scala
    ``Option``), read here through Java reflection. Which one is asked once per session.
    """
    has_future = memo.get(_OBSERVATION_FUTURE)
    if has_future is None:
        try:
            future = jo.future()
            has_future = True
        except Exception:  # noqa: BLE001 - py4j: "Method future([]) does not exist"
            has_future = False
        memo[_OBSERVATION_FUTURE] = has_future
        if has_future:
            return future.isCompleted
    if has_future:
        return jo.future().isCompleted
    field = jo.getClass().getDeclaredField("metrics")
    field.setAccessible(True)
    return lambda: bool(field.get(jo).isDefined())


_SPARK_MAJOR = "compat.spark_major"  # session memo: the session's Spark major version


def star_expands_in_metrics(df: Any) -> bool:
    """True when ``*`` inside an aggregate may stand for all columns everywhere, observed
    metrics included (Spark 4). Spark 3.5's ``CollectMetrics`` refuses it ("Invalid usage
    of '*'"): there, the columns are named one by one (:func:`quoted_name`)."""
    major = remembered(frame_memo(df), _SPARK_MAJOR, lambda: int(str(session_of(df).version).split(".")[0]))
    return int(major) >= 4


def schema_ddl(frame: Any) -> str:
    """The frame's schema as Spark DDL: pyspark 4's ``StructType.toDDL``, else (classic 3.5)
    the JVM's ``StructType.toDDL`` through the frame's ``_jdf``."""
    to_ddl = getattr(frame.schema, "toDDL", None)
    if to_ddl is not None:
        return str(to_ddl())
    if not is_connect(frame):
        return str(frame._jdf.schema().toDDL())  # noqa: SLF001 - classic 3.5
    # Connect on 3.5: no JVM here; each top-level column quoted, its type as Spark prints it
    # (``struct<a:int>``, ``decimal(12,4)``: forms Spark's DDL parser reads)
    return ", ".join("`" + f.name.replace("`", "``") + "` " + f.dataType.simpleString() for f in frame.schema.fields)


def columns_by_position(df: Any) -> Optional[list[Any]]:
    """``df``'s top-level columns as Columns bound to its own output attributes (not looked
    up by name, so ``a`` beside ``A`` is never ambiguous), on a classic session; None on
    Spark Connect, which has no JVM here (the caller names the columns instead)."""
    if is_connect(df):
        return None
    from pyspark.sql.column import Column

    session = session_of(df)
    output = df._jdf.queryExecution().analyzed().output()  # noqa: SLF001 - classic only
    make = jvm(session).org.apache.spark.sql.Column  # Column(Expression): Spark 3.5
    return [Column(make(output.apply(i))) for i in range(output.size())]


def quoted_name(name: str) -> str:
    """A column name as a backtick-quoted SQL identifier (dots and backticks kept literal)."""
    return "`" + name.replace("`", "``") + "`"


def _metrics_by_name(jo: Any, observation: Any) -> dict[str, Any]:
    """Observed metrics without ``Observation.getRow`` (Spark 3.5 patches before it):
    ``getAsJava``'s values, a struct (a JVM ``Row``, which pyspark 3.5's ``get`` leaves as a
    py4j object) read through its JSON; else pyspark's ``get``."""
    import decimal
    import json

    from py4j.java_gateway import JavaObject

    try:
        metrics = dict(jo.getAsJava().items())
    except Exception:  # noqa: BLE001 - pyspark's own reading
        return dict(observation.get)
    return {str(k): json.loads(str(v.json()), parse_float=decimal.Decimal) if isinstance(v, JavaObject) else v
            for k, v in metrics.items()}


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


def observe(frame: Any, observation: Any, column: Any) -> Any:
    """``frame.observe(observation, column)`` for a classic frame and a new classic
    ``Observation``, in two py4j round trips instead of seven.

    pyspark's ``Observation._on`` looks the JVM class up and builds an empty
    Scala Seq on every call; here both are looked up once per session. Does
    what ``_on`` does (sets the private ``_jvm`` and ``_jo``); an
    ``Observation`` without those attributes goes through the public call.
    """
    private = (getattr(observation, "_jo", False) is None and hasattr(observation, "_name")
               and hasattr(frame, "_jdf") and hasattr(frame, "_sc") and hasattr(column, "_jc"))
    if is_connect(frame) or not private:
        return frame.observe(observation, column)
    DataFrame, _to_seq = _classic_frame_and_to_seq()

    session, sc = session_of(frame), frame._sc  # noqa: SLF001 - classic frames only
    memo = session_memo(session)
    handles = memo.get(_OBSERVE_HANDLES)
    if handles is None:
        handles = (getattr(sc._jvm, "org.apache.spark.sql.Observation"), _to_seq(sc, []))  # noqa: SLF001
        memo[_OBSERVE_HANDLES] = handles
    observation_class, no_more_columns = handles
    observation._jvm = sc._jvm  # noqa: SLF001
    observation._jo = observation_class(observation._name) if observation._name is not None else observation_class()
    observed = frame._jdf.observe(observation._jo, column._jc, no_more_columns)  # noqa: SLF001
    return DataFrame(observed, session)


def observation_metrics(observation: Any) -> dict[str, Any]:
    """The metrics of a classic ``Observation`` whose metrics arrived, by name.

    Read as the JVM row's JSON (``Row.json``: two round trips, nothing to
    unpickle) instead of pyspark's ``Observation.get`` (four round trips and
    a pickled row, about a millisecond more). Structs come back as dicts and
    numbers exactly (decimals as ``Decimal``, integers as ``int``). Without
    the private ``_jo``, or when the row has no JSON, pyspark's ``get``.
    """
    import decimal
    import json

    jo = getattr(observation, "_jo", None)
    if jo is None:
        return dict(observation.get)
    try:
        text = str(jo.getRow().json())
    except Exception:  # noqa: BLE001 - no getRow (Spark 3.5 before it), or a row with no JSON form
        return _metrics_by_name(jo, observation)
    metrics: dict[str, Any] = json.loads(text, parse_float=decimal.Decimal)
    return metrics


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
    arrived = _observation_arrived_check(jo, session_memo(spark))
    if drain_ms > 0 and not arrived():
        try:
            bus = remembered(session_memo(spark), _LISTENER_BUS, lambda: spark.sparkContext._jsc.sc().listenerBus())  # noqa: SLF001
            bus.waitUntilEmpty(drain_ms)
        except Exception:  # noqa: BLE001 - a bus that cannot be drained: rely on the future alone
            pass
    deadline = time.monotonic() + wait_sec
    pause = 0.001  # metrics usually arrive within a few ms of the write: poll soon, then back off
    while not arrived():
        if time.monotonic() >= deadline:
            return False
        time.sleep(pause)
        pause = min(pause * 2, 0.01)
    return True


def connect_observes_writes(frame: Any) -> bool:
    """Spark Connect: whether an observation on ``frame`` can hash it in a write's own pass
    (pyspark 4's client). Not on pyspark 3.5's: its server sends no observed metrics back
    for a command (a write; SPARK-45813 came in 4.0), its frames have no ``executionInfo``
    to read them from, and its ``CollectMetrics`` relation carries its child's plan id, so
    a column taken from the observed frame (``df["id"]``) cannot be resolved ("fail to
    find subplan with plan_id")."""
    return hasattr(type(frame), "executionInfo")


def connect_flows(written: Any) -> dict[str, Any]:
    """Spark Connect: the observed metrics (by observation name) the last action on
    ``written`` carried back in its response (``DataFrame.executionInfo.flows``)."""
    info = getattr(written, "executionInfo", None)
    if info is None:
        return {}
    return {str(name): metrics for name, metrics in (info.flows or [])}


def frame_to_arrow(df: Any) -> Any:
    """``df.toArrow()`` (pyspark 4.0+); on pyspark 3.5 the same table built from the
    private ``_collect_as_arrow`` (classic) or the Connect client's ``to_table``: the
    frame's schema as pyspark's ``to_arrow_schema`` gives it (instants as UTC)."""
    if hasattr(df, "toArrow"):
        return df.toArrow()
    import pyarrow as pa
    from pyspark.sql.pandas.types import to_arrow_schema

    schema = to_arrow_schema(df.schema)
    if is_connect(df):  # Spark Connect 3.5
        table, _ = df._session.client.to_table(df._plan.to_proto(df._session.client))  # noqa: SLF001
        return table.cast(schema)
    batches = df._collect_as_arrow()  # noqa: SLF001 - classic 3.5: no rows -> no batches
    return pa.Table.from_batches(batches, schema=schema) if not batches else pa.Table.from_batches(batches).cast(schema)


def frame_from_arrow(spark: Any, table: Any) -> Any:
    """``spark.createDataFrame(table)`` for a pyarrow Table on every line.

    pyspark 4.0+ (and Spark Connect 3.5) take the Table; classic pyspark 3.5 does not
    (it infers a schema from its columns). There, the Table goes to the JVM as an Arrow
    stream, as 4.0 does: no pandas in between, so nested types, NaN beside null and
    instants keep their values exactly. A naive timestamp means wall-clock time in the
    session time zone (``TIMESTAMP``), or ``TIMESTAMP_NTZ`` when ``spark.sql.timestampType``
    says so, as on 4.x.
    """
    if is_connect(spark) or hasattr(classic_frame_class(), "toArrow"):
        return spark.createDataFrame(table)
    from pyspark.sql.pandas.serializers import ArrowStreamSerializer
    from pyspark.sql.pandas.types import from_arrow_schema, to_arrow_schema

    prefer_ntz = str(spark.conf.get("spark.sql.timestampType", "TIMESTAMP_LTZ")).upper() == "TIMESTAMP_NTZ"
    schema = from_arrow_schema(table.schema, prefer_timestamp_ntz=prefer_ntz)
    zone = str(spark.conf.get("spark.sql.session.timeZone"))
    from ubunye.spark.arrow_instants import naive_instants_in

    columns = [naive_instants_in(column, zone, prefer_ntz) for column in table.columns]
    import pyarrow as pa

    table = pa.Table.from_arrays(columns, names=table.column_names).cast(to_arrow_schema(schema))
    batches = table.to_batches(max_chunksize=int(spark.conf.get("spark.sql.execution.arrow.maxRecordsPerBatch", "10000")))
    sc, jvm_view = spark.sparkContext, jvm(spark)
    jiter = sc._serialize_to_jvm(  # noqa: SLF001 - what pyspark 3.5's own Arrow path calls
        batches, ArrowStreamSerializer(), jvm_view.PythonSQLUtils.readArrowStreamFromFile, jvm_view.ArrowIteratorServer)
    jdf = jvm_view.PythonSQLUtils.toDataFrame(jiter, schema.json(), jsession(spark))
    return classic_frame_class()(jdf, spark)


# --- Private reads of other layers, and the pieces of a write's hash (issue 14) --------------
# Kept in functions of their own, below everything else, so that per-Spark-line branches
# added above merge without touching them.

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


def classic_frame_class() -> Any:
    """The classic pyspark ``DataFrame`` class (whatever the process-wide Connect flag says)."""
    try:
        from pyspark.sql.classic.dataframe import DataFrame
    except ImportError:  # pragma: no cover - pyspark before 4.0
        from pyspark.sql.dataframe import DataFrame
    return DataFrame


def map_jdf(frame: Any, transform: Any) -> Any:
    """A classic frame whose JVM ``Dataset`` is ``transform(frame's Dataset)``."""
    session = session_of(frame)
    return classic_frame_class()(transform(frame._jdf), session)  # noqa: SLF001 - classic frames only


# Plan nodes whose rows are rows of their child, with the child's values (a projection may drop
# or replace columns: what stays is checked by attribute id).
_ROW_KEEPING_NODES = frozenset(f"org.apache.spark.sql.catalyst.plans.logical.{name}" for name in (
    "Project", "Filter", "SubqueryAlias", "View", "Sort", "Repartition", "RepartitionByExpression",
    "LocalLimit", "GlobalLimit", "Sample", "Distinct", "Deduplicate"))
_LOGICAL_RELATION = "org.apache.spark.sql.execution.datasources.LogicalRelation"
_HADOOP_FS_RELATION = "org.apache.spark.sql.execution.datasources.HadoopFsRelation"
_V2_RELATION = "org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation"


def read_partition_columns(df: Any) -> list[str]:
    """The partition columns of the table or folders a classic frame reads, in folder order, as
    the relation names them (``select("AGE")`` keeps ``age``); ``[]`` when there are none or
    the plan is anything else. Never raises.

    From Spark's analyzed plan: one relation under nodes that keep its rows and values (project,
    filter, alias, sort, limit, sample, repartition, distinct; no join, union or aggregate), the
    relation either a ``LogicalRelation`` over a ``HadoopFsRelation`` (files read from
    ``key=value`` folders, catalog tables of files, and Delta tables by path or name: Delta's
    relation is an anonymous subclass of it, whose ``TahoeLogFileIndex`` answers the table's
    partition columns) with its ``partitionSchema``, or a ``DataSourceV2Relation`` whose table is
    partitioned by identity transforms of top-level columns only. Every partition column must
    still be in the frame's output as the relation's own attribute (same id): a frame that drops
    or replaces one has none. Spark Connect frames (no ``_jdf``, no plan in this process): ``[]``.
    """
    jdf = getattr(df, "_jdf", None)
    if jdf is None or is_connect(df):
        return []
    try:
        return _plan_partition_columns(session_of(df).sparkContext._gateway, jdf.queryExecution().analyzed())
    except Exception:  # noqa: BLE001 - a plan this walk does not know: no partition columns
        return []


def _plan_partition_columns(gateway: Any, top: Any) -> list[str]:
    from py4j.java_gateway import is_instance_of

    node = top
    while node.getClass().getName() in _ROW_KEEPING_NODES:
        if node.children().size() != 1:
            return []
        node = node.children().apply(0)
    kind = node.getClass().getName()
    if kind == _LOGICAL_RELATION and is_instance_of(gateway, node.relation(), _HADOOP_FS_RELATION):
        names = list(node.relation().partitionSchema().fieldNames())
    elif kind == _V2_RELATION:
        names = []
        for transform in node.table().partitioning():
            refs = list(transform.references())
            if transform.name() != "identity" or len(refs) != 1 or len(list(refs[0].fieldNames())) != 1:
                return []
            names.append(str(list(refs[0].fieldNames())[0]))
    else:
        return []
    relation = _attributes(node.output())
    kept = {exprid for _, exprid in _attributes(top.output())}
    columns = []
    for wanted in names:
        same = [a for a in relation if a[0] == wanted] or [a for a in relation if a[0].lower() == wanted.lower()]
        if len(same) != 1 or same[0][1] not in kept:
            return []
        columns.append(same[0][0])
    return columns


def _attributes(seq: Any) -> list[tuple[str, int]]:
    """A plan's output attributes: (name, expression id)."""
    return [(str(a.name()), int(a.exprId().id())) for a in (seq.apply(i) for i in range(seq.size()))]
