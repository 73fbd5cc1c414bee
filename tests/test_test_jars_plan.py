"""``scripts/test-jars``'s plan (``TEST_JARS_DRY_RUN=1`` prints the sbt segments, fetching nothing):
with scripts/test's arguments every jar runs on Java 21 exactly once (the 4.0, 4.2 and 4.3 lines'
own runs, 4.1.0's fixture suites, the 3.5 lines' fixture suites), every other-JVM segment
undoes its setting, the plan without JVM options is the one before them, and the newest JDK
(``scripts/jdk-newest``) leaves the 3.5 and 4.0 lines out from Java 24 on, saying why."""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CI = ["--all", "--no-oldest-for", "3.5_2.12", "--no-oldest-for", "4.0_2.13",
      "--jdk21-instead", "4.0_2.13", "--jdk21-instead", "4.2_2.13", "--jdk21-instead", "4.3_2.13"]
LINES = ["3.5_2.12", "3.5_2.13", "4.0_2.13", "4.1_2.13", "4.2_2.13", "4.3_2.13"]
FIXTURES = "testOnly io.ubunye.spark.FixtureSuite io.ubunye.spark.FixtureKindsSuite"


def plan(*args: str, env: dict[str, str] | None = None) -> list[str]:
    done = subprocess.run(["bash", str(ROOT / "scripts" / "test-jars"), *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {}), "TEST_JARS_DRY_RUN": "1"}, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_scripts_test_runs_every_jar_once_on_java21() -> None:
    segments = plan(*CI)
    assert re.search(r"^background test-jars scripts/test-jars " + re.escape(" ".join(CI[:5])) + r" \\\n\s+"
                     + re.escape(" ".join(CI[5:])) + "$", (ROOT / "scripts" / "test").read_text(), re.M)
    on21 = [s for s in segments if s.split(";")[0].endswith("+java21")]
    assert sorted(s.split(";")[0].split("+")[0] for s in on21) == LINES
    by_line = {s.split(";")[0].split("+")[0]: s for s in on21}
    for line in ("4.0_2.13", "4.2_2.13"):  # their own runs, on Java 21 instead of 17
        assert "checkClassFiles;testOnly io.ubunye.spark.FixtureSuite" in by_line[line]
    assert ";checkClassFiles;test;session clear" in by_line["4.3_2.13"]  # every Scala suite
    for line in ("4.0_2.13", "4.2_2.13", "4.3_2.13"):
        assert not any(s.startswith(f"{line};") for s in segments)
    assert by_line["4.1_2.13"].split(";")[1] == "4.1.0"  # Databricks 18: Spark 4.1.0 on Java 21
    for line in ("3.5_2.12", "3.5_2.13"):
        assert f";{FIXTURES};" in by_line[line] and by_line[line].split(";")[1] == ""
    for s in segments:  # an other-JVM segment undoes its setting, and only those set one
        assert ("set Test / javaHome" in s) == s.endswith(";session clear") == ("+java" in s.split(";")[0]), s
    assert len(segments) == 9  # the six lines' own runs, two more on Java 21, 4.1.0's


def test_without_jvm_options_the_plan_is_unchanged() -> None:
    segments = plan("--all")
    assert [s.split(";")[0] + ";" + s.split(";")[1] for s in segments] == [
        *(f"{line};" for line in LINES), "3.5_2.12;3.5.0", "4.0_2.13;4.0.0", "4.1_2.13;4.1.0"]
    assert not any("javaHome" in s for s in segments)


def fake_jdk(root: Path, version: str) -> Path:
    java = root / "bin" / "java"
    java.parent.mkdir(parents=True)
    java.write_text(f"#!/bin/sh\necho '    java.specification.version = {version}' >&2\n")
    java.chmod(0o755)
    return root


def test_the_newest_jdk_leaves_the_35_and_40_lines_out_from_java24_saying_why(tmp_path: Path) -> None:
    home = fake_jdk(tmp_path / "jdk-99", "99")
    done = subprocess.run(["bash", str(ROOT / "scripts" / "jdk-newest")], capture_output=True, text=True,
                          env={**os.environ, "UBUNYE_JDK_NEWEST": str(home)}, timeout=60)
    assert done.stdout.strip() == str(home)
    out = plan("--all", "--jdks-only", "--jdk-newest", env={"UBUNYE_JDK_NEWEST": str(home)})
    said = [s for s in out if s.startswith("[test-jars]")]
    assert [s.split(":")[0] for s in said] == [f"[test-jars] {line}+java99" for line in LINES[:3]]
    assert all("not run: the Hadoop client of Spark 3.5 and 4.0 (3.3.4, 3.4.1) calls Subject.getSubject" in s
               for s in said)
    segments = [s for s in out if not s.startswith("[test-jars]")]
    assert [s.split(";")[0] for s in segments] == [f"{line}+java99" for line in LINES[3:]]
    assert all(f'javaHome := Some(file("{home}"));{FIXTURES};session clear' in s for s in segments)
