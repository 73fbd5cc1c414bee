"""``bash scripts/wheel``: one wheel carrying every Spark line's plugin jar and its JSON.

Built here from a jars folder holding one stand-in jar and description per line (so
the check does not depend on which jars this checkout has built; ``scripts/check-wheel``
installs the real wheel and fingerprints on several pyspark versions).
"""
from __future__ import annotations

import os
import subprocess
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
LINES = ["3.5_2.12", "3.5_2.13", "4.0_2.13", "4.1_2.13", "4.2_2.13", "4.3_2.13"]
OL_LINES = LINES[:-1]  # the OpenLineage listener extension: every line but 4.3 (scripts/spark-lines --openlineage)
VERSION = (REPO / "VERSION").read_text(encoding="utf-8").strip()


def run_wheel(jars: Path, dist: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, JARS=str(jars), DIST=str(dist), UBUNYE_WHEEL_NO_BUILD="1")
    return subprocess.run(["bash", str(REPO / "scripts" / "wheel")], capture_output=True, text=True,
                          env=env, timeout=900)


def stand_in_jars(folder: Path, lines: list[str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for line in lines:
        name = f"ubunye-spark_{line}-{VERSION}"
        (folder / f"{name}.jar").write_bytes(f"jar for {line}".encode())
        (folder / f"{name}.json").write_text(f'{{"jar": "{name}.jar", "line": "{line}"}}', encoding="utf-8")
    (folder / "ubunye-spark_4.1_2.13-0.0.9.jar").write_bytes(b"a stale jar of an older version")
    ol = folder / "openlineage"
    ol.mkdir(exist_ok=True)
    for line in [x for x in lines if x in OL_LINES]:
        name = f"ubunye-spark-openlineage_{line}-{VERSION}"
        (ol / f"{name}.jar").write_bytes(f"extension for {line}".encode())
        (ol / f"{name}.json").write_text(f'{{"jar": "{name}.jar", "line": "{line}"}}', encoding="utf-8")
    (ol / "ubunye-spark-openlineage_4.1_2.13-0.0.9.jar").write_bytes(b"a stale extension")
    return folder


def test_the_wheel_carries_every_lines_jar_and_json(tmp_path: Path) -> None:
    jars = stand_in_jars(tmp_path / "jars", LINES)
    done = run_wheel(jars, tmp_path / "dist")
    assert done.returncode == 0, done.stderr[-3000:]
    wheel = tmp_path / "dist" / f"ubunye-{VERSION}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as zf:
        inside = {n for n in zf.namelist() if n.startswith("ubunye/spark/jars/")}
        expected = {f"ubunye/spark/jars/ubunye-spark_{line}-{VERSION}.{ext}" for line in LINES for ext in ("jar", "json")}
        expected |= {f"ubunye/spark/jars/openlineage/ubunye-spark-openlineage_{line}-{VERSION}.{ext}"
                     for line in OL_LINES for ext in ("jar", "json")}
        assert inside == expected  # every line, and nothing stale
        for line in LINES:
            assert zf.read(f"ubunye/spark/jars/ubunye-spark_{line}-{VERSION}.jar") == f"jar for {line}".encode()
        assert zf.read(f"ubunye/spark/jars/openlineage/ubunye-spark-openlineage_4.1_2.13-{VERSION}.jar") == (
            b"extension for 4.1_2.13")
        assert "ubunye/spark/jar.py" in zf.namelist() and "ubunye/cli/commands/spark_jar.py" in zf.namelist()


@pytest.mark.parametrize("present", [[], LINES[:1] + LINES[2:4]])
def test_missing_lines_fail_with_one_line_naming_them(tmp_path: Path, present: list[str]) -> None:
    jars = stand_in_jars(tmp_path / "jars", present)
    done = run_wheel(jars, tmp_path / "dist")
    assert done.returncode == 1
    message = done.stderr.strip().splitlines()[-1]
    missing = [line for line in LINES if line not in present]
    assert f"Spark line(s) {' '.join(missing)} " in message
    assert all(f"{line} (OpenLineage extension)" in message for line in OL_LINES if line not in present)
    assert not (tmp_path / "dist").exists()
