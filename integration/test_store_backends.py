"""The record store's behaviour on every backend, against real servers on 127.0.0.1.

Backends: a local folder (temp file + link), a FUSE-like volume folder (``/Volumes`` mode:
O_EXCL only; here ``link`` fails with ENOSYS and ``rename`` is copy-then-delete, as
public reports describe the mount, so any use of them would show), S3 on moto's server,
Azure Blob on Azurite (``az://`` and ``abfss://``), Google Cloud Storage on fake-gcs-server
(behind ``scripts/gcs_adapter.py``, which gives it the XML API's object PUT that obstore
uses; fake-gcs-server decides each conditional create). The servers are started by
``scripts/servers.py`` for this module and stopped after it (each with a bounded life).
Unity Catalog volumes off a cluster: the Databricks Files API (``dbfs:/Volumes/...`` with
``DATABRICKS_HOST``), against ``files_api_server.py``, a local server of the documented
endpoints (the real API is not reached).

Per backend: write, load, latest, compare, verify, the CLI on the store URL, records
written once, the reuse index, 8 writers x 20 rounds in threads and in processes (nothing
lost, nothing overwritten, one winner per contested key), and faults injected by an HTTP
proxy (412, 409, 500, a lost answer, a truncated object).
"""
from __future__ import annotations

import errno
import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import textwrap
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Callable

import pytest
from click.testing import CliRunner

from ubunye.cli.app import cli
from ubunye.lineage.compare import compare_records
from ubunye.lineage.errors import RecordUnsigned, RecordWriteError, UnreadableRecord
from ubunye.lineage.known import KnownHashes
from ubunye.lineage.record import RunRecord, Step
from ubunye.lineage.store import RecordStore, open_store
from ubunye.lineage.store.index import RecordIndex
from ubunye.lineage.store.posix import PosixBlobs
from ubunye.lineage.store import index as index_module

from fault_proxy import FaultProxy
from files_api_server import FilesApiServer

ROOT = Path(__file__).resolve().parent.parent
TASK = ("shop", "orders", "clean")
WRITERS, ROUNDS = 8, 20
OBJECTS = ("s3", "azure", "abfss", "gcs")
BACKENDS = ("posix", "volume", *OBJECTS, "files")


def _servers_module() -> Any:
    spec = importlib.util.spec_from_file_location("ubunye_servers", ROOT / "scripts" / "servers.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    assert spec is not None and spec.loader is not None
    sys.modules["ubunye_servers"] = module  # (dataclasses look their module up)
    spec.loader.exec_module(module)
    return module


SERVERS = _servers_module()


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, Any]]:
    started: dict[str, Any] = {}
    try:
        started["s3"] = SERVERS.start("moto", seconds=900)
        started["azure"] = SERVERS.start("azurite", seconds=900)
        started["gcs"] = SERVERS.start("gcs", seconds=900)
        yield started
    finally:
        for server in started.values():
            SERVERS.stop(server)


@pytest.fixture(scope="module")
def files_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FilesApiServer]:
    """The Databricks Files API as documented, served locally (the real API is not reached)."""
    server = FilesApiServer(tmp_path_factory.mktemp("files-api"))
    try:
        yield server
    finally:
        server.close()


class Backend:
    """One backend under test: its store location and the environment a client needs."""

    def __init__(self, name: str, root: str, env: dict[str, str], volume: bool = False) -> None:
        self.name, self.root, self.env, self.volume = name, root, env, volume

    def store(self) -> RecordStore:
        return RecordStore(PosixBlobs(Path(self.root), volume=True)) if self.volume else open_store(".", self.root)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Backend:
    name = request.param
    unique = uuid.uuid4().hex[:12]
    if name == "posix":
        return Backend(name, str(tmp_path / "lineage"), {})
    if name == "volume":
        _fuse_like(monkeypatch)
        return Backend(name, str(tmp_path / "Volumes" / "main" / "ops" / "lineage"), {}, volume=True)
    if name == "files":
        api = request.getfixturevalue("files_api")
        env = {"DATABRICKS_HOST": api.host, "DATABRICKS_TOKEN": api.token}
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        return Backend(name, f"dbfs:/Volumes/main/ops/lineage/{unique}", env)
    server = request.getfixturevalue("servers")["azure" if name == "abfss" else name]
    for key, value in server.env.items():
        monkeypatch.setenv(key, value)
    if name == "abfss":
        root = f"abfss://{SERVERS.BUCKET}@{SERVERS.AZ_ACCOUNT}.dfs.core.windows.net/{unique}"
    else:
        root = f"{server.url}/{unique}"
    return Backend(name, root, dict(server.env))


