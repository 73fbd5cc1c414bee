"""``ubunye doctor --spark``: the session line reports what the running session hashes with
(the suite's shared session, which has the plugin jar: ``spark-native`` and the jar it loaded)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from click.testing import CliRunner

from ubunye.cli.app import cli


def test_doctor_spark_reports_the_sessions_engine(spark: Any, tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))  # no key made here either
    done = CliRunner().invoke(cli, ["doctor", "--spark", "-d", str(tmp_path)])
    lines = done.stdout.splitlines()
    session = [line for line in lines if line.startswith("session:")]
    assert len(session) == 1, done.output
    assert f"Spark {spark.version} / Scala " in session[0] and ": spark-native (" in session[0], session[0]
    assert "ubunye-spark_" in session[0] and done.exit_code == 0, done.output
    assert not (tmp_path / "config").exists()
