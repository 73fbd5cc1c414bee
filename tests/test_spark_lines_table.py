"""The Spark lines table (``ubunye.spark.lines``): pyproject.toml's per-line extras agree with
it, each delta-spark pairs with its line's pyspark, and the engine names a delta-spark that
does not pair with the installed pyspark in one warning line."""
from __future__ import annotations

import importlib.metadata
import logging
import re
import tomllib
from pathlib import Path

import pytest

from ubunye.spark import lines

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def per_line_extras() -> dict[str, list[str]]:
    extras = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    return {name: deps for name, deps in extras.items() if re.fullmatch(r"(spark|delta)\d+", name)}


def test_pyprojects_per_line_extras_are_the_tables() -> None:
    assert per_line_extras() == lines.extras()
    assert sorted(lines.extras()) == ["delta35", "delta40", "delta41", "delta42",
                                      "spark35", "spark40", "spark41", "spark42", "spark43"]


def test_each_delta_extra_pins_a_pyspark_of_its_own_line() -> None:
    for line in lines.LINES:
        assert lines.line_for(f"{line.spark}.0") == line
        if line.delta is not None:
            lowest = re.search(r"(?:>=|==)\s*([\d.]+)", line.delta_pyspark or "").group(1)  # type: ignore[union-attr]
            assert lines.line_for(lowest) == line and lines.satisfies(lowest, line.delta_pyspark or "")


def test_versions_against_ranges() -> None:
    assert lines.satisfies("4.1.1", ">=4.1.0,<=4.1.1") and not lines.satisfies("4.1.2", ">=4.1.0,<=4.1.1")
    assert lines.satisfies("3.5.3", ">=3.5.3,<3.6") and not lines.satisfies("3.5.2", ">=3.5.3,<3.6")
    assert lines.satisfies("4.2.0", "==4.2.0") and not lines.satisfies("4.2.1", "==4.2.0")
    assert lines.satisfies("3.3.3", ">=3.3,<3.4") and not lines.satisfies("3.4.0", ">=3.3,<3.4")
    assert lines.satisfies("4.0.0.dev1", "<4.1") and lines.line_for("3.4.4") is None


@pytest.mark.parametrize("pyspark, delta, extra", [
    ("4.1.1", "4.4.0", "delta41"),  # what pip takes on pyspark 4.1 from delta-spark's own ranges
    ("3.5.0", "3.3.3", "delta35"),  # delta-spark 3.3 needs pyspark 3.5.3 or newer
    ("3.5.7", "4.0.0", "delta35"),
    ("4.2.1", "4.4.1", "delta42"),  # delta-spark 4.4 allows pyspark 4.2.0 only
])
def test_an_unpaired_delta_gives_one_line_with_both_versions_and_the_fix(pyspark: str, delta: str, extra: str) -> None:
    line = lines.delta_mismatch(pyspark, delta)
    assert line is not None and "\n" not in line
    assert f"delta-spark {delta} does not pair with pyspark {pyspark}" in line
    assert line.endswith(f"pip install 'ubunye[{extra}]'")


@pytest.mark.parametrize("pyspark, delta", [("3.5.7", "3.3.3"), ("4.0.0", "4.0.1"), ("4.1.1", "4.3.1"),
                                            ("4.1.0", "4.2.0"), ("4.2.0", "4.4.1"), ("3.4.4", "2.4.0")])
def test_a_paired_delta_or_an_unknown_line_says_nothing(pyspark: str, delta: str) -> None:
    assert lines.delta_mismatch(pyspark, delta) is None


def test_a_line_without_a_delta_release_says_so() -> None:
    line = lines.delta_mismatch("4.3.0", "4.4.1")
    assert line is not None and "no delta-spark release pairs with Spark 4.3" in line
    assert "ubunye[delta35]" in line and "ubunye[delta42]" in line


def test_the_engine_session_warns_once_when_delta_does_not_pair(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    from pyspark.sql import SparkSession

    from ubunye.engine.backends import spark_session
    from ubunye.spark._compat import builder_options

    real = importlib.metadata.version
    installed = {"pyspark": "4.1.1", "delta-spark": "4.4.0"}
    monkeypatch.setattr(importlib.metadata, "version", lambda name: installed.get(name) or real(name))
    with caplog.at_level(logging.WARNING, logger="ubunye.engine"):
        builder = spark_session.with_delta(SparkSession.builder.appName("t"))
    said = [r.getMessage() for r in caplog.records if "delta-spark" in r.getMessage()]
    assert said == [lines.delta_mismatch("4.1.1", "4.4.0")]
    assert spark_session.DELTA_EXTENSION in builder_options(builder)["spark.sql.extensions"]

    caplog.clear()
    installed["delta-spark"] = "4.3.1"
    with caplog.at_level(logging.WARNING, logger="ubunye.engine"):
        spark_session.with_delta(SparkSession.builder.appName("t"))
    assert [r for r in caplog.records if "delta-spark" in r.getMessage()] == []


def test_every_extra_the_guides_install_exists() -> None:
    declared = set(tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["optional-dependencies"])
    named = {extra.strip() for guide in (PYPROJECT.parent / "docs").glob("*.md")
             for group in re.findall(r"pip install '?ubunye\[([^\]]+)\]", guide.read_text(encoding="utf-8"))
             for extra in group.split(",")}
    assert {f"spark{line.tag}" for line in lines.LINES} <= named  # the table in docs/spark.md
    assert named <= declared, named - declared
