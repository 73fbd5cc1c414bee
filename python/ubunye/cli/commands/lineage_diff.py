"""``ubunye lineage diff``: per changed input and output, the rows removed and added,
named from the two runs' records alone (their rows-v1 sketches); exit 0 only when the
data is proven the same (:func:`ubunye.lineage.verdict.decide`), 1 when it differs or is
not proven the same (a hash unknown, a run that did not succeed, one run twice: said in
one line), 2 on errors."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import click

from ubunye.cli.lineage_options import lineage_errors, make_store, pick_runs, store_options, task_options, trust_hook
from ubunye.cli.render import echo, emit_json, fail


@click.command("diff")
@store_options
@task_options
@click.option("--run-id1", default=None, help="Run A (default: the run before run B).")
@click.option("--run-id2", default=None, help="Run B (default: the latest run).")
@click.option("--name", "step_name", default=None, help="Only the input or output of this name.")
@click.option("--rows", "show_rows", is_flag=True,
              help="Read each run's data where it still lies and print the changed rows as JSON lines "
                   "marked - (run A only) and + (run B only).")
@click.option("--key", "key", default=None, metavar="COLS",
              help="With --rows: pair removed and added rows with equal values in these comma-separated "
                   "columns into updates (lines marked ~) naming the changed columns.")
@lineage_errors
def diff_command(usecase_dir: Path, lineage_dir: Optional[Path], as_json: bool, usecase: Optional[str],
                 package: Optional[str], task: Optional[str], run_id1: Optional[str], run_id2: Optional[str],
                 step_name: Optional[str], show_rows: bool, key: Optional[str]) -> None:
    """Which rows of each input and output differ between two runs (removed -, added +)."""
    from ubunye.lineage.localise import UnknownStep, diff_records

    columns = [c.strip() for c in key.split(",") if c.strip()] if key is not None else None
    if columns is not None and (not show_rows or not columns):
        fail("--key needs --rows and at least one column name")
    a, b = pick_runs((usecase_dir, lineage_dir, usecase, package, task), run_id1, run_id2, None, None, "diff")
    try:  # a record the store's policy does not prove makes the verdict not proven (never exit 0)
        result = diff_records(a, b, step_name, trust=trust_hook(make_store(usecase_dir, lineage_dir)))
    except UnknownStep as exc:
        fail(str(exc))
    if show_rows:
        _show_rows(result, a, b, columns, as_json)
    elif as_json:
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
            elif not step.proven_same:  # changed, missing, or not proven (a run's output not written)
                echo(f"{step.direction} {step.name!r}: data {step.verdict} ({step.reason or 'rows not named'})")
            if step.partitions:
                from ubunye.hashing.partition_sums import describe

                echo("  partitions changed: " + ", ".join(describe(p) for p in step.partitions))
        _say_verdict(result, err=False)
    raise SystemExit(result.verdict.exit_code)


def _say_verdict(result: Any, *, err: bool) -> None:
    """Beside the steps listed: the verdict when no step differs, else what concerns the runs
    themselves (a failed run, one run twice, an untrusted record), one line each."""
    if not result.differs:
        if not result.verdict.proven_same or not err:
            echo("no input or output differs" if result.verdict.proven_same else result.verdict.line(), err=err)
    else:
        for reason in result.verdict.about_runs:
            echo(f"not proven: {reason}", err=err)


def _show_rows(result: Any, a: Any, b: Any, key: Optional[list[str]], as_json: bool) -> None:
    """``--rows``: the decoded rows read from each side's data; exit 1 when anything differs."""
    from ubunye.lineage.diff_rows import find_rows, scanner_for

    found = find_rows(result, a, b, scanner_for(a, b, result), key)
    if as_json:
        emit_json("diff", {**result.to_dict(), "rows": [{"sign": r.sign, **r.to_dict()} for r in found.rows],
                           "updates": [u.to_dict() for u in found.updates], "notes": found.notes})
    else:
        for note in found.notes:
            echo(note, err=True)
        for update in found.updates:
            echo(update.line())
        for row in found.rows:
            echo(row.line())
        _say_verdict(result, err=True)
    raise SystemExit(result.verdict.exit_code)
