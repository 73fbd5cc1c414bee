"""``ubunye lineage``: list, show, compare, trace, search, verify and openlineage.

Each command builds library objects from its options, calls one library
function that returns a typed result, renders it (``--json`` prints the
result's ``to_dict()`` with ``schema_version``) and maps it to the exit code:
``compare`` and ``verify`` exit 0 only when every input and output is proven
the same and the runs succeeded (and, where the store's policy requires signatures, both records
are proven by theirs: python/ubunye/lineage/attestation), 1 otherwise; every command exits 2 on an error.
Without run ids they take the newest record files: when one that may be the
newest cannot be read, they exit 2 naming it (``list``, ``search`` and ``show``
skip it with a warning naming it).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

import click

from ubunye.cli import lineage_render as show_
from ubunye.cli.commands import refused as _refused
from ubunye.cli.lineage_options import (
    TaskRef,
    lineage_errors,
    make_store,
    pick_runs,
    resolve_task,
    store_options,
    trust_hook,
    task_options,
    verify_signatures,
)
from ubunye.cli.render import echo, emit_json, fail, warn


@click.group("lineage", context_settings={"help_option_names": ["-h", "--help"]})
def lineage_group() -> None:
    """Inspect run records: list, show, compare, trace, search, verify, openlineage, attest, policy."""


def _task(usecase_dir: Path, lineage_dir: Optional[str], u: Optional[str], p: Optional[str],
          t: Optional[str]) -> TaskRef:
    return resolve_task(make_store(usecase_dir, lineage_dir), u, p, t)


@lineage_group.command("list")
@store_options
@task_options
@click.option("-n", "--n", "limit", type=click.IntRange(min=1), default=None,
              help="Only the N newest runs (default: all).")
@lineage_errors
def list_command(usecase_dir: Path, lineage_dir: Optional[str], as_json: bool,
                 usecase: Optional[str], package: Optional[str], task: Optional[str], limit: Optional[int]) -> None:
    """The task's runs, newest first."""
    from ubunye.lineage.search import list_task_runs

    ref = _task(usecase_dir, lineage_dir, usecase, package, task)
    result = list_task_runs(ref.store, ref.usecase, ref.package, ref.task, limit)
    if as_json:
        emit_json("list", result.to_dict())
    else:
        show_.run_list(result, with_task=False)


@lineage_group.command("show")
@store_options
@task_options
@click.option("--run-id", default=None, help="Run id or unique prefix (default: the latest run).")
@click.option("--record", "record_path", type=click.Path(path_type=Path), default=None,
              help="A record file to show instead of a task's run.")
@lineage_errors
def show_command(usecase_dir: Path, lineage_dir: Optional[str], as_json: bool, usecase: Optional[str],
                 package: Optional[str], task: Optional[str], run_id: Optional[str],
                 record_path: Optional[Path]) -> None:
    """One record (default: the latest) as JSON."""
    store = make_store(usecase_dir, lineage_dir)
    if record_path is not None:
        record = store.load(record_path)
    else:
        record = resolve_task(store, usecase, package, task).find(run_id)
    from ubunye.lineage.ending import ABANDONED, abandoned_reason, shown_status

    status = shown_status(record)  # the record as written; a running one whose process is gone is abandoned
    if as_json:
        emit_json("show", {"record": record.to_dict(), **({"status": status} if status == ABANDONED else {})})
    else:
        echo(record.to_json(), nl=False)
    if status == ABANDONED:
        warn(f"run {record.run_id} is abandoned: its record says running, but {abandoned_reason(record)}")
    from ubunye.lineage.attestation import trust_reason

    unproven = trust_reason(record, store, warn=False)  # where the store's policy requires signatures
    if unproven:
        warn(f"{unproven} (shown as stored: nothing here is proven)")


