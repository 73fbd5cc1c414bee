"""``ubunye lineage report``: the records as one self-contained HTML page."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import click

from ubunye.cli.lineage_options import lineage_errors, make_store, store_options, task_options
from ubunye.cli.render import echo, emit_json, fail
from ubunye.lineage.report_model import FULL_RUNS
from ubunye.userfiles import folder_error


@click.command("report")
@store_options
@task_options
@click.option("--since", default=None, help="Only runs started at or after this date (YYYY-MM-DD) or time.")
@click.option("-o", "--output", "output", type=click.Path(path_type=Path), default=Path("lineage-report.html"),
              show_default=True, help="The HTML file to write (a page written before is replaced).")
@click.option("--runs", "full_runs", type=click.IntRange(min=1), default=FULL_RUNS, show_default=True,
              help="How many of each task's newest runs the page shows in full; older ones are counted.")
@click.option("--force", is_flag=True, help="Overwrite the output file even if this command did not write it.")
@lineage_errors
def report_command(usecase_dir: Path, lineage_dir: Optional[Path], as_json: bool, usecase: Optional[str],
                   package: Optional[str], task: Optional[str], since: Optional[str], output: Path,
                   full_runs: int, force: bool) -> None:
    """The graph of tasks and datasets, each task's runs, history and verdicts, as one HTML file."""
    from ubunye.lineage.report_html import page_rules, render_page
    from ubunye.lineage.report_model import build_report
    from ubunye.userwrites import check_writable, write_file

    if task is not None and (usecase is None or package is None):
        fail("-t needs -u and -p: a task is named by usecase/package/task")
    if package is not None and usecase is None:
        fail("-p needs -u: a package is named by usecase/package")
    store = make_store(usecase_dir, lineage_dir)
    # a page made by this command before is replaced; any other file only with --force; never in a store
    rules = page_rules(output, store_root=store.root, force=force)
    check_writable(output, **rules)  # refused before the records are read
    problem = folder_error(store.root, "lineage store") if isinstance(store.root, Path) else None
    if problem:  # a mistyped -d is not an empty pipeline: no page that says "0 runs"
        fail(problem)
    report = build_report(store, usecase=usecase, package=package, task=task, since=since,
                          full_runs=full_runs)
    page = render_page(report)
    write_file(output, page.encode("utf-8"), **rules)
    summary = {"output": str(output), "tasks": len(report.tasks), "datasets": len(report.datasets),
               "runs": report.run_count, "bytes": len(page.encode("utf-8"))}
    if as_json:
        emit_json("report", summary)
    else:
        echo(f"wrote {output}: {summary['tasks']} tasks, {summary['datasets']} datasets, {summary['runs']} runs")