def _fuse_like(monkeypatch: pytest.MonkeyPatch) -> None:
    """The mount as reported: no hard links, rename by copy then delete (not atomic)."""

    def no_link(*_: Any, **__: Any) -> None:
        raise OSError(errno.ENOSYS, "Function not implemented")

    def copy_delete(src: Any, dst: Any, *_: Any, **__: Any) -> None:
        shutil.copyfile(src, dst)
        os.unlink(src)

    monkeypatch.setattr(os, "link", no_link)
    monkeypatch.setattr(os, "rename", copy_delete)
    monkeypatch.setattr(os, "replace", copy_delete)


SCHEMA = f"sha256:{hashlib.sha256(b'schema').hexdigest()}"


def _step(direction: str, name: str, data: str = "same") -> Step:
    digest = f"sha256:{hashlib.sha256(data.encode()).hexdigest()}"  # well formed: the verdict refuses others
    return Step(name, direction, "parquet", f"/lake/{name}", 3, SCHEMA, digest, "rows-v1")


def _run(run_id: str, hour: int, status: str = "success", **fields: Any) -> RunRecord:
    return RunRecord(run_id=run_id, task_path="/".join(TASK), usecase=TASK[0], package=TASK[1], task_name=TASK[2],
                     started_at=f"2026-03-01T{hour:02d}:00:00+00:00", status=status,
                     inputs=[_step("input", "orders")], outputs=[_step("output", "clean")], **fields)


def _write_run(store: RecordStore, run_id: str, hour: int) -> RunRecord:
    record = _run(run_id, hour, status="running")
    store.write(record)
    record.status = "success"
    record.ended_at = f"2026-03-01T{hour:02d}:05:00+00:00"
    store.write(record)
    return record


def _lineage(backend: Backend, tmp_path: Path, *args: str) -> Any:
    return CliRunner().invoke(cli, ["lineage", args[0], "-d", str(tmp_path), "--lineage-dir", backend.root,
                                    *args[1:]], env=backend.env)


# ---------------------------------------------------------------- behaviour


def test_write_load_latest_compare_verify(backend: Backend, tmp_path: Path) -> None:
    store = backend.store()
    for hour, run_id in enumerate(["r0-old", "r1-mid", "r2-new"]):
        _write_run(store, run_id, hour)
    running = _run("r3-running", 3, status="running")
    store.write(running)
    assert [r.run_id for r in store.list_runs(*TASK)] == ["r3-running", "r2-new", "r1-mid", "r0-old"]
    assert store.find(*TASK, "r3").status == "running"  # a start record without a final one
    assert [r.run_id for r in store.latest_runs(*TASK, 2)] == ["r3-running", "r2-new"]
    assert [r.run_id for r in store.latest_runs(*TASK, 1, before=store.find(*TASK, "r2"))] == ["r1-mid"]
    assert store.iter_tasks() == [TASK]
    assert store.load(store.path_for(*TASK, "r1-mid")).run_id == "r1-mid"
    assert compare_records(store.find(*TASK, "r1"), store.find(*TASK, "r2")).data_proven_same
    if backend.volume:
        return  # the CLI opens /Volumes paths itself; this folder only plays one
    listed = _lineage(backend, tmp_path, "list", "--json")
    assert listed.exit_code == 0, listed.output
    assert [r["run_id"] for r in json.loads(listed.stdout)["runs"]][:2] == ["r3-running", "r2-new"]
    compared = _lineage(backend, tmp_path, "compare", "--run-id1", "r1", "--run-id2", "r2", "--json")
    assert compared.exit_code == 0 and json.loads(compared.stdout)["data_proven_same"] is True, compared.output
    verified = _lineage(backend, tmp_path, "verify", "--run-id", "r2", "--json")
    doc = json.loads(verified.stdout)
    assert doc["run"]["run_id"] == "r2-new" and "no longer exists" in verified.stdout  # (no data here)


def test_a_record_is_written_once(backend: Backend) -> None:
    store = backend.store()
    record = _write_run(store, "r-once", 1)
    stored = store.find(*TASK, "r-once")
    record.status = "error"
    with pytest.raises(RecordWriteError, match="already stored"):
        store.write(record)
    assert store.find(*TASK, "r-once") == stored and stored.status == "success"


