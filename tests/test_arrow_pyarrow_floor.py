"""Every path that hashes through Arrow (``fingerprint`` of an Arrow table, the Spark fallback,
the pandas backend) says in one line when the installed pyarrow is older than the oldest it runs
on (Databricks 14.3 LTS's pyarrow 8.0.0 lacks the decimal-to-text cast and StructType.field: a
traceback from deep inside pyarrow before), naming both versions and what to do; the package's
floor is lower (14.3's own 8.0.0, which the native Spark path runs on: scripts/check-wheel dbr14.3)."""
from __future__ import annotations

import tomllib
from pathlib import Path
from types import SimpleNamespace

import pyarrow as pa
import pytest
from packaging.requirements import Requirement

from ubunye.engine.backends import make_backend
from ubunye.engine.errors import BackendError
from ubunye.hashing import arrow_types
from ubunye.hashing.errors import RowsV1Error
from ubunye.spark import databricks
from ubunye.spark.fingerprint import fingerprint_spark

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def pyarrow_version(monkeypatch: pytest.MonkeyPatch):
    def use(version: str) -> None:
        monkeypatch.setattr(pa, "__version__", version)
        arrow_types.pyarrow_too_old.cache_clear()

    yield use
    arrow_types.pyarrow_too_old.cache_clear()


def test_the_packages_floor_is_the_oldest_runtime_pyarrow_and_below_the_arrow_paths() -> None:
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    floor = next(Requirement(d) for d in deps if Requirement(d).name == "pyarrow")
    known = [r.pyarrow for r in databricks.runtimes() if r.pyarrow is not None]
    oldest = min(known, key=lambda v: tuple(int(p) for p in v.split(".")))
    assert f">={oldest}" in str(floor.specifier).split(",")
    # a runtime is marked native only exactly when its pyarrow is below what the Arrow paths need
    assert {r.runtime for r in databricks.runtimes() if r.native_only} == {
        r.runtime for r in databricks.runtimes()
        if r.pyarrow is not None and Requirement(f"p<{arrow_types.OLDEST_PYARROW}").specifier.contains(r.pyarrow)}


def one_line_naming_both(text: str, path: str) -> None:
    assert text.startswith(f"pyarrow 8.0.0 is older than 14.0.1, the oldest {path} runs on"), text
    assert text.endswith("pip install 'pyarrow>=14.0.1'") and "\n" not in text, text


def test_the_spark_fallback_refuses_before_any_job(pyarrow_version) -> None:
    pyarrow_version("8.0.0")
    frame = SimpleNamespace(sparkSession=None)  # no schema, no job: refused before either
    fp = fingerprint_spark(frame, engine="spark-sql")
    assert (fp.engine, fp.data_hash, fp.schema_hash) == ("spark-sql", None, None)
    assert fp.error is not None and fp.error.startswith("RowsV1Error: ")
    one_line_naming_both(fp.error.removeprefix("RowsV1Error: "), "the Spark fallback (mapInArrow)")
    assert "put the plugin jar on the cluster (ubunye spark init-script)" in fp.error


def test_the_spark_pass_of_diff_rows_refuses_before_reading(pyarrow_version) -> None:
    from ubunye.spark.diff_scan import spark_scan

    pyarrow_version("8.0.0")
    with pytest.raises(RowsV1Error) as caught:  # lineage diff --rows notes it in one line
        spark_scan("parquet", "/nowhere", True, None, None, None, [], spark=object())
    one_line_naming_both(str(caught.value), "the Spark fallback (mapInArrow)")


def test_the_pandas_backend_refuses_in_one_line(pyarrow_version) -> None:
    pyarrow_version("8.0.0")
    with pytest.raises(BackendError) as caught:
        make_backend("pandas")
    one_line_naming_both(str(caught.value), "the pandas backend")
    assert "--backend spark" in str(caught.value)
    pyarrow_version("14.0.1")
    assert make_backend("pandas").name == "pandas"


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
