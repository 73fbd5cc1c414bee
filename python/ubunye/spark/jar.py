"""The plugin jar shipped inside the package, and putting it into a session.

``scripts/build-jar`` places ``ubunye-spark_<spark>_<scala>-<version>.jar`` and
``ubunye-spark.json`` (what the jar is and what it was built for) in
``ubunye/spark/jars/``. This module finds them, adds them to a
``SparkSession.builder`` (:func:`configure`, like Delta's
``configure_spark_with_delta_pip``) or registers the functions on a running
classic session (:func:`install`), and refuses a jar built for another Spark
or Scala line with a message naming both versions; the fingerprint then uses
the Spark SQL fallback.

Importing this module imports nothing from pyspark.
"""
from __future__ import annotations

import json
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, TypeVar

from ubunye.spark import _compat

METADATA_NAME = "ubunye-spark.json"
EXTENSIONS_CLASS = "io.ubunye.spark.UbunyeSparkExtensions"
INSTALL_ENTRY = "io.ubunye.spark.Ubunye.install"
ENTRY_OBJECT = "io.ubunye.spark.Ubunye"
SUMS_FUNCTION = "ubunye_rows_v1_sums"

B = TypeVar("B")


class JarError(RuntimeError):
    """The plugin jar is missing, not loaded, or built for another Spark/Scala."""


class JarNotFoundError(JarError):
    """No jar (or no ``ubunye-spark.json``) in the package's ``jars/`` folder."""


class JarMismatchError(JarError):
    """The jar was built for another Spark or Scala line than the running one."""


class JarMismatchWarning(UserWarning):
    """:func:`configure` left a jar for another Spark line out of the session."""


@dataclass(frozen=True)
class JarInfo:
    """What a plugin jar is: its file and the versions it was built for."""

    path: Path
    version: str
    spark: str
    scala: str
    extensions: str = EXTENSIONS_CLASS
    install: str = INSTALL_ENTRY

    def describe(self) -> str:
        return f"{self.path.name} (built for Spark {self.spark} / Scala {self.scala})"


def jars_dir() -> Path:
    """The package folder that holds the jar and its JSON."""
    return Path(__file__).resolve().parent / "jars"


def jar_info(directory: Optional[Path] = None) -> JarInfo:
    """Read ``ubunye-spark.json`` of ``directory`` (default :func:`jars_dir`)."""
    folder = Path(directory) if directory is not None else jars_dir()
    meta = folder / METADATA_NAME
    if not meta.is_file():
        raise JarNotFoundError(
            f"no {METADATA_NAME} in {folder}: the plugin jar was not built "
            "(run scripts/build-jar, or scripts/setup, in the checkout)"
        )
    try:
        doc = json.loads(meta.read_text(encoding="utf-8"))
        name = str(doc.get("jar") or doc["name"])
        info = JarInfo(
            path=folder / name,
            version=str(doc["version"]),
            spark=str(doc["spark"]),
            scala=str(doc["scala"]),
            extensions=str(doc.get("extensions") or EXTENSIONS_CLASS),
            install=str(doc.get("install") or INSTALL_ENTRY),
        )
    except (ValueError, KeyError, TypeError) as exc:
        raise JarNotFoundError(f"{meta} is not a valid jar description: {exc!r}") from None
    if not info.path.is_file():
        raise JarNotFoundError(f"{meta} names {name}, which is not in {folder}")
    return info


def jar_path() -> str:
    """The absolute path of the packaged plugin jar (for ``spark.jars`` / ``--jars``)."""
    return str(jar_info().path)


def line_of(version: str) -> str:
    """``"major.minor"`` of a version string (``"4.1.1"`` -> ``"4.1"``)."""
    parts = version.strip().split(".")
    return ".".join(parts[:2])


def version_mismatch(
    jar: JarInfo, spark_version: str, scala_version: Optional[str]
) -> Optional[str]:
    """A one-line message when ``jar`` does not fit the running Spark/Scala, else None.

    ``scala_version`` None means unknown (Spark Connect, or before the JVM
    starts): only the Spark line is compared then.
    """
    spark_ok = line_of(jar.spark) == line_of(spark_version)
    scala_ok = scala_version is None or line_of(jar.scala) == line_of(scala_version)
    if spark_ok and scala_ok:
        return None
    running = f"Spark {spark_version}" + (f" / Scala {scala_version}" if scala_version else "")
    return (
        f"the ubunye-spark jar {jar.path.name} is built for Spark {jar.spark} / Scala "
        f"{jar.scala}, but this session runs {running}; the native functions are not "
        "used (the Spark SQL fallback gives the same digest) - build the jar for this "
        "Spark line (scripts/build-jar)"
    )


