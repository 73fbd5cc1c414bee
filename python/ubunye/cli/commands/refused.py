"""ubunye-engine 0.8.0 commands with no counterpart here, each refused in one line.

A script that calls one of them stops with ``error: ...`` (exit 2) saying what
to use instead, rather than click's bare "No such command". They accept any
arguments (and subcommands: ``ubunye deploy databricks ...``) so the refusal,
not an option error, is what the user sees.
"""
from __future__ import annotations

from typing import Any

import click

_RUN = "`ubunye run` (or python -m ubunye --task-dir)"

# 0.8.0 command -> what to use here
REFUSED: dict[str, str] = {
    "init": "scaffolding is not part of this project; create <usecase>/<package>/<task>/ with config.yaml and "
            "transformations.py (from ubunye import Task)",
    "plugins": "plugins are not supported; inputs and outputs use the built-in formats of config.yaml",
    "test": "use `ubunye run -m test --lineage ...` (0.8.0's `test run` was run with --profile test and lineage; "
            "expectations in config.yaml stop a bad run with exit code 1) or `ubunye validate`",
    "models": "the model registry is not part of this project; keep models in MLflow or your own store",
    "export": f"DAG export is not part of this project; call {_RUN} from your scheduler",
    "deploy": f"deployment is not part of this project; ship the task folders with your platform's tools and "
              f"call {_RUN} there",
    "prove": "the proving matrix is not part of this project; compare two runs' records with "
             "`ubunye lineage compare --record1 A.json --record2 B.json`",
    "sync": "records are written straight to the lineage store (a failed write fails the run, exit 1), "
            "so there is no fallback manifest to replay",
    "backends": "the backends are built in: spark and pandas (`ubunye run --backend spark|pandas`)",
    "gate": "use `ubunye lineage compare` in your CI step: it exits 1 unless every input and output of the two "
            "runs is proven the same (--json for the details)",
    "mcp": "the MCP server is not part of this project; `ubunye lineage ... --json` gives records as JSON",
}

# 0.8.0 ``ubunye lineage`` subcommands with no counterpart here
REFUSED_LINEAGE: dict[str, str] = {
    "focus": "model calls are not recorded here, so there are no FOCUS cost rows",
}


def _refuse(name: str, why: str, group: str = "") -> click.Command:
    spelled = f"ubunye {group} {name}" if group else f"ubunye {name}"

    def callback(**_: Any) -> None:
        from ubunye.cli.render import fail

        fail(f"`{spelled}` (ubunye-engine 0.8.0) is not available: {why}")

    return click.Command(
        name, callback=callback, hidden=True, add_help_option=False,
        context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
        params=[click.Argument(["args"], nargs=-1, type=click.UNPROCESSED)],
        help=f"Refused (ubunye-engine 0.8.0): {why}",
    )


COMMANDS: dict[str, click.Command] = {name: _refuse(name, why) for name, why in REFUSED.items()}
LINEAGE_COMMANDS: dict[str, click.Command] = {
    name: _refuse(name, why, "lineage") for name, why in REFUSED_LINEAGE.items()}


def __getattr__(name: str) -> click.Command:  # ``<name>_command``, as ubunye.cli.app's table names them
    if name.endswith("_command") and name[: -len("_command")] in COMMANDS:
        return COMMANDS[name[: -len("_command")]]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
