"""``ubunye plan``: what tasks would read and write (ubunye-engine 0.8.0's ``plan``).

Renders each task's config with the run's variables and prints its inputs,
transform and outputs with their formats and locations; nothing is read or written.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import click

from ubunye.cli.commands.run import _check_names, _parse_vars, refuse_unsupported


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
@click.option("--backend", default=None, metavar="spark|pandas",
              help="Also check each input and output against what this backend can do (exit 1 if one cannot run).")
@click.option("--json", "as_json", is_flag=True, hidden=True, help="ubunye-engine 0.8.0's; refused in one line.")
def plan_command(usecase_dir: Path, usecase: str, package: str, tasks: tuple[str, ...], mode: str,
                 dt: Optional[str], dtf: Optional[str], var_items: tuple[str, ...], backend: Optional[str],
                 as_json: bool) -> None:
    """Print the inputs -> transform -> outputs of tasks of USECASE/PACKAGE."""
    from ubunye.cli.render import fail
    from ubunye.engine.config import load_config
    from ubunye.engine.errors import EngineError

    if as_json:
        fail("plan --json (ubunye-engine 0.8.0) is not available: use `ubunye validate --json` for a "
             "machine-readable check of the same tasks")
    refuse_unsupported(backend)
    variables = _parse_vars(var_items, dt, dtf)
    _check_names(usecase, package, tasks)
    problems = 0
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
        if backend is not None:
            from ubunye.cli.commands.validate import check_task

            problem = check_task(task_dir, mode=mode, profile=None, backend=backend, dt=dt, dtf=dtf,
                                 variables=variables)
            if problem is not None:
                click.echo(f"  problem: {problem}")
                problems += 1
    if problems:
        click.echo(f"Plan would fail: {problems} task(s) cannot run on the {backend} backend.", err=True)
        raise SystemExit(1)
