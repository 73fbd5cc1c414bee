"""``ubunye spark init-script``: the generated bash script, run against fake layouts of each
runtime of the table (its own jars named as Apache and as Databricks' Maven tree names them),
picks the jar for the runtime's Spark line and Scala version, and fails in one line naming
the runtime when none fits."""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from ubunye._version import __version__
from ubunye.cli.app import cli
from ubunye.spark.databricks import runtimes
from ubunye.spark.init_script import CLUSTER_SETTING, Shipped, init_script, shipped_jars

ROOT = Path(__file__).resolve().parents[1]
WHEEL_LINES = re.search(r"^LINES=\(([^)]*)\)", (ROOT / "scripts" / "wheel").read_text(), re.M).group(1).split()  # type: ignore[union-attr]
BASH = shutil.which("bash") or "bash"  # the script runs with PATH narrowed in one test
IMAGES = [(r, scala) for r in runtimes() for scala in r.scala]


def fake_jar(folder: Path, name: str, content: str) -> Shipped:
    """A fake jar file (its content ``content``) and its JSON in ``folder``, as the script names it."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(content)
    (folder / name.replace(".jar", ".json")).write_text("{}")
    line = re.search(r"_(\d+\.\d+_\d+\.\d+)-", name).group(1)  # type: ignore[union-attr]
    sub = "openlineage/" if folder.name == "openlineage" else ""
    return Shipped(line, sub + name, hashlib.sha256(content.encode()).hexdigest())


def volume(tmp: Path, lines: list[str] = WHEEL_LINES, version: str = "0.1.0") -> tuple[Path, list[Shipped]]:
    """A volume folder's jars/: one fake plugin jar per line (its content the line) and an
    OpenLineage extension jar for each line but 4.3 (its content ``ol <line>``); what the
    script of that package names."""
    jars = tmp / "volume" / "jars"
    shipped = [fake_jar(jars, f"ubunye-spark_{line}-{version}.jar", line) for line in lines]
    shipped += [fake_jar(jars / "openlineage", f"ubunye-spark-openlineage_{line}-{version}.jar", f"ol {line}")
                for line in lines if not line.startswith("4.3")]
    return jars, shipped


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


def run_script(tmp: Path, jars: tuple[Path, list[Shipped]], own: Path, runtime: str,
               **env: str) -> subprocess.CompletedProcess[str]:
    script = tmp / "install-ubunye.sh"
    script.write_text(init_script(str(jars[0]), "0.1.0", jars[1]))
    return bash(tmp, script, own, runtime, **env)


def bash(tmp: Path, script: Path, own: Path, runtime: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run an init script with ``tmp/dest`` standing in for /databricks/jars."""
    dest = tmp / "dest"
    dest.mkdir(exist_ok=True)
    env = {**os.environ, "UBUNYE_JARS_DEST": str(dest), "UBUNYE_RUNTIME_JARS": str(own),
           "DATABRICKS_RUNTIME_VERSION": runtime, **env}
    return subprocess.run([BASH, str(script)], env=env, capture_output=True, text=True, timeout=60)


def picked(tmp: Path) -> list[str]:
    return sorted(p.read_text() for p in (tmp / "dest").iterdir())


@pytest.mark.parametrize("style", ["apache", "maven-tree"])
@pytest.mark.parametrize("rt,scala", IMAGES, ids=[f"{r.runtime.split()[0]}-{s}" for r, s in IMAGES])
def test_each_runtime_image_gets_its_jar(tmp_path: Path, rt: object, scala: str, style: str) -> None:
    spark = rt.spark  # type: ignore[attr-defined]
    done = run_script(tmp_path, volume(tmp_path), own_jars(tmp_path, spark, scala, style),
                      rt.runtime.split()[0])  # type: ignore[attr-defined]
    assert done.returncode == 0, done.stderr
    line = f"{spark.rsplit('.', 1)[0]}_{scala}"
    assert picked(tmp_path) == [line] + ([f"ol {line}"] if not line.startswith("4.3") else [])  # and its extension
    assert f"Spark {spark.rsplit('.', 1)[0]}, Scala {scala}" in done.stdout


def test_without_own_jars_the_runtime_table_decides_a_single_scala_runtime(tmp_path: Path) -> None:
    done = run_script(tmp_path, volume(tmp_path), own_jars(tmp_path, "", "", "none"), "17.3")
    assert done.returncode == 0, done.stderr
    assert picked(tmp_path) == ["4.0_2.13", "ol 4.0_2.13"]


