"""``ubunye hash PATH --engine spark`` (native, else fallback) and ``--format delta``.

In-process runs use the shared session (the command takes the active
session); one run starts the real command in a fresh process, which builds
its own local session with the packaged jar.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ubunye.cli.app import cli
from ubunye.spark.testing import child_env, fixture_dataframe
from ubunye.testing.fixtures import fixtures_dir, load_fixture, write_reference_csv


def hash_json(*args: str) -> dict[str, Any]:
    result = CliRunner().invoke(cli, ["hash", *args, "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.fixture
def reference_csv(tmp_path: Path) -> Path:
    return write_reference_csv(tmp_path)


def test_csv_with_the_spark_engine_gives_the_reference_vector(spark: Any, reference_csv: Path) -> None:
    expect = load_fixture(fixtures_dir() / "reference_3rows.json").expect
    out = hash_json(str(reference_csv), "--engine", "spark")
    assert (out["engine"], out["row_count"], out["schema_hash"], out["data_hash"]) == (
        "spark-native", 3, expect.schema_hash, expect.data_hash)
    assert hash_json(str(reference_csv), "--engine", "pandas")["data_hash"] == expect.data_hash


def test_delta_table_by_format_and_by_its_log(spark: Any, tmp_path: Path) -> None:
    fx = load_fixture(fixtures_dir() / "mixed_random_1000.json")
    table = tmp_path / "delta_table"
    fixture_dataframe(spark, fx).write.format("delta").save(str(table))
    for args in (["--format", "delta"], []):
        out = hash_json(str(table), "--engine", "spark", *args)
        assert (out["engine"], out["row_count"], out["data_hash"]) == (
            "spark-native", 1000, fx.expect.data_hash), args


def test_unreadable_path_exits_2_with_the_reason(spark: Any, tmp_path: Path) -> None:
    (tmp_path / "x.csv").write_text("a\n1\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["hash", str(tmp_path / "x.csv"), "--engine", "spark",
                                      "--format", "delta"])
    assert result.exit_code == 2
    assert "cannot read as delta" in result.output


def test_the_command_in_a_fresh_process_starts_its_own_session(reference_csv: Path) -> None:
    expect = load_fixture(fixtures_dir() / "reference_3rows.json").expect
    exe = Path(sys.executable).with_name("ubunye")
    done = subprocess.run(
        [str(exe), "hash", str(reference_csv), "--engine", "spark", "--json"],
        capture_output=True, text=True, env=child_env(), timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert (out["engine"], out["data_hash"]) == ("spark-native", expect.data_hash)
