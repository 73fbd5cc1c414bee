"""``python -m ubunye --task-dir DIR`` / ``ubunye --task-dir DIR``: run one task folder (0.8.0).

Same run as ``ubunye run -d USECASE_DIR -u USECASE -p PACKAGE -t TASK`` for the
folder ``USECASE_DIR/USECASE/PACKAGE/TASK``: the same record place (under the
usecase folder), the same one line per task and the same exit codes.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import click

from ubunye.cli.run_options import deploy_mode_option, engine_options, template_options
from ubunye.userfiles import folder_error

from ubunye.cli.task_folders import check_deploy_mode, parse_vars, refuse_unsupported, run_tasks, usage


@click.command("task-dir", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--task-dir", "task_dir", required=True, type=click.Path(path_type=Path),
              help="The task folder <usecase_dir>/<usecase>/<package>/<task>.")
@click.option("-m", "--mode", default="PROD", show_default=True,
              help="Run mode (template variable mode); PROD by default, as ubunye-engine 0.8.0's python -m ubunye.")
@template_options
@engine_options
@click.option("--log-level", default="INFO", show_default=True,
              type=click.Choice(["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"], case_sensitive=False),
              help="Level of the engine's log messages (as 0.8.0's python -m ubunye).")
@deploy_mode_option
def task_dir_command(task_dir: Path, mode: str, dt: Optional[str], dtf: Optional[str], var_items: tuple[str, ...],
                     backend: Optional[str], hash_engine: Optional[str], lineage: bool, lineage_dir: str,
                     rehash_inputs: bool, log_level: str, deploy_mode: Optional[str]) -> None:
    """Run the task folder given by --task-dir."""
    import logging

    logging.getLogger("ubunye").setLevel(log_level.upper())
    from ubunye._names import task_folder_names
    from ubunye.cli.render import fail

    check_deploy_mode(deploy_mode)
    refuse_unsupported(backend)
    variables = parse_vars(var_items, dt, dtf)
    problem = folder_error(task_dir, "task folder")
    if problem:
        usage(problem)
    try:
        usecase_dir, usecase, package, task = task_folder_names(task_dir)
    except ValueError as exc:
        fail(f"--task-dir {task_dir}: {' '.join(str(exc).split())}")
    code = run_tasks(usecase_dir, usecase, package, [task], dt=dt, dtf=dtf, mode=mode, variables=variables,
                     backend=backend, hash_engine=hash_engine, lineage=lineage, lineage_dir=lineage_dir,
                     reuse_hashes=False if rehash_inputs else None)
    sys.exit(code)


def main(argv: Optional[list[str]] = None) -> int:
    """Run the command; return the exit code (as ``ubunye.cli.app.main`` does)."""
    try:
        task_dir_command.main(args=argv, prog_name="python -m ubunye", standalone_mode=True)
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    return 0