def test_a_two_image_runtime_without_its_scala_jar_fails_in_one_line(tmp_path: Path) -> None:
    done = run_script(tmp_path, volume(tmp_path), own_jars(tmp_path, "", "", "none"), "16.4")
    assert done.returncode == 1 and picked(tmp_path) == []
    assert done.stderr.count("\n") == 1 and "Databricks Runtime 16.4 (Spark 3.5, Scala unknown)" in done.stderr


def test_a_runtime_without_a_jar_fails_the_start_naming_it(tmp_path: Path) -> None:
    done = run_script(tmp_path, volume(tmp_path), own_jars(tmp_path, "3.4.1", "2.12", "apache"), "13.3")
    assert done.returncode == 1 and picked(tmp_path) == []
    line = done.stderr.strip()
    assert "\n" not in line and "Databricks Runtime 13.3 (Spark 3.4, Scala 2.12)" in line
    assert "3.5/2.12" in line  # the lines this package has jars for


def test_a_volume_missing_the_runtimes_jar_fails(tmp_path: Path) -> None:
    jars, shipped = volume(tmp_path)
    (jars / "ubunye-spark_4.1_2.13-0.1.0.jar").unlink()
    done = run_script(tmp_path, (jars, shipped), own_jars(tmp_path, "4.1.0", "2.13", "apache"), "18.0")
    assert done.returncode == 1 and picked(tmp_path) == [] and done.stderr.count("\n") == 1
    assert "Databricks Runtime 18.0 (Spark 4.1, Scala 2.13)" in done.stderr
    assert f"{jars}/ubunye-spark_4.1_2.13-0.1.0.jar is missing" in done.stderr


def fake_package(tmp: Path, monkeypatch: pytest.MonkeyPatch, version: str = "0") -> Path:
    """The package's jars (3.5/2.12 and 4.1/2.13, each with its OpenLineage extension jar) as fake
    files of ``version``, whether or not this checkout's are built yet; their folder."""
    from ubunye.spark import jar, ol_jar

    packaged = tmp / f"package-{version}"
    infos, extensions = [], []
    for line, scala in (("3.5", "2.12"), ("4.1", "2.13")):
        for prefix, out in (("ubunye-spark_", infos), ("ubunye-spark-openlineage_", extensions)):
            name = f"{prefix}{line}_{scala}-{version}"
            sub = packaged / ("openlineage" if "openlineage" in prefix else "")
            sub.mkdir(parents=True, exist_ok=True)
            (sub / f"{name}.jar").write_text(f"{prefix}{line} {version}")
            (sub / f"{name}.json").write_text("{}", encoding="utf-8")
            kind = jar.JarInfo if out is infos else (lambda *a, **k: ol_jar.ExtensionJar(*a, "1.53.0", **k))
            out.append(kind(sub / f"{name}.jar", version, line, scala, description=sub / f"{name}.json"))
    monkeypatch.setattr(jar, "available_jars", lambda *a, **k: infos)
    monkeypatch.setattr(ol_jar, "extension_jars", lambda *a, **k: extensions)
    return packaged


