"""Test harness for the Spark engines: fixture tables, a Spark Connect server, a cluster.

Used by the integration suite (``integration/conftest.py``); usable by anyone
who needs to check a Spark deployment against the rows-v1 fixtures.

- :func:`fixture_dataframe` builds a fixture (``ubunye.testing.fixtures``) as a
  Spark DataFrame with the fixture's Spark types, on classic or Connect.
- :class:`ConnectServer` runs a local Spark Connect server (its own JVM, bound
  to 127.0.0.1 on a free port), optionally with the plugin extension.
- :class:`StandaloneCluster` runs a standalone master and one worker on
  127.0.0.1, whose executors are JVMs other than the driver.

Every process is started in its own process group and ended by that group's id.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any, Mapping, Optional

from ubunye.hashing.kinds import Kind

LOOPBACK = "127.0.0.1"
CONNECT_SERVER_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"
MASTER_CLASS = "org.apache.spark.deploy.master.Master"
WORKER_CLASS = "org.apache.spark.deploy.worker.Worker"


# ---------------------------------------------------------------- fixture tables


def spark_value(value: Any, kind: Kind) -> Any:
    """A decoded fixture value as pyspark's ``createDataFrame`` takes it for ``kind``.

    Maps become dicts (a struct key becomes a tuple, which is hashable);
    everything else is already in pyspark's form.
    """
    if value is None:
        return None
    if kind.tag == "list":
        return [spark_value(v, kind.children[0]) for v in value]
    if kind.tag == "struct":
        return {n: spark_value(value.get(n), k) for n, k in zip(kind.names, kind.children)}
    if kind.tag == "map":
        key_kind, value_kind = kind.children
        return {_key(k, key_kind): spark_value(v, value_kind) for k, v in value}
    return value


def _key(value: Any, kind: Kind) -> Any:
    converted = spark_value(value, kind)
    if isinstance(converted, dict):
        return tuple(converted[n] for n in kind.names)
    if isinstance(converted, list):
        return tuple(converted)
    return converted


def fixture_dataframe(spark: Any, fx: Any, partitions: Optional[int] = None) -> Any:
    """The fixture ``fx`` (a :class:`ubunye.testing.fixtures.Fixture`) as a Spark DataFrame.

    Column types come from the fixture's ``spark`` DDL types; ``partitions``
    repartitions the rows (round robin) when given.
    """
    kinds = [c.parsed for c in fx.columns]
    rows = [
        tuple(spark_value(row.get(c.name), k) for c, k in zip(fx.columns, kinds)) for row in fx.rows
    ]
    if not fx.columns:
        df = spark.range(len(rows)).select()
    else:
        df = spark.createDataFrame(rows, fx.spark_ddl())
    if partitions is not None:
        df = df.repartition(partitions)
    return df


# ---------------------------------------------------------------- processes


def stable_jar(folder: Path) -> Any:
    """A copy of the packaged jar and its JSON in ``folder``, as a :class:`~ubunye.spark.jar.JarInfo`.

    A long test run or benchmark uses the copy, so rebuilding the package's
    jar meanwhile (``scripts/build-jar``) cannot pull it from under a running JVM.
    """
    import shutil

    from ubunye.spark.jar import jar_info, read_description

    info = jar_info()
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy2(info.path, folder / info.path.name)
    assert info.description is not None
    shutil.copy2(info.description, folder / info.description.name)
    return read_description(folder / info.description.name)


def pyspark_home() -> Path:
    """The folder of the installed pyspark (its ``bin/`` has spark-submit and spark-class)."""
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def child_env(extra: Optional[Mapping[str, str]] = None) -> dict[str, str]:
    """Environment for Spark child processes: this Python for workers, loopback only."""
    env = dict(os.environ)
    env.pop("SPARK_REMOTE", None)
    env.pop("SPARK_CONNECT_MODE_ENABLED", None)
    env["PYSPARK_PYTHON"] = sys.executable
    env["PYSPARK_DRIVER_PYTHON"] = sys.executable
    env["SPARK_LOCAL_IP"] = LOOPBACK
    env["SPARK_HOME"] = str(pyspark_home())
    if extra:
        env.update(extra)
    return env


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((LOOPBACK, 0))
        return int(s.getsockname()[1])


def port_open(port: int, host: str = LOOPBACK) -> bool:
    """True when something accepts TCP connections on ``host:port``."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.5)
        return s.connect_ex((host, port)) == 0


