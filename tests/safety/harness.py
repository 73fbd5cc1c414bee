"""The attacker's probes' one harness: a usecase folder in a temporary directory, the real CLI in a
real process, the tree hashed before and after, planted secrets searched in every stream and file.

A probe builds a usecase (``Usecase``), plants data and a task, runs ``ubunye`` through
``usecase.run(...)`` (a subprocess: ``SystemExit``, signals and tracebacks behave as for a user)
and asserts with the helpers below. Every probe states its category in its test name
(data loss, lying record or exit code, secret leak, escape, traceback or hang).
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping

import pyarrow as pa
import pyarrow.parquet as pq

import ubunye

PACKAGE_ROOT = str(Path(ubunye.__file__).resolve().parent.parent)
DEFAULT_TIMEOUT = 120.0

PEOPLE = pa.table(
    {
        "id": pa.array([1, 2, 3, 4], pa.int64()),
        "name": pa.array(["Thabo", "Anna", None, "Zoe"], pa.string()),
        "age": pa.array([34.0, 17.0, 51.0, None], pa.float64()),
    }
)

PASS_CODE = """
from ubunye import Task


class Pass(Task):
    def transform(self, sources):
        outputs = list(self.config["CONFIG"]["outputs"])
        return {name: frame for name, frame in zip(outputs, sources.values())}
