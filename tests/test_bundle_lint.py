"""scripts/maven-bundle then scripts/bundle-lint (the release's Maven Central bundles, checked
as the Central Portal validates them): a bundle per line with the jar, POM, sources and javadoc
jars, each with checksums that match; a missing file, a wrong checksum, a missing signature
(--signed) or a line without its bundle (--lines) is one line naming it."""
from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VERSION = (ROOT / "VERSION").read_text().strip()


def repo(tmp: Path, lines: list[str], classifiers: tuple[str, ...] = ("sources", "javadoc"),
         prefix: str = "ubunye-spark_") -> Path:
    """A local Maven repository as `scripts/build-jar --publish` writes it (fake contents)."""
    for line in lines:
        artifact = f"{prefix}{line}"
        folder = tmp / "repo" / "io" / "ubunye" / artifact / VERSION
        folder.mkdir(parents=True)
        (folder / f"{artifact}-{VERSION}.jar").write_bytes(f"jar {line}".encode())
        (folder / f"{artifact}-{VERSION}.pom").write_text(f"<project>{line}</project>")
        for c in classifiers:
            (folder / f"{artifact}-{VERSION}-{c}.jar").write_bytes(f"{c} {line}".encode())
    return tmp / "repo"


def bundle(tmp: Path, maven_repo: Path) -> Path:
    out = tmp / "maven"
    subprocess.run(["bash", str(ROOT / "scripts" / "maven-bundle")], env={**os.environ, "REPO": str(maven_repo), "OUT": str(out)},
                   check=True, capture_output=True, text=True, timeout=60)
    return out


def lint(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "bundle-lint"), *args, str(folder)],
                          capture_output=True, text=True, timeout=60)


def test_complete_bundles_of_every_line_pass(tmp_path: Path) -> None:
    out = bundle(tmp_path, repo(tmp_path, ["3.5_2.12", "4.0_2.13"]))
    done = lint(out, "--lines", "3.5_2.12 4.0_2.13")
    assert done.returncode == 0, done.stderr
    assert "2 bundle(s), 0 problem(s)" in done.stdout


def test_a_missing_javadoc_a_missing_line_and_unsigned_files_are_named(tmp_path: Path) -> None:
    out = bundle(tmp_path, repo(tmp_path, ["3.5_2.12"], classifiers=("sources",)))
    done = lint(out, "--signed", "--lines", "3.5_2.12 4.3_2.13")
    assert done.returncode == 1
    assert f"no ubunye-spark_3.5_2.12-{VERSION}-javadoc.jar\n" in done.stderr
    assert f"no ubunye-spark_3.5_2.12-{VERSION}.pom.asc" in done.stderr
    assert "no bundle for line 4.3_2.13" in done.stderr


def test_a_checksum_that_does_not_match_is_named(tmp_path: Path) -> None:
    out = bundle(tmp_path, repo(tmp_path, ["4.1_2.13"]))
    zipped = next(out.glob("*-bundle.zip"))
    with zipfile.ZipFile(zipped) as z:
        files = {n: z.read(n) for n in z.namelist()}
    sha1 = next(n for n in files if n.endswith(f"-{VERSION}.jar.sha1"))
    files[sha1] = b"0" * 40
    with zipfile.ZipFile(zipped, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    done = lint(out)
    assert done.returncode == 1
    assert f"ubunye-spark_4.1_2.13-{VERSION}.jar.sha1 does not match the file's content" in done.stderr


def test_test_scoped_artifacts_are_not_part_of_a_release(tmp_path: Path) -> None:
    out = bundle(tmp_path, repo(tmp_path, ["4.0_2.13"], classifiers=("sources", "javadoc", "tests-javadoc")))
    done = lint(out)
    assert done.returncode == 1
    assert f"ubunye-spark_4.0_2.13-{VERSION}-tests-javadoc.jar: not a file of the release" in done.stderr
    assert "tests-javadoc.jar.md5: not a file" in done.stderr


def test_the_openlineage_extension_rides_in_its_lines_bundle(tmp_path: Path) -> None:
    maven_repo = repo(tmp_path, ["3.5_2.12", "4.1_2.13", "4.3_2.13"])
    repo(tmp_path, ["3.5_2.12", "4.1_2.13"], prefix="ubunye-spark-openlineage_")
    out = bundle(tmp_path, maven_repo)
    with zipfile.ZipFile(out / f"ubunye-spark_4.1_2.13-{VERSION}-bundle.zip") as z:
        assert f"io/ubunye/ubunye-spark-openlineage_4.1_2.13/{VERSION}/ubunye-spark-openlineage_4.1_2.13-{VERSION}.jar.sha1" in z.namelist()
    done = lint(out, "--lines", "3.5_2.12 4.1_2.13 4.3_2.13", "--openlineage-lines", "3.5_2.12 4.1_2.13")
    assert done.returncode == 0, done.stderr
    done = lint(out, "--openlineage-lines", "3.5_2.12 4.1_2.13 4.3_2.13")
    assert done.returncode == 1 and "the bundle of line 4.3_2.13 has no OpenLineage extension" in done.stderr
    done = lint(out, "--openlineage-lines", "3.5_2.12")
    assert done.returncode == 1 and "line 4.1_2.13 has an OpenLineage extension, which is not built" in done.stderr


def test_an_extension_without_its_javadoc_or_of_another_line_is_named(tmp_path: Path) -> None:
    maven_repo = repo(tmp_path, ["4.1_2.13"])
    repo(tmp_path, ["4.1_2.13"], classifiers=("sources",), prefix="ubunye-spark-openlineage_")
    done = lint(bundle(tmp_path, maven_repo))
    assert done.returncode == 1 and f"no ubunye-spark-openlineage_4.1_2.13-{VERSION}-javadoc.jar\n" in done.stderr
    zipped = next((tmp_path / "maven").glob("*-bundle.zip"))
    with zipfile.ZipFile(zipped, "a") as z:
        z.writestr(f"io/ubunye/ubunye-spark-openlineage_4.0_2.13/{VERSION}/x.jar", b"x")
    done = lint(tmp_path / "maven")
    assert done.returncode == 1 and "not one io/ubunye/ubunye-spark_<line>_<scala>/<version> folder" in done.stderr
