"""Monitors and OpenLineage sending (issue 35): nothing a monitor does (building a transport,
sending, serialising) fails or stops a run, each failure is one masked warning; ``lineage
openlineage --send`` exits 0 only when every event was accepted (2xx), else 2 with one line.

Every probe runs the real CLI against a real collector on 127.0.0.1 (a tiny ``http.server``) with
each sender: the newest openlineage-python (the test environment's), the oldest the package
supports (``scripts/openlineage-oldest`` installs it under ``.venvs/``; skipped without it) and
none (the standard library's POST: the client hidden by a package that cannot be imported).
"""
from __future__ import annotations

import base64
import json
import os
import re
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, Iterator

import pytest

from harness import PACKAGE_ROOT, Result, Usecase, assert_no_secret, assert_one_line_error, cli, task_code
from test_openlineage import serving  # tests/: the one local collector server

REPO = Path(__file__).resolve().parents[2]
URL_ENV = "UBUNYE_OPENLINEAGE_URL"
NO_RETRY = {"OPENLINEAGE__TRANSPORT__RETRY__TOTAL": "0"}  # the client's 5xx retries take seconds


def oldest_client() -> Path:
    """Where scripts/openlineage-oldest installs the oldest openlineage-python pyproject.toml allows."""
    floor = re.search(r'"openlineage-python>=([0-9.]+)', (REPO / "pyproject.toml").read_text()).group(1)
    version = floor if floor.count(".") == 2 else floor + ".0"
    return REPO / ".venvs" / f"openlineage-{version}"


