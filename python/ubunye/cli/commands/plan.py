"""``ubunye plan``: what tasks would read and write (ubunye-engine 0.8.0's ``plan``).

Renders each task's config with the run's variables and prints its inputs,
transform and outputs with their formats and locations; nothing is read or written.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import click

from ubunye.cli.commands.run import _check_names, _parse_vars


@click.command("plan")
@click.option("-d", "--usecase-dir", "usecase_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Folder holding <usecase>/<package>/<task>/.")
@click.option("-u", "--usecase", required=True, help="Usecase name.")
@click.option("-p", "--package", required=True, help="Package name.")
@click.option("-t", "--task", "--task-list", "tasks", multiple=True, required=True, help="Task (repeatable).")
@click.option("-m", "--mode", default="DEV", show_default=True, help="Run mode (template variable mode).")
@click.option("-dt", "--dt", "--data-timestamp", "dt", default=None, help="The run date (template variable dt).")
@click.option("-dtf", "--dtf", "--data-timestamp-format", "dtf", default=None,
              help="The run date format (template variable dtf).")
@click.option("--var", "var_items", multiple=True, metavar="K=V", help="Extra template variable (repeatable).")
def plan_command(usecase_dir: Path, usecase: str, package: str, tasks: tuple[str, ...], mode: str,
                 dt: Optional[str], dtf: Optional[str], var_items: tuple[str, ...]) -> None:
    """Print the inputs -> transform -> outputs of tasks of USECASE/PACKAGE."""
    from ubunye.cli.render import fail
    from ubunye.engine.config import load_config
    from ubunye.engine.errors import EngineError

    variables = _parse_vars(var_items)
    _check_names(usecase, package, tasks)
    for name in tasks:
        task_dir = usecase_dir / usecase / package / name
        try:
            config = load_config(task_dir, mode=mode, dt=dt, dtf=dtf, variables=variables)
        except EngineError as exc:
            fail(str(exc), code=1)
        click.echo(f"--- Task: {usecase}/{package}/{name} ---")
        click.echo("Inputs:")
        for spec in config.inputs.values():
            click.echo(f"  - {spec.name}: {spec.format} {spec.location}")
        click.echo(f"Transform: {task_dir / 'transformations.py'}")
        click.echo("Outputs:")
        for spec in config.outputs.values():
            click.echo(f"  - {spec.name}: {spec.format} {spec.location} (mode {spec.mode})")
