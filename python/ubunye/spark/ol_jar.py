"""The OpenLineage Spark listener's extension jars shipped inside the package.

``scripts/build-jar`` places, per Spark line, ``ubunye-spark-openlineage_<spark>_<scala>-<version>.jar``
and its description (``.json``: the jar, version, Spark and Scala lines, the openlineage-spark
release it was compiled against) in ``ubunye/spark/jars/openlineage/`` (a folder of its own, so
the plugin jars' folder holds plugin jars only). The jar adds ``ubunye_rows_v1`` to the
COMPLETE events of the OpenLineage Spark listener (``openlineage-spark``, which loads it through
Java's service loader); it is of use only on a session that runs that listener.

:func:`ubunye.spark.configure` adds the jar of the session's line to ``spark.jars`` when the
builder names the listener in ``spark.extraListeners`` (:func:`add_extension`), as it adds the
plugin jar; :func:`extension_jar` names the jar of a line for a cluster configured elsewhere.

Importing this module imports nothing from pyspark.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from ubunye.spark.runtime import line_of

LISTENER_CLASS = "io.openlineage.spark.agent.OpenLineageSparkListener"
JAR_PREFIX = "ubunye-spark-openlineage_"


class ExtensionJarWarning(UserWarning):
    """The session runs the OpenLineage listener, but the package has no extension jar for its line."""


@dataclass(frozen=True)
class ExtensionJar:
    """One extension jar and what it was built for."""

    path: Path
    version: str
    spark: str
    scala: str
    openlineage_spark: str
    description: Optional[Path] = None  # the JSON file this was read from

    @property
    def line(self) -> str:
        return f"{line_of(self.spark)}_{line_of(self.scala)}"


def extension_dir() -> Path:
    """The package folder of the extension jars and their descriptions."""
    return Path(__file__).resolve().parent / "jars" / "openlineage"


def extension_jars(directory: Optional[Path] = None) -> list[ExtensionJar]:
    """Every extension jar described in ``directory`` (default :func:`extension_dir`) whose jar is there."""
    folder = Path(directory) if directory is not None else extension_dir()
    out = []
    for meta in sorted(folder.glob(f"{JAR_PREFIX}*.json")) if folder.is_dir() else []:
        try:
            doc = json.loads(meta.read_text(encoding="utf-8"))
            jar = ExtensionJar(folder / str(doc["jar"]), str(doc["version"]), str(doc["spark"]), str(doc["scala"]),
                               str(doc["openlineage_spark"]), description=meta)
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{meta} is not a valid extension jar description: {exc!r}") from None
        if jar.path.is_file():
            out.append(jar)
    return out


def extension_jar(spark: str, scala: str, *, directory: Optional[Path] = None) -> Optional[ExtensionJar]:
    """The extension jar for a Spark line and Scala version (``"4.1"``/``"4.1.1"``, ``"2.13"``), or None."""
    for jar in extension_jars(directory):
        if line_of(jar.spark) == line_of(spark) and line_of(jar.scala) == line_of(scala):
            return jar
    return None


def runs_listener(options: dict[str, Any]) -> bool:
    """Whether builder options name the OpenLineage Spark listener in ``spark.extraListeners``."""
    listeners = str(options.get("spark.extraListeners") or "")
    return LISTENER_CLASS in [x.strip() for x in listeners.split(",")]


def missing_line(spark: str, scala: str, directory: Optional[Path] = None) -> str:
    """The one-line warning for a session whose line has no extension jar."""
    have = ", ".join(j.line for j in extension_jars(directory)) or "none"
    return (f"the session runs the OpenLineage Spark listener, but this package has no ubunye-spark-openlineage "
            f"jar for Spark {line_of(spark)} / Scala {line_of(scala)} (it has: {have}); the listener's events "
            "carry no ubunye_rows_v1 facet (the run records and `ubunye lineage openlineage` still do)")
