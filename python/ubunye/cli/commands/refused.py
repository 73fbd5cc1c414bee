"""ubunye-engine 0.8.0 commands with no counterpart here, each refused in one line.

A script that calls one of them stops with ``error: ...`` (exit 2) saying what
to use instead, rather than click's bare "No such command". They accept any
arguments so the refusal, not an option error, is what the user sees.
"""
from __future__ import annotations

from typing import Any

import click

# 0.8.0 command -> what to use here
REFUSED: dict[str, str] = {
    "init": "scaffolding is not part of this project; create <usecase>/<package>/<task>/ with config.yaml and "
            "transformations.py (from ubunye import Task)",
    "plugins": "plugins are not supported; inputs and outputs use the built-in formats of config.yaml",
    "test": "use `ubunye run ... --lineage` (expectations in config.yaml stop a bad run; exit code 1) "
            "or `ubunye validate`",
    "models": "the model registry is not part of this project; keep models in MLflow or your own store",
    "export": "DAG export is not part of this project; call `ubunye run` (or python -m ubunye --task-dir) "
              "from your scheduler",
}


def _refuse(name: str) -> click.Command:
    def callback(**_: Any) -> None:
        from ubunye.cli.render import fail

        fail(f"`ubunye {name}` (ubunye-engine 0.8.0) is not available: {REFUSED[name]}")

    return click.Command(
        name, callback=callback, hidden=True, add_help_option=False,
        context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
        params=[click.Argument(["args"], nargs=-1, type=click.UNPROCESSED)],
        help=f"Refused (ubunye-engine 0.8.0): {REFUSED[name]}",
    )


init_command = _refuse("init")
plugins_command = _refuse("plugins")
test_command = _refuse("test")
models_command = _refuse("models")
export_command = _refuse("export")
