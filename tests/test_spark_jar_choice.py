"""Choosing the plugin jar for a Spark line, before any JVM starts (no Spark session here).

A temp folder stands in for the package's ``jars/``: one small file per line with its
JSON description, as ``scripts/build-jar`` writes them.
"""
from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any, Optional

import pytest

from ubunye.spark import jar as jarmod
from ubunye.spark import runtime
from ubunye.spark.jar import JarLineMissingError, JarMismatchWarning, JarNotFoundError

LINES = [("3.5", "2.12", "8"), ("3.5", "2.13", "8"), ("4.0", "2.13", "17"), ("4.1", "2.13", "17"),
         ("4.2", "2.13", "17"), ("4.3", "2.13", "17")]


def write_line(folder: Path, spark: str, scala: str, release: str, version: str = "0.1.0") -> Path:
    name = f"ubunye-spark_{spark}_{scala}-{version}"
    (folder / f"{name}.jar").write_bytes(b"PK\x05\x06" + b"\0" * 18)
    (folder / f"{name}.json").write_text(json.dumps({
        "jar": f"{name}.jar", "version": version, "spark": spark, "spark_full": f"{spark}.0",
        "scala": scala, "java_release": release, "class_file_major": int(release) + 44,
        "extensions": jarmod.EXTENSIONS_CLASS, "install": jarmod.INSTALL_ENTRY,
        "provider": jarmod.EXTENSIONS_CLASS}), encoding="utf-8")
    return folder / f"{name}.jar"


@pytest.fixture
def jars(tmp_path: Path) -> Path:
    folder = tmp_path / "jars"
    folder.mkdir()
    for spark, scala, release in LINES:
        write_line(folder, spark, scala, release)
    return folder


def fake_runtime(monkeypatch: pytest.MonkeyPatch, spark: Optional[str], scala: Optional[str]) -> None:
    rt = runtime.SparkRuntime(spark, scala, None, "pyspark" if spark else "none")
    monkeypatch.setattr(jarmod, "spark_runtime", lambda: rt)


class Builder:
    """What ``configure`` uses of a ``SparkSession.Builder``: ``_options`` and ``config``."""

    def __init__(self) -> None:
        self._options: dict[str, Any] = {}

    def config(self, key: str, value: str) -> "Builder":
        self._options[key] = value
        return self


@pytest.mark.parametrize("spark,scala,release", LINES)
def test_the_jar_for_the_installed_line_and_scala(jars: Path, monkeypatch: pytest.MonkeyPatch,
                                                  spark: str, scala: str, release: str) -> None:
    fake_runtime(monkeypatch, f"{spark}.7", f"{scala}.11")
    info = jarmod.jar_info(jars)
    assert info.path == jars / f"ubunye-spark_{spark}_{scala}-0.1.0.jar"
    assert (info.line, info.java_release, info.class_file_major) == (f"{spark}_{scala}", release, int(release) + 44)
    assert jarmod.jar_path(directory=jars) == str(info.path)


