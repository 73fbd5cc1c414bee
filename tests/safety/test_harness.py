"""The harness itself: a tree change is seen, a planted secret is found, a traceback is caught."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from harness import Result, assert_no_secret, assert_one_line_error, assert_unchanged, tree_digest


def test_tree_digest_sees_a_change_a_removal_and_an_addition(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("1")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "b").write_text("2")
    before = tree_digest(tmp_path)
    (tmp_path / "a").write_text("x")
    (tmp_path / "d" / "b").unlink()
    (tmp_path / "c").write_text("3")
    with pytest.raises(AssertionError, match=r"removed \['d/b'\], added \['c'\], changed \['a'\]"):
        assert_unchanged(before, tree_digest(tmp_path))
    assert tree_digest(tmp_path, skip=["d", "a", "c"]) == {}


def test_a_planted_secret_is_found_in_streams_and_files(tmp_path: Path) -> None:
    with pytest.raises(AssertionError, match="stderr"):
        assert_no_secret("s3cr3t", Result(1, "", "boom s3cr3t"))
    (tmp_path / "rec.json").write_text('{"x": "s3cr3t"}')
    with pytest.raises(AssertionError, match="rec.json"):
        assert_no_secret("s3cr3t", None, tmp_path)
    assert_no_secret("s3cr3t", Result(0, "ok", ""), tmp_path / "nothing")


def test_a_traceback_or_two_error_lines_fail_the_one_line_check() -> None:
    with pytest.raises(AssertionError):
        assert_one_line_error(Result(2, "", "Traceback (most recent call last):\nerror: x"))
    with pytest.raises(AssertionError):
        assert_one_line_error(Result(2, "", "error: a\nerror: b"))
    with pytest.raises(AssertionError):
        assert_one_line_error(Result(1, "", "error: a"))
    assert_one_line_error(Result(2, "", "error: config.yaml: CONFIG.outputs.x.path: empty"), naming=["config.yaml"])


def test_pass_code_writes_each_input_to_its_output(tmp_path: Path) -> None:
    from harness import Usecase

    uc = Usecase(tmp_path / "uc")
    data = uc.parquet("people.parquet")
    uc.task("t", f"""
        MODEL: etl
        VERSION: "1"
        CONFIG:
          inputs:
            people: {{format: parquet, path: "{data}"}}
          outputs:
            copy: {{format: parquet, path: "{tmp_path / 'out'}"}}
        """)
    result = uc.run("-t", "t", "--lineage")
    assert result.code == 0, str(result)
    assert list((tmp_path / "out").glob("*.parquet"))
    assert [r["status"] for r in uc.records("t")] == ["success"]


def test_a_spawned_run_still_blocked_when_its_probe_ends_is_killed(tmp_path: Path) -> None:
    import harness

    fifo = tmp_path / "never"
    os.mkfifo(fifo)
    done = harness.spawn("version")
    done.communicate(timeout=60)
    blocked = subprocess.Popen([sys.executable, "-c", f"open({str(fifo)!r}).read()"])  # nobody writes it
    harness._SPAWNED.append(blocked)  # as spawn() does
    killed = harness.reap_spawned()
    assert killed == [blocked.pid] and blocked.returncode == -signal.SIGKILL and harness._SPAWNED == []
