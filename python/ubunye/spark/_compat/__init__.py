"""Every private or moving pyspark detail the package relies on, in one place.

pyspark has two kinds of session: *classic* (a JVM in this process, reached
through py4j) and *Spark Connect* (a gRPC client; no JVM here). Public API
covers most of what we need on both; the few private attributes used below
(``builder._options``, ``spark._jvm``, ``spark._jsparkSession``, the JVM
context ``_jsc``, a classic frame's ``_jdf`` / ``_sc``, a Column's ``_jc``, an
``Observation``'s ``_jo``) are read only here, so a pyspark upgrade that moves
them breaks one folder. By concern:

- :mod:`.sessions`: JVM access (py4j handles of a classic session) and the per-session memo;
- :mod:`.lines`: version facts, where Spark 3.5 and 4.x (and classic and Connect) differ;
- :mod:`.observing`: observed metrics (a write's hash in its own pass);
- :mod:`.plans`: reading a frame's analyzed plan (its partition columns).

This module hands their names on (``from ubunye.spark._compat import is_connect``).

Each py4j call is a round trip to the JVM; what cannot change while a session
lives (class handles, versions) is kept in :func:`session_memo`, so a task
run asks it once per session rather than once per run.

Importing this package imports nothing from pyspark.
"""
from __future__ import annotations

from ubunye.spark._compat.sessions import (CONNECT_MODULE_PREFIX, builder_options, close_signalled_connection,
                                           close_thread_connection, frame_memo, hadoop_configuration, hadoop_handles,
                                           hadoop_path_exists, in_spark_task, is_connect, is_spark_dataframe,
                                           java_exception_text, jsession, jvm, jvm_byte_array, jvm_bytes, jvm_class,
                                           jvm_java_version, jvm_scala_version, remembered, session_memo, session_of,
                                           worker_python)
from ubunye.spark._compat.lines import (_OBSERVATION_FUTURE, _classic_frame_and_to_seq, _observation_arrived_check,
                                        call_function, classic_frame_class, columns_by_position, frame_from_arrow,
                                        frame_to_arrow, functions_for, map_jdf, quoted_name, schema_ddl,
                                        star_expands_in_metrics)
from ubunye.spark._compat.observing import (connect_flows, connect_observes_writes, new_observation,
                                            observation_arrived, observation_metrics, observe)
from ubunye.spark._compat.plans import read_partition_columns

__all__ = ["CONNECT_MODULE_PREFIX", "builder_options", "close_signalled_connection", "close_thread_connection",
    "frame_memo", "hadoop_configuration", "hadoop_handles", "hadoop_path_exists", "in_spark_task", "is_connect",
    "is_spark_dataframe", "java_exception_text", "jsession", "jvm", "jvm_byte_array", "jvm_bytes", "jvm_class",
    "jvm_java_version", "jvm_scala_version", "remembered", "session_memo", "session_of", "worker_python",
    "_OBSERVATION_FUTURE", "_classic_frame_and_to_seq", "_observation_arrived_check", "call_function",
    "classic_frame_class", "columns_by_position", "frame_from_arrow", "frame_to_arrow", "functions_for", "map_jdf",
    "quoted_name", "schema_ddl", "star_expands_in_metrics", "connect_flows", "connect_observes_writes",
    "new_observation", "observation_arrived", "observation_metrics", "observe", "read_partition_columns"]