def test_a_named_line_for_a_cluster_written_elsewhere(jars: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_runtime(monkeypatch, "4.1.1", "2.13.17")
    assert jarmod.jar_path("3.5", "2.12", directory=jars).endswith("ubunye-spark_3.5_2.12-0.1.0.jar")
    assert jarmod.jar_path("4.3", directory=jars).endswith("ubunye-spark_4.3_2.13-0.1.0.jar")
    with pytest.raises(JarLineMissingError, match="Spark 3.5 has jars for Scala 2.12 and 2.13: name one"):
        jarmod.jar_path("3.5", directory=jars)


def test_a_line_without_a_jar_names_the_installed_line_and_the_lines_there_are(
        jars: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_runtime(monkeypatch, "3.4.4", "2.12.17")
    with pytest.raises(JarLineMissingError) as caught:
        jarmod.jar_info(jars)
    message = str(caught.value)
    assert "\n" not in message
    assert "Spark 3.4 / Scala 2.12" in message and "pyspark is 3.4.4" in message
    assert "3.5/2.12, 3.5/2.13, 4.0/2.13, 4.1/2.13, 4.2/2.13, 4.3/2.13" in message
    assert "fallback" in message


def test_configure_leaves_out_a_line_without_a_jar_with_one_warning(
        jars: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_runtime(monkeypatch, "3.4.4", "2.12.17")
    monkeypatch.setattr(jarmod, "jars_dir", lambda: jars)
    builder = Builder()
    with pytest.warns(JarMismatchWarning, match="no ubunye-spark jar for Spark 3.4"):
        assert jarmod.configure(builder) is builder
    assert builder._options == {}


def test_configure_adds_the_jar_of_the_installed_line(jars: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_runtime(monkeypatch, "3.5.0", "2.12.18")
    monkeypatch.setattr(jarmod, "jars_dir", lambda: jars)
    monkeypatch.setattr(jarmod, "launcher_java_version", lambda: "1.8.0_392")
    builder = Builder().config("spark.jars", "/opt/other.jar")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jarmod.configure(builder)
    assert builder._options["spark.jars"] == f"/opt/other.jar,{jars / 'ubunye-spark_3.5_2.12-0.1.0.jar'}"
    assert builder._options["spark.sql.extensions"] == jarmod.EXTENSIONS_CLASS


def test_configure_leaves_out_a_jar_the_jvm_is_too_old_for(jars: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_runtime(monkeypatch, "4.0.0", "2.13.16")
    monkeypatch.setattr(jarmod, "jars_dir", lambda: jars)
    monkeypatch.setattr(jarmod, "launcher_java_version", lambda: "11.0.21")
    builder = Builder()
    with pytest.warns(JarMismatchWarning) as caught:
        jarmod.configure(builder)
    message = str(caught[0].message)
    assert "ubunye-spark_4.0_2.13-0.1.0.jar needs Java 17 or newer (class file 61)" in message
    assert "the JVM is Java 11.0.21 (class files up to 55)" in message and "fallback" in message
    assert builder._options == {}


def test_java_versions_and_class_files() -> None:
    assert [runtime.java_feature(v) for v in ("1.8.0_392", "1.8", "11.0.2", "17", "21-ea", "x")] == \
        [8, 8, 11, 17, 21, None]
    assert runtime.class_file_major(8) == 52 and runtime.class_file_major(17) == 61
    info = jarmod.JarInfo(Path("j.jar"), "0.1.0", "3.5", "2.12", class_file_major=52, java_release="8")
    assert jarmod.java_mismatch(info, "1.8.0_392") is None
    assert jarmod.java_mismatch(info, "17.0.15") is None
    assert jarmod.java_mismatch(info, "1.7.0") is not None


def test_no_jar_at_all_says_how_to_build_them(tmp_path: Path) -> None:
    with pytest.raises(JarNotFoundError, match="scripts/build-jar") as caught:
        jarmod.jar_info(tmp_path)
    assert not isinstance(caught.value, JarLineMissingError)


def test_a_bad_description_names_its_file(jars: Path) -> None:
    bad = jars / "ubunye-spark_9.9_2.13-0.1.0.json"
    bad.write_text('{"jar": "ubunye-spark_9.9_2.13-0.1.0.jar"}', encoding="utf-8")
    with pytest.raises(JarNotFoundError, match=str(bad.name)):
        jarmod.available_jars(jars)


def test_no_pyspark_asks_for_a_line(jars: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_runtime(monkeypatch, None, None)
    with pytest.raises(JarLineMissingError, match="pyspark is not installed"):
        jarmod.jar_info(jars)
    assert jarmod.jar_path("4.2", "2.13", directory=jars).endswith("ubunye-spark_4.2_2.13-0.1.0.jar")


# ---------------------------------------------------------------- the runtime, before any JVM


def spark_folder(root: Path, spark: str, scala: str) -> Path:
    jars = root / "jars"
    jars.mkdir(parents=True)
    for name in (f"scala-library-{scala}.jar", f"spark-core_{runtime.line_of(scala)}-{spark}.jar",
                 f"scala-reflect-{scala}.jar", "spark-sql-api_2.13-4.0.0.jar"):
        (jars / name).write_bytes(b"")
    return root


def test_runtime_reads_scala_from_pyspark_jars_without_importing_pyspark(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SPARK_HOME", raising=False)
    home = spark_folder(tmp_path / "pyspark", "3.5.0", "2.12.18")
    monkeypatch.setattr(runtime, "pyspark_jars_dir", lambda: home / "jars")
    monkeypatch.setattr(runtime, "pyspark_version", lambda: "3.5.0")
    rt = runtime.spark_runtime()
    assert (rt.spark, rt.scala, rt.spark_line, rt.scala_line, rt.source) == ("3.5.0", "2.12.18", "3.5", "2.12", "pyspark")


def test_runtime_prefers_spark_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = spark_folder(tmp_path / "spark", "4.2.0", "2.13.18")
    monkeypatch.setenv("SPARK_HOME", str(home))
    monkeypatch.setattr(runtime, "pyspark_version", lambda: None)  # a thin client: no pyspark jars
    monkeypatch.setattr(runtime, "pyspark_jars_dir", lambda: None)
    rt = runtime.spark_runtime()
    assert (rt.spark, rt.scala, rt.jars, rt.source) == ("4.2.0", "2.13.18", home / "jars", "SPARK_HOME")


def test_runtime_of_the_installed_pyspark_imports_no_pyspark() -> None:
    import subprocess
    import sys

    code = ("import sys, ubunye.spark.runtime as r, ubunye.spark.jar; rt = r.spark_runtime(); "
            "import importlib.metadata as m; assert rt.spark == m.version('pyspark'), rt; "
            "assert rt.scala and rt.scala.startswith('2.1'), rt; "
            "assert not [k for k in sys.modules if k.startswith('pyspark')]; print(rt.spark_line, rt.scala_line)")
    env = {k: v for k, v in __import__("os").environ.items() if k != "SPARK_HOME"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


def test_two_descriptions_of_one_jar_are_one_jar(jars: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The legacy ``ubunye-spark.json`` beside the per-line description (a checkout built before
    the lines) names the same jar: it is one choice, not two."""
    (jars / "ubunye-spark.json").write_bytes((jars / "ubunye-spark_4.1_2.13-0.1.0.json").read_bytes())
    fake_runtime(monkeypatch, "4.1.1", "2.13.17")
    assert jarmod.jar_info(jars).path.name == "ubunye-spark_4.1_2.13-0.1.0.jar"
    assert len(jarmod.available_jars(jars)) == len(LINES)


def test_another_lines_jar_on_a_jvm_too_old_for_it_names_the_class_file_and_the_java() -> None:
    newer = jarmod.JarInfo(Path("ubunye-spark_4.1_2.13-0.1.0.jar"), "0.1.0", "4.1", "2.13",
                           class_file_major=61, java_release="17")
    line = jarmod.version_mismatch(newer, "3.5.0", "2.12.18", "1.8.0_504")
    assert line is not None and "\n" not in line
    assert "built for Spark 4.1 / Scala 2.13 (class file 61, Java 17)" in line
    assert "runs Spark 3.5.0 / Scala 2.12.18 on Java 1.8.0_504 (class files up to 52)" in line
    assert "fallback" in line
    on_17 = jarmod.version_mismatch(newer, "3.5.0", "2.12.18", "17.0.15")
    assert on_17 is not None and "class file" not in on_17 and "Java" not in on_17


def test_another_lines_jar_names_the_wheel_users_command_for_the_right_one(
        jars: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The advice is a command of the installed package (it prints the jar it names), never a
    script of the repository; a line the package has no jar for names the lines it has."""
    from click.testing import CliRunner

    from ubunye.cli.app import cli

    monkeypatch.setattr(jarmod, "jars_dir", lambda: jars)
    other = jarmod.JarInfo(jars / "ubunye-spark_3.5_2.12-0.1.0.jar", "0.1.0", "3.5", "2.12")
    line = jarmod.version_mismatch(other, "4.1.1", "2.13.17")
    assert line is not None and "scripts/" not in line and "\n" not in line
    assert line.endswith("use ubunye-spark_4.1_2.13-0.1.0.jar instead (`ubunye spark jar --spark 4.1 --scala 2.13` prints its path)")
    printed = CliRunner().invoke(cli, ["spark", "jar", "--spark", "4.1", "--scala", "2.13"])
    assert printed.exit_code == 0 and printed.stdout.strip() == str(jars / "ubunye-spark_4.1_2.13-0.1.0.jar")
    missing = jarmod.version_mismatch(other, "3.3.2", "2.12.15")
    assert missing is not None and "scripts/" not in missing
    assert missing.endswith("this package has no jar for Spark 3.3 / Scala 2.12 (it has: " + jarmod.lines_text(jarmod.available_jars(jars)) + ")")