@lineage_group.command("compare")
@store_options
@task_options
@click.option("--run-id1", default=None, help="Run A (default: the run before run B).")
@click.option("--run-id2", default=None, help="Run B (default: the latest run).")
@click.option("--record1", type=click.Path(path_type=Path), default=None, help="Run A as a record file.")
@click.option("--record2", type=click.Path(path_type=Path), default=None, help="Run B as a record file.")
@lineage_errors
def compare_command(usecase_dir: Path, lineage_dir: Optional[str], as_json: bool, usecase: Optional[str],
                    package: Optional[str], task: Optional[str], run_id1: Optional[str], run_id2: Optional[str],
                    record1: Optional[Path], record2: Optional[Path]) -> None:
    """Compare two runs field by field; exit 0 only when all data is proven the same."""
    from ubunye.lineage.compare import compare_records

    a, b = pick_runs((usecase_dir, lineage_dir, usecase, package, task), run_id1, run_id2, record1, record2)
    result = compare_records(a, b, trust=trust_hook(make_store(usecase_dir, lineage_dir)))
    if as_json:
        emit_json("compare", result.to_dict())
    else:
        show_.comparison(result)
    raise SystemExit(0 if result.data_proven_same else 1)


@lineage_group.command("trace")
@store_options
@task_options
@click.option("--run-id", default=None, help="Run id or unique prefix (default: the latest run).")
@lineage_errors
def trace_command(usecase_dir: Path, lineage_dir: Optional[str], as_json: bool, usecase: Optional[str],
                  package: Optional[str], task: Optional[str], run_id: Optional[str]) -> None:
    """One run as a story: inputs, transform, outputs, code, environment, timings, checks."""
    from ubunye.lineage.trace import trace_run

    result = trace_run(_task(usecase_dir, lineage_dir, usecase, package, task).find(run_id))
    if as_json:
        emit_json("trace", result.to_dict())
    else:
        show_.trace(result)


@lineage_group.command("search")
@store_options
@task_options
@click.option("--status", default=None, help="Only runs with this status (success, error, ...).")
@click.option("--since", default=None, help="Only runs started at or after this date (YYYY-MM-DD) or time.")
@click.option("--data-hash", default=None, help="The runs that read or wrote data with this hash (sha256:...).")
@lineage_errors
def search_command(usecase_dir: Path, lineage_dir: Optional[str], as_json: bool, usecase: Optional[str],
                   package: Optional[str], task: Optional[str], status: Optional[str],
                   since: Optional[str], data_hash: Optional[str]) -> None:
    """Runs across tasks, newest first."""
    from ubunye.lineage.search import parse_since, runs_with_data_hash, search_runs

    if data_hash is not None:
        if status or since or usecase or package or task:
            fail("--data-hash takes no other filter")
        found = runs_with_data_hash(make_store(usecase_dir, lineage_dir), data_hash)
        if as_json:
            emit_json("search", found.to_dict())
        else:
            show_.run_list(found, with_task=True)
        return

    if task is not None and (usecase is None or package is None):
        fail("-t needs -u and -p: a task is named by usecase/package/task")
    if package is not None and usecase is None:
        fail("-p needs -u: a package is named by usecase/package")
    result = search_runs(make_store(usecase_dir, lineage_dir), status=status,
                         since=parse_since(since) if since else None,
                         usecase=usecase, package=package, task=task)
    if as_json:
        emit_json("search", result.to_dict())
    else:
        show_.run_list(result, with_task=True)


@lineage_group.command("verify")
@store_options
@task_options
@click.option("--run-id", default=None, help="Run id or unique prefix (default: the latest run).")
@click.option("--record", "record_path", type=click.Path(path_type=Path), default=None,
              help="A record file to verify instead of a task's run.")
@click.option("--engine", type=click.Choice(["auto", "pandas", "arrow", "spark"]), default="auto",
              show_default=True, help="The `ubunye hash` engine to re-hash with (auto: spark for Spark runs "
              "when pyspark is installed, else pandas).")
@click.option("--signatures", is_flag=True, help="Instead: check every record's signature (of the task, or "
              "of the whole store when no task is named); exit 0 only when every one is signed by a trusted key.")
@click.option("--chain", is_flag=True, help="Instead: check each task's chain of signed records "
              "(a deleted, replaced or back-dated record breaks it).")
@click.option("--key", "key_files", multiple=True, type=click.Path(path_type=Path),
              help="With --signatures/--chain: a trusted public key file (PEM or base64; default: the store policy's).")
