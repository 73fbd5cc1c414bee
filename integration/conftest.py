"""Shared fixtures of the Spark integration suite (tests that start Spark).

Fixtures for every integration test file:

- ``spark`` (session scope): ONE classic ``local[2]`` session for the whole run.
  It has the plugin jar and its extension (``ubunye.spark.configure``: the
  ``ubunye_rows_v1*`` SQL functions exist) and Delta (``io.delta`` extension and
  catalog; Delta's jars come through ``spark.jars.packages`` and the local ivy
  cache). Settings: session time zone UTC, 4 shuffle partitions, UI off, driver
  bound to 127.0.0.1, warehouse and Derby files under a temp folder, Python
  workers on this interpreter. The plugin jar must have been built
  (``scripts/setup`` runs ``scripts/build-jar``): without it this fixture
  errors, so the tests that need it fail; nothing is skipped.
  Do not stop it, and do not change its static settings.
  With ``PYSPARK_GATEWAY_PORT`` set (``scripts/mutation`` for a module that needs
  Spark), the active session of the JVM already running there instead.
- ``spark_conf`` (function scope): ``with spark_conf({"spark.sql.ansi.enabled": "false"}):``
  sets runtime SQL settings on the shared session and restores them after.
- ``rows_v1_fixtures`` (session scope): every fixture of ``tests/fixtures/rows-v1``
  (:mod:`ubunye.testing.fixtures`); build one as a Spark DataFrame with
  ``ubunye.spark.testing.fixture_dataframe(spark, fx)``.
- ``connect_servers`` (session scope, started on first use): two local Spark
  Connect servers in their own JVMs on 127.0.0.1, ``"plain"`` (no plugin) and
  ``"native"`` (plugin jar and extension); ``connect_plain`` / ``connect_native``
  are Connect sessions on them.
"""
from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import Any, Callable, ContextManager, Iterator, Mapping, Optional

import pytest

LOOPBACK = "127.0.0.1"

# Before any JVM starts: Python workers use this interpreter (they import ubunye),
# and Spark binds to the loopback interface only.
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
os.environ.setdefault("SPARK_LOCAL_IP", LOOPBACK)
# A worker that already holds Spark Connect (gRPC) channels forks the classic session's
# spark-submit later: without gRPC's fork handlers the child only execs. (Once, on a loaded
# machine, that JVM exited at start right after gRPC logged "epoll_wait error: Bad file
# descriptor" in the same worker.)
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test under integration/ starts Spark: mark it ``spark``."""
    for item in items:
        if "integration" in Path(str(item.fspath)).parts:
            item.add_marker(pytest.mark.spark)


@pytest.fixture(scope="session")
def spark_workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A temp folder for the shared session's warehouse, Derby and scratch files."""
    return tmp_path_factory.mktemp("spark")


@pytest.fixture(scope="session")
def spark(spark_workdir: Path) -> Iterator[Any]:
    """The shared classic session (see the module docstring); with ``PYSPARK_GATEWAY_PORT`` set,
    the session of the JVM already running there (:func:`attached_session`)."""
    import importlib.util

    if os.environ.get("PYSPARK_GATEWAY_PORT"):
        yield attached_session()  # not stopped: it is the JVM owner's
        return

    from pyspark.sql import SparkSession

    import ubunye.spark
    from ubunye.spark.testing import stable_jar

    builder: Any = (
        SparkSession.builder.master("local[2]")
        .appName("ubunye-integration")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.default.parallelism", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.host", LOOPBACK)
        .config("spark.driver.bindAddress", LOOPBACK)
        .config("spark.pyspark.python", sys.executable)
        .config("spark.sql.warehouse.dir", str(spark_workdir / "warehouse"))
        .config("spark.local.dir", str(spark_workdir / "local"))
        .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={spark_workdir / 'derby'}")
    )
    from ubunye.engine.backends.spark_session import PROLEPTIC_CALENDAR

    for key, value in PROLEPTIC_CALENDAR.items():  # Spark 4's defaults; 3.5 refuses dates before 1582
        builder = builder.config(key, value)
    if importlib.util.find_spec("delta") is not None:  # no delta-spark release for some lines (4.3)
        from delta.pip_utils import configure_spark_with_delta_pip

        builder = builder.config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension").config(
            "spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        builder = configure_spark_with_delta_pip(builder)
    # a copy of the packaged jar (raises JarNotFoundError when the jar was not built)
    builder = ubunye.spark.configure(builder, jar=stable_jar(spark_workdir / "jar"))
    session = _start(builder)
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def attached_session() -> Any:
    """The active session of the JVM that ``PYSPARK_GATEWAY_PORT`` and ``PYSPARK_GATEWAY_SECRET``
    name (pyspark's own variables), over new connections made by this process.

    ``scripts/mutation`` runs one JVM for a whole run of a module that needs Spark and each mutant's
    test process (a fork of mutmut's) attaches to it here: a JVM started per mutant takes minutes on
    a loaded machine, and one inherited across a fork would share its py4j sockets with the parent.
    """
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    if SparkContext._active_spark_context is not None:  # attached already: pytest run again in this process
        return SparkSession(SparkContext._active_spark_context)
    SparkContext._ensure_initialized()  # connects to the running JVM (pyspark's launch_gateway)
    jvm: Any = SparkContext._jvm
    running = jvm.org.apache.spark.SparkContext.getOrCreate()  # the owner's context
    jsc = jvm.org.apache.spark.api.java.JavaSparkContext.fromSparkContext(running)
    return SparkSession(SparkContext(gateway=SparkContext._gateway, jsc=jsc))


