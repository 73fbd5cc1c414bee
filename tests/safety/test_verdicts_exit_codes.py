"""Every row of docs/safety.md's table of exit codes ("Verdicts and exit codes"), one test each:
``run`` and ``--task-dir`` (0, 1, 2, 130, 143), ``validate``, ``plan``, ``hash``, ``compare``,
``diff``, ``verify``, the lineage commands that only read, ``spark``, ``version``, the refused
0.8.0 commands, and an internal error (a bug of ours: one line, exit 1).
"""
from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any, Callable, Optional

import pytest

from harness import PEOPLE, Usecase, cli, task_code
from test_cli_writes import spark
from test_verdicts import BOTH, RUN_A, lineage, pass_task, two_runs


def _run(tmp: Path, body: Optional[str] = None, *extra: str) -> Any:
    uc = Usecase(tmp / "uc")
    pass_task(uc, task_code(body) if body else None)
    return uc.run("-t", "t", "--lineage", *extra)


def _task_dir(tmp: Path, body: Optional[str] = None) -> Any:
    uc = Usecase(tmp / "uc")
    task = pass_task(uc, task_code(body) if body else None)
    return cli("--task-dir", str(task), "--backend", "pandas")


def _checked(tmp: Path, command: str, broken: str = "") -> Any:
    uc = Usecase(tmp / "uc")
    task = pass_task(uc)
    if broken == "code":
        (task / "transformations.py").write_text("raise RuntimeError('no')\n")
    if broken == "input":
        (uc.root / "data" / "people.parquet").unlink()
    if broken == "config":
        (task / "config.yaml").write_text("CONFIG: [\n")
    return cli(command, *uc.base_args(), "-t", "t")


def _hash(tmp: Path, kind: str) -> Any:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp / "x.parquet"
    table = PEOPLE if kind == "ok" else pa.table({"u": pa.array([1], pa.time32("s"))})
    if kind != "missing":
        pq.write_table(table, path)
    return cli("hash", str(path))


def _pair(tmp: Path, command: str, how: str) -> Any:
    changes: dict[str, Callable[[dict[str, Any]], None]] = {
        "same": lambda b: None,
        "differs": lambda b: b["outputs"][0].update(data_hash="sha256:" + "0" * 64),
        "unproven": lambda b: b["outputs"][0].update(data_hash=None),
    }
    root = two_runs(tmp, changes.get(how, lambda b: None))
    ids = BOTH if how != "error" else ("--run-id1", RUN_A, "--run-id2", "ffffffff")
    return lineage(root, command, *ids)


def _verify(tmp: Path, how: str) -> Any:
    uc = Usecase(tmp / "uc")
    pass_task(uc)
    assert uc.run("-t", "t", "--lineage").code == 0
    if how == "changed":
        import pyarrow.parquet as pq

        pq.write_table(PEOPLE.slice(0, 2), uc.root / "data" / "people.parquet")
    return lineage(uc.root, "verify", *(("--run-id", "nope") if how == "error" else ()))


def _reader(tmp: Path, command: str, ok: bool) -> Any:
    root = two_runs(tmp)
    args = {"show": ("--run-id", RUN_A), "trace": ("--run-id", RUN_A),
            "report": ("-o", str(tmp / "r.html"))}.get(command, ())
    return lineage(root, command, *args, *(() if ok else ("--lineage-dir", "ftp://host/x")))


def _internal(tmp: Path) -> Any:
    """A bug of ours (an exception no command turned into its line): one error line, exit 1."""
    return cli("lineage", "search", "-d", str(tmp), env={"PYTHONPATH": str(_broken_sitecustomize(tmp))})


def _broken_sitecustomize(tmp: Path) -> Path:
    """A sitecustomize that breaks ``lineage search`` inside the command (an unexpected exception)."""
    from harness import PACKAGE_ROOT

    folder = tmp / "site"
    folder.mkdir()
    (folder / "sitecustomize.py").write_text(
        "import ubunye.lineage.search as s\n"
        "def boom(*a, **k):\n    raise RuntimeError('a bug')\n"
        "s.search_runs = boom\n")
    return Path(str(folder) + os.pathsep + PACKAGE_ROOT)


