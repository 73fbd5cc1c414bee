"""What Spark, Scala and Java a session *will* run, found before any JVM starts.

- The Spark version: the installed pyspark's distribution version
  (``importlib.metadata``; pyspark is not imported), or, when ``SPARK_HOME``
  is set and holds Spark's jars (pyspark then launches that Spark), the
  version in its ``spark-core_<scala>-<version>.jar``.
- The Scala version: the ``scala-library-2.1x.y.jar`` in the jars folder the
  JVM will load (``$SPARK_HOME/jars`` when set, else pyspark's own ``jars/``,
  found with ``importlib.util.find_spec``).
- The Java version: ``java.specification.version`` of the JVM pyspark will
  launch (``$JAVA_HOME/bin/java``, else ``java`` on the PATH), from its
  ``release`` file, else by asking ``java`` once.

Importing this module imports nothing from pyspark.
"""
from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

PYSPARK_DISTRIBUTIONS = ("pyspark", "pyspark-client", "pyspark-connect")
_SCALA_LIBRARY = re.compile(r"^scala-library-(\d+\.\d+(?:\.\d+)?)\.jar$")
_SPARK_CORE = re.compile(r"^spark-core_(\d+\.\d+)-(\d+\.\d+\.\d+[^/]*?)\.jar$")
_RELEASE_VERSION = re.compile(r'^JAVA_VERSION="([^"]+)"', re.MULTILINE)
CLASS_FILE_OFFSET = 44  # class file major version = Java feature release + 44 (Java 8 -> 52)


@dataclass(frozen=True)
class SparkRuntime:
    """The Spark a session started from this Python would run (None: not found)."""

    spark: Optional[str]  # full version, "3.5.9"
    scala: Optional[str]  # full Scala library version, "2.12.18"
    jars: Optional[Path]  # the folder Spark's jars are in
    source: str  # where they were read: "pyspark", "SPARK_HOME" or "none"

    @property
    def spark_line(self) -> Optional[str]:
        return line_of(self.spark) if self.spark else None

    @property
    def scala_line(self) -> Optional[str]:
        return line_of(self.scala) if self.scala else None


def line_of(version: str) -> str:
    """``"major.minor"`` of a version string (``"4.1.1"`` -> ``"4.1"``)."""
    parts = version.strip().split(".")
    return ".".join(parts[:2])


def pyspark_version() -> Optional[str]:
    """The installed pyspark distribution's version, without importing pyspark."""
    for dist in PYSPARK_DISTRIBUTIONS:
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


def pyspark_jars_dir() -> Optional[Path]:
    """pyspark's own ``jars/`` folder (None for a thin client without jars)."""
    try:
        spec = importlib.util.find_spec("pyspark")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        folder = Path(location) / "jars"
        if folder.is_dir():
            return folder
    return None


def _version_in(folder: Path, pattern: "re.Pattern[str]", group: int) -> Optional[str]:
    """``group`` of the first jar name in ``folder`` (sorted) that ``pattern`` matches, or None."""
    try:
        names = sorted(p.name for p in folder.iterdir())
    except OSError:
        return None
    for name in names:
        found = pattern.match(name)
        if found:
            return found.group(group)
    return None


def scala_of_jars(folder: Path) -> Optional[str]:
    """The Scala library version of a Spark jars folder (``"2.13.17"``), or None."""
    return _version_in(folder, _SCALA_LIBRARY, 1)


def spark_of_jars(folder: Path) -> Optional[str]:
    """The Spark version of a Spark jars folder (from ``spark-core_<scala>-<v>.jar``), or None."""
    return _version_in(folder, _SPARK_CORE, 2)


def spark_runtime() -> SparkRuntime:
    """The Spark and Scala versions a new session would run (see the module docstring)."""
    home = os.environ.get("SPARK_HOME")
    if home:
        folder = Path(home) / "jars"
        scala = scala_of_jars(folder) if folder.is_dir() else None
        if scala is not None:
            return SparkRuntime(spark_of_jars(folder) or pyspark_version(), scala, folder, "SPARK_HOME")
    folder_or_none = pyspark_jars_dir()
    scala = scala_of_jars(folder_or_none) if folder_or_none is not None else None
    version = pyspark_version()
    if version is None and folder_or_none is None:
        return SparkRuntime(None, None, None, "none")
    return SparkRuntime(version, scala, folder_or_none, "pyspark")


def class_file_major(java_feature: int) -> int:
    """The class file major version a Java feature release reads at most (17 -> 61)."""
    return java_feature + CLASS_FILE_OFFSET


def java_feature(version: str) -> Optional[int]:
    """The feature release of a Java version string: ``"1.8.0_392"`` -> 8, ``"17.0.15"`` -> 17."""
    parts = version.strip().split(".")
    try:
        first = int(re.sub(r"\D.*$", "", parts[0]) or "x")
        if first == 1 and len(parts) > 1:
            return int(re.sub(r"\D.*$", "", parts[1]) or "x")
        return first
    except ValueError:
        return None


def java_executable() -> Optional[Path]:
    """The ``java`` Spark's launcher uses: ``$JAVA_HOME/bin/java``, else ``java`` on the PATH."""
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "java").is_file():
        return Path(home) / "bin" / "java"
    found = shutil.which("java")
    return Path(found) if found else None


@functools.lru_cache(maxsize=8)
def _java_version_of(java: Path) -> Optional[str]:
    real = java.resolve()
    for home in (real.parent.parent, real.parent.parent.parent):  # bin/java, jre/bin/java
        release = home / "release"
        if release.is_file():
            found = _RELEASE_VERSION.search(release.read_text(encoding="utf-8", errors="replace"))
            if found:
                return found.group(1)
    try:
        done = subprocess.run([str(java), "-XshowSettings:properties", "-version"],
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    found = re.search(r"java\.specification\.version = (\S+)", done.stderr + done.stdout)
    return found.group(1) if found else None


def launcher_java_version() -> Optional[str]:
    """The Java version of the JVM a new local session would start on (None: unknown)."""
    java = java_executable()
    return _java_version_of(java) if java is not None else None