@lineage_errors
def verify_command(usecase_dir: Path, lineage_dir: Optional[str], as_json: bool, usecase: Optional[str],
                   package: Optional[str], task: Optional[str], run_id: Optional[str],
                   record_path: Optional[Path], engine: str, signatures: bool, chain: bool,
                   key_files: tuple[Path, ...]) -> None:
    """Re-hash the run's inputs and outputs where they are now; exit 0 only when all match
    (--signatures/--chain: check every record's signature and each task's chain instead)."""
    from ubunye.lineage.verify import verify_record

    store = make_store(usecase_dir, lineage_dir)
    if signatures or chain or key_files:
        verify_signatures(store, (usecase, package, task), key_files, signatures, chain, as_json)
    if record_path is not None:
        record = store.load(record_path)
    else:
        ref = resolve_task(store, usecase, package, task)
        record = ref.find(run_id) if run_id is not None else ref.newest()
    result = verify_record(record, engine=engine, base_dir=usecase_dir, trust=trust_hook(store))
    if as_json:
        emit_json("verify", result.to_dict())
    else:
        show_.verification(result)
    raise SystemExit(0 if result.data_proven_same else 1)


@lineage_group.command("openlineage")
@store_options
@task_options
@click.option("--run-id", default=None, help="Only this run (default: every run of the selection).")
@click.option("--namespace", default=None, help="The events' job namespace (default: ubunye).")
@click.option("--hive-metastore", default=None, metavar="HOST:PORT",
              help="Names Hive tables' datasets hive://HOST:PORT (default namespace: hive).")
@click.option("--databricks-workspace", default=None, metavar="HOST",
              help="Names Unity Catalog tables' datasets databricks://HOST (default namespace: databricks).")
@click.option("--send", is_flag=True,
              help="Send the events: through openlineage-python's client and its configuration (openlineage.yml, "
                   "OPENLINEAGE_URL, OPENLINEAGE__TRANSPORT__*) when installed, else POST to OPENLINEAGE_URL.")
@lineage_errors
def openlineage_command(usecase_dir: Path, lineage_dir: Optional[str], as_json: bool, usecase: Optional[str],
                        package: Optional[str], task: Optional[str], run_id: Optional[str],
                        namespace: Optional[str], hive_metastore: Optional[str],
                        databricks_workspace: Optional[str], send: bool) -> None:
    """Stored runs as OpenLineage run events (each run's START and end event), one JSON per line.

    Relative local paths are named absolute against the usecase folder (-d). The events are
    POSTed when UBUNYE_OPENLINEAGE_URL is set.
    """
    from ubunye.lineage.openlineage import NAMESPACE, URL_ENV, PostError, stored_runs, to_openlineage_events

    store = make_store(usecase_dir, lineage_dir)
    if run_id is not None:
        records = [resolve_task(store, usecase, package, task).find(run_id)]
    else:
        if task is not None and (usecase is None or package is None):
            fail("-t needs -u and -p: a task is named by usecase/package/task")
        if package is not None and usecase is None:
            fail("-p needs -u: a package is named by usecase/package")
        records = stored_runs(store, usecase=usecase, package=package, task=task)
    events = to_openlineage_events(records, base=usecase_dir, namespace=namespace or NAMESPACE,
                                   hive_metastore=hive_metastore, databricks_workspace=databricks_workspace)
    url = os.environ.get(URL_ENV)
    sent = None
    if url or send:
        from ubunye.lineage.ol_send import client_configured, client_installed, send_events

        if not url and not (client_installed() and client_configured()):
            url = os.environ.get("OPENLINEAGE_URL")
            if not url:
                fail(f"--send needs {URL_ENV} (or OPENLINEAGE_URL) set to the OpenLineage endpoint, "
                     "or openlineage-python installed (pip install 'ubunye[openlineage]')")
        try:
            sent = send_events(events, url=url).to_dict()
        except PostError as exc:
            fail(str(exc))
    if as_json:
        emit_json("openlineage", {"events": events, "posted": sent})
    else:
        show_.json_lines(events)


from ubunye.cli.commands.lineage_report import report_command  # noqa: E402 (one command, one file)

lineage_group.add_command(report_command)

from ubunye.cli.commands.lineage_diff import diff_command  # noqa: E402 (one command, one file)

lineage_group.add_command(diff_command)

from ubunye.cli.commands.lineage_attest import attest_command  # noqa: E402 (one command, one file)

lineage_group.add_command(attest_command)

from ubunye.cli.commands.lineage_policy import policy_command  # noqa: E402 (one command, one file)

lineage_group.add_command(policy_command)

for _name, _command in _refused.LINEAGE_COMMANDS.items():  # 0.8.0's `lineage focus`: one line saying why
    lineage_group.add_command(_command, _name)
