"""Every shared rows-v1 fixture, and the project's own (rows-v1-extra), through every Python engine.

Engines: ``arrow`` (vectorised), ``rows`` (the reference over Arrow data) and
``port`` (the reference over the fixture's decoded Python values, via an
object with ``collect()`` and ``schema``).
"""
from __future__ import annotations

import filecmp
from pathlib import Path
from typing import Any, Callable, NoReturn

import pytest

from ubunye.hashing import Fingerprint, fingerprint
from ubunye.hashing.arrow import line_array
from ubunye.hashing.arrow_types import arrow_schema_kinds
from ubunye.hashing.reference import canonical_line_of, parse_kinds
from ubunye.testing import Fixture, load_fixtures
from ubunye.testing.fixtures import fixtures_dir

# the project's own fixtures, in the same format, from Spark's output (scripts/fixtures-from-spark):
# cases the shared set lacks (far-year February dates and leap days)
EXTRA = Path(__file__).resolve().parent / "fixtures" / "rows-v1-extra"
FIXTURES = load_fixtures() + load_fixtures(EXTRA)
# CI checks the repository out beside the shared folder (../shared)
SHARED = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "rows-v1"
ENGINES = ("arrow", "rows", "port")


class Port:
    """A minimal port frame: ``collect()`` gives dict rows, ``schema`` the kinds."""

    def __init__(self, fx: Fixture) -> None:
        self.schema = fx.kinds()  # a list of pairs keeps repeated names
        self._rows = fx.rows

    def collect(self) -> list[dict[str, Any]]:
        return list(self._rows)


def run(fx: Fixture, engine: str) -> Fingerprint:
    if engine == "port":
        return fingerprint(Port(fx))
    return fingerprint(fx.arrow_table(), engine=engine)


def lines(fx: Fixture, engine: str) -> list[str]:
    if engine == "arrow":
        table = fx.arrow_table()
        kinds = arrow_schema_kinds(table.schema)
        batch = table.combine_chunks().to_batches()
        if not batch:
            return []
        return line_array(batch[0], kinds).to_pylist()
    kinds = parse_kinds(fx.kinds())
    return [canonical_line_of(row, kinds) for row in fx.rows]


def test_project_fixtures_are_the_shared_ones_byte_for_byte(unavailable: Callable[[str], NoReturn]) -> None:
    if not SHARED.is_dir():
        unavailable(f"the shared fixtures are not beside the repository ({SHARED})")
    ours = sorted(p.name for p in fixtures_dir().glob("*"))
    theirs = sorted(p.name for p in SHARED.glob("*"))
    assert ours == theirs
    _, mismatch, errors = filecmp.cmpfiles(SHARED, fixtures_dir(), theirs, shallow=False)
    assert (mismatch, errors) == ([], [])


def test_all_fixtures_found() -> None:
    assert len(FIXTURES) >= 26
    assert "far_february" in {fx.name for fx in FIXTURES}
    assert any(fx.expect.fails for fx in FIXTURES)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("fx", [f for f in FIXTURES if not f.expect.fails], ids=lambda f: f.name)
def test_fixture_hashes(fx: Fixture, engine: str) -> None:
    fp = run(fx, engine)
    assert fp.error is None
    assert fp.method == "rows-v1"
    assert fp.engine == ("arrow" if engine == "arrow" else "rows")
    assert fp.row_count == fx.expect.row_count
    assert fp.schema_hash == fx.expect.schema_hash
    assert fp.data_hash == fx.expect.data_hash


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("fx", [f for f in FIXTURES if not f.expect.fails], ids=lambda f: f.name)
def test_fixture_lines(fx: Fixture, engine: str) -> None:
    got = lines(fx, engine)
    assert fx.expect.lines is not None
    for i, (line, want) in enumerate(zip(got, fx.expect.lines)):
        assert line == want, f"{fx.name} row {i}"
    assert len(got) == len(fx.expect.lines)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("fx", [f for f in FIXTURES if f.expect.fails], ids=lambda f: f.name)
def test_fixture_fails_honestly(fx: Fixture, engine: str) -> None:
    fp = run(fx, engine)
    assert fp.data_hash is None
    assert fp.row_count is None
    assert fp.error is not None and "\n" not in fp.error
    assert fx.expect.error in fp.error
    culprit = fx.columns[-1].name
    assert repr(culprit) in fp.error, fp.error
