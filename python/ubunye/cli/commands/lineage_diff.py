"""``ubunye lineage diff``: per changed input and output, the rows removed and added,
named from the two runs' records alone (their rows-v1 sketches); exit 0 when nothing
differs, 1 when differences are listed, 2 on errors."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import click

from ubunye.cli.lineage_options import lineage_errors, store_options, task_options
from ubunye.cli.render import echo, emit_json, fail


@click.command("diff")
@store_options
@task_options
@click.option("--run-id1", default=None, help="Run A (default: the run before run B).")
@click.option("--run-id2", default=None, help="Run B (default: the latest run).")
@click.option("--name", "step_name", default=None, help="Only the input or output of this name.")
@lineage_errors
def diff_command(usecase_dir: Path, lineage_dir: Optional[Path], as_json: bool, usecase: Optional[str],
                 package: Optional[str], task: Optional[str], run_id1: Optional[str], run_id2: Optional[str],
                 step_name: Optional[str]) -> None:
    """Which rows of each input and output differ between two runs (removed -, added +)."""
    from ubunye.cli.commands.lineage import _pick
    from ubunye.lineage.localise import UnknownStep, diff_records

    a, b = _pick((usecase_dir, lineage_dir, usecase, package, task), run_id1, run_id2, None, None)
    try:
        result = diff_records(a, b, step_name)
    except UnknownStep as exc:
        fail(str(exc))
    if as_json:
        emit_json("diff", result.to_dict())
    else:
        echo(f"run A {a.run_id} -> run B {b.run_id}")
        for step in result.steps:
            if step.where is not None:
                echo(f"{step.direction} {step.name!r}: {step.where.summary}")
                for row in step.where.removed:
                    echo(f"  - {row}")
                for row in step.where.added:
                    echo(f"  + {row}")
            elif step.differs:
                echo(f"{step.direction} {step.name!r}: data {step.verdict} ({step.reason or 'rows not named'})")
        if not result.differs:
            echo("no input or output differs")
    raise SystemExit(1 if result.differs else 0)
