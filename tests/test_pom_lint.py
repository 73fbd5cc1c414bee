"""scripts/pom-lint: what Maven Central's portal asks of each POM (license, scm, developers,
Spark and Scala provided only; with --release the sources and javadoc jars, no placeholder)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
POM = """<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>io.ubunye</groupId><artifactId>ubunye-spark_3.5_2.12</artifactId><version>0.1.0</version>
  <name>ubunye-spark_3.5</name><description>rows-v1</description><url>{url}</url>
  {licenses}
  <scm><url>{url}</url><connection>scm:git:{url}.git</connection></scm>
  <developers><developer><id>ubunye</id><name>The ubunye maintainers</name></developer></developers>
  <dependencies>
    <dependency><groupId>org.scala-lang</groupId><artifactId>scala-library</artifactId><version>2.12.18</version><scope>provided</scope></dependency>
    <dependency><groupId>org.apache.spark</groupId><artifactId>spark-sql_2.12</artifactId><version>3.5.7</version><scope>provided</scope></dependency>
    {extra}
  </dependencies>
</project>
"""
LICENSES = "<licenses><license><name>Apache-2.0</name><url>https://www.apache.org/licenses/LICENSE-2.0.txt</url></license></licenses>"


def lint(tmp: Path, *args: str, url: str = "https://github.com/o/r", licenses: str = LICENSES, extra: str = "",
         classifiers: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    folder = tmp / "repo" / "io" / "ubunye" / "ubunye-spark_3.5_2.12" / "0.1.0"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "ubunye-spark_3.5_2.12-0.1.0.pom").write_text(POM.format(url=url, licenses=licenses, extra=extra))
    for c in classifiers:
        (folder / f"ubunye-spark_3.5_2.12-0.1.0-{c}.jar").write_bytes(b"PK")
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "pom-lint"), *args, str(tmp / "repo")],
                          capture_output=True, text=True, timeout=60)


def test_a_complete_pom_passes(tmp_path: Path) -> None:
    done = lint(tmp_path)
    assert done.returncode == 0, done.stderr
    assert "1 POM(s), 0 problem(s)" in done.stdout


def test_a_pom_without_license_or_with_a_compile_dependency_fails(tmp_path: Path) -> None:
    dep = "<dependency><groupId>com.x</groupId><artifactId>y</artifactId><version>1</version></dependency>"
    done = lint(tmp_path, licenses="", extra=dep)
    assert done.returncode == 1
    assert "no license name" in done.stderr and "com.x:y (compile)" in done.stderr


def test_release_needs_sources_javadoc_and_a_real_url(tmp_path: Path) -> None:
    done = lint(tmp_path, "--release", url="https://example.invalid/ubunye")
    assert done.returncode == 1
    assert "example.invalid" in done.stderr and "-sources.jar" in done.stderr and "-javadoc.jar" in done.stderr
    assert lint(tmp_path, "--release", classifiers=("sources", "javadoc")).returncode == 0


def test_a_test_scoped_dependency_is_allowed(tmp_path: Path) -> None:
    # the Scala suites' scalatest is in every POM sbt writes, with scope test: it never reaches a user
    dep = ("<dependency><groupId>org.scalatest</groupId><artifactId>scalatest_2.12</artifactId>"
           "<version>3.2.19</version><scope>test</scope></dependency>")
    done = lint(tmp_path, extra=dep)
    assert done.returncode == 0, done.stderr


def test_a_dry_run_notes_the_placeholder_but_still_needs_sources_and_javadoc(tmp_path: Path) -> None:
    done = lint(tmp_path, "--release", "--dry-run", url="https://example.invalid/ubunye")
    assert done.returncode == 1
    assert "example.invalid" not in done.stderr and "-sources.jar" in done.stderr and "-javadoc.jar" in done.stderr
    done = lint(tmp_path, "--release", "--dry-run", url="https://example.invalid/ubunye", classifiers=("sources", "javadoc"))
    assert done.returncode == 0, done.stderr
    assert "note: placeholder URL example.invalid" in done.stdout


def extension_lint(tmp: Path, extra: str) -> subprocess.CompletedProcess[str]:
    """The OpenLineage extension's POM (ubunye-spark-openlineage_3.5_2.12) with ``extra`` dependencies."""
    folder = tmp / "repo" / "io" / "ubunye" / "ubunye-spark-openlineage_3.5_2.12" / "0.1.0"
    folder.mkdir(parents=True, exist_ok=True)
    pom = POM.format(url="https://github.com/o/r", licenses=LICENSES, extra=extra).replace(
        "<artifactId>ubunye-spark_3.5_2.12</artifactId><version>0.1.0</version>",
        "<artifactId>ubunye-spark-openlineage_3.5_2.12</artifactId><version>0.1.0</version>")
    (folder / "ubunye-spark-openlineage_3.5_2.12-0.1.0.pom").write_text(pom)
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "pom-lint"), str(tmp / "repo")],
                          capture_output=True, text=True, timeout=60)


def _dep(group: str, artifact: str, scope: str = "provided") -> str:
    return f"<dependency><groupId>{group}</groupId><artifactId>{artifact}</artifactId><version>1</version><scope>{scope}</scope></dependency>"


def test_the_openlineage_extension_may_name_the_listener_and_its_plugin_provided(tmp_path: Path) -> None:
    ok = _dep("io.openlineage", "openlineage-spark_2.12") + _dep("io.ubunye", "ubunye-spark_3.5_2.12")
    done = extension_lint(tmp_path, ok)
    assert done.returncode == 0, done.stderr
    done = extension_lint(tmp_path / "b", _dep("io.ubunye", "ubunye-spark_4.1_2.13") + _dep(
        "io.openlineage", "openlineage-spark_2.12", "compile"))
    assert done.returncode == 1
    assert "io.ubunye:ubunye-spark_4.1_2.13 (provided)" in done.stderr
    assert "io.openlineage:openlineage-spark_2.12 (compile)" in done.stderr
    # the plugin's own POM may not name them
    assert lint(tmp_path / "c", extra=_dep("io.openlineage", "openlineage-spark_2.12")).returncode == 1
