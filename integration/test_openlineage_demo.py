"""The demo pipeline (examples/shop/orders: ingest, clean, summarise; scripts/demo) with
OpenLineage end to end, on Spark and on pandas:

- each task's config has ``monitors: [{type: openlineage}]``: START and COMPLETE of every task
  (and START and FAIL of ``summarise`` broken on purpose) reach a collector on 127.0.0.1
  through the official client (``OPENLINEAGE__TRANSPORT__*``), with one run id per pair;
- every event received validates against the official schemas (facets included, 0 errors),
  and so does every event ``ubunye lineage openlineage`` exports from the stored records;
- on Spark the session runs the OpenLineage Spark listener (file transport) with the extension
  jar ``ubunye.spark.configure`` chose for the session's line: the listener names each output
  as our events do, and its COMPLETE event for each output carries ``ubunye_rows_v1`` equal to
  the record's hash: the parquet outputs hashed by the write (same pass), the json output
  (``by_city``, hashed from its files after the write: second pass) by the write too, each row
  after a round trip through Spark's json writer and reader, which is the files' hash.

Needs the extension jar in python/ubunye/spark/jars/openlineage/ and the openlineage-spark
jar in target/openlineage/ (``scripts/build-jar``, or ``scripts/sbt -DsparkVersion=4.1
openlineage/exportOpenLineage``); without them it fails saying so.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from ubunye.cli.app import cli
from ubunye.lineage.openlineage import ROWS_V1_FACET, ol_run_id, run_events
from ubunye.lineage.record import RunRecord
from ubunye.lineage.store import open_store

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the official schemas and the collector of the fast tests
import ol_schemas  # noqa: E402
from test_openlineage import server  # noqa: E402,F401 - the loopback collector (a fixture)

sys.path.insert(0, str(Path(__file__).parent))
from ol_demo_run import break_task, run_args  # noqa: E402
from ol_listener_run import listener_jar  # noqa: E402

TASKS = ["ingest", "clean", "summarise"]
MONITOR = "  monitors: [{type: openlineage, params: {namespace: demo}}]\n"


def _demo(tmp: Path) -> tuple[Path, Path]:
    """A copy of examples/ with the monitor entry in each task's config, and the demo's data."""
    usecase = tmp / "examples"
    shutil.copytree(ROOT / "examples" / "shop", usecase / "shop")
    for task in TASKS:
        config = usecase / "shop" / "orders" / task / "config.yaml"
        text = config.read_text()
        assert "\nCONFIG:\n" in text and not text.endswith("\n\n"), text
        config.write_text(text + MONITOR)
    data = tmp / "data"
    subprocess.run([sys.executable, str(ROOT / "examples" / "generate_data.py"), str(data)], check=True,
                   capture_output=True, timeout=120)
    return usecase, data


def _records(usecase: Path, backend: str) -> dict[str, list[RunRecord]]:
    store = open_store(usecase, ".ubunye/lineage")
    return {t: [r for r in reversed(store.list_runs("shop", "orders", t)) if r.backend == backend] for t in TASKS}


def _check_sent(received: list[dict[str, Any]], records: dict[str, list[RunRecord]], ends: list[str]) -> None:
    """Each record's START and end event reached the collector, in order, valid, with its run id."""
    runs = [r for t in TASKS for r in records[t]]
    assert [r.status for t in TASKS for r in records[t]] == ["success"] * 3 + ["error"] * (len(runs) - 3)
    by_run: dict[str, list[str]] = {}
    for event in received:
        by_run.setdefault(event["run"]["runId"], []).append(event["eventType"])
    assert [by_run.get(ol_run_id(r)) for r in runs] == [["START", e] for e in ends]
    assert [ol_schemas.errors(e) for e in received] == [[]] * len(received)
    assert {e["job"]["namespace"] for e in received} == {"demo"}
    pipeline = {e["run"]["facets"]["parent"]["run"]["runId"] for e in received if e["eventType"] == "COMPLETE"}
    assert len(pipeline) == 1  # the three tasks of one `ubunye run --all` name one parent run