class ManagedProcess:
    """A child process in its own process group, with its output in a log file."""

    def __init__(self, name: str, cmd: list[str], log: Path, env: Mapping[str, str]) -> None:
        self.name = name
        self.log = log
        log.parent.mkdir(parents=True, exist_ok=True)
        self._out = open(log, "wb")
        self.proc = subprocess.Popen(
            cmd, stdout=self._out, stderr=subprocess.STDOUT, env=dict(env), start_new_session=True
        )

    def alive(self) -> bool:
        return self.proc.poll() is None

    def log_tail(self, lines: int = 40) -> str:
        try:
            text = self.log.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return "(no log)"
        return "\n".join(text[-lines:])

    def wait_until(self, ready: Any, timeout: float, what: str) -> None:
        """Poll ``ready()`` until true; raise with the log's tail if the process dies or time runs out."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if ready():
                return
            if not self.alive():
                raise RuntimeError(
                    f"{self.name} exited with code {self.proc.returncode} before {what}; "
                    f"log {self.log}:\n{self.log_tail()}"
                )
            time.sleep(0.5)
        raise RuntimeError(f"{self.name}: no {what} after {timeout:.0f} s; log {self.log}:\n{self.log_tail()}")

    def stop(self, timeout: float = 30.0) -> None:
        """End the process group this object started (SIGTERM, then SIGKILL)."""
        if self.alive():
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=timeout)
        self._out.close()


def connect_server_packages() -> list[str]:
    """``--packages`` for the Spark Connect server when pyspark's jars lack it (Spark 3.5
    ships it as a separate ``spark-connect_<scala>`` artifact; 4.x has it built in)."""
    from ubunye.spark.runtime import line_of, spark_runtime

    rt = spark_runtime()
    if rt.jars is None or rt.spark is None or rt.scala is None:
        return []
    if any(rt.jars.glob("spark-connect_*.jar")):
        return []
    return ["--packages", f"org.apache.spark:spark-connect_{line_of(rt.scala)}:{rt.spark}"]


def _conf_args(conf: Mapping[str, str]) -> list[str]:
    args: list[str] = []
    for key, value in conf.items():
        args += ["--conf", f"{key}={value}"]
    return args


class ConnectServer:
    """A local Spark Connect server in its own JVM (``local[2]``, 127.0.0.1, a free port).

    ``conf`` adds Spark settings, e.g. ``spark.jars`` and ``spark.sql.extensions``
    for the plugin. Use as a context manager or call :meth:`start` / :meth:`stop`.
    """

    def __init__(self, workdir: Path, conf: Optional[Mapping[str, str]] = None,
                 master: str = "local[2]", name: str = "connect") -> None:
        self.workdir = Path(workdir)
        self.conf = dict(conf or {})
        self.master = master
        self.name = name
        self.port = free_port()
        self.process: Optional[ManagedProcess] = None

    @property
    def url(self) -> str:
        return f"sc://{LOOPBACK}:{self.port}"

    def command(self) -> list[str]:
        conf = {
            "spark.connect.grpc.binding.address": LOOPBACK,
            "spark.connect.grpc.binding.port": str(self.port),
            "spark.ui.enabled": "false",
            "spark.ui.showConsoleProgress": "false",
            "spark.driver.host": LOOPBACK,
            "spark.driver.bindAddress": LOOPBACK,
            "spark.sql.session.timeZone": "UTC",
            "spark.sql.shuffle.partitions": "4",
            "spark.sql.warehouse.dir": str(self.workdir / "warehouse"),
            "spark.driver.extraJavaOptions": f"-Dderby.system.home={self.workdir / 'derby'}",
            **self.conf,
        }
        submit = str(pyspark_home() / "bin" / "spark-submit")
        return [submit, "--class", CONNECT_SERVER_CLASS, "--master", self.master,
                "--name", f"ubunye-{self.name}", *self.packages(), *_conf_args(conf)]

    def packages(self) -> list[str]:
        """:func:`connect_server_packages`, resolved in this server's own ivy folder (two
        servers starting at once would race in a shared one)."""
        packages = connect_server_packages()
        return [*packages, "--conf", f"spark.jars.ivy={self.workdir / 'ivy'}"] if packages else []

    def launch(self) -> "ConnectServer":
        """Start the server's JVM without waiting for it (see :meth:`wait_ready`)."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.process = ManagedProcess(
            f"Spark Connect server {self.name!r}", self.command(), self.workdir / f"{self.name}.log",
            child_env(),
        )
        return self

    def wait_ready(self, timeout: float = 180.0) -> "ConnectServer":
        """Wait until the server accepts connections; raises with its log's tail if it died."""
        if self.process is None:
            raise RuntimeError(f"Spark Connect server {self.name!r} was not launched")
        self.process.wait_until(lambda: port_open(self.port), timeout, f"listener on port {self.port}")
        return self

    def start(self, timeout: float = 180.0) -> "ConnectServer":
        return self.launch().wait_ready(timeout)

    def session(self) -> Any:
        """A new Spark Connect session on this server.

        Made with the Connect builder itself: the generic builder would flag the
        whole process as Connect-only, and a classic session could not start.
        """
        from pyspark.sql.connect.session import SparkSession as ConnectSession

        return ConnectSession.builder.remote(self.url).create()

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop()
            self.process = None

    def __enter__(self) -> "ConnectServer":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def start_all(servers: list[ConnectServer], timeout: float = 240.0) -> None:
    """Launch every server's JVM first (they boot side by side), then wait for each."""
    for server in servers:
        server.launch()
    for server in servers:
        server.wait_ready(timeout)


