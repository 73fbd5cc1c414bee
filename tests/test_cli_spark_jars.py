"""``ubunye spark jar`` and ``ubunye spark jars --to DIR`` (click's CliRunner, no Spark)."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from ubunye.cli.app import cli
import json

from ubunye.spark import jar as jarmod
from ubunye.spark import ol_jar, runtime

from test_spark_jar_choice import LINES, write_line


@pytest.fixture
def jars(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "jars"
    folder.mkdir()
    for spark, scala, release in LINES:
        write_line(folder, spark, scala, release)
    monkeypatch.setattr(jarmod, "jars_dir", lambda: folder)
    # the OpenLineage extension jars of this fake package too (never the checkout's: the fast tests
    # run while scripts/test builds them, so the real folder may or may not hold them yet)
    extensions = folder / "openlineage"
    extensions.mkdir()
    (extensions / "ubunye-spark-openlineage_4.3_2.13-0.1.0.jar").write_bytes(b"ol 4.3")
    (extensions / "ubunye-spark-openlineage_4.3_2.13-0.1.0.json").write_text(json.dumps(
        {"jar": "ubunye-spark-openlineage_4.3_2.13-0.1.0.jar", "version": "0.1.0", "spark": "4.3", "scala": "2.13",
         "openlineage_spark": "1.53.0"}))
    monkeypatch.setattr(ol_jar, "extension_dir", lambda: extensions)
    rt = runtime.SparkRuntime("4.3.0", "2.13.18", None, "pyspark")
    monkeypatch.setattr(jarmod, "spark_runtime", lambda: rt)
    return folder


def test_spark_jar_prints_the_installed_lines_jar(jars: Path) -> None:
    result = CliRunner().invoke(cli, ["spark", "jar"])
    assert result.exit_code == 0, result.output
    assert result.output == f"{jars / 'ubunye-spark_4.3_2.13-0.1.0.jar'}\n"


def test_spark_jar_for_a_named_line(jars: Path) -> None:
    result = CliRunner().invoke(cli, ["spark", "jar", "--spark", "3.5", "--scala", "2.12"])
    assert (result.exit_code, result.output) == (0, f"{jars / 'ubunye-spark_3.5_2.12-0.1.0.jar'}\n")


def test_spark_jar_for_a_line_without_a_jar_is_one_error_line(jars: Path) -> None:
    result = CliRunner().invoke(cli, ["spark", "jar", "--spark", "3.4", "--scala", "2.12"])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: no ubunye-spark jar for Spark 3.4 / Scala 2.12")
    assert "3.5/2.12, 3.5/2.13, 4.0/2.13, 4.1/2.13, 4.2/2.13, 4.3/2.13" in lines[0]


def test_spark_jar_scala_without_spark_is_refused(jars: Path) -> None:
    result = CliRunner().invoke(cli, ["spark", "jar", "--scala", "2.12"])
    assert result.exit_code == 2 and "--scala needs --spark" in result.output


def test_spark_jars_copies_every_jar_and_its_json(jars: Path, tmp_path: Path) -> None:
    target = tmp_path / "volume" / "ubunye"
    result = CliRunner().invoke(cli, ["spark", "jars", "--to", str(target)])
    assert result.exit_code == 0, result.output
    names = sorted(str(p.relative_to(target)) for p in target.rglob("*") if p.is_file())
    assert names == sorted(str(p.relative_to(jars)) for p in jars.rglob("*") if p.is_file())
    assert len(names) == 2 * len(LINES) + 2  # every line's jar and JSON, the extension jar and its JSON
    assert sorted(result.output.splitlines()) == sorted(str(target / n) for n in names)
    for name in names:
        assert (target / name).read_bytes() == (jars / name).read_bytes()
    again = CliRunner().invoke(cli, ["spark", "jars", "--to", str(target)])  # same files: fine
    assert again.exit_code == 0, again.output


def test_spark_jars_does_not_overwrite_other_content_without_force(jars: Path, tmp_path: Path) -> None:
    target = tmp_path / "out"
    target.mkdir()
    mine = target / "ubunye-spark_4.1_2.13-0.1.0.jar"
    mine.write_bytes(b"someone else's jar")
    result = CliRunner().invoke(cli, ["spark", "jars", "--to", str(target)])
    assert result.exit_code == 2 and "ubunye-spark_4.1_2.13-0.1.0.jar: exists with other content" in result.output
    assert mine.read_bytes() == b"someone else's jar" and len(list(target.iterdir())) == 1
    forced = CliRunner().invoke(cli, ["spark", "jars", "--to", str(target), "--force"])
    assert forced.exit_code == 0 and mine.read_bytes() == (jars / mine.name).read_bytes()


def test_spark_jars_with_nothing_built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jarmod, "jars_dir", lambda: tmp_path / "empty")
    result = CliRunner().invoke(cli, ["spark", "jars", "--to", str(tmp_path / "t")])
    assert result.exit_code == 2 and "no ubunye-spark jar" in result.output
    assert not (tmp_path / "t").exists()
