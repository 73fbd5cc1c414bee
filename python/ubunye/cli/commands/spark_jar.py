"""``ubunye spark jar [--spark 3.5 --scala 2.12]``: print the path of one packaged plugin jar.

Without options, the jar for the installed pyspark's Spark line and Scala version
(read from its jars, no JVM started); with ``--spark``/``--scala``, the jar for that
line, for a cluster configured elsewhere (``spark.jars``, an init script).
"""
from __future__ import annotations

from typing import Optional

import click

from ubunye.cli.render import echo, fail


@click.command("jar")
@click.option("--spark", "spark_line", default=None, metavar="LINE",
              help="Spark line (3.5, 4.0, ...; default: the installed pyspark's).")
@click.option("--scala", default=None, metavar="VERSION",
              help="Scala version (2.12 or 2.13; default: the installed pyspark's, or the line's only one).")
def jar_command(spark_line: Optional[str], scala: Optional[str]) -> None:
    """Print the path of the plugin jar for a Spark line (default: the installed pyspark's)."""
    from ubunye.spark.jar import JarError, jar_path

    if scala is not None and spark_line is None:
        fail("--scala needs --spark (the Spark line the jar is for)")
    try:
        echo(jar_path(spark_line, scala))
    except JarError as exc:
        fail(str(exc))