class StandaloneCluster:
    """A standalone master and one worker on 127.0.0.1 (two 1-core executors per application).

    The worker offers ``cores`` cores and ``memory``; an application that asks
    for ``spark.executor.cores=1`` gets one executor JVM per core, none of them
    the driver. Work files stay under ``workdir``.
    """

    def __init__(self, workdir: Path, cores: int = 2, memory: str = "2g") -> None:
        self.workdir = Path(workdir)
        self.cores = cores
        self.memory = memory
        self.port = free_port()
        self.ui_port = free_port()
        self.worker_ui_port = free_port()
        self.master: Optional[ManagedProcess] = None
        self.worker: Optional[ManagedProcess] = None

    @property
    def url(self) -> str:
        return f"spark://{LOOPBACK}:{self.port}"

    def _spark_class(self, cls: str, *args: str) -> list[str]:
        return [str(pyspark_home() / "bin" / "spark-class"), cls, *args]

    def alive_workers(self) -> int:
        """Workers the master reports ALIVE (its JSON status page on 127.0.0.1)."""
        try:
            with urllib.request.urlopen(f"http://{LOOPBACK}:{self.ui_port}/json/", timeout=2) as r:
                doc = json.loads(r.read().decode("utf-8"))
        except (OSError, ValueError):
            return 0
        return sum(1 for w in doc.get("workers", []) if w.get("state") == "ALIVE")

    def start(self, timeout: float = 120.0) -> "StandaloneCluster":
        self.workdir.mkdir(parents=True, exist_ok=True)
        env = child_env({"SPARK_WORKER_DIR": str(self.workdir / "work")})
        self.master = ManagedProcess(
            "standalone master",
            self._spark_class(MASTER_CLASS, "--host", LOOPBACK, "--port", str(self.port),
                              "--webui-port", str(self.ui_port)),
            self.workdir / "master.log", env,
        )
        self.master.wait_until(lambda: port_open(self.port), timeout, f"listener on port {self.port}")
        self.worker = ManagedProcess(
            "standalone worker",
            self._spark_class(WORKER_CLASS, "--host", LOOPBACK, "--cores", str(self.cores),
                              "--memory", self.memory, "--work-dir", str(self.workdir / "work"),
                              "--webui-port", str(self.worker_ui_port), self.url),
            self.workdir / "worker.log", env,
        )
        self.worker.wait_until(lambda: self.alive_workers() >= 1, timeout, "registration with the master")
        return self

    def stop(self) -> None:
        for proc in (self.worker, self.master):
            if proc is not None:
                proc.stop()
        self.worker = self.master = None

    def __enter__(self) -> "StandaloneCluster":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
