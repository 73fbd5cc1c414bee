"""``ubunye lineage openlineage``: run events on stdout, or POSTed to a local HTTP server."""
from __future__ import annotations

import json
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest
from click.testing import CliRunner

from ubunye.cli.app import cli
from ubunye.lineage.openlineage import (
    ROWS_V1_FACET,
    ROWS_V1_SCHEMA,
    ROWS_V1_SCHEMA_FILE,
    URL_ENV,
    PostError,
    dataset_name,
    event_type,
    ol_run_id,
    post_events,
    to_openlineage_events,
)
from ubunye.lineage.record import RunRecord
from ubunye.lineage.store import open_store

import ol_schemas

SAMPLES = Path(__file__).parent / "fixtures" / "records"
ARGS = ["-d", str(SAMPLES), "--lineage-dir", "ubunye-engine-0.8.0"]


def invoke(*args: str, env: dict[str, str] | None = None) -> Any:
    result = CliRunner().invoke(cli, ["lineage", "openlineage", *ARGS, *args], env=env)
    assert "Traceback" not in result.stderr
    return result


def test_events_one_per_line_with_rows_v1_facets() -> None:
    result = invoke("-u", "shop", "-p", "orders", "-t", "clean", env={URL_ENV: ""})
    assert result.exit_code == 0
    events = [json.loads(line) for line in result.stdout.splitlines()]
    records = list(reversed(open_store(SAMPLES, "ubunye-engine-0.8.0").list_runs("shop", "orders", "clean")))
    assert events == json.loads(json.dumps(to_openlineage_events(records, base=SAMPLES)))
    # each run: its START, then its end event, with one run id (oldest run first)
    assert [e["eventType"] for e in events] == ["START", "COMPLETE"] * 3
    assert [e["run"]["runId"] for e in events] == [ol_run_id(r) for r in records for _ in "se"]
    assert [e["eventTime"] for e in events[:2]] == [records[0].started_at, records[0].ended_at]
    first = events[1]
    assert first["eventType"] == "COMPLETE" and first["job"] == {"namespace": "ubunye", "name": "shop.orders.clean",
                                                                 "facets": {}}
    people = first["inputs"][0]
    assert (people["namespace"], people["name"]) == ("file", "/data/pipelines/shop/orders/clean/data/people.csv")
    facet = people["facets"][ROWS_V1_FACET]
    assert {k: facet[k] for k in ("rowCount", "schemaHash", "dataHash", "method")} == {
        "rowCount": 3,
        "schemaHash": "sha256:9c8ec3b88dbe339ab9b89edfde00d307e4e87c6b1fc17cdbf95a81fb0f3253b5",
        "dataHash": "sha256:dc218dc439d529806d758af56ee46d60858e97c802734387b5325c5079ea7fb1",
        "method": "rows-v1",
    }
    assert facet["_producer"] and facet["_schemaURL"] == ROWS_V1_SCHEMA
    assert people["inputFacets"]["inputStatistics"]["rowCount"] == 3
    assert first["outputs"][0]["outputFacets"]["outputStatistics"]["rowCount"] == 2
    # the notebook run's unhashed input: no statistics facet, nulls in ours (never a false 0)
    unhashed = events[5]["inputs"][0]
    assert "inputStatistics" not in unhashed["inputFacets"] and unhashed["facets"][ROWS_V1_FACET]["rowCount"] is None


def test_failed_run_is_a_fail_event_with_the_error() -> None:
    result = invoke("-u", "shop", "-p", "orders", "-t", "bad", "--json", env={URL_ENV: ""})
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert doc["schema_version"] == 1 and doc["posted"] is None
    start, event = doc["events"]
    assert (start["eventType"], event["eventType"]) == ("START", "FAIL")
    assert start["run"]["runId"] == event["run"]["runId"] and "errorMessage" not in start["run"]["facets"]
    assert event["run"]["facets"]["errorMessage"]["message"].startswith("ExpectationError")
    tests = {t["name"]: t for t in event["run"]["facets"]["test"]["tests"]}
    assert tests["adults.city_not_null"] == {"name": "adults.city_not_null", "status": "fail", "severity": "warn",
                                             "type": "not_null"}
    people = event["inputs"][0]["inputFacets"]["dataQualityAssertions"]["assertions"]
    assert people == [{"assertion": "columns", "success": True, "name": "columns", "severity": "error"}]


