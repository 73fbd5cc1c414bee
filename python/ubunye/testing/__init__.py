"""Test helpers shared by the Python, Spark and Scala test suites."""
from __future__ import annotations

from ubunye.testing.fixtures import Column, Expect, Fixture, fixtures_dir, load_fixture, load_fixtures

__all__ = ["Column", "Expect", "Fixture", "fixtures_dir", "load_fixture", "load_fixtures"]
