"""``ubunye spark jars --to DIR``: copy every packaged plugin jar and its JSON description.

For a Databricks init script or a Unity Catalog volume: the folder then holds one
``ubunye-spark_<spark>_<scala>-<version>.jar`` per line with its ``.json``, and ``openlineage/``
the OpenLineage extension jars (the layout ``ubunye spark init-script --print`` expects). A file
already there with other content is not overwritten unless ``--force`` is given.
"""
from __future__ import annotations

from pathlib import Path

import click

from ubunye.cli.render import echo, fail


@click.command("jars")
@click.option("--to", "target", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Folder to copy the jars into (made if missing).")
@click.option("--force", is_flag=True, help="Overwrite files of the same name with other content.")
def jars_command(target: Path, force: bool) -> None:
    """Copy every packaged jar (and its JSON) into a folder; print each copy."""
    from ubunye.lineage.store import stores_around
    from ubunye.spark.jar import JarError, copy_jars
    from ubunye.userfiles import UserFileError

    try:
        copies = copy_jars(target, force=force, protected=stores_around(target))  # never into a record store
    except (JarError, UserFileError) as exc:
        fail(str(exc))
    for copy in copies:
        echo(str(copy))
