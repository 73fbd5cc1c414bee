"""docs/write-a-task.md works as written: every file it shows (a code block after
``<!-- file: PATH -->``) is written into an empty folder and every command it shows (the lines
of a ```bash block after ``<!-- run -->``, or ``<!-- run, exit N -->``: the block's last line
exits N) is run there, in order, on the pandas backend."""
from __future__ import annotations

import re
import runpy
import shlex
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ubunye.cli.app import cli

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "write-a-task.md"
_MARK = re.compile(r"^<!-- (file: (?P<file>\S+)|run(, exit (?P<exit>\d+))?) -->$")


def guide_steps(text: str) -> list[tuple[str, str, object]]:
    """``("file", path, body)`` and ``("run", line, exit code)`` in the guide's order."""
    lines, steps, i = text.splitlines(), [], 0
    while i < len(lines):
        mark = _MARK.match(lines[i].strip())
        i += 1
        if not mark:
            continue
        assert lines[i].startswith("```"), f"{GUIDE.name}:{i}: a marker not followed by a code block"
        end = lines.index("```", i + 1)
        body = lines[i + 1:end]
        if mark.group("file"):
            steps.append(("file", mark.group("file"), "\n".join(body) + "\n"))
        else:
            commands = [c for c in body if c.strip() and not c.lstrip().startswith("#")]
            for n, command in enumerate(commands):
                last = n == len(commands) - 1
                steps.append(("run", command, int(mark.group("exit") or 0) if last else 0))
        i = end + 1
    return steps


def run_line(line: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    words = shlex.split(line)
    env = {}
    while "=" in words[0] and not words[0].startswith("-"):  # NAME=value before the command
        name, value = words.pop(0).split("=", 1)
        env[name] = value
    if words[0] == "python":
        with monkeypatch.context() as m:
            m.setattr(sys, "argv", words[1:])
            runpy.run_path(words[1], run_name="__main__")
        return 0, ""
    assert words[0] == "ubunye", f"the guide runs something the test cannot: {line}"
    result = CliRunner().invoke(cli, words[1:], env=env)
    return result.exit_code, result.output


def test_the_guide_runs_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    steps = guide_steps(GUIDE.read_text(encoding="utf-8"))
    files = [s for s in steps if s[0] == "file"]
    runs = [s for s in steps if s[0] == "run"]
    assert len(files) >= 5 and len(runs) >= 8, (len(files), len(runs))  # the markers are found
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SHOP_DB_PASSWORD", raising=False)
    outputs = []
    for kind, what, body in steps:
        if kind == "file":
            (tmp_path / what).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / what).write_text(str(body), encoding="utf-8")
            continue
        code, out = run_line(what, monkeypatch)
        assert code == body, f"{what}: exit {code}, the guide says {body}\n{out}"
        outputs.append((what, out))
    compares = [out for line, out in outputs if line.startswith("ubunye lineage compare")]
    assert len(compares) == 2
    assert "data proven the same: every input and output matches" in compares[0]  # as the guide says
    assert "data NOT proven the same" in compares[1] and "input 'sales': data hash changed" in compares[1]
    assert "success" in next(out for line, out in outputs if line.startswith("ubunye lineage list"))
    assert (tmp_path / "out" / "totals").exists() and (tmp_path / "out" / "rejected").exists()
    # section 7: what validate says without the secret's variable, quoted in the guide
    code, out = run_line("ubunye validate -d . -u shop -p sales -t from_db", monkeypatch)
    assert code == 1
    quoted = "environment variable SHOP_DB_PASSWORD is not set"
    assert quoted in out and quoted in GUIDE.read_text(encoding="utf-8").replace("\n", " ")