def test_mapping_helpers() -> None:
    assert [event_type(s) for s in ("success", "error", "interrupted", "running", "odd")] == [
        "COMPLETE", "FAIL", "ABORT", "START", "OTHER"]
    assert dataset_name("s3://bucket/a/b.parquet", "x") == ("s3://bucket", "a/b.parquet")
    assert dataset_name("file:///tmp/x.csv", "x") == ("file", "/tmp/x.csv")
    assert dataset_name(None, "people") == ("ubunye", "people")
    assert dataset_name("s3a://bucket/a", "x") == ("s3://bucket", "a")
    assert dataset_name("gs://b/t/x.parquet", "x") == ("gs://b", "t/x.parquet")
    assert dataset_name("abfss://c@acct.dfs.core.windows.net/d/t", "x") == (
        "abfss://c@acct.dfs.core.windows.net", "d/t")
    assert dataset_name("dbfs:/mnt/x", "x") == ("dbfs", "/mnt/x")
    # a relative path is absolute against the usecase folder: two machines name it alike
    assert dataset_name("data/../out/x.csv", "x", base=Path("/srv/uc")) == ("file", "/srv/uc/out/x.csv")


def test_run_ids_are_uuid7_and_stable() -> None:
    record = RunRecord(run_id="d84802d3-7d57-4c76-bc9c-0626308af19c", started_at="2026-11-30T14:20:47.000+00:00")
    run_id = ol_run_id(record)
    assert run_id == ol_run_id(RunRecord.from_dict(record.to_dict()))
    assert run_id[14] == "7" and run_id[19] in "89ab"
    assert int(run_id.replace("-", "")[:12], 16) == 1796048447000  # started_at in ms
    assert ol_run_id(RunRecord(run_id="x", started_at="1970-01-01T00:00:01.234Z")).startswith("00000000-04d2-7")
    assert ol_run_id(RunRecord(run_id="other", started_at=record.started_at)) != run_id


def test_every_event_validates_against_the_official_schemas() -> None:
    store = open_store(SAMPLES, "ubunye-engine-0.8.0")
    records = [r for u, p, t in store.iter_tasks() for r in store.list_runs(u, p, t)]
    records.append(RunRecord(run_id="r", task_path="a/b/c", status="running", started_at="2026-11-30T14:20:47+00:00"))
    events = to_openlineage_events(records, base=SAMPLES)
    assert {e["eventType"] for e in events} == {"START", "COMPLETE", "FAIL"}
    assert {e["run"]["runId"] for e in events if e["eventType"] == "START"} == {ol_run_id(r) for r in records}
    assert [ol_schemas.errors(e) for e in events] == [[]] * len(events)
    facets = {k for e in events for d in e["inputs"] + e["outputs"] for k in d["facets"]}
    assert ROWS_V1_FACET in facets
    assert ROWS_V1_SCHEMA.startswith(f"urn:ubunye:spec:{ROWS_V1_SCHEMA_FILE}#")


def test_the_schema_check_can_fail() -> None:
    store = open_store(SAMPLES, "ubunye-engine-0.8.0")
    (event,) = [e for e in to_openlineage_events(store.list_runs("shop", "orders", "bad")) if e["eventType"] == "FAIL"]
    stats = event["inputs"][0]["inputFacets"]["inputStatistics"]
    stats["_schemaURL"] = "https://openlineage.io/spec/facets/1-0-2/InputStatisticsInputDatasetFacet.json"
    event["inputs"][0]["facets"][ROWS_V1_FACET]["rowCount"] = "3"
    event["run"]["runId"] = "not-a-uuid"
    found = ol_schemas.errors(event)
    assert len(found) == 3 and "not a 'uuid'" in found[0], found
    assert {"no official model" in f or "'3' is not of type" in f for f in found[1:]} == {True}, found


class _Collector(BaseHTTPRequestHandler):
    received: list[Any] = []
    auth: list[Any] = []
    status = 201

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        length = int(self.headers["Content-Length"])
        type(self).received.append((self.headers["Content-Type"], json.loads(self.rfile.read(length))))
        type(self).auth.append(self.headers.get("Authorization"))
        self.send_response(type(self).status)
        self.end_headers()

    def log_message(self, *args: Any) -> None:  # keep test output clean
        pass


@contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """An HTTP server on 127.0.0.1 (a free port) answering with ``handler`` in a thread: its lineage URL."""
    httpd = HTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/api/v1/lineage"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture()
def server() -> Iterator[tuple[str, type[_Collector]]]:
    handler = type("Handler", (_Collector,), {"received": [], "auth": [], "status": 201})
    with serving(handler) as url:
        yield url, handler


