"""``ubunye doctor``: one screen of facts, a ``do:`` line under each problem, exit 1 when there is
one; nothing started (no JVM: the runtime is read from jars) and nothing written (no signing key
created, no store made); no secret of the environment printed. ``--spark`` is run in
integration/test_doctor_spark.py."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from ubunye.cli.app import cli
from ubunye.spark import jar as jarmod
from ubunye.spark import runtime

from test_spark_jar_choice import LINES, write_line

NAMES = ["ubunye", "spark", "scala", "java", "jar", "engine", "store", "openlineage", "signing"]


@pytest.fixture
def session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A usecase folder; packaged jars of every line (fake); Spark 4.1.1 / Scala 2.13 on Java 17;
    no OpenLineage or signing settings, and a config home of the test's own."""
    jars = tmp_path / "jars"
    jars.mkdir()
    for spark, scala, release in LINES:
        write_line(jars, spark, scala, release)
    monkeypatch.setattr(jarmod, "jars_dir", lambda: jars)
    fake(monkeypatch, "4.1.1", "2.13.17", "17.0.15")
    for name in ("UBUNYE_OPENLINEAGE_URL", "OPENLINEAGE_URL", "OPENLINEAGE_CONFIG", "UBUNYE_SIGNING_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "uc").mkdir()
    return tmp_path / "uc"


def fake(monkeypatch: pytest.MonkeyPatch, spark: str | None, scala: str | None, java: str | None) -> None:
    monkeypatch.setattr(runtime, "spark_runtime", lambda: runtime.SparkRuntime(spark, scala, None, "pyspark" if spark else "none"))
    monkeypatch.setattr(runtime, "launcher_java_version", lambda: java)


def doctor(usecase: Path, *args: str) -> tuple[int, list[str], str]:
    done = CliRunner().invoke(cli, ["doctor", "-d", str(usecase), *args])
    return done.exit_code, done.stdout.splitlines(), done.stderr


def test_a_healthy_session_is_one_screen_exit_0_and_nothing_is_written(session: Path, tmp_path: Path) -> None:
    code, lines, err = doctor(session)
    assert code == 0 and err == "", (lines, err)
    assert [line.split(":")[0] for line in lines] == NAMES and len(lines) <= 24
    said = dict(line.split(None, 1) for line in lines)
    assert said["spark:"] == "4.1.1 (pyspark)" and said["java:"] == "17.0.15"
    assert said["jar:"] == str(tmp_path / "jars" / "ubunye-spark_4.1_2.13-0.1.0.jar")
    assert said["engine:"].startswith("spark-native expected")
    assert said["store:"] == f"{(session / '.ubunye' / 'lineage').resolve()} (none yet: `ubunye run --lineage` makes it)"
    assert said["signing:"].startswith(f"per-user key {tmp_path / 'config'}") and "not created yet" in said["signing:"]
    assert not (tmp_path / "config").exists() and list(session.iterdir()) == []  # no key made, no store made


@pytest.mark.parametrize("spark,scala,java,says", [
    ("3.3.2", "2.12.15", "17.0.15", "spark-sql fallback: no ubunye-spark jar for Spark 3.3 / Scala 2.12"),
    ("4.1.1", "2.13.17", "1.8.0_392", "spark-sql fallback: the ubunye-spark jar ubunye-spark_4.1_2.13-0.1.0.jar needs Java 17"),
])
def test_an_engine_problem_says_why_and_what_to_do(session: Path, monkeypatch: pytest.MonkeyPatch, spark: str,
                                                    scala: str, java: str, says: str) -> None:
    fake(monkeypatch, spark, scala, java)
    code, lines, err = doctor(session)
    assert code == 1 and err.strip() == "1 problem(s): engine", (lines, err)
    at = [line.split(":")[0] for line in lines].index("engine")
    assert lines[at].split(None, 1)[1].startswith(says), lines[at]
    assert lines[at + 1].strip().startswith("do: ") and "scripts/" not in lines[at + 1]


def test_without_spark_the_pandas_backend_is_no_problem(session: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake(monkeypatch, None, None, None)
    code, lines, err = doctor(session)
    assert code == 1 and err.strip() == "1 problem(s): java"  # no Java: named, with what to do
    assert lines[1].startswith("spark:") and "not installed" in lines[1] and "pandas arrow" in lines[1]


@pytest.mark.parametrize("key,says", [("off", "off (UBUNYE_SIGNING_KEY set to off)"), ("missing.pem", "missing.pem")])
def test_a_signing_key_that_cannot_sign_is_a_problem(session: Path, monkeypatch: pytest.MonkeyPatch,
                                                      tmp_path: Path, key: str, says: str) -> None:
    monkeypatch.setenv("UBUNYE_SIGNING_KEY", key if key == "off" else str(tmp_path / key))
    code, lines, err = doctor(session)
    assert code == 1 and err.strip() == "1 problem(s): signing", (lines, err)
    assert lines[-2].startswith("signing:") and says in lines[-2] and lines[-1].strip().startswith("do: ")


def test_an_openlineage_url_is_shown_without_its_password(session: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UBUNYE_OPENLINEAGE_URL", "https://ann:s3cr3t-pw@lineage.example/api/v1/lineage?token=t0k3n")
    code, lines, _ = doctor(session, "--lineage-dir", "s3://ann:s3cr3t-pw@bucket/records?sig=t0k3n")
    text = "\n".join(lines)
    assert code == 0 and "s3cr3t-pw" not in text and "ann" not in text and "t0k3n" not in text, text
    assert "store:       s3://bucket/records (its query not shown) (remote, not contacted)" in text
    assert "openlineage: http to https://lineage.example/api/v1/lineage (its query not shown) (UBUNYE_OPENLINEAGE_URL" in text
