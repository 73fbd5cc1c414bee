"""The Arrow hashing path says in one line when the installed pyarrow is older than the oldest
it runs on (Databricks 14.3 LTS's pyarrow 8.0.0 lacks the decimal-to-text cast and
StructType.field: a traceback from deep inside pyarrow before), and that oldest release is the
package's pyarrow floor."""
from __future__ import annotations

import tomllib
from pathlib import Path

import pyarrow as pa
import pytest
from packaging.requirements import Requirement

from ubunye.hashing import arrow_types
from ubunye.hashing.errors import RowsV1Error

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def pyarrow_version(monkeypatch: pytest.MonkeyPatch):
    def use(version: str) -> None:
        monkeypatch.setattr(pa, "__version__", version)
        arrow_types.pyarrow_too_old.cache_clear()

    yield use
    arrow_types.pyarrow_too_old.cache_clear()


def test_the_oldest_pyarrow_is_the_packages_floor() -> None:
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    floor = next(Requirement(d) for d in deps if Requirement(d).name == "pyarrow")
    assert f">={arrow_types.OLDEST_PYARROW}" in str(floor.specifier).split(",")


def test_an_older_pyarrow_is_one_line_naming_both_versions(pyarrow_version) -> None:
    pyarrow_version("8.0.0")
    with pytest.raises(RowsV1Error) as caught:
        arrow_types.arrow_schema_kinds(pa.schema([("d", pa.decimal128(5, 0))]))
    assert str(caught.value).startswith("pyarrow 8.0.0 is older than 14.0.1, the oldest the Arrow hashing path runs on")
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("version", ["14.0.1", "14.0.2", "19.0.1", "21.0.0.dev12+g1234"])
def test_the_floor_and_newer_pass(pyarrow_version, version: str) -> None:
    pyarrow_version(version)
    assert arrow_types.arrow_schema_kinds(pa.schema([("n", pa.int32())]))[0][0] == "n"


def test_just_below_the_floor_is_refused(pyarrow_version) -> None:
    pyarrow_version("14.0.0")
    assert arrow_types.pyarrow_too_old() is not None