def test_the_command_puts_the_jars_on_the_volume_once_and_writes_the_script(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    packaged = fake_package(tmp_path, monkeypatch)
    folder = tmp_path / "Volumes" / "main" / "tools" / "ubunye"
    first = CliRunner().invoke(cli, ["spark", "init-script", "--volume", str(folder)])
    assert first.exit_code == 0, first.output
    script = (folder / "install-ubunye.sh").read_text()
    assert script.startswith("#!/bin/bash") and f"jars='{folder}/jars'" in script
    copied = sorted(str(p.relative_to(folder / "jars")) for p in (folder / "jars").rglob("*"))
    assert copied == sorted(str(p.relative_to(packaged)) for p in packaged.rglob("*"))  # the extension jars too
    again = CliRunner().invoke(cli, ["spark", "init-script", "--volume", str(folder)])
    assert again.exit_code == 0 and sorted(str(p.relative_to(folder / "jars")) for p in (folder / "jars").rglob("*")) == copied
    assert f"add the init script ({CLUSTER_SETTING})" in first.stdout  # the setting as the guide names it
    assert f"`{CLUSTER_SETTING}`" in (ROOT / "docs" / "databricks.md").read_text(encoding="utf-8")
    printed = CliRunner().invoke(cli, ["spark", "init-script", "--volume", "/Volumes/a/b/c", "--print"])
    assert printed.exit_code == 0
    assert printed.stdout == init_script("/Volumes/a/b/c/jars", __version__, shipped_jars())


@pytest.mark.parametrize("old,new", [("0.9.0", "0.10.0"), ("0.10.0", "0.9.0")])
def test_two_releases_on_the_volume_the_script_installs_its_own(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, old: str, new: str) -> None:
    """0.9.0 then 0.10.0 on one volume (the same folder): the script of the second installs
    0.10.0 and its extension jar, not the name that sorts last (0.9.0); and the reverse."""
    folder = tmp_path / "Volumes" / "main" / "tools" / "ubunye"
    for version in (old, new):
        fake_package(tmp_path, monkeypatch, version)
        done = CliRunner().invoke(cli, ["spark", "init-script", "--volume", str(folder)])
        assert done.exit_code == 0, done.output
    assert len(list((folder / "jars").glob("ubunye-spark_4.1_2.13-*.jar"))) == 2  # both releases there
    ran = bash(tmp_path, folder / "install-ubunye.sh", own_jars(tmp_path, "4.1.0", "2.13", "apache"), "18.0")
    assert ran.returncode == 0, ran.stderr
    assert picked(tmp_path) == [f"ubunye-spark-openlineage_4.1 {new}", f"ubunye-spark_4.1 {new}"]
    assert f"installed ubunye-spark_4.1_2.13-{new}.jar ubunye-spark-openlineage_4.1_2.13-{new}.jar" in ran.stdout


@pytest.mark.parametrize("damage", ["plugin", "extension", "extension missing"])
def test_a_jar_that_differs_or_is_missing_refuses_in_one_line_and_installs_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str) -> None:
    fake_package(tmp_path, monkeypatch, "0.1.0")
    folder = tmp_path / "Volumes" / "main" / "tools" / "ubunye"
    assert CliRunner().invoke(cli, ["spark", "init-script", "--volume", str(folder)]).exit_code == 0
    name = {"plugin": "ubunye-spark_3.5_2.12-0.1.0.jar"}.get(damage, "openlineage/ubunye-spark-openlineage_3.5_2.12-0.1.0.jar")
    target = folder / "jars" / name
    if damage == "extension missing":
        target.unlink()
    else:
        target.write_text("another build of the same name")
    ran = bash(tmp_path, folder / "install-ubunye.sh", own_jars(tmp_path, "3.5.0", "2.12", "apache"), "15.4")
    assert ran.returncode == 1 and picked(tmp_path) == [], ran.stdout
    assert ran.stderr.count("\n") == 1 and ran.stderr.startswith("ubunye init script: Databricks Runtime 15.4")
    assert str(target) in ran.stderr and f"ubunye spark init-script --volume {folder}" in ran.stderr
    assert ("is missing" if damage == "extension missing" else "has sha256") in ran.stderr


def test_without_sha256sum_the_script_installs_nothing(tmp_path: Path) -> None:
    tools = tmp_path / "bin"  # every command the script uses, but sha256sum
    tools.mkdir()
    for tool in ("ls", "grep", "head", "wc", "cp", "mktemp", "cut", "rm"):
        (tools / tool).symlink_to(shutil.which(tool))  # type: ignore[arg-type]
    done = run_script(tmp_path, volume(tmp_path), own_jars(tmp_path, "3.5.0", "2.12", "apache"), "15.4",
                      PATH=str(tools))
    assert done.returncode == 1 and picked(tmp_path) == []
    assert done.stderr.count("\n") == 1 and "sha256sum is not on PATH" in done.stderr


def test_a_package_without_jars_writes_no_script(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ubunye.spark import jar, ol_jar

    monkeypatch.setattr(jar, "available_jars", lambda *a, **k: [])
    monkeypatch.setattr(ol_jar, "extension_jars", lambda *a, **k: [])
    done = CliRunner().invoke(cli, ["spark", "init-script", "--volume", "/Volumes/a/b/c", "--print"])
    assert done.exit_code == 2 and done.stdout == "" and done.stderr.count("\n") == 1
    assert "no ubunye-spark jar" in done.stderr and "pip install ubunye" in done.stderr


@pytest.mark.parametrize("name", ["a';touch /tmp/x;'.jar", "ubunye-spark_3.5_2.12-0 x.jar", "../x.jar"])
def test_a_jar_name_the_script_cannot_carry_is_refused(name: str) -> None:
    with pytest.raises(ValueError, match="cannot carry|can carry"):
        init_script("/Volumes/a/jars", "0.1.0", [Shipped("3.5_2.12", name, "0" * 64)])


def test_a_relative_volume_path_is_one_error_line() -> None:
    done = CliRunner().invoke(cli, ["spark", "init-script", "--volume", "Volumes/x"])
    assert done.exit_code == 2 and done.stderr.startswith("error: --volume 'Volumes/x'")
