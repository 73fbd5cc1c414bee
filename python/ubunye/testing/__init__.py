"""Test helpers shared by the Python, Spark and Scala test suites."""
from __future__ import annotations

from ubunye.testing.fixtures import (
    REFERENCE_CSV,
    Column,
    Expect,
    Fixture,
    fixtures_dir,
    load_fixture,
    load_fixtures,
    write_reference_csv,
)

__all__ = [
    "Column", "Expect", "Fixture", "REFERENCE_CSV", "fixtures_dir", "load_fixture", "load_fixtures",
    "write_reference_csv",
]