def test_the_demo_on_pandas_sends_start_complete_and_fail(tmp_path: Path, server: Any) -> None:  # noqa: F811
    url, handler = server
    usecase, data = _demo(tmp_path)
    env = {"UBUNYE_OPENLINEAGE_URL": "", "OPENLINEAGE__TRANSPORT__TYPE": "http",
           "OPENLINEAGE__TRANSPORT__URL": url.rsplit("/api", 1)[0]}
    runner = CliRunner()
    done = runner.invoke(cli, run_args(usecase, data, tmp_path / "out", "pandas"), env=env)
    assert done.exit_code == 0, done.stderr
    break_task(usecase / "shop" / "orders" / "summarise")
    assert runner.invoke(cli, run_args(usecase, data, tmp_path / "out", "pandas", "summarise"), env=env).exit_code != 0
    received = [body for _, body in handler.received]
    records = _records(usecase, "pandas")
    _check_sent(received, records, ["COMPLETE"] * 3 + ["FAIL"])
    assert "summarise broke on purpose" in received[-1]["run"]["facets"]["errorMessage"]["message"]
    exported = [e for t in TASKS for r in records[t] for e in run_events(r, base=usecase)]
    assert len(exported) == 8 and [ol_schemas.errors(e) for e in exported] == [[]] * 8


def test_the_demo_on_spark_with_the_listener(tmp_path: Path, server: Any) -> None:  # noqa: F811
    url, handler = server
    usecase, data = _demo(tmp_path)
    events_file = tmp_path / "listener.jsonl"
    env = {**os.environ, "UBUNYE_OPENLINEAGE_URL": "", "OPENLINEAGE__TRANSPORT__TYPE": "http",
           "OPENLINEAGE__TRANSPORT__URL": url.rsplit("/api", 1)[0],
           "PYTHONPATH": os.pathsep.join([str(ROOT / "python"), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, str(Path(__file__).with_name("ol_demo_run.py")), str(usecase), str(data),
                           str(tmp_path / "out"), str(events_file), listener_jar()],
                          env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-4000:]
    assert "ubunye-spark-openlineage_" in done.stderr  # configure() put the line's extension jar on the session
    records = _records(usecase, "spark")
    received = [body for _, body in handler.received]
    _check_sent(received, records, ["COMPLETE"] * 3 + ["FAIL"])

    listener = [json.loads(line) for line in events_file.read_text().splitlines()]
    named: dict[tuple[str, str], list[tuple[str, dict[str, Any]]]] = {}  # (namespace, name) -> (type, facet)
    for event in listener:
        for dataset in event.get("outputs", []):
            named.setdefault((dataset["namespace"], dataset["name"]), []).append(
                (event["eventType"], dataset.get("outputFacets", {}).get(ROWS_V1_FACET)))
    carried: dict[str, list[str]] = {}  # hash pass -> the outputs whose facet the listener's COMPLETE carried
    for task in TASKS:
        record = records[task][0]  # the successful run
        ours = run_events(record, base=usecase)
        assert [ol_schemas.errors(e) for e in ours] == [[], []]
        for step, our_output in zip(record.outputs, ours[-1]["outputs"]):
            key = (our_output["namespace"], our_output["name"])
            assert "COMPLETE" in {kind for kind, _ in named.get(key, [])}, (key, sorted(named))  # named as we do
            facets = [(kind, f) for kind, f in named[key] if f is not None]
            assert step.data_hash and step.data_hash == our_output["facets"][ROWS_V1_FACET]["dataHash"]
            assert {kind for kind, _ in facets} == {"COMPLETE"}, (step.name, named[key])
            assert {(f["dataHash"], f["rowCount"], f["hashPass"]) for _, f in facets} == {
                (step.data_hash, step.row_count, step.hash_pass)}
            carried.setdefault(step.hash_pass, []).append(step.name)
    assert {p: sorted(names) for p, names in carried.items()} == {
        "same-pass": ["customers_raw", "orders_clean", "orders_raw"], "second-pass": ["by_city"]}
