"""``ubunye plan``: what tasks would read and write (ubunye-engine 0.8.0's ``plan``).

Renders each task's config with the run's variables and prints its inputs,
transform and outputs with their formats and locations; nothing is read or written.
As 0.8.0's plan, a local input that is missing (and that no earlier task of the plan
writes) is a problem, and so, with ``--backend``, is what that backend cannot do:
each prints a ``problem:`` line and the exit status is 1. A config that cannot be used is
one ``error:`` line naming the file and key (exit 2).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

import click

from ubunye.cli.task_folders import check_names, check_task, parse_vars, refuse_unsupported


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
    from ubunye.cli.render import echo, fail
    from ubunye.engine.config import load_config
    from ubunye.engine.errors import EngineError

    if as_json:
        fail("plan --json (ubunye-engine 0.8.0) is not available: use `ubunye validate --json` for a "
             "machine-readable check of the same tasks")
    refuse_unsupported(backend)
    variables = parse_vars(var_items, dt, dtf)
    check_names(usecase, package, tasks)
    problems = 0
    written: set[str] = set()  # local outputs of the tasks planned so far (an input a later task reads)
    for name in tasks:
        task_dir = usecase_dir / usecase / package / name
        try:
            config = load_config(task_dir, mode=mode, dt=dt, dtf=dtf, variables=variables)
        except EngineError as exc:  # bad input: one error line naming the file and key (exit 2)
            fail(str(exc))
        echo(f"--- Task: {usecase}/{package}/{name} ---")
        echo("Inputs:")
        for spec in config.inputs.values():
            echo(f"  - {spec.name}: {spec.format} {spec.location}")
            local = _local_path(spec.path)
            if local is not None and not local.exists() and os.path.normpath(local) not in written:
                echo(f"  problem: input {spec.name!r}: {local} is missing "
                     "(and no earlier task in this plan writes it)")
                problems += 1
        echo(f"Transform: {task_dir / 'transformations.py'}")
        echo("Outputs:")
        for spec in config.outputs.values():
            echo(f"  - {spec.name}: {spec.format} {spec.location} (mode {spec.mode})")
            local = _local_path(spec.path)
            if local is not None:
                written.add(os.path.normpath(local))
        if backend is not None:
            problem = check_task(task_dir, mode=mode, profile=None, backend=backend, dt=dt, dtf=dtf,
                                 variables=variables)
            if problem is not None:
                echo(f"  problem: {problem}")
                problems += 1
    if problems:
        echo(f"Plan would fail: {problems} problem(s).", err=True)
        raise SystemExit(1)


def _local_path(path: Optional[str]) -> Optional[Path]:
    """The local file or folder of a path (``file://`` or none), else None (a URL, a glob)."""
    from ubunye.locations import GLOB_CHARS, local_path

    if path is None or any(c in path for c in GLOB_CHARS):
        return None
    local = local_path(path)
    return None if local is None else Path(local)