def test_the_reuse_index_keeps_every_concurrent_entry(backend: Backend) -> None:
    store = backend.store()
    records = []
    for i in range(WRITERS):
        record = _run(f"pub-{i}", i)
        record.outputs[0].storage_signature = f"files:{i}"
        record.outputs[0].data_hash = f"sha256:{i}"
        store.write(record)
        records.append(record)
    known = KnownHashes(store)
    barrier = threading.Barrier(WRITERS)

    def publish(record: RunRecord) -> None:
        barrier.wait()
        known.publish(record, {"output:clean": "/lake/one-location"})

    threads = [threading.Thread(target=publish, args=(r,)) for r in records]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    for i in range(WRITERS):  # every publisher's entry is there (a read-modify-write file lost some)
        found = KnownHashes(backend.store()).find("/lake/one-location", f"files:{i}", lambda: SCHEMA)
        assert found is not None and found.step.data_hash == f"sha256:{i}", i
    assert KnownHashes(store).find("/lake/one-location", "files:none", lambda: SCHEMA) is None


# ---------------------------------------------------------------- torture


def _torture_round(store: RecordStore, writer: int, round_: int) -> tuple[str, bool]:
    """Write this writer's own run, then race every other writer for one contested run id."""
    _write_run(store, f"w{writer}-r{round_:02d}", round_ % 24)
    contested = _run(f"race-{round_:02d}", round_ % 24, variables={"writer": str(writer)})
    try:
        store.write(contested)
        return contested.run_id, True
    except RecordUnsigned:  # its record stands; a loser's envelope of the same run id was stored first
        return contested.run_id, True
    except RecordWriteError as exc:
        assert "already stored" in str(exc), exc
        return contested.run_id, False


def _check_torture(store: RecordStore, wins: dict[str, list[int]]) -> None:
    runs = {r.run_id: r for r in store.list_runs(*TASK)}
    own = {f"w{w}-r{r:02d}" for w in range(WRITERS) for r in range(ROUNDS)}
    assert own <= set(runs) and all(runs[i].status == "success" for i in own)  # nothing lost
    for round_ in range(ROUNDS):
        run_id = f"race-{round_:02d}"
        assert len(wins[run_id]) == 1, (run_id, wins[run_id])  # exactly one winner ...
        assert runs[run_id].variables == {"writer": str(wins[run_id][0])}  # ... and its record stands
    assert len(runs) == WRITERS * ROUNDS + ROUNDS


