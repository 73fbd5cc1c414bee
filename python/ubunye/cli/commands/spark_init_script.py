"""``ubunye spark init-script --volume /Volumes/<catalog>/<schema>/<volume>/<folder>``.

Copies every packaged plugin jar (and its JSON) into ``<folder>/jars/`` and the OpenLineage
extension jars into ``<folder>/jars/openlineage/`` once (files with the same content are kept)
and writes ``<folder>/install-ubunye.sh``: a Databricks cluster init script that, on the
cluster, installs this package's own jar for the runtime's Spark line and Scala version (and
its extension jar), each named in the script and checked by its sha256
(:mod:`ubunye.spark.init_script`), and fails the cluster start in one line naming the runtime
and the file when none fits, or a file is missing or differs. ``--print`` writes the script to stdout and copies nothing
(for a volume that is not mounted here: copy the jars with ``ubunye spark jars --to``
and the Databricks CLI).
"""
from __future__ import annotations

from pathlib import Path

import click

from ubunye.cli.render import echo, fail, printable

SCRIPT_NAME = "install-ubunye.sh"


@click.command("init-script")
@click.option("--volume", "folder", required=True, metavar="PATH",
              help="Folder on a Unity Catalog volume, as the cluster sees it (/Volumes/...).")
@click.option("--print", "to_stdout", is_flag=True, help="Print the script; copy nothing.")
@click.option("--force", is_flag=True, help="Overwrite jars of the same name with other content, and a script this command did not write.")
def init_script_command(folder: str, to_stdout: bool, force: bool) -> None:
    """Put every jar on a volume and write the init script that picks the cluster's jar."""
    from ubunye._version import __version__
    from ubunye.lineage.store import stores_around
    from ubunye.spark.init_script import CLUSTER_SETTING, init_script, is_unedited, shipped_jars
    from ubunye.spark.jar import JarError, copy_jars
    from ubunye.userfiles import UserFileError
    from ubunye.userwrites import check_writable, write_file

    if not folder.startswith("/") or "\n" in folder:
        fail(f"--volume {folder!r}: give the absolute path the cluster sees (/Volumes/<catalog>/<schema>/<volume>/...)")
    if printable(folder) != folder:  # a byte that is not UTF-8, a direction control: the script could not carry it
        fail(f"--volume {printable(folder)}: a folder name with a direction control or a byte that is not UTF-8; "
             "give the path the cluster sees in plain text")
    try:
        text = init_script(f"{folder.rstrip('/')}/jars", __version__, shipped_jars())
    except (JarError, ValueError, OSError) as exc:
        fail(str(exc))
    if to_stdout:
        echo(text, nl=False)
        return
    root = Path(folder)
    script = root / SCRIPT_NAME
    data = text.encode("utf-8")
    stores = stores_around(root)  # never into a record store
    mine = {"own": is_unedited, "force": force, "protected": stores, "what": "ubunye spark init-script"}
    try:
        check_writable(script, data=data, **mine)  # refused before any jar is copied
        copies = copy_jars(root / "jars", force=force, protected=stores)
        write_file(script, data, **mine)  # the script written before, unedited, is replaced; another only with --force
    except (JarError, UserFileError) as exc:
        fail(str(exc))
    echo(f"{len([c for c in copies if c.suffix == '.jar'])} jar(s) in {root / 'jars'}; init script {script}")
    echo(f"cluster: add the init script ({CLUSTER_SETTING}) and, "
         "for SQL on Spark 3.5 runtimes, spark.sql.extensions io.ubunye.spark.UbunyeSparkExtensions")
