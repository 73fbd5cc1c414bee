"""``scripts/lib/python-for.sh`` (scripts/check-wheel dbrX.Y): the runtime's Python X.Y is an
interpreter that answers X.Y, so a pyenv shim on PATH that exits 127 (its version not selected,
as python3.12 is on this machine) is passed over for pyenv's installed X.Y.*, and a lookup that
finds none fails without printing a path."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def fake(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return path


def python_for(tmp: Path, want: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{tmp / 'bin'}:/usr/bin:/bin", "PYENV_ROOT": str(tmp / "pyenv")}
    return subprocess.run(["bash", "-c", f'source "{ROOT}/scripts/lib/python-for.sh"; python_for {want}'],
                          env=env, capture_output=True, text=True, timeout=30)


def test_a_shim_that_does_not_run_is_passed_over_for_pyenvs(tmp_path: Path) -> None:
    fake(tmp_path / "bin" / "python3.12", "echo 'pyenv: python3.12: command not found' >&2; exit 127")
    fake(tmp_path / "pyenv" / "versions" / "3.12.1" / "bin" / "python", "echo 3.12")
    fake(tmp_path / "pyenv" / "versions" / "3.11.7" / "bin" / "python", "echo 3.11")
    done = python_for(tmp_path, "3.12")
    assert (done.returncode, done.stdout.strip()) == (0, str(tmp_path / "pyenv/versions/3.12.1/bin/python"))


def test_an_interpreter_on_path_that_answers_comes_first(tmp_path: Path) -> None:
    on_path = fake(tmp_path / "bin" / "python3.11", "echo 3.11")
    fake(tmp_path / "pyenv" / "versions" / "3.11.7" / "bin" / "python", "echo 3.11")
    done = python_for(tmp_path, "3.11")
    assert (done.returncode, done.stdout.strip()) == (0, str(on_path))


def test_no_python_of_that_version_fails_with_nothing_printed(tmp_path: Path) -> None:
    fake(tmp_path / "bin" / "python3.10", "echo 3.9")  # a name that lies about its version
    fake(tmp_path / "pyenv" / "versions" / "3.12.1" / "bin" / "python", "echo 3.12")
    done = python_for(tmp_path, "3.10")
    assert (done.returncode, done.stdout) == (1, "")