"""


def task_code(body: str) -> str:
    """transformations.py whose ``transform`` runs ``body`` (indented for you); ``sources`` and
    ``self`` are in scope; the body must return the dict of outputs."""
    return (
        "from ubunye import Task\n\n\nclass Probe(Task):\n    def transform(self, sources):\n"
        + textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 8)
        + "\n"
    )


def task_folder(root: Path, name: str, config: str, code: str = PASS_CODE, *, usecase: str = "shop",
                package: str = "orders") -> Path:
    """``root/<usecase>/<package>/<name>/`` with ``config.yaml`` (dedented) and ``transformations.py``
    (as given: its line numbers are the ones a probe expects in errors); the one builder of task
    folders for the probes here and the Spark integration tests."""
    folder = root / usecase / package / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.yaml").write_text(textwrap.dedent(config).lstrip("\n"), encoding="utf-8")
    (folder / "transformations.py").write_text(code, encoding="utf-8")
    return folder


def task_records(task: Path, under: str = "") -> list[dict]:
    """The records of the task folder ``task`` (``root/<usecase>/<package>/<name>``) in the store
    ``root/.ubunye/lineage``, by run id; ``under="_started"``: the start records."""
    folder = task.parents[2] / ".ubunye" / "lineage" / task.parent.parent.name / task.parent.name / task.name
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted((folder / under).glob("*.json"))]


@dataclass
class Result:
    code: int
    out: str
    err: str
    args: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return self.out + self.err

    def __str__(self) -> str:  # pytest shows this on a failed assert
        return f"exit {self.code} for {self.args}\n--- stdout\n{self.out}\n--- stderr\n{self.err}"


@dataclass
class Usecase:
    """``root/<usecase>/<package>/<task>/`` with data under ``root/data``; ``root`` is the usecase
    folder (``-d``)."""

    root: Path
    usecase: str = "shop"
    package: str = "orders"

    def __post_init__(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / "data").mkdir(exist_ok=True)

    @property
    def package_dir(self) -> Path:
        return self.root / self.usecase / self.package

    @property
    def lineage_dir(self) -> Path:
        return self.root / ".ubunye" / "lineage"

    def task(self, name: str, config: str, code: str = PASS_CODE) -> Path:
        return task_folder(self.root, name, config, code, usecase=self.usecase, package=self.package)

    def parquet(self, name: str, table: pa.Table = PEOPLE) -> Path:
        path = self.root / "data" / name
        pq.write_table(table, path)
        return path

    def base_args(self, backend: str = "pandas") -> list[str]:
        return ["-d", str(self.root), "-u", self.usecase, "-p", self.package, "--backend", backend]

    def run(self, *args: str, backend: str = "pandas", **kw: object) -> Result:
        """``ubunye run -d ROOT -u U -p P --backend B ARGS...``"""
        return cli("run", *self.base_args(backend), *args, **kw)  # type: ignore[arg-type]

    def records(self, task: str) -> list[dict]:
        """Each run's record: its final record, else (the run has not ended) its start record
        (``_started/<run_id>.json``: the store writes both once, never replacing one by the other)."""
        folder = self.lineage_dir / self.usecase / self.package / task
        runs = {p.name: p for p in sorted((folder / "_started").glob("*.json"))}
        runs.update({p.name: p for p in sorted(folder.glob("*.json"))})
        return [json.loads(runs[name].read_text(encoding="utf-8")) for name in sorted(runs)]


def cli(
    *args: str,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    stdin: str | None = None,
) -> Result:
    """``python -m ubunye ARGS`` in a fresh process, importing this checkout's package."""
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("UBUNYE_")}
    full_env["PYTHONPATH"] = PACKAGE_ROOT + os.pathsep + full_env.get("PYTHONPATH", "")
    full_env.update(env or {})
    proc = subprocess.run(
        [sys.executable, "-m", "ubunye", *args],
        cwd=cwd,
        env=full_env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return Result(proc.returncode, proc.stdout, proc.stderr, list(args))


def cli_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment :func:`cli` runs ``ubunye`` with (this checkout's package, no UBUNYE_ vars)."""
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("UBUNYE_")}
    full_env["PYTHONPATH"] = PACKAGE_ROOT + os.pathsep + full_env.get("PYTHONPATH", "")
    full_env.update(env or {})
    return full_env


_SPAWNED: list[subprocess.Popen] = []


def spawn(*args: str, env: Mapping[str, str] | None = None) -> subprocess.Popen:
    """``python -m ubunye ARGS`` started in the background (for probes that signal or kill a run);
    the caller waits for it (``proc.communicate(timeout=...)``); whatever is still alive when the
    test ends is killed by :func:`reap_spawned` (conftest.py), so a failing probe leaves no process."""
    proc = subprocess.Popen([sys.executable, "-m", "ubunye", *args], env=cli_env(env), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _SPAWNED.append(proc)
    return proc


def reap_spawned() -> list[int]:
    """Kill (SIGKILL) and wait for every :func:`spawn`-ed process still running; their pids."""
    killed = []
    while _SPAWNED:
        proc = _SPAWNED.pop()
        if proc.poll() is None:
            proc.kill()
            killed.append(proc.pid)
        proc.communicate()  # reaps it and closes its pipes
    return killed


def tree_digest(root: Path, skip: Iterable[str] = ()) -> dict[str, str]:
    """Every file, folder and link under ``root`` -> a digest of what it is and holds.
    ``skip`` names top-level relative paths left out (a run's declared outputs, the store)."""
    skipped = tuple(skip)
    found: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            rel = path.relative_to(root).as_posix()
            if any(rel == s or rel.startswith(s.rstrip("/") + "/") for s in skipped):
                continue
            if path.is_symlink():
                found[rel] = "link:" + os.readlink(path)
            elif path.is_dir():
                found[rel] = "dir"
            else:
                found[rel] = "file:" + hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def assert_unchanged(before: Mapping[str, str], after: Mapping[str, str]) -> None:
    removed = sorted(set(before) - set(after))
    added = sorted(set(after) - set(before))
    changed = sorted(k for k in set(before) & set(after) if before[k] != after[k])
    assert not (removed or added or changed), f"removed {removed}, added {added}, changed {changed}"


def files_text(root: Path) -> Iterable[tuple[Path, str]]:
    for dirpath, _, filenames in os.walk(root):
        for name in filenames:
            path = Path(dirpath) / name
            if path.is_file() and not path.is_symlink():
                yield path, path.read_bytes().decode("utf-8", "replace")


def assert_no_secret(secret: str, result: Result | None = None, *roots: Path) -> None:
    """``secret`` appears in no output stream of ``result`` and no file under ``roots`` other
    than the files the probe planted it in (pass the folders the run writes: records, outputs)."""
    assert secret, "a probe must plant a non-empty secret"
    if result is not None:
        assert secret not in result.out, f"secret on stdout:\n{result}"
        assert secret not in result.err, f"secret on stderr:\n{result}"
    for root in roots:
        for path, text in files_text(root):
            assert secret not in text, f"secret in {path}"


def assert_one_line_error(result: Result, *, code: int = 2, naming: Iterable[str] = ()) -> None:
    """Exit ``code``, no traceback, the failure said in one ``error:`` line naming each of ``naming``."""
    assert result.code == code, str(result)
    assert "Traceback" not in result.text, str(result)
    lines = [line for line in result.err.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error:")]
    assert len(errors) == 1, str(result)
    for word in naming:
        assert word in errors[0], f"{word!r} not in {errors[0]!r}"


def record_status(records: list[dict]) -> list[str]:
    return [r.get("status") for r in records]