def _append_csv(existing: Optional[str], item: str) -> str:
    """``existing`` (a comma-separated list) with ``item`` appended once."""
    items = [x.strip() for x in (existing or "").split(",") if x.strip()]
    if item not in items:
        items.append(item)
    return ",".join(items)


def configure(builder: B, *, jar: Optional[JarInfo] = None, extensions: bool = True) -> B:
    """Add the plugin jar (``spark.jars``) and its extensions to a classic session builder.

    Existing ``spark.jars`` and ``spark.sql.extensions`` entries (Delta's, for
    example) are kept. A jar built for another Spark line than the installed
    pyspark is left out with a :class:`JarMismatchWarning` naming both
    versions, so the session still starts and fingerprints use the fallback.
    Raises :class:`JarNotFoundError` when the jar was not built.
    """
    import pyspark

    info = jar if jar is not None else jar_info()
    problem = version_mismatch(info, pyspark.__version__, None)
    if problem is not None:
        warnings.warn(problem, JarMismatchWarning, stacklevel=2)
        return builder
    options = _compat.builder_options(builder)
    b: Any = builder
    b.config("spark.jars", _append_csv(options.get("spark.jars"), str(info.path)))
    if extensions:
        b.config(
            "spark.sql.extensions", _append_csv(options.get("spark.sql.extensions"), info.extensions)
        )
    return builder


def loaded_jar(spark: Any) -> Optional[JarInfo]:
    """The plugin jar a classic session's driver has loaded (its BuildInfo), or None."""
    try:
        entry = _compat.jvm_class(spark, ENTRY_OBJECT)
    except LookupError:
        return None
    doc = json.loads(str(entry.buildInfoJson()))
    spark_line, scala, version = str(doc["spark"]), str(doc["scala"]), str(doc["version"])
    name = f"ubunye-spark_{spark_line}_{scala}-{version}.jar"
    return JarInfo(Path(name), version, spark_line, scala)


def session_mismatch(spark: Any, jar: Optional[JarInfo] = None) -> Optional[str]:
    """Why the plugin cannot serve this session, as a message naming both versions, or None.

    Compares ``jar`` (default: the jar the driver has loaded, else the
    packaged one) with ``spark.version`` and, on a classic session, the JVM's
    Scala version.
    """
    scala = None if _compat.is_connect(spark) else _compat.jvm_scala_version(spark)
    info = jar
    if info is None and not _compat.is_connect(spark):
        info = loaded_jar(spark)
    if info is None:
        info = jar_info()
    return version_mismatch(info, str(spark.version), scala)


def install(spark: Any, *, jar: Optional[JarInfo] = None) -> None:
    """Register the rows-v1 SQL functions on a running classic session.

    For a session that started without ``spark.sql.extensions``; the jar must
    be on the driver classpath (``spark.jars`` / ``--jars``, see :func:`configure`
    with ``extensions=False``). Raises :class:`JarMismatchError` (naming both
    versions) for a jar built for another Spark/Scala line, :class:`JarError`
    when the jar is not loaded, and :class:`TypeError` on Spark Connect (set
    ``spark.sql.extensions`` on the Connect server instead).
    """
    if _compat.is_connect(spark):
        raise TypeError(
            "ubunye.spark.install() needs a classic session; on Spark Connect start the "
            f"server with spark.jars=<ubunye.spark.jar_path()> and spark.sql.extensions={EXTENSIONS_CLASS}"
        )
    problem = session_mismatch(spark, jar)
    if problem is not None:
        raise JarMismatchError(problem)
    info = jar if jar is not None else loaded_jar(spark)
    entry_name = info.install if info is not None else INSTALL_ENTRY
    owner, _, method = entry_name.rpartition(".")
    try:
        entry = _compat.jvm_class(spark, owner)
    except LookupError:
        raise JarError(
            "the ubunye-spark jar is not on this session's driver classpath: start the session "
            "with ubunye.spark.configure(builder) or spark.jars=<ubunye.spark.jar_path()>"
        ) from None
    getattr(entry, method)(_compat.jsession(spark))
