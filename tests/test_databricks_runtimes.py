"""The Databricks runtime table (``ubunye/spark/databricks_runtimes.json``): the package's
requirements admit every runtime's own Python libraries, so installing the wheel there
changes none of them; docs/databricks.md shows the table as it is; every runtime has a jar.

pip keeps an installed distribution that satisfies a requirement (its default upgrade
strategy is only-if-needed), so a requirement that admits the installed version is one
pip leaves alone (pandas, numpy, pyarrow, and ``others``: click, jinja2, pyyaml, cryptography);
scripts/check-wheel dbr15.4, dbr16.4, dbr17.3 and dbr18 do the real install with those exact
sets and check the versions afterwards (dbr14.3 too: its pyarrow 8.0.0 is admitted, the native
jar hashes there, the Arrow paths refuse it in one line: ``native_only``). A runtime whose own
library the package cannot use says so in one line (``not_supported``; none today), shown in
docs/databricks.md.
"""
from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

from ubunye.spark import databricks, lines

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def refusals(requirements: list[str], installed: dict[str, str]) -> list[str]:
    """The requirements among ``requirements`` that would make pip change an installed version."""
    out = []
    for text in requirements:
        req = Requirement(text)
        have = installed.get(req.name)
        if have is not None and not req.specifier.contains(have, prereleases=True):
            out.append(f"{text} refuses {req.name} {have}")
    return out


def test_the_sets_found_are_in_the_table() -> None:
    rows = {r.runtime: r for r in databricks.runtimes()}
    assert sorted(rows) == ["14.3 LTS", "15.4 LTS", "16.4 LTS", "17.3 LTS", "18 LTS"]
    assert rows["14.3 LTS"].libraries() == {"python": "3.10", "pandas": "1.5.3", "numpy": "1.23.5", "pyarrow": "8.0.0"}
    assert rows["15.4 LTS"].libraries() == {"python": "3.11", "pandas": "1.5.3", "numpy": "1.23.5", "pyarrow": "14.0.1"}
    assert rows["17.3 LTS"].libraries() == {"python": "3.12", "pandas": "2.2.3", "numpy": "2.1.3", "pyarrow": "19.0.1"}
    assert rows["16.4 LTS"].libraries() == {"python": "3.12", "pandas": "1.5.3", "numpy": "1.26.4", "pyarrow": "15.0.2"}
    assert rows["18 LTS"].libraries() == {"python": "3.12", "pandas": "2.2.3", "numpy": "2.1.3", "pyarrow": "21.0.0"}
    assert rows["18 LTS"].jdk == "21" and rows["18 LTS"].pyspark == "4.1.0"
    # the package's other requirements at each runtime's version (None: not in its set)
    assert rows["16.4 LTS"].others == {"click": "8.1.7", "jinja2": None, "pyyaml": "6.0.1", "cryptography": "42.0.5"}
    assert rows["17.3 LTS"].others == {"click": "8.1.7", "jinja2": "3.1.5", "pyyaml": "6.0.2", "cryptography": "43.0.3"}
    assert rows["18 LTS"].others == {"click": "8.1.8", "jinja2": "3.1.6", "pyyaml": "6.0.2", "cryptography": "44.0.1"}
    assert rows["18 LTS"].installed() == {"pandas": "2.2.3", "numpy": "2.1.3", "pyarrow": "21.0.0", "click": "8.1.8",
                                          "jinja2": "3.1.6", "pyyaml": "6.0.2", "cryptography": "44.0.1"}
    assert [r.runtime for r in rows.values() if r.complete()] == ["14.3 LTS", "15.4 LTS", "16.4 LTS", "17.3 LTS", "18 LTS"]
    for r in rows.values():  # a figure found has its source; a missing one says so
        assert r.complete() or "not found" in r.source, r.runtime


