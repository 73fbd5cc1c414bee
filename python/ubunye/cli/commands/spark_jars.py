"""``ubunye spark jars --to DIR``: copy every packaged plugin jar and its JSON description.

For a Databricks init script or a Unity Catalog volume: the folder then holds one
``ubunye-spark_<spark>_<scala>-<version>.jar`` per line with its ``.json``. A file
already there with other content is not overwritten unless ``--force`` is given.
"""
from __future__ import annotations

import filecmp
import shutil
from pathlib import Path

import click

from ubunye.cli.render import echo, fail


@click.command("jars")
@click.option("--to", "target", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Folder to copy the jars into (made if missing).")
@click.option("--force", is_flag=True, help="Overwrite files of the same name with other content.")
def jars_command(target: Path, force: bool) -> None:
    """Copy every packaged plugin jar (and its JSON) into a folder; print each copy."""
    from ubunye.spark.jar import JarError, available_jars, jars_dir

    try:
        infos = available_jars()
    except JarError as exc:
        fail(str(exc))
    if not infos:
        fail(f"no ubunye-spark jar in {jars_dir()}: nothing to copy (run scripts/build-jar in the checkout)")
    sources = [p for info in infos for p in (info.path, info.description) if p is not None]
    clashes = [target / p.name for p in sources
               if (target / p.name).exists() and not filecmp.cmp(p, target / p.name, shallow=False)]
    if clashes and not force:
        fail(f"{clashes[0]} exists with other content ({len(clashes)} such file(s)): "
             "use --force to overwrite, or another --to folder")
    try:
        target.mkdir(parents=True, exist_ok=True)
        for source in sources:
            shutil.copyfile(source, target / source.name)
            echo(str(target / source.name))
    except OSError as exc:
        fail(f"cannot copy the jars into {target}: {exc}")
