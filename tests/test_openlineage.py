"""``ubunye lineage openlineage``: run events on stdout, or POSTed to a local HTTP server."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest
from click.testing import CliRunner

from ubunye.cli.app import cli
from ubunye.lineage.openlineage import (
    ROWS_V1_FACET,
    URL_ENV,
    PostError,
    dataset_name,
    event_type,
    post_events,
    to_openlineage_events,
)
from ubunye.lineage.store import open_store

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
    assert events == json.loads(json.dumps(to_openlineage_events(records)))
    assert [e["run"]["runId"][:4] for e in events] == ["f8d3", "0ec7", "13fc"]  # oldest first
    first = events[0]
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
    assert facet["_producer"] and facet["_schemaURL"].startswith("https://")
    assert people["inputFacets"]["inputStatistics"]["rowCount"] == 3
    assert first["outputs"][0]["outputFacets"]["outputStatistics"]["rowCount"] == 2
    # the notebook run's unhashed input: no statistics facet, nulls in ours (never a false 0)
    unhashed = events[2]["inputs"][0]
    assert "inputFacets" not in unhashed and unhashed["facets"][ROWS_V1_FACET]["rowCount"] is None


def test_failed_run_is_a_fail_event_with_the_error() -> None:
    result = invoke("-u", "shop", "-p", "orders", "-t", "bad", "--json", env={URL_ENV: ""})
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert doc["schema_version"] == 1 and doc["posted"] is None
    (event,) = doc["events"]
    assert event["eventType"] == "FAIL"
    assert event["run"]["facets"]["errorMessage"]["message"].startswith("ExpectationError")


def test_mapping_helpers() -> None:
    assert [event_type(s) for s in ("success", "error", "interrupted", "running", "odd")] == [
        "COMPLETE", "FAIL", "ABORT", "START", "OTHER"]
    assert dataset_name("s3://bucket/a/b.parquet", "x") == ("s3://bucket", "a/b.parquet")
    assert dataset_name("file:///tmp/x.csv", "x") == ("file", "/tmp/x.csv")
    assert dataset_name(None, "people") == ("ubunye", "people")


class _Collector(BaseHTTPRequestHandler):
    received: list[Any] = []
    status = 201

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        length = int(self.headers["Content-Length"])
        type(self).received.append((self.headers["Content-Type"], json.loads(self.rfile.read(length))))
        self.send_response(type(self).status)
        self.end_headers()

    def log_message(self, *args: Any) -> None:  # keep test output clean
        pass


@pytest.fixture()
def server() -> Iterator[tuple[str, type[_Collector]]]:
    handler = type("Handler", (_Collector,), {"received": [], "status": 201})
    httpd = HTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/api/v1/lineage", handler
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_posts_every_event_when_the_url_is_set(server: tuple[str, type[_Collector]]) -> None:
    url, handler = server
    result = invoke("--json", env={URL_ENV: url})
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert doc["posted"] == {"url": url, "sent": 4}
    assert [body for _, body in handler.received] == doc["events"]
    assert {ctype for ctype, _ in handler.received} == {"application/json"}


def test_a_refusing_server_is_a_one_line_error(server: tuple[str, type[_Collector]]) -> None:
    url, handler = server
    handler.status = 400
    result = invoke("-u", "shop", "-p", "orders", "-t", "bad", env={URL_ENV: url})
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "HTTP 400" in result.stderr
    with pytest.raises(PostError, match="not an http"):
        post_events("ftp://x", [])