def _start(builder: Any, attempts: int = 3) -> Any:
    """``get_or_create`` (Delta's jars: one Ivy download at a time across the two workers),
    tried again when the JVM exits before it starts (said on stderr, so the log shows it)."""
    import time

    from ubunye.spark.packages import get_or_create

    for attempt in range(1, attempts + 1):
        try:
            return get_or_create(builder)
        except Exception as exc:  # noqa: BLE001 - only the gateway's early exit is tried again
            if "JAVA_GATEWAY_EXITED" not in str(exc) or attempt == attempts:
                raise
            print(f"[integration] the Spark JVM exited at start (attempt {attempt} of {attempts}); "
                  "starting it again", file=sys.stderr)
            time.sleep(5)
    raise AssertionError("unreachable")


@pytest.fixture
def spark_conf(spark: Any) -> Callable[[Mapping[str, str]], ContextManager[None]]:
    """A context manager that sets runtime SQL settings and restores the old values."""

    @contextlib.contextmanager
    def setting(conf: Mapping[str, str]) -> Iterator[None]:
        old: dict[str, Optional[str]] = {k: spark.conf.get(k, None) for k in conf}
        try:
            for key, value in conf.items():
                spark.conf.set(key, value)
            yield
        finally:
            for key, value in old.items():
                if value is None:
                    spark.conf.unset(key)
                else:
                    spark.conf.set(key, value)

    return setting


@pytest.fixture(scope="session")
def rows_v1_fixtures() -> list[Any]:
    """Every rows-v1 fixture, loaded and decoded."""
    from ubunye.testing.fixtures import load_fixtures

    return load_fixtures()


@pytest.fixture(scope="session")
def connect_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Two local Spark Connect servers: ``"plain"`` and ``"native"`` (with the plugin)."""
    from ubunye.spark.testing import ConnectServer, stable_jar, start_all

    root = tmp_path_factory.mktemp("connect")
    info = stable_jar(root / "jar")
    servers = {
        "plain": ConnectServer(root / "plain", name="plain"),
        "native": ConnectServer(
            root / "native",
            conf={"spark.jars": str(info.path), "spark.sql.extensions": info.extensions},
            name="native",
        ),
    }
    try:
        start_all(list(servers.values()))
        yield servers
    finally:
        for server in servers.values():
            server.stop()


@pytest.fixture(scope="session")
def connect_plain(connect_servers: dict[str, Any]) -> Iterator[Any]:
    """A Spark Connect session on the server without the plugin."""
    session = connect_servers["plain"].session()
    yield session
    session.stop()


@pytest.fixture(scope="session")
def connect_native(connect_servers: dict[str, Any]) -> Iterator[Any]:
    """A Spark Connect session on the server with the plugin extension."""
    session = connect_servers["native"].session()
    yield session
    session.stop()



def pytest_sessionstart(session: pytest.Session) -> None:
    """A fresh parity log per run (on the controlling process, before any worker reads)."""
    if hasattr(session.config, "workerinput"):
        return
    import parity

    explicit = os.environ.get("UBUNYE_PARITY_LOG")
    for old in [Path(explicit)] if explicit else parity.log_path().parent.glob("*.jsonl"):
        old.unlink(missing_ok=True)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """The parity suite's counts (integration/parity.py), when any parity case ran."""
    import parity

    counts = parity.summary()
    if sum(counts.values()):
        terminalreporter.write_line(
            "parity of Spark and the pandas reader: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
