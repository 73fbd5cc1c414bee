"""``ubunye run``: run task folders of one package, each leaving a run record.

Exit status: 0 when every task succeeded (and its record, when recording, was
written); 1 when a task failed (``SystemExit`` from task code included), an
expectation stopped it, it ran past ``ENGINE.timeout``, or a record could not be
written (one line per task saying why); 2 for usage errors and bad input
(a config that cannot be used: one ``error:`` line naming the file and key, and
the tasks after it are not run); 128 + N when signal N (SIGTERM: 143, SIGINT: 130)
stopped it, after its record was ended as ``error``.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import click

from ubunye.cli.run_options import deploy_mode_option, engine_options, template_options
from ubunye.cli.task_folders import check_deploy_mode, chosen_tasks, parse_vars, refuse_unsupported, run_tasks, usage
from ubunye.userfiles import folder_error


@click.command("run")
@click.option("-d", "--usecase-dir", "usecase_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Folder holding <usecase>/<package>/<task>/.")
@click.option("-u", "--usecase", required=True, help="Usecase name.")
@click.option("-p", "--package", required=True, help="Package name.")
@click.option("-t", "--task", "--task-list", "tasks", multiple=True, help="Task to run (repeatable, run in order).")
@click.option("--all", "run_all", is_flag=True, help="Run every task of the package (pipeline.yaml order, else by name).")
@template_options
@click.option("-m", "--mode", default="DEV", show_default=True, help="Run mode (template variable mode).")
@engine_options
@deploy_mode_option
@click.option("--rerun", is_flag=True, hidden=True, help="ubunye-engine 0.8.0's; refused in one line.")
@click.option("--resume", is_flag=True, hidden=True, help="ubunye-engine 0.8.0's; refused in one line.")
def run_command(
    usecase_dir: Path,
    usecase: str,
    package: str,
    tasks: tuple[str, ...],
    run_all: bool,
    dt: Optional[str],
    dtf: Optional[str],
    mode: str,
    var_items: tuple[str, ...],
    backend: Optional[str],
    hash_engine: Optional[str],
    lineage: bool,
    lineage_dir: str,
    rehash_inputs: bool,
    deploy_mode: Optional[str],
    rerun: bool,
    resume: bool,
) -> None:
    """Run tasks of USECASE/PACKAGE under USECASE_DIR."""
    check_deploy_mode(deploy_mode)
    refuse_unsupported(backend, rerun=rerun, resume=resume)
    variables = parse_vars(var_items, dt, dtf)
    package_dir, names = chosen_tasks(usecase_dir, usecase, package, tasks, run_all, "run")
    for name in names:
        problem = folder_error(package_dir / name, "task folder")
        if problem:
            usage(problem)
    code = run_tasks(usecase_dir, usecase, package, names, dt=dt, dtf=dtf, mode=mode, variables=variables,
                     backend=backend, hash_engine=hash_engine, lineage=lineage, lineage_dir=lineage_dir,
                     reuse_hashes=False if rehash_inputs else None)
    sys.exit(code)
