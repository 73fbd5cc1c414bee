"""``ubunye spark init-script``: the generated bash script, run against fake layouts of each
runtime of the table (its own jars named as Apache and as Databricks' Maven tree names them),
picks the jar for the runtime's Spark line and Scala version, and fails in one line naming
the runtime when none fits."""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from ubunye._version import __version__
from ubunye.cli.app import cli
from ubunye.spark.databricks import runtimes
from ubunye.spark.init_script import init_script

ROOT = Path(__file__).resolve().parents[1]
WHEEL_LINES = re.search(r"^LINES=\(([^)]*)\)", (ROOT / "scripts" / "wheel").read_text(), re.M).group(1).split()  # type: ignore[union-attr]
IMAGES = [(r, scala) for r in runtimes() for scala in r.scala]


def volume(tmp: Path, lines: list[str] = WHEEL_LINES) -> Path:
    """A volume folder's jars/: one fake jar per line, its content the line."""
    jars = tmp / "volume" / "jars"
    jars.mkdir(parents=True)
    for line in lines:
        (jars / f"ubunye-spark_{line}-0.1.0.jar").write_text(line)
        (jars / f"ubunye-spark_{line}-0.1.0.json").write_text("{}")
    return jars


def own_jars(tmp: Path, spark: str, scala: str, style: str) -> Path:
    """The runtime's own jar folder, with the Spark and Scala jars named in ``style``."""
    own = tmp / "databricks-jars"
    own.mkdir()
    if style == "apache":
        names = [f"spark-core_{scala}-{spark}.jar", f"spark-sql_{scala}-{spark}.jar", f"scala-library-{scala}.18.jar"]
    elif style == "maven-tree":
        names = [f"----ws_3_5--core--org.apache.spark__spark-core_{scala}__{spark}.jar",
                 f"----ws--maven-trees--org.scala-lang__scala-library__{scala}.15.jar"]
    else:
        names = []
    for name in [*names, "jackson-databind-2.15.2.jar", "delta-spark_2.12-3.2.0.jar"]:
        (own / name).write_text("x")
    return own


def run_script(tmp: Path, jars: Path, own: Path, runtime: str) -> subprocess.CompletedProcess[str]:
    script = tmp / "install-ubunye.sh"
    script.write_text(init_script(str(jars), "0.1.0"))
    dest = tmp / "dest"
    dest.mkdir(exist_ok=True)
    env = {**os.environ, "UBUNYE_JARS_DEST": str(dest), "UBUNYE_RUNTIME_JARS": str(own),
           "DATABRICKS_RUNTIME_VERSION": runtime}
    return subprocess.run(["bash", str(script)], env=env, capture_output=True, text=True, timeout=60)


def picked(tmp: Path) -> list[str]:
    return sorted(p.read_text() for p in (tmp / "dest").iterdir())


@pytest.mark.parametrize("style", ["apache", "maven-tree"])
@pytest.mark.parametrize("rt,scala", IMAGES, ids=[f"{r.runtime.split()[0]}-{s}" for r, s in IMAGES])
def test_each_runtime_image_gets_its_jar(tmp_path: Path, rt: object, scala: str, style: str) -> None:
    spark = rt.spark  # type: ignore[attr-defined]
    done = run_script(tmp_path, volume(tmp_path), own_jars(tmp_path, spark, scala, style),
                      rt.runtime.split()[0])  # type: ignore[attr-defined]
    assert done.returncode == 0, done.stderr
    assert picked(tmp_path) == [f"{spark.rsplit('.', 1)[0]}_{scala}"]
    assert f"Spark {spark.rsplit('.', 1)[0]}, Scala {scala}" in done.stdout


def test_without_own_jars_the_runtime_table_decides_a_single_scala_runtime(tmp_path: Path) -> None:
    done = run_script(tmp_path, volume(tmp_path), own_jars(tmp_path, "", "", "none"), "17.3")
    assert done.returncode == 0, done.stderr
    assert picked(tmp_path) == ["4.0_2.13"]


def test_a_two_image_runtime_without_its_scala_jar_fails_in_one_line(tmp_path: Path) -> None:
    done = run_script(tmp_path, volume(tmp_path), own_jars(tmp_path, "", "", "none"), "16.4")
    assert done.returncode == 1 and picked(tmp_path) == []
    assert done.stderr.count("\n") == 1 and "Databricks Runtime 16.4 (Spark 3.5, Scala unknown)" in done.stderr


def test_a_runtime_without_a_jar_fails_the_start_naming_it(tmp_path: Path) -> None:
    done = run_script(tmp_path, volume(tmp_path), own_jars(tmp_path, "3.4.1", "2.12", "apache"), "13.3")
    assert done.returncode == 1 and picked(tmp_path) == []
    line = done.stderr.strip()
    assert "\n" not in line and "Databricks Runtime 13.3 (Spark 3.4, Scala 2.12)" in line
    assert "ubunye-spark_3.5_2.12-0.1.0.jar" in line  # what the volume holds


def test_a_volume_missing_the_runtimes_jar_fails(tmp_path: Path) -> None:
    jars = volume(tmp_path, [line for line in WHEEL_LINES if line != "4.1_2.13"])
    done = run_script(tmp_path, jars, own_jars(tmp_path, "4.1.0", "2.13", "apache"), "18.0")
    assert done.returncode == 1 and "Databricks Runtime 18.0 (Spark 4.1, Scala 2.13)" in done.stderr


def test_the_command_puts_the_jars_on_the_volume_once_and_writes_the_script(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ubunye.spark import jar

    packaged = tmp_path / "package-jars"  # the package's jars, whether or not this checkout's are built yet
    packaged.mkdir()
    infos = []
    for line, scala in (("3.5", "2.12"), ("4.1", "2.13")):
        name = f"ubunye-spark_{line}_{scala}-0"
        (packaged / f"{name}.jar").write_bytes(f"jar of {line}".encode())
        (packaged / f"{name}.json").write_text("{}", encoding="utf-8")
        infos.append(jar.JarInfo(packaged / f"{name}.jar", "0", line, scala, description=packaged / f"{name}.json"))
    monkeypatch.setattr(jar, "available_jars", lambda *a, **k: infos)
    folder = tmp_path / "Volumes" / "main" / "tools" / "ubunye"
    first = CliRunner().invoke(cli, ["spark", "init-script", "--volume", str(folder)])
    assert first.exit_code == 0, first.output
    script = (folder / "install-ubunye.sh").read_text()
    assert script.startswith("#!/bin/bash") and f"jars='{folder}/jars'" in script
    copied = sorted(p.name for p in (folder / "jars").iterdir())
    assert copied == sorted(p.name for p in packaged.iterdir())
    again = CliRunner().invoke(cli, ["spark", "init-script", "--volume", str(folder)])
    assert again.exit_code == 0 and sorted(p.name for p in (folder / "jars").iterdir()) == copied
    printed = CliRunner().invoke(cli, ["spark", "init-script", "--volume", "/Volumes/a/b/c", "--print"])
    assert printed.exit_code == 0 and printed.stdout == init_script("/Volumes/a/b/c/jars", __version__)


def test_a_relative_volume_path_is_one_error_line() -> None:
    done = CliRunner().invoke(cli, ["spark", "init-script", "--volume", "Volumes/x"])
    assert done.exit_code == 2 and done.stderr.startswith("error: --volume 'Volumes/x'")
