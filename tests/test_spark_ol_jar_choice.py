"""Choosing the OpenLineage listener's extension jar for a session, as the plugin jar is chosen.

Temp folders stand in for the package's ``jars/`` and ``jars/openlineage/``, with the files
``scripts/build-jar`` writes (tests/test_spark_jar_choice.py's plugin jars, extension jars here).
"""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from ubunye.spark import jar as jarmod
from ubunye.spark import ol_jar

from test_spark_jar_choice import LINES, Builder, fake_runtime, write_line

LISTENERS = f"com.example.Other,{ol_jar.LISTENER_CLASS}"


def write_extension(folder: Path, spark: str, scala: str, version: str = "0.1.0") -> Path:
    name = f"{ol_jar.JAR_PREFIX}{spark}_{scala}-{version}"
    (folder / f"{name}.jar").write_bytes(b"PK\x05\x06" + b"\0" * 18)
    (folder / f"{name}.json").write_text(json.dumps({
        "jar": f"{name}.jar", "version": version, "spark": spark, "spark_full": f"{spark}.0", "scala": scala,
        "openlineage_spark": "1.53.0"}), encoding="utf-8")
    return folder / f"{name}.jar"


@pytest.fixture
def folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    plugin, extension = tmp_path / "jars", tmp_path / "jars" / "openlineage"
    extension.mkdir(parents=True)
    for spark, scala, release in LINES:
        write_line(plugin, spark, scala, release)
        if spark != "4.3":  # a line without an extension jar
            write_extension(extension, spark, scala)
    monkeypatch.setattr(jarmod, "jars_dir", lambda: plugin)
    monkeypatch.setattr(ol_jar, "extension_dir", lambda: extension)
    monkeypatch.setattr(jarmod, "launcher_java_version", lambda: "17.0.15")
    return plugin, extension


@pytest.mark.parametrize("spark,scala", [("3.5.0", "2.12.18"), ("3.5.1", "2.13.8"), ("4.1.1", "2.13.17")])
def test_a_session_with_the_listener_gets_the_extension_of_its_line(
        folders: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, spark: str, scala: str) -> None:
    plugin, extension = folders
    fake_runtime(monkeypatch, spark, scala)
    line = f"{spark[:3]}_{scala[:4]}"
    builder = Builder().config("spark.jars", "/opt/listener.jar").config("spark.extraListeners", LISTENERS)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jarmod.configure(builder)
    assert builder._options["spark.jars"].split(",") == [
        "/opt/listener.jar", str(plugin / f"ubunye-spark_{line}-0.1.0.jar"),
        str(extension / f"{ol_jar.JAR_PREFIX}{line}-0.1.0.jar")]
    assert ol_jar.extension_jar(spark, scala).line == line  # type: ignore[union-attr]


def test_a_session_without_the_listener_gets_no_extension(folders: tuple[Path, Path],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    plugin, _ = folders
    fake_runtime(monkeypatch, "4.1.1", "2.13.17")
    builder = Builder().config("spark.extraListeners", "com.example.Other")
    jarmod.configure(builder)
    assert builder._options["spark.jars"] == str(plugin / "ubunye-spark_4.1_2.13-0.1.0.jar")


def test_a_line_without_an_extension_is_one_warning_and_the_plugin_jar(
        folders: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    plugin, _ = folders
    fake_runtime(monkeypatch, "4.3.0", "2.13.18")
    builder = Builder().config("spark.extraListeners", LISTENERS)
    with pytest.warns(ol_jar.ExtensionJarWarning) as caught:
        jarmod.configure(builder)
    (warning,) = caught
    assert "Spark 4.3 / Scala 2.13" in str(warning.message) and "4.1_2.13" in str(warning.message)
    assert builder._options["spark.jars"] == str(plugin / "ubunye-spark_4.3_2.13-0.1.0.jar")


def test_a_description_without_its_jar_is_no_jar_and_a_bad_one_names_its_file(folders: tuple[Path, Path]) -> None:
    _, extension = folders
    (extension / f"{ol_jar.JAR_PREFIX}4.1_2.13-0.1.0.jar").unlink()
    assert ol_jar.extension_jar("4.1", "2.13") is None
    (extension / f"{ol_jar.JAR_PREFIX}4.0_2.13-0.1.0.json").write_text("{}")
    with pytest.raises(ValueError, match="4.0_2.13-0.1.0.json"):
        ol_jar.extension_jars()


def test_the_extension_is_built_for_the_lines_whose_spark_maven_serves() -> None:
    import subprocess

    root = Path(__file__).resolve().parents[1]
    matrix = json.loads((root / "project" / "spark-lines.json").read_text())["lines"]
    served = {f"{m['spark']}_{'.'.join(s.split('.')[:2])}" for m in matrix if m["jars"] == "maven" for s in m["scala"]}
    listed = subprocess.run([str(root / "scripts" / "spark-lines"), "--openlineage"], capture_output=True, text=True,
                            check=True, timeout=60).stdout.split()
    assert set(listed) == served and "3.5_2.12" in listed and "4.3_2.13" not in listed
