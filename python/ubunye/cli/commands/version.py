"""``ubunye version``: the installed version (ubunye-engine 0.8.0's command; same as ``ubunye --version``)."""
from __future__ import annotations

import click


@click.command("version")
def version_command() -> None:
    """Print the installed ubunye version."""
    from ubunye._version import __version__
    from ubunye.cli.render import echo

    echo(f"ubunye {__version__}")