def test_eight_threads_twenty_rounds_lose_and_overwrite_nothing(backend: Backend) -> None:
    wins: dict[str, list[int]] = {f"race-{r:02d}": [] for r in range(ROUNDS)}
    barrier = threading.Barrier(WRITERS)
    errors: list[BaseException] = []

    def writer(w: int) -> None:
        store = backend.store()
        try:
            for round_ in range(ROUNDS):
                barrier.wait(timeout=120)
                run_id, won = _torture_round(store, w, round_)
                if won:
                    wins[run_id].append(w)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
            barrier.abort()

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(WRITERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    assert not errors, errors[:1]
    _check_torture(backend.store(), wins)


_WORKER = textwrap.dedent(
    """
    import json, os, sys, time
    sys.path.insert(0, sys.argv[5])
    from pathlib import Path
    from test_store_backends import Backend, ROUNDS, _torture_round
    backend = Backend("worker", sys.argv[1], {}, volume=sys.argv[2] == "1")
    writer, go = int(sys.argv[3]), Path(sys.argv[4])
    store = backend.store()
    wins = []
    for round_ in range(ROUNDS):
        while not (go / f"{round_}").exists():   # all writers start each round together
            time.sleep(0.001)
        run_id, won = _torture_round(store, writer, round_)
        if won:
            wins.append(run_id)
        (go / f"done-{writer}-{round_}").touch()
    print(json.dumps(wins))
    """
)


def test_eight_processes_twenty_rounds_lose_and_overwrite_nothing(backend: Backend, tmp_path: Path) -> None:
    go = tmp_path / "go"
    go.mkdir()
    env = {**os.environ, **backend.env, "PYTHONPATH": os.pathsep.join([str(ROOT / "python"),
                                                                     os.environ.get("PYTHONPATH", "")])}
    procs = [subprocess.Popen([sys.executable, "-c", _WORKER, backend.root, "1" if backend.volume else "0",
                               str(w), str(go), str(Path(__file__).parent)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for w in range(WRITERS)]
    try:
        for round_ in range(ROUNDS):
            (go / f"{round_}").touch()
            _wait_for(lambda: all((go / f"done-{w}-{round_}").exists() or procs[w].poll() is not None
                                  for w in range(WRITERS)))
        outputs = [p.communicate(timeout=120) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    assert [p.returncode for p in procs] == [0] * WRITERS, [err[-2000:] for _, err in outputs]
    wins: dict[str, list[int]] = {f"race-{r:02d}": [] for r in range(ROUNDS)}
    for w, (out, _) in enumerate(outputs):
        for run_id in json.loads(out.strip().splitlines()[-1]):
            wins[run_id].append(w)
    _check_torture(backend.store(), wins)


def _wait_for(condition: Callable[[], bool], seconds: float = 120.0) -> None:
    event = threading.Event()
    for _ in range(int(seconds * 200)):
        if condition():
            return
        event.wait(0.005)
    raise AssertionError("timed out")


# ---------------------------------------------------------------- faults


ENDPOINT_VARS = {"s3": "AWS_ENDPOINT_URL", "azure": "AZURITE_BLOB_STORAGE_URL", "gcs": "GOOGLE_BASE_URL",
                 "files": "DATABRICKS_HOST"}


@pytest.fixture(params=["s3", "azure", "gcs", "files"])
def proxied(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[RecordStore, FaultProxy]]:
    if request.param == "files":
        api = request.getfixturevalue("files_api")
        port, url, env = api.port, "dbfs:/Volumes/main/ops/lineage", {"DATABRICKS_TOKEN": api.token}
    else:
        server = request.getfixturevalue("servers")[request.param]
        port, url, env = server.port, server.url, server.env
    proxy = FaultProxy(port)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv(ENDPOINT_VARS[request.param], proxy.endpoint)
    try:
        yield open_store(".", f"{url}/{uuid.uuid4().hex[:12]}"), proxy
    finally:
        proxy.close()


@pytest.mark.parametrize("fault", ["500", "500-after"])
def test_a_failed_or_lost_answer_to_a_write_is_retried_never_doubled(
        proxied: tuple[RecordStore, FaultProxy], fault: str) -> None:
    store, proxy = proxied
    proxy.inject("PUT", fault)
    record = _write_run(store, "r-retried", 1)
    assert proxy.seen[fault] == 1 and store.find(*TASK, "r-retried") == record
    other = _run("r-retried", 1, status="error")
    proxy.inject("PUT", fault)  # a retried create that meets ANOTHER record is still refused
    with pytest.raises(RecordWriteError, match="already stored"):
        store.write(other)
    assert store.find(*TASK, "r-retried").status == "success"


@pytest.mark.parametrize("fault", ["412", "409"])
def test_a_refusal_while_the_key_is_free_is_retried_and_lands_once(
        proxied: tuple[RecordStore, FaultProxy], fault: str) -> None:
    store, proxy = proxied
    proxy.inject("PUT", fault, times=2)
    record = _run("r-refused", 1)
    store.write(record)
    assert proxy.seen[fault] == 2 and store.find(*TASK, "r-refused") == record


def test_refusals_that_never_end_are_reported_never_success(proxied: tuple[RecordStore, FaultProxy]) -> None:
    store, proxy = proxied
    proxy.inject("PUT", "412", times=50)
    with pytest.raises(RecordWriteError, match="refused 4 times and still absent"):
        store.write(_run("r-412", 1))
    assert store.list_runs(*TASK) == []  # nothing was written, and nothing claimed it was
    proxy.faults.clear()
    store.write(_run("r-412", 1))  # the key is free: a later write lands
    assert [r.run_id for r in store.list_runs(*TASK)] == ["r-412"]


def test_a_truncated_object_is_read_again(proxied: tuple[RecordStore, FaultProxy]) -> None:
    store, proxy = proxied
    record = _write_run(store, "r-cut", 1)
    proxy.inject("GET", "truncated")
    assert store.find(*TASK, "r-cut") == record
    assert proxy.seen["truncated"] == 1
    proxy.inject("GET", "truncated", times=500)  # cut every time: reported, never a record
    with pytest.raises(UnreadableRecord, match="unreadable run record .*/shop/orders/clean"):
        store.find(*TASK, "r-cut")  # (the listing is cut too)
    with pytest.raises(UnreadableRecord, match="unreadable run record .*r-cut.json: .*body"):
        store.load(store.path_for(*TASK, "r-cut"))
    proxy.faults.clear()


# ---------------------------------------------------------------- the index of an object store


class _Clock:
    """The index's clock (markers' names, horizons), moved by the test: no test waits on time."""

    def __init__(self, now: float) -> None:
        self.now = now

    def time(self) -> float:
        return self.now

    def time_ns(self) -> int:
        return int(self.now * 1e9)


def test_the_index_of_an_object_store_lists_only_the_markers_from_its_horizon(
        servers: dict[str, Any], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """S3 on moto, through the proxy that logs each request; the engine's own run ids (UUID4,
    which sort by nothing). After one full listing, a refresh lists only the task's markers from
    its horizon on (start-after) and finds the new runs and the one that finished since."""
    server = servers["s3"]
    proxy = FaultProxy(server.port)
    for key, value in server.env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("AWS_ENDPOINT_URL", proxy.endpoint)
    clock = _Clock(1_790_000_000.0)
    monkeypatch.setattr(index_module, "time", clock)
    try:
        store = open_store(".", f"{server.url}/{uuid.uuid4().hex[:12]}")
        ids = [str(uuid.uuid4()) for _ in range(40)]
        for i, run_id in enumerate(ids):
            clock.now += 60  # one a minute
            store.write(_run(run_id, i % 24, status="running" if i == 35 else "success"))
        index = RecordIndex(store, tmp_path / "index.sqlite3")
        clock.now += 3600
        index.refresh(*TASK)
        full = [path for method, path in proxy.requests if "list-type=2" in path]
        assert full and not any("start-after" in path for path in full), full
        proxy.requests.clear()
        clock.now += 60
        new = [str(uuid.uuid4()) for _ in range(3)]
        for run_id in new:
            _write_run(store, run_id, 1)
        store.write(_run(ids[35], 11))  # the running run ends
        listed: list[int] = []
        list_after = store.blobs.list_after  # type: ignore[attr-defined]
        monkeypatch.setattr(store.blobs, "list_after", lambda *a, **k: listed.append(len(r := list_after(*a, **k)))
                            or r)
        index.refresh(*TASK)
        lists = [path for method, path in proxy.requests if "list-type=2" in path]
        assert len(lists) == 1 and "start-after" in lists[0] and "_order" in lists[0], lists
        assert listed == [3 * 2 + 1], listed  # the markers newer than the horizon: 3 runs' two, one end
        rows = dict(index.db().execute("SELECT run_id, status FROM runs"))
        assert len(rows) == 43 and rows[ids[35]] == "success" and all(rows[r] == "success" for r in new)
        monkeypatch.setattr(index_module, "FULL_EVERY", 0.0)  # due: listed whole again
        proxy.requests.clear()
        index.refresh(*TASK)
        assert not any("start-after" in path for method, path in proxy.requests), proxy.requests
    finally:
        proxy.close()


@pytest.mark.parametrize("name", ["s3", "azure", "gcs"])
def test_a_run_written_after_the_horizon_is_found_and_a_store_without_markers_is_listed_whole(
        name: str, servers: dict[str, Any], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A run whose marker is stamped just past the horizon (a writer's clock behind by almost the
    allowance) is found by the ranged listing; records written without markers (earlier versions)
    make every refresh list the task whole, so a new one is found too."""
    server = servers[name]
    for key, value in server.env.items():
        monkeypatch.setenv(key, value)
    clock = _Clock(1_790_000_000.0)
    monkeypatch.setattr(index_module, "time", clock)
    marked = open_store(".", f"{server.url}/{uuid.uuid4().hex[:12]}")
    old = open_store(".", f"{server.url}/{uuid.uuid4().hex[:12]}")
    for i in range(5):
        marked.write(_run(str(uuid.uuid4()), i))
        record = _run(str(uuid.uuid4()), i)  # as an earlier version wrote it: no marker
        old.blobs.put_new(old._record_key(record), record.to_json().encode("utf-8"))
    indexes = [RecordIndex(store, tmp_path / f"{i}.sqlite3") for i, store in enumerate((marked, old))]
    for index in indexes:
        index.refresh(*TASK)
    whole: list[str] = []
    for store in (marked, old):
        listdir = store.blobs.listdir
        monkeypatch.setattr(store.blobs, "listdir", lambda prefix, f=listdir, s=store: whole.append(
            f"{s is old}:{prefix}") or f(prefix))
    late = _run(str(uuid.uuid4()), 20)
    clock.now -= index_module.SKEW - 1  # the writer's clock: just inside the allowance
    marked.write(late)
    clock.now += index_module.SKEW - 1
    indexes[0].refresh(*TASK)
    assert whole == [] and late.run_id in dict(indexes[0].db().execute("SELECT run_id, status FROM runs"))
    newer = _run(str(uuid.uuid4()), 21)
    old.blobs.put_new(old._record_key(newer), newer.to_json().encode("utf-8"))
    indexes[1].refresh(*TASK)
    assert "True:shop/orders/clean" in whole
    assert newer.run_id in dict(indexes[1].db().execute("SELECT run_id, status FROM runs"))
    assert indexes[1].db().execute("SELECT horizon FROM tasks").fetchone() == (None,)


# ---------------------------------------------------------------- the CLI, end to end


def _usecase(tmp_path: Path) -> None:
    """The usecase of tests/test_engine_runner.py: a parquet input and the task ``clean``
    (its output folder is per ``-dt``)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from test_engine_runner import CLEAN_CODE, CLEAN_CONFIG, PEOPLE, make_task
    import pyarrow.parquet as pq

    (tmp_path / "data").mkdir()
    pq.write_table(PEOPLE, tmp_path / "data" / "people.parquet")
    make_task(tmp_path, "clean", CLEAN_CONFIG, CLEAN_CODE)


def _run_args(tmp_path: Path, url: str, day: int = 2) -> list[str]:
    return ["run", "-d", str(tmp_path), "-u", "shop", "-p", "orders", "-t", "clean", "--backend", "pandas",
            "-dt", f"2024-01-{day:02d}", "--lineage", "--lineage-dir", url]


@pytest.mark.parametrize("kind", ["s3", "azure", "gcs"])
def test_ubunye_run_twice_then_list_and_compare_on_the_url(kind: str, servers: dict[str, Any], tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    server = servers[kind]
    for key, value in server.env.items():
        monkeypatch.setenv(key, value)
    _usecase(tmp_path)
    url = f"{server.url}/{uuid.uuid4().hex[:12]}"
    for _ in range(2):
        ran = CliRunner().invoke(cli, _run_args(tmp_path, url))
        assert ran.exit_code == 0 and f"record {url}/shop/orders/clean/" in ran.stdout, ran.output
        shutil.rmtree(tmp_path / "out", ignore_errors=True)
    listed = CliRunner().invoke(cli, ["lineage", "list", "-d", str(tmp_path), "--lineage-dir", url, "--json"])
    assert listed.exit_code == 0 and json.loads(listed.stdout)["count"] == 2, listed.output
    compared = CliRunner().invoke(cli, ["lineage", "compare", "-d", str(tmp_path), "--lineage-dir", url])
    assert compared.exit_code == 0, compared.output


@pytest.mark.parametrize("kind", ["s3", "azure", "gcs"])
def test_eight_concurrent_ubunye_runs_leave_eight_records(kind: str, servers: dict[str, Any], tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    server = servers[kind]
    for key, value in server.env.items():
        monkeypatch.setenv(key, value)
    _usecase(tmp_path)
    url = f"{server.url}/{uuid.uuid4().hex[:12]}"
    env = {**os.environ, **server.env,
           "PYTHONPATH": os.pathsep.join([str(ROOT / "python"), os.environ.get("PYTHONPATH", "")])}
    procs = [subprocess.Popen([sys.executable, "-m", "ubunye", *_run_args(tmp_path, url, day)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for day in range(1, 9)]
    outputs = [p.communicate(timeout=300)[0] for p in procs]
    assert [p.returncode for p in procs] == [0] * 8, outputs
    store = open_store(".", url)
    runs = store.list_runs(*TASK)
    assert len(runs) == 8 and {r.status for r in runs} == {"success"}, [(r.run_id, r.status) for r in runs]
    assert sorted(r.variables.get("dt") for r in runs) == [f"2024-01-{d:02d}" for d in range(1, 9)]
