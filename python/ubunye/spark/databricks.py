"""The Databricks LTS runtimes the package targets: one table, ``databricks_runtimes.json``.

Each runtime's Apache Spark, Scala images and JDK, and the Python libraries it installs
(Python, pandas, numpy, pyarrow; ``None`` where the figure was not found, never guessed), its
versions of the package's other requirements (``others``: click, jinja2, pyyaml, cryptography), and
``not_supported``: which of those libraries the package's requirements refuse, and why;
``native_only``: why only the plugin jar hashes there (the Arrow paths refuse its pyarrow).
``docs/databricks.md`` shows :func:`markdown_table`; ``tests/test_databricks_runtimes.py``
checks that the package's requirements admit every known set; ``ubunye spark init-script``
writes the runtime-to-jar choice from it.

Importing this module imports nothing from pyspark, pandas or pyarrow.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from ubunye.spark.runtime import line_of

TABLE = Path(__file__).resolve().parent / "databricks_runtimes.json"
LIBRARIES = ("python", "pandas", "numpy", "pyarrow")
OTHERS = ("click", "jinja2", "pyyaml", "cryptography")  # the package's other requirements


@dataclass(frozen=True)
class Runtime:
    """One Databricks runtime: its Spark, Scala images, JDK and installed Python libraries."""

    runtime: str  # "15.4 LTS"
    spark: str  # "3.5.0": the Apache Spark version it is built on
    scala: tuple[str, ...]  # Scala binary versions of its images ("2.12", "2.13")
    jdk: str
    python: Optional[str]
    pandas: Optional[str]
    numpy: Optional[str]
    pyarrow: Optional[str]
    pyspark: str  # the PyPI pyspark tested in its place
    source: str
    not_supported: Optional[str]  # which of its own libraries the requirements refuse, and why
    native_only: Optional[str]  # why only the native jar hashes there (the Arrow paths refuse), or None
    tested_here: str
    # The runtime's versions of OTHERS: None inside where its set has none (the wheel installs
    # it); None for the whole where they were not looked up.
    others: Optional[dict[str, Optional[str]]] = None

    def jar_lines(self) -> list[str]:
        """``["3.5_2.12", "3.5_2.13"]``: the plugin jar line of each of its Scala images."""
        return [f"{line_of(self.spark)}_{scala}" for scala in self.scala]

    def libraries(self) -> dict[str, Optional[str]]:
        return {name: getattr(self, name) for name in LIBRARIES}

    def installed(self) -> dict[str, str]:
        """Every library version of the runtime that is known: pandas, numpy, pyarrow and OTHERS."""
        known = {**{k: v for k, v in self.libraries().items() if k != "python"}, **(self.others or {})}
        return {k: v for k, v in known.items() if v is not None}

    def complete(self) -> bool:
        """Whether every library version of the runtime is known."""
        return all(v is not None for v in self.libraries().values())


def runtimes(path: Optional[Path] = None) -> list[Runtime]:
    """The runtimes of the table, oldest first."""
    doc = json.loads((path or TABLE).read_text(encoding="utf-8"))
    rows = [Runtime(**{**row, "scala": tuple(row["scala"])}) for row in doc["runtimes"]]
    for r in rows:
        if r.others is not None and sorted(r.others) != sorted(OTHERS):
            raise ValueError(f"{path or TABLE}: {r.runtime}: 'others' must name exactly {', '.join(OTHERS)}")
    return rows


def markdown_table(rows: Optional[list[Runtime]] = None) -> str:
    """The table as docs/databricks.md shows it (``not found`` for an unknown figure)."""
    def cell(value: Optional[str]) -> str:
        return value if value is not None else "not found"

    def tested(r: Runtime) -> str:
        if r.not_supported:
            return f"**not supported**: {r.not_supported}. Tested: {r.tested_here}"
        return f"**native only**: {r.native_only}. Tested: {r.tested_here}" if r.native_only else r.tested_here

    def others(r: Runtime) -> str:
        if r.others is None:
            return "not looked up"
        return ", ".join(f"{k} {v}" if v is not None else f"{k}: none (the wheel installs it)" for k, v in r.others.items())

    lines = ["| Databricks Runtime | Spark | Scala | JDK | jar | Python | pandas | numpy | pyarrow | others | tested here |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows if rows is not None else runtimes():
        jars = ", ".join(f"`ubunye-spark_{line}`" for line in r.jar_lines())
        lines.append(f"| {r.runtime} | {r.spark} | {' or '.join(r.scala)} | {r.jdk} | {jars} | {cell(r.python)} | "
                     f"{cell(r.pandas)} | {cell(r.numpy)} | {cell(r.pyarrow)} | {others(r)} | {tested(r)} |")
    return "\n".join(lines)
