"""``ubunye spark``: the plugin jars inside the package (``jar``, ``jars``, ``init-script``).

Each subcommand lives in its own module and is imported when it is called.
"""
from __future__ import annotations

import click

from ubunye.cli.app import LazyGroup

SUBCOMMANDS: dict[str, str] = {
    "jar": "ubunye.cli.commands.spark_jar:jar_command",
    "jars": "ubunye.cli.commands.spark_jars:jars_command",
    "init-script": "ubunye.cli.commands.spark_init_script:init_script_command",
}


@click.group("spark", cls=LazyGroup, lazy=SUBCOMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
def spark_group() -> None:
    """The Spark plugin jars shipped in the package (one per Spark line and Scala version)."""
