"""The OpenLineage Spark listener's own events carry ``ubunye_rows_v1``: with our listener
extension (``scala/openlineage``, loaded by openlineage-spark through Java's service loader)
the listener's COMPLETE event of a parquet and of a Delta write names the dataset as our
events do and carries the data hash of our run record.

The extension jar is the package's (python/ubunye/spark/jars/openlineage/, chosen for the
session's line by ``ubunye.spark.configure``); the openlineage-spark jar it was built against is
in ``target/openlineage/`` (``scripts/build-jar`` or ``scripts/sbt -DsparkVersion=4.1
openlineage/exportOpenLineage``); without them this test fails saying so.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema

from ubunye.engine.execution import DEFAULT_LINEAGE_DIR
from ubunye.lineage.openlineage import ROWS_V1_FACET, ROWS_V1_SCHEMA, run_events
from ubunye.lineage.store import open_store

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the official schemas, generated as the fast tests generate them
import ol_schemas  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from ol_listener_run import listener_jar  # noqa: E402


FORMATS = ["parquet", "delta", "json", "json-multiline"]


def test_the_listeners_complete_event_carries_the_records_hash(tmp_path: Path) -> None:
    """A json output is hashed from its files after the write (``second-pass``); its write hashes
    each row's round trip through Spark's json writer and reader, which is the files' hash, and the
    listener's event carries that. Read back with ``multiLine`` the files are not read line by line:
    no round trip, and the listener's event carries no facet (never another hash than the files').
    The four tasks run one after another on one session (``ol_listener_run.py``)."""
    events_file = tmp_path / "events.jsonl"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "python"), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, str(Path(__file__).with_name("ol_listener_run.py")), str(tmp_path),
                           str(events_file), listener_jar(), *FORMATS],
                          env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "ubunye-spark-openlineage_" in done.stderr  # configure() put the line's extension jar on the session
    listener = [json.loads(line) for line in events_file.read_text().splitlines()]
    outputs = {check_format(tmp_path / fmt, fmt, listener) for fmt in FORMATS}
    # no other dataset (an input, a table read) carries the facet
    assert {(d["namespace"], d["name"]) for e in listener for d in e.get("outputs", []) + e.get("inputs", [])
            if ROWS_V1_FACET in d.get("outputFacets", {})} <= outputs


def check_format(workdir: Path, fmt: str, listener: list[dict[str, Any]]) -> tuple[str, str]:
    """The run of ``fmt`` in ``workdir``: its record, our events, and the listener's events naming its
    output (returned: its namespace and name)."""
    (record,) = open_store(workdir, DEFAULT_LINEAGE_DIR).list_runs("shop", "daily", "totals")
    (step,) = record.outputs
    assert record.status == "success" and step.data_hash, fmt
    assert step.hash_pass == ("second-pass" if fmt.startswith("json") else "same-pass"), fmt
    # the record holds the columns as Spark typed them; our events carry them as the schema facet
    assert step.columns == [{"name": "id", "type": "int"}, {"name": "amount", "type": "int"}], fmt
    ours = run_events(record, base=workdir)
    assert [ol_schemas.errors(e) for e in ours] == [[], []], fmt
    (our_output,) = ours[-1]["outputs"]
    assert our_output["facets"]["schema"]["fields"] == step.columns, fmt
    ident = (our_output["namespace"], our_output["name"])

    # the listener's events of this output (the one session ran every format's task)
    named = [e for e in listener if any((d["namespace"], d["name"]) == ident for d in e.get("outputs", []))]
    assert any(e["eventType"] == "COMPLETE" for e in named), (fmt, ident)
    carrying = [(e, d) for e in listener for d in e.get("outputs", [])
                if ROWS_V1_FACET in d.get("outputFacets", {})]
    mine = [(e, d) for e, d in carrying if (d["namespace"], d["name"]) == ident]
    if fmt == "json-multiline":
        assert mine == [], fmt
        return ident
    assert mine, [(e["eventType"], [d["name"] for d in e.get("outputs", [])]) for e in listener]
    assert {e["eventType"] for e, _ in mine} == {"COMPLETE"}, fmt
    for event, dataset in mine:
        facet = dataset["outputFacets"][ROWS_V1_FACET]
        assert (facet["dataHash"], facet["schemaHash"], facet["rowCount"], facet["stepName"], facet["engine"]) == (
            step.data_hash, step.schema_hash, step.row_count, step.name, step.hash_engine), fmt
        assert facet["hashPass"] == step.hash_pass and facet["_schemaURL"] == ROWS_V1_SCHEMA, fmt
        validator = jsonschema.Draft202012Validator(ol_schemas.rows_v1_schema(), format_checker=ol_schemas.FORMAT_CHECKER)
        assert [e.message for e in validator.iter_errors(facet)] == [], fmt
    return ident