def test_posts_every_event_when_the_url_is_set(server: tuple[str, type[_Collector]]) -> None:
    url, handler = server
    result = invoke("--json", env={URL_ENV: url})
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert doc["posted"] == {"url": url, "sent": 8}
    received = [body for _, body in handler.received]
    assert [(e["eventType"], e["run"]["runId"]) for e in received] == [
        (e["eventType"], e["run"]["runId"]) for e in doc["events"]]
    assert [ol_schemas.errors(e) for e in received] == [[]] * 8  # checked as the collector got them
    hashes = [d["facets"][ROWS_V1_FACET].get("dataHash") for e in received for d in e["outputs"]
              if ROWS_V1_FACET in d["facets"]]
    assert hashes == [d["facets"][ROWS_V1_FACET]["dataHash"] for e in doc["events"] for d in e["outputs"]
                      if ROWS_V1_FACET in d["facets"]] and hashes
    assert {ctype.split(";")[0] for ctype, _ in handler.received} == {"application/json"}


def test_a_refusing_server_is_a_one_line_error(server: tuple[str, type[_Collector]]) -> None:
    url, handler = server
    handler.status = 400
    result = invoke("-u", "shop", "-p", "orders", "-t", "bad", env={URL_ENV: url})
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "400" in result.stderr
    with pytest.raises(PostError, match="not an http"):
        post_events("ftp://x", [])


def test_send_through_the_clients_own_configuration(server: tuple[str, type[_Collector]]) -> None:
    url, handler = server
    key = "k3y-Sekrit-0penlineage"
    env = {URL_ENV: "", "OPENLINEAGE__TRANSPORT__TYPE": "http", "OPENLINEAGE__TRANSPORT__URL": url.rsplit("/api", 1)[0],
           "OPENLINEAGE__TRANSPORT__AUTH__TYPE": "api_key", "OPENLINEAGE__TRANSPORT__AUTH__API_KEY": key}
    result = invoke("-u", "shop", "-p", "orders", "-t", "bad", "--send", "--json", env=env)
    assert result.exit_code == 0, result.stderr
    assert [b["eventType"] for _, b in handler.received] == ["START", "FAIL"]
    assert [ol_schemas.errors(b) for _, b in handler.received] == [[], []]
    assert handler.auth == [f"Bearer {key}"] * 2
    handler.status = 403  # refused (a status the transport does not retry): one line, the key never printed
    result = invoke("-u", "shop", "-p", "orders", "-t", "bad", "--send", env=env)
    assert result.exit_code == 2 and result.stderr.count("\n") == 1 and "403" in result.stderr
    assert key not in result.stderr + result.stdout


def test_a_monitor_entry_sends_start_and_end_live(tmp_path: Path, server: tuple[str, type[_Collector]],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from test_compat_080_cli import CONFIG, TASK_ARGS, make_task

    url, handler = server
    monkeypatch.setenv(URL_ENV, url)
    task = make_task(tmp_path, CONFIG + "  monitors: [{type: openlineage, params: {namespace: live}}]\n")
    result = CliRunner().invoke(cli, ["run", "-d", str(tmp_path), *TASK_ARGS])
    assert result.exit_code == 0, result.stderr
    received = [body for _, body in handler.received]
    handler.received = []
    code = (task / "transformations.py").read_text()
    (task / "transformations.py").write_text(code.replace("    def transform(self, sources):",
                                                          "    def transform(self, sources):\n        raise ValueError('boom')"))
    assert CliRunner().invoke(cli, ["run", "-d", str(tmp_path), *TASK_ARGS]).exit_code != 0
    failed = [body for _, body in handler.received]
    assert [e["eventType"] for e in failed] == ["START", "FAIL"] and [ol_schemas.errors(e) for e in failed] == [[], []]
    assert "boom" in failed[1]["run"]["facets"]["errorMessage"]["message"]
    assert [e["eventType"] for e in received] == ["START", "COMPLETE"]
    assert received[0]["run"]["runId"] == received[1]["run"]["runId"]
    assert {e["job"]["namespace"] for e in received} == {"live"}
    assert [ol_schemas.errors(e) for e in received] == [[], []]
    (out,) = received[1]["outputs"]
    assert (out["namespace"], out["name"]) == ("file", str((tmp_path / "shop/daily/totals/out").resolve()))
    assert out["facets"][ROWS_V1_FACET]["dataHash"].startswith("sha256:")
