"""``ubunye validate``: check task folders without running them (also ``ubunye config``,
ubunye-engine 0.8.0's name for the same check).

Each task's ``config.yaml`` is read, rendered and validated with the run's
variables, and its ``transformations.py`` imported (its one Task class found),
exactly as ``ubunye run`` does before anything is read. One line per task;
exit 0 when all are valid, 1 when one is not, 2 for usage errors.
"""
from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Optional

import click

from ubunye.cli.run_options import template_options
from ubunye.cli.task_folders import check_task, chosen_tasks, parse_vars, refuse_unsupported


@click.command("validate")
@click.option("-d", "--usecase-dir", "usecase_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Folder holding <usecase>/<package>/<task>/.")
@click.option("-u", "--usecase", required=True, help="Usecase name.")
@click.option("-p", "--package", required=True, help="Package name.")
@click.option("-t", "--task", "--task-list", "tasks", multiple=True, help="Task to check (repeatable).")
@click.option("--all", "run_all", is_flag=True, help="Check every task of the package.")
@click.option("-m", "--mode", default="DEV", show_default=True, help="Run mode (template variable mode).")
@click.option("--profile", default=None,
              help="Check with this mode, which must be one of the config's ENGINE.profiles (0.8.0's --profile).")
@template_options
@click.option("--backend", default=None, metavar="spark|pandas",
              help="Also check that every input and output can run on this backend, without starting it.")
@click.option("--json", "as_json", is_flag=True,
              help='One JSON document: {"ok", "tasks": [{"task", "ok", "problems", "warnings"}]} (as 0.8.0).')
def validate_command(usecase_dir: Path, usecase: str, package: str, tasks: tuple[str, ...], run_all: bool,
                     mode: str, profile: Optional[str], dt: Optional[str], dtf: Optional[str],
                     var_items: tuple[str, ...], backend: Optional[str], as_json: bool) -> None:
    """Check the config and task code of tasks of USECASE/PACKAGE, running nothing."""
    from ubunye.cli.render import echo, fail, json_document, stdout_kept_for_json

    refuse_unsupported(backend)
    mode_given = click.get_current_context().get_parameter_source("mode") != click.core.ParameterSource.DEFAULT
    if profile is not None and mode_given and mode != profile:
        fail(f"--profile {profile} and -m {mode} disagree; pass one")
    variables = parse_vars(var_items, dt, dtf)
    package_dir, names = chosen_tasks(usecase_dir, usecase, package, tasks, run_all, "check")
    failed = 0
    results = []
    for name in names:
        with warnings.catch_warnings(record=as_json) as caught, stdout_kept_for_json(as_json):
            # --json: the engine's warnings go in the document, what task code prints to stderr
            problem = check_task(package_dir / name, mode=profile or mode, profile=profile, backend=backend,
                                 dt=dt, dtf=dtf, variables=variables)
        notes = [" ".join(str(w.message).split()) for w in caught or ()]
        results.append({"task": name, "ok": problem is None, "problems": [] if problem is None else [problem],
                        "warnings": notes})
        if as_json:
            failed += problem is not None
        elif problem is None:
            echo(f"ok   {usecase}/{package}/{name}")
        else:
            echo(f"FAIL {usecase}/{package}/{name}: {problem}", err=True)
            failed += 1
    if as_json:
        json_document({"ok": not failed, "tasks": results}, ensure_ascii=True)
    sys.exit(1 if failed else 0)
