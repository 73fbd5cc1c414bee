"""Version facts: where the Spark lines (3.5 and 4.x) and the two kinds of session differ.

3.5 has no ``pyspark.sql.classic`` (the classic DataFrame and Column helpers live in
``pyspark.sql.dataframe`` / ``pyspark.sql.column``); the JVM ``Observation`` of 3.5
patches before ``future()`` keeps its metrics in a private ``Option`` field; pyspark 3.5 has
no ``toArrow`` and its classic session takes no Arrow table. Both kinds of session call the
plugin functions by name (``call_function``, 3.5+), and ``mapInArrow`` exists on every
supported line, so those need no branch (issue 13)."""
from __future__ import annotations

from typing import Any, Optional

from ubunye.spark._compat.sessions import frame_memo, is_connect, jsession, jvm, remembered, session_of

_OBSERVATION_FUTURE = "compat.observation_future"  # memo key: does the JVM Observation have future()
_SPARK_MAJOR = "compat.spark_major"  # session memo: the session's Spark major version


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