@pytest.fixture(scope="module")
def hidden(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder whose ``openlineage`` package cannot be imported (so the client is "not installed")."""
    folder = tmp_path_factory.mktemp("no-client")
    (folder / "openlineage").mkdir()
    (folder / "openlineage" / "__init__.py").write_text("raise ImportError('hidden by the probe')\n")
    return folder


@pytest.fixture(params=["newest", "oldest", "none"])
def sender(request: pytest.FixtureRequest, hidden: Path) -> dict[str, str]:
    """The environment that makes the CLI send through that client (PYTHONPATH first); a probe
    that names no sender runs through each."""
    if request.param == "newest":
        return {}
    if request.param == "oldest":
        folder = oldest_client()
        if not (folder / "openlineage").is_dir():
            pytest.skip(f"no {folder.name} (scripts/openlineage-oldest installs it)")
        return {"PYTHONPATH": f"{folder}{os.pathsep}{PACKAGE_ROOT}"}
    return {"PYTHONPATH": f"{hidden}{os.pathsep}{PACKAGE_ROOT}"}


class Collector(BaseHTTPRequestHandler):
    """Answers ``status`` to a POST on its endpoint (a 3xx names ``/followed``, which would answer 200:
    a sender that follows it is caught there)."""

    status = 200
    received: list[dict[str, Any]] = []
    followed: list[str] = []
    auth: list[Any] = []

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path.startswith("/followed"):
            type(self).followed.append(self.path)
            self.send_response(200)
            self.end_headers()
            return
        type(self).received.append(json.loads(body))
        type(self).auth.append(self.headers.get("Authorization"))
        self.send_response(type(self).status)
        if 300 <= type(self).status < 400:
            self.send_header("Location", "/followed/api/v1/lineage")
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST  # noqa: N815 - a 302/303 followed as a GET is caught too

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture()
def collector() -> Iterator[tuple[str, type[Collector]]]:
    handler = type("Handler", (Collector,), {"status": 200, "received": [], "followed": [], "auth": []})
    with serving(handler) as url:
        yield url, handler


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Usecase:
    """A usecase with one recorded run (two events: START and COMPLETE)."""
    uc = Usecase(tmp_path_factory.mktemp("stored"))
    uc.parquet("people.parquet")
    uc.task("t", config(uc))
    result = uc.run("-t", "t", "--lineage")
    assert result.code == 0, str(result)
    return uc


def config(uc: Usecase, monitor: bool = False) -> str:
    data, out = json.dumps(str(uc.root / "data/people.parquet")), json.dumps(str(uc.root / "out/kept"))
    text = f"CONFIG:\n  inputs:\n    people: {{format: parquet, path: {data}}}\n" \
           f"  outputs:\n    kept: {{format: parquet, path: {out}}}\n"
    return text + ("  monitors: [{type: openlineage, params: {namespace: live}}]\n" if monitor else "")


def send(uc: Usecase, *args: str, env: dict[str, str]) -> Result:
    return cli("lineage", "openlineage", "-d", str(uc.root), "--send", *args, env=env, timeout=60)


def events_printed(result: Result) -> list[dict[str, Any]]:
    return [json.loads(line) for line in result.out.splitlines() if line.strip()]


def test_lying_exit_code_send_accepted_prints_the_events_as_built(stored: Usecase, sender: dict[str, str],
                                                                   collector: tuple[str, type[Collector]]) -> None:
    """openlineage-python 1.54 adds its tags facet (an attrs object) to the event it is given:
    given our dicts, printing them after the send was an internal error."""
    url, handler = collector
    result = send(stored, env={**sender, URL_ENV: url})
    assert result.code == 0 and "Traceback" not in result.text, str(result)
    printed = events_printed(result)
    unsent = cli("lineage", "openlineage", "-d", str(stored.root))
    assert printed == events_printed(unsent) and len(printed) == 2, str(result)
    assert [e["eventType"] for e in handler.received] == ["START", "COMPLETE"]
    assert [e["run"]["runId"] for e in handler.received] == [e["run"]["runId"] for e in printed]
    as_json = send(stored, "--json", env={**sender, URL_ENV: url})
    doc = json.loads(as_json.out)
    assert as_json.code == 0 and doc["events"] == printed and doc["posted"]["sent"] == 2, str(as_json)


@pytest.mark.parametrize(("sender", "status"), [("newest", 307), ("newest", 302), ("newest", 500), ("oldest", 307),
                                                ("none", 302), ("none", 500)], indirect=["sender"])
def test_lying_exit_code_send_not_accepted_is_exit_2(stored: Usecase, sender: dict[str, str], status: int,
                                                     collector: tuple[str, type[Collector]]) -> None:
    """A 3xx is no acceptance (a sender that follows it may drop the body: a 302 becomes a GET),
    nor a 4xx or 5xx: one line naming the status, exit 2, nothing on stdout."""
    url, handler = collector
    handler.status = status
    result = send(stored, env={**sender, **NO_RETRY, URL_ENV: url})
    assert_one_line_error(result, code=2)
    assert str(status) in result.err and result.out == "", str(result)
    assert handler.followed == [], "a redirect was followed"


@pytest.mark.parametrize(("sender", "url"), [("newest", "http://127.0.0.1:abc/api"), ("none", "http://127.0.0.1:abc/api"),
                                             ("none", "http://[::1/api")], indirect=["sender"])
def test_traceback_send_to_an_unparsable_url_is_one_line(stored: Usecase, sender: dict[str, str], url: str) -> None:
    result = send(stored, env={**sender, URL_ENV: url})
    assert_one_line_error(result, code=2)


def test_traceback_send_through_kafka_without_its_package(stored: Usecase) -> None:
    env = {"OPENLINEAGE__TRANSPORT__TYPE": "kafka", "OPENLINEAGE__TRANSPORT__TOPIC": "lineage",
           "OPENLINEAGE__TRANSPORT__CONFIG__BOOTSTRAP.SERVERS": "127.0.0.1:9"}
    result = send(stored, env=env)
    assert_one_line_error(result, code=2, naming=["confluent"])


SECRET = "OlP. Sekr3t-7731"  # a space: no URL parser (nor the masker's URL rule) takes it as one token


def test_secret_leak_url_password_the_client_cannot_parse(stored: Usecase, sender: dict[str, str]) -> None:
    url = f"http://olu:{SECRET}@127.0.0.1:abc/api/v1/lineage"
    result = send(stored, env={**sender, URL_ENV: url})
    assert_one_line_error(result, code=2)
    for part in SECRET.split():
        assert_no_secret(part, result)


@pytest.mark.parametrize("sender", ["newest", "none"], indirect=True)
def test_secret_leak_url_password_is_sent_as_basic_auth_never_in_a_text(
        stored: Usecase, sender: dict[str, str], collector: tuple[str, type[Collector]]) -> None:
    """The userinfo leaves the URL before any client sees it, and still authenticates (Basic)."""
    url, handler = collector
    with_user = url.replace("http://", f"http://olu:{SECRET.replace(' ', '%20')}@")
    result = send(stored, "--json", env={**sender, URL_ENV: with_user})
    assert result.code == 0, str(result)
    expected = "Basic " + base64.b64encode(f"olu:{SECRET}".encode()).decode()
    assert handler.auth == [expected] * 2
    for part in SECRET.split():
        assert_no_secret(part, result)
    handler.status = 403
    refused = send(stored, env={**sender, URL_ENV: with_user})
    assert_one_line_error(refused, code=2)
    for part in SECRET.split():
        assert_no_secret(part, refused)


# --- live: a task with an openlineage monitor -----------------------------------------------------------


@pytest.fixture()
def live(tmp_path: Path) -> Usecase:
    uc = Usecase(tmp_path / "uc")
    uc.parquet("people.parquet")
    uc.task("t", config(uc, monitor=True))
    return uc


def assert_run_unharmed(uc: Usecase, result: Result, status: str = "success") -> list[str]:
    """The run went as without a monitor; returns its OpenLineage warnings (one line each)."""
    assert "Traceback" not in result.text and "internal error" not in result.text, str(result)
    assert [r["status"] for r in uc.records("t")] == [status], str(result)
    if status == "success":
        assert result.code == 0 and (uc.root / "out/kept").exists(), str(result)
    return [line for line in result.err.splitlines() if "OpenLineage" in line and "not sent" in line]


def test_lying_exit_code_monitor_with_an_unparsable_url_never_fails_the_run(live: Usecase, sender: dict[str, str]) -> None:
    """The client refused the URL (and printed it, password and all) before anything was read."""
    result = live.run("-t", "t", env={**sender, URL_ENV: f"http://olu:{SECRET}@127.0.0.1:abc/x"})
    warned = assert_run_unharmed(live, result)
    assert len(warned) == 2 and {"START", "COMPLETE"} == {w.split("OpenLineage ")[1].split()[0] for w in warned}
    for part in SECRET.split():
        assert_no_secret(part, result, live.root)


def test_lying_exit_code_monitor_with_an_invalid_ipv6_url_never_fails_the_run(live: Usecase) -> None:
    result = live.run("-t", "t", env={URL_ENV: "http://[::1/api"})
    assert len(assert_run_unharmed(live, result)) == 2


def test_lying_exit_code_monitor_through_kafka_without_its_package(live: Usecase) -> None:
    env = {"OPENLINEAGE__TRANSPORT__TYPE": "kafka", "OPENLINEAGE__TRANSPORT__TOPIC": "lineage",
           "OPENLINEAGE__TRANSPORT__CONFIG__BOOTSTRAP.SERVERS": "127.0.0.1:9"}
    result = live.run("-t", "t", env=env)
    warned = assert_run_unharmed(live, result)
    assert len(warned) == 2 and all("confluent" in w for w in warned), str(result)


@pytest.mark.parametrize("sender", ["newest", "oldest"], indirect=True)
def test_lying_exit_code_monitor_refused_by_the_collector(live: Usecase, sender: dict[str, str],
                                                          collector: tuple[str, type[Collector]]) -> None:
    url, handler = collector
    handler.status = 307
    result = live.run("-t", "t", env={**sender, URL_ENV: url})
    warned = assert_run_unharmed(live, result)
    assert len(warned) == 2 and all("307" in w for w in warned), str(result)
    assert handler.followed == []


def test_lying_exit_code_monitor_of_a_failed_run_still_says_failed(live: Usecase,
                                                                   collector: tuple[str, type[Collector]]) -> None:
    url, handler = collector
    live.task("t", config(live, monitor=True), task_code("raise SystemExit(3)"))
    result = live.run("-t", "t", env={URL_ENV: url})
    assert result.code != 0
    assert_run_unharmed(live, result, status="error")
    assert [e["eventType"] for e in handler.received] == ["START", "FAIL"]


def test_lying_exit_code_monitor_with_no_destination_says_not_sent(live: Usecase, tmp_path: Path) -> None:
    """No URL and no client configuration: the client would print the events to its console logger
    (nowhere, by default) and the run said nothing; now each event is one warning."""
    result = live.run("-t", "t", env={"HOME": str(tmp_path)})  # no ~/.openlineage/openlineage.yml
    warned = assert_run_unharmed(live, result)
    assert len(warned) == 2 and all("configuration" in w for w in warned), str(result)
    assert "Couldn't find" not in result.err.replace(warned[0], "").replace(warned[1], ""), str(result)


def test_lying_exit_code_send_with_the_client_disabled(stored: Usecase, collector: tuple[str, type[Collector]]) -> None:
    """OPENLINEAGE_DISABLED=true makes the client drop every event: "sent 2" was a lie."""
    url, handler = collector
    result = send(stored, "--json", env={URL_ENV: url, "OPENLINEAGE_DISABLED": "true"})
    assert_one_line_error(result, code=2, naming=["disabled"])
    assert handler.received == []


def test_secret_leak_password_in_the_clients_own_url_variable(stored: Usecase, live: Usecase) -> None:
    """OPENLINEAGE_URL is read by the client itself (its message names the URL it cannot parse): the
    password is taught to the masker before the client is built."""
    env = {"OPENLINEAGE_URL": f"http://olu:{SECRET}@127.0.0.1:abc"}
    result = send(stored, env=env)
    assert_one_line_error(result, code=2)
    for part in SECRET.split():
        assert_no_secret(part, result)
    ran = live.run("-t", "t", env=env)
    assert len(assert_run_unharmed(live, ran)) == 2
    for part in SECRET.split():
        assert_no_secret(part, ran, live.root)


@pytest.mark.parametrize(("url", "split"), [
    (f"http://olu:{SECRET}@127.0.0.1:abc/x", ("http://127.0.0.1:abc/x", "olu", SECRET)),
    ("http://u:pa/ss@w#o?rd@h:5000/api?x=1", ("http://h:5000/api?x=1", "u", "pa/ss@w#o?rd")),
    ("https://u:p%20q@h/api", ("https://h/api", "u", "p q")),
    ("http://u:1234@h", ("http://h", "u", "1234")),
    ("http://u@h/api", ("http://h/api", "u", None)),
    ("http://h:5000/api/v1/lineage?mail=a@b", ("http://h:5000/api/v1/lineage?mail=a@b", None, None)),
    ("http://h:5000/a@b", ("http://h:5000/a@b", None, None)),
    ("not a url", ("not a url", None, None)),
])
def test_secret_leak_split_userinfo(url: str, split: tuple[Any, ...]) -> None:
    """What no client is given: the userinfo, cut where the masker and the dataset names cut it."""
    from ubunye.locations import split_userinfo

    assert split_userinfo(url) == split