EXIT_ROWS: dict[str, tuple[int, Callable[[Path], Any]]] = {
    "run 0: every task succeeded, its record written": (0, lambda t: _run(t)),
    "run 1: task code failed (SystemExit included)": (1, lambda t: _run(t, "import sys\nsys.exit(0)")),
    "run 2: bad input or usage": (2, lambda t: _run(t, None, "--var", "novalue")),
    "run 2: a store on a volume that does not exist": (2, lambda t: _run(t, None, "--lineage-dir",
                                                                         f"/Volumes/ubunye-none-{uuid.uuid4().hex}/s/v")),
    "run 130: KeyboardInterrupt in task code": (130, lambda t: _run(t, "raise KeyboardInterrupt")),
    "run 143: SIGTERM (128 + N)": (143, lambda t: _run(t, "import os, signal\nos.kill(os.getpid(), signal.SIGTERM)\n"
                                                           "return {'clean': sources['people']}")),
    "task-dir 0": (0, lambda t: _task_dir(t)),
    "task-dir 1": (1, lambda t: _task_dir(t, "raise ValueError('no')")),
    "task-dir 2": (2, lambda t: cli("--task-dir", str(t / "nope" / "a" / "b" / "c"))),
    "validate 0": (0, lambda t: _checked(t, "validate")),
    "validate 1: a task is not valid": (1, lambda t: _checked(t, "validate", "code")),
    "validate 2: usage": (2, lambda t: cli("validate", "-d", str(t), "-u", "u", "-p", "p", "-t", "t")),
    "plan 0": (0, lambda t: _checked(t, "plan")),
    "plan 1: a problem": (1, lambda t: _checked(t, "plan", "input")),
    "plan 2: a config that cannot be used": (2, lambda t: _checked(t, "plan", "config")),
    "hash 0": (0, lambda t: _hash(t, "ok")),
    "hash 1: the data cannot be hashed": (1, lambda t: _hash(t, "unhashable")),
    "hash 2: no such path": (2, lambda t: _hash(t, "missing")),
    "compare 0: proven the same": (0, lambda t: _pair(t, "compare", "same")),
    "compare 1: differs": (1, lambda t: _pair(t, "compare", "differs")),
    "compare 1: not proven": (1, lambda t: _pair(t, "compare", "unproven")),
    "compare 2": (2, lambda t: _pair(t, "compare", "error")),
    "diff 0: proven the same": (0, lambda t: _pair(t, "diff", "same")),
    "diff 1: differs": (1, lambda t: _pair(t, "diff", "differs")),
    "diff 1: not proven": (1, lambda t: _pair(t, "diff", "unproven")),
    "diff 2": (2, lambda t: _pair(t, "diff", "error")),
    "verify 0": (0, lambda t: _verify(t, "same")),
    "verify 1": (1, lambda t: _verify(t, "changed")),
    "verify 2": (2, lambda t: _verify(t, "error")),
    **{f"{c} 0": (0, (lambda c: lambda t: _reader(t, c, True))(c))
       for c in ("list", "show", "trace", "search", "openlineage", "report")},
    **{f"{c} 2": (2, (lambda c: lambda t: _reader(t, c, False))(c))
       for c in ("list", "show", "trace", "search", "openlineage", "report")},
    "spark 0": (0, lambda t: spark(t, "init-script", "--volume", "/Volumes/a/b/c", "--print")),  # a fake package's jars
    "spark 2": (2, lambda t: cli("spark", "init-script", "--volume", "Volumes/x")),
    "version 0": (0, lambda t: cli("version")),  # doctor 0: tests/test_doctor.py (it depends on the jars built)
    "doctor 1": (1, lambda t: cli("doctor", "-d", str(t), env={"UBUNYE_SIGNING_KEY": "off"})),
    "doctor 2": (2, lambda t: cli("doctor", "--no-such-option")),
    "refused 0.8.0 command 2": (2, lambda t: cli("deploy", "databricks")),
    "refused lineage focus 2": (2, lambda t: cli("lineage", "focus")),
    "any command 1: internal error": (1, _internal),
}


@pytest.mark.parametrize("row", list(EXIT_ROWS))
def test_lying_exit_code_every_row_of_the_table(tmp_path: Path, row: str) -> None:
    code, call = EXIT_ROWS[row]
    result = call(tmp_path)
    assert result.code == code, str(result)
    assert "Traceback" not in result.text, str(result)
    if code in (1, 2) and "error:" in result.err:
        assert len([line for line in result.err.splitlines() if line.startswith("error:")]) == 1, str(result)