def named_in(not_supported: str) -> tuple[str, str]:
    """``("pyarrow", "8.0.0")`` from a ``not_supported`` line ``"pyarrow 8.0.0: why ..."``."""
    match = re.match(r"([a-z]+) ([0-9][^:]*):", not_supported)
    assert match is not None, not_supported
    return match.group(1), match.group(2)


def test_requirements_admit_every_runtimes_own_libraries() -> None:
    """Every known set is admitted, but for the one library a runtime's ``not_supported`` names:
    that one the requirements refuse (so the note goes when a floor comes down to it)."""
    checked = 0
    for r in databricks.runtimes():
        known = r.installed()
        line = lines.line_for(r.pyspark)
        assert line is not None, f"{r.runtime}: pyspark {r.pyspark} is on no supported line"
        extra = PROJECT["optional-dependencies"][f"spark{line.tag}"]
        problems = refusals(PROJECT["dependencies"] + extra, {**known, "pyspark": r.pyspark})
        if r.not_supported:
            name, version = named_in(r.not_supported)
            assert known.get(name) == version, r.runtime
            assert [p.split(" refuses ")[1] for p in problems] == [f"{name} {version}"], (r.runtime, problems)
        else:
            assert not problems, f"{r.runtime}: {problems}"
        if r.python is not None:
            assert SpecifierSet(PROJECT["requires-python"]).contains(r.python), r.runtime
        checked += len(known)
    assert checked >= 26  # the pandas, numpy and pyarrow of five runtimes, and 11 others of three


def test_others_are_the_packages_other_requirements() -> None:
    """``others`` names every requirement of the package but pandas, numpy and pyarrow: a new
    requirement cannot be left out of the runtimes' checks."""
    names = {Requirement(text).name.lower() for text in PROJECT["dependencies"]} - {"pandas", "numpy", "pyarrow"}
    assert names == set(databricks.OTHERS)


def test_others_must_name_every_other_requirement(tmp_path: Path) -> None:
    row = next(iter(json.loads(databricks.TABLE.read_text(encoding="utf-8"))["runtimes"]))
    table = tmp_path / "runtimes.json"
    table.write_text(json.dumps({"runtimes": [{**row, "others": {"click": "8.1.7"}}]}), encoding="utf-8")
    with pytest.raises(ValueError, match="'others' must name exactly click, jinja2, pyyaml, cryptography"):
        databricks.runtimes(table)


def test_the_check_sees_a_floor_above_a_runtime() -> None:  # the oracle itself can fail
    assert refusals(["pandas>=2.2,<3.2"], {"pandas": "1.5.3"}) == ["pandas>=2.2,<3.2 refuses pandas 1.5.3"]
    assert refusals(["pandas>=1.5.3"], {"pandas": "1.5.3", "numpy": "1.23.5"}) == []
    assert named_in("pyarrow 8.0.0: lacks a cast") == ("pyarrow", "8.0.0")


def test_docs_say_what_is_not_supported() -> None:
    table = databricks.markdown_table()
    for r in databricks.runtimes():
        if r.not_supported:
            assert f"**not supported**: {r.not_supported}" in table


def test_docs_say_what_is_native_only() -> None:
    table = databricks.markdown_table()
    marked = [r for r in databricks.runtimes() if r.native_only]
    assert [r.runtime for r in marked] == ["14.3 LTS"]  # its pyarrow 8.0.0: the Arrow paths refuse it
    for r in marked:
        assert f"**native only**: {r.native_only}. Tested: {r.tested_here}" in table


def test_docs_show_the_table() -> None:
    page = (ROOT / "docs" / "databricks.md").read_text(encoding="utf-8")
    assert databricks.markdown_table() in page


def test_every_runtime_image_has_a_jar_the_wheel_ships() -> None:
    wheel_lines = re.search(r"^LINES=\(([^)]*)\)", (ROOT / "scripts" / "wheel").read_text(), re.M)
    assert wheel_lines is not None
    for r in databricks.runtimes():
        for jar_line in r.jar_lines():
            assert jar_line in wheel_lines.group(1).split(), (r.runtime, jar_line)
