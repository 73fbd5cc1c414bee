"""Parity of Spark and the pandas reader on partitioned folders (``key=value``), and of
partitioned writes on the two engine backends.

Each case lays out a folder once and reads it with Spark and with ``ubunye.io.read_arrow``
(integration/parity.py): the partition types Spark infers value by value, how mixed values
widen, nulls, escapes, layouts (two levels, a folder under a partition, a root file, a
plain sub-folder, hidden names, basePath) in parquet, csv and json.
"""
from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any, Optional

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from parity import allowed, check

FORMATS = ("csv", "json", "parquet")

# One folder v=<value> per case: the type Spark infers for the value alone.
VALUES = [
    "1", "01", "+1", "-0", "2147483647", "2147483648", "-2147483649", "9223372036854775807",
    "9223372036854775808", "12345678901234567890123456789012345678", "123456789012345678901234567890123456789",
    "1.0", "-1.5", ".5", "5.", "1e5", "1E5", "1.5e3", "0e5", "1e-5", "1e38", "NaN", "-Infinity", "1.0d", "1f",
    "0x1p3", " 1", "١٢", "1_000", "2024-01-01", "2024-02-29", "2024-02-30", "2024-1-1", "0001-01-01",
    "2024-01-01 00%3A00%3A00", "2024-01-01 12%3A30%3A00.5", "2024-01-01 00%3A00%3A00.12",
    "2024-01-01T00%3A00%3A00", "2024-01-01 24%3A00%3A00", "2024-01-01 00%3A00", "true", "abc",
    "__HIVE_DEFAULT_PARTITION__", "a%2Fb%3Ac%25d", "%41", "a%zzb", "a%4", "x y", "é",
]

# Several folders v=<value>: how their types widen into one.
MIXES = {
    "int+long": ["1", "2147483648"], "int+double": ["01", "1.5"], "long+double": ["2147483648", "1.5"],
    "decimal+double": ["9223372036854775808", "1.5"], "int+decimal": ["1", "1e5"],
    "long+decimal": ["2147483648", "9223372036854775808"], "decimal+decimal": ["1e5", "9223372036854775808"],
    "date+timestamp": ["2024-01-01", "2024-01-02 12%3A30%3A00.5"], "date+int": ["2024-01-01", "01"],
    "date+double": ["2024-01-01", "1.5"], "int+string": ["01", "abc"], "double+string": ["1.0d", "abc", " 1"],
    "timestamp+string": ["2024-01-01 00%3A00%3A00", "a%2Fb"], "null+int": ["__HIVE_DEFAULT_PARTITION__", "01"],
    "null+string": ["1.5", "__HIVE_DEFAULT_PARTITION__", "x"], "null-only": ["__HIVE_DEFAULT_PARTITION__"],
    "decimal+date": ["1e5", "2024-01-01"], "int-twice": ["1", "01"],
}

# Layouts: relative folder or file -> rows ({} for a data file of the format, "" for an empty file).
# "*" in a name is replaced by the format's extension. (layout, options, sub-path to read)
D = [{"x": 1}]
LAYOUTS: dict[str, tuple[dict[str, Any], Optional[dict[str, str]], str]] = {
    "two-levels": ({"a=1/b=x/p.*": D, "a=2/b=y/p.*": [{"x": 2}, {"x": 3}]}, None, ""),
    "three-levels": ({"a=1/b=x/c=2024-01-01/p.*": D, "a=2/b=y/c=2024-01-02/p.*": D}, None, ""),
    "root-file-beside-partitions": ({"a=1/p.*": D, "root.*": [{"x": 9}]}, None, ""),
    "plain-folder-beside-partitions": ({"a=1/p.*": D, "other/p.*": [{"x": 9}]}, None, ""),
    "root-file-and-plain-folder": ({"p.*": D, "a=1/p.*": D, "other/p.*": D}, None, ""),
    "folder-under-partition": ({"a=1/sub/p.*": D, "a=2/p.*": [{"x": 2}]}, None, ""),
    "partitions-under-plain-folder": ({"x/a=1/p.*": D, "x/a=2/p.*": D}, None, ""),
    "partitions-under-two-plain-folders": ({"x/a=1/p.*": D, "y/a=2/p.*": D}, None, ""),
    "mixed-depth": ({"a=1/p.*": D, "a=2/b=3/p.*": D}, None, ""),
    "hidden-names": ({"a=1/p.*": D, "_tmp/p.*": [{"x": 9}], ".h/p.*": [{"x": 9}], "a=1/_SUCCESS": "",
                      "a=1/.p.crc": "", "a=2/_x/p.*": [{"x": 9}], "a=1/q.*._COPYING_": [{"x": 9}]}, None, ""),
    "underscore-partition-name": ({"_a=1/p.*": D, "_a=2/p.*": [{"x": 2}]}, None, ""),
    "underscore-partition-beside-other": ({"a=1/p.*": D, "_b=2/p.*": D}, None, ""),
    "temporary-folder": ({"a=1/p.*": D, "a=1/_temporary/0/p.*": [{"x": 9}]}, None, ""),
    "empty-partition-folder": ({"a=1/p.*": D, "a=2/keep/.x": ""}, None, ""),
    "nested-plain-folders-only": ({"p.*": D, "sub/p.*": [{"x": 2}], "sub/deeper/p.*": [{"x": 3}]}, None, ""),
    "several-files-per-partition": ({"a=1/p0.*": D, "a=1/p1.*": [{"x": 2}, {"x": 3}], "a=2/p.*": D}, None, ""),
    "escaped-column-name": ({"a%3Db=1/p.*": D, "a%3Db=2/p.*": D}, None, ""),
    "equals-in-value": ({"a=b=c/p.*": D}, None, ""),
    "empty-value": ({"a=/p.*": D}, None, ""),
    "empty-name": ({"=1/p.*": D}, None, ""),
    "same-column-twice": ({"a=1/a=2/p.*": D}, None, ""),
    "partition-column-in-data": ({"a=1/p.*": [{"a": 9, "x": 1}], "a=2/p.*": [{"a": 8, "x": 2}]}, None, ""),
    "partition-column-in-data-other-case": ({"A=1/p.*": [{"a": 9, "x": 1}]}, None, ""),
    "partition-column-in-data-other-type": ({"a=x/p.*": [{"x": 1, "a": 9}]}, None, ""),
    "basePath": ({"a=1/b=2/p.*": D, "a=3/b=4/p.*": D}, {"basePath": "{root}"}, "a=1"),
    "no-basePath-below-root": ({"a=1/b=2/p.*": D, "a=3/b=4/p.*": D}, None, "a=1"),
    "basePath-missing": ({"a=1/b=2/p.*": D}, {"basePath": "{root}/nowhere"}, "a=1"),
    "basePath-a-file": ({"a=1/b=2/p.*": D}, {"basePath": "{root}/a=1/b=2/p.*"}, "a=1"),
    "basePath-not-above": ({"a=1/b=2/p.*": D, "c=1/p.*": D}, {"basePath": "{root}/c=1"}, "a=1"),
    "file-in-partition": ({"a=1/p.*": D}, None, "a=1/p.*"),
    "file-in-partition-basePath": ({"a=1/p.*": D}, {"basePath": "{root}"}, "a=1/p.*"),
}


def _data(fmt: str, rows: list[dict[str, Any]]) -> bytes:
    if fmt == "json":
        return "".join(json.dumps(r) + "\n" for r in rows).encode()
    if fmt == "csv":
        names = list(rows[0]) if rows else ["x"]
        lines = [",".join(names)] + [",".join(str(r[n]) for n in names) for r in rows]
        return ("\n".join(lines) + "\n").encode()
    buf = io.BytesIO()
    pq.write_table(pa.table({n: [r[n] for r in rows] for n in rows[0]}), buf)
    return buf.getvalue()


def lay_out(root: Path, fmt: str, layout: dict[str, Any]) -> None:
    for rel, rows in layout.items():
        path = root / rel.replace("*", fmt)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(rows.encode() if isinstance(rows, str) else _data(fmt, rows))


# Values are read 8 at a time, one partition level (column) each: one read, eight inferences.
CHUNKS = [VALUES[i:i + 8] for i in range(0, len(VALUES), 8)]


@pytest.mark.parametrize("chunk", range(len(CHUNKS)))
def test_partition_values_are_typed_as_spark_types_them(spark: Any, tmp_path: Path, chunk: int) -> None:
    values = CHUNKS[chunk]
    lay_out(tmp_path, "csv", {"/".join(f"v{i}={v}" for i, v in enumerate(values)) + "/p.*": D})
    outcome = check(spark, tmp_path, "csv", case=f"partition-values:{values}")
    assert outcome.kind == "agree", str(outcome)


@pytest.mark.parametrize("mix", sorted(MIXES))
def test_partition_values_widen_as_spark_widens_them(spark: Any, tmp_path: Path, mix: str) -> None:
    lay_out(tmp_path, "csv", {f"v={v}/p{i}.*": [{"x": i}] for i, v in enumerate(MIXES[mix])})
    outcome = check(spark, tmp_path, "csv", case=f"partition-mix:{mix}")
    assert outcome.kind == "agree", str(outcome)


# Discovery does not depend on the format: these are read as csv only, the others in every format.
CSV_ONLY = {"three-levels", "root-file-and-plain-folder", "partitions-under-two-plain-folders", "mixed-depth",
            "underscore-partition-beside-other", "temporary-folder", "empty-partition-folder", "escaped-column-name",
            "equals-in-value", "empty-value", "empty-name", "same-column-twice", "no-basePath-below-root",
            "basePath-missing", "basePath-a-file", "basePath-not-above", "file-in-partition"}
# The layouts Spark refuses (and so must the pandas reader, in one line of its own); every other
# layout must be read alike (agree), so a reader that refuses everything fails.
BOTH_REFUSE = {"basePath-a-file:csv", "basePath-missing:csv", "basePath-not-above:csv", "empty-name:csv",
               "empty-value:csv", "mixed-depth:csv", "partitions-under-two-plain-folders:csv",
               "plain-folder-beside-partitions:csv", "plain-folder-beside-partitions:json",
               "plain-folder-beside-partitions:parquet", "root-file-and-plain-folder:csv", "same-column-twice:csv",
               "underscore-partition-beside-other:csv"}
LAYOUT_CASES = [(name, fmt) for name in sorted(LAYOUTS) for fmt in FORMATS if fmt == "csv" or name not in CSV_ONLY]


@pytest.mark.parametrize("name,fmt", LAYOUT_CASES)
def test_partition_layouts_read_as_spark_reads_them(spark: Any, tmp_path: Path, name: str, fmt: str) -> None:
    layout, options, sub = LAYOUTS[name]
    lay_out(tmp_path, fmt, layout)
    opts = {k: v.replace("{root}", str(tmp_path)).replace("*", fmt) for k, v in (options or {}).items()}
    outcome = check(spark, tmp_path / sub.replace("*", fmt), fmt, opts, case=f"partition-layout:{name}:{fmt}")
    assert outcome.kind in allowed(f"{name}:{fmt}", BOTH_REFUSE), str(outcome)


WRITE_CONFIG = """
CONFIG:
  inputs:
    rows: {format: parquet, path: "{{ data }}/rows.parquet"}
  outputs:
    by_text_and_day: {format: csv, path: "{{ out }}/by_text_and_day", partition_by: [s, d]}
    by_instant_and_decimal: {format: parquet, path: "{{ out }}/by_instant_and_decimal", partition_by: [t, dec]}
    by_flag_double_int: {format: json, path: "{{ out }}/by_flag_double_int", partition_by: [b, dbl, n]}
"""
WRITE_CODE = """
from ubunye import Task


class Same(Task):
    def transform(self, sources):
        rows = sources["rows"]
        return {"by_text_and_day": rows, "by_instant_and_decimal": rows, "by_flag_double_int": rows}
"""


def awkward_rows() -> pa.Table:
    import datetime as dt
    from decimal import Decimal

    utc = dt.timezone.utc
    return pa.table({
        "id": pa.array([1, 2, 3, 4, 5], pa.int64()),
        "s": pa.array(["a/b:c", None, "", "x y=z%#?*[]{}^'\"\\\x01é<>|", "plain"], pa.string()),
        "d": pa.array([dt.date(2024, 1, 1), None, dt.date(1969, 12, 31), dt.date(2024, 2, 29), dt.date(2024, 1, 1)]),
        "t": pa.array([dt.datetime(2024, 1, 1, tzinfo=utc), dt.datetime(2024, 1, 1, 12, 30, 0, 500000, tzinfo=utc),
                       None, dt.datetime(1969, 12, 31, 23, 59, 59, 123456, tzinfo=utc),
                       dt.datetime(2024, 1, 1, tzinfo=utc)], pa.timestamp("us", tz="UTC")),
        "dec": pa.array([Decimal("1.50"), None, Decimal("0.01"), Decimal("-12345678.90"), Decimal("1.50")],
                        pa.decimal128(10, 2)),
        "b": pa.array([True, None, False, True, True]),
        "dbl": pa.array([1e10, float("nan"), 2.5, 1e-5, -0.5]),
        "n": pa.array([3, None, -7, 0, 3], pa.int32()),
        "note": pa.array(["k", None, "m", "n", "o"]),
    })


def folders(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_dir())


def test_a_partitioned_write_lays_out_the_same_folders_and_receipt_on_pandas_and_spark(
        spark: Any, tmp_path: Path) -> None:
    from ubunye import run_task

    zone = spark.conf.get("spark.sql.session.timeZone")
    (tmp_path / "data").mkdir()
    pq.write_table(awkward_rows(), tmp_path / "data" / "rows.parquet")
    task = tmp_path / "uc" / "proof" / "pkg" / "same"
    task.mkdir(parents=True)
    (task / "config.yaml").write_text(WRITE_CONFIG)
    (task / "transformations.py").write_text(WRITE_CODE)
    records = {}
    try:
        for label, options in {"spark": dict(backend="spark", spark=spark), "pandas": dict(backend="pandas")}.items():
            result = run_task(task, lineage=True, reuse_hashes=False,
                              variables={"data": str(tmp_path / "data"), "out": str(tmp_path / label)}, **options)
            path = next((tmp_path / "uc/.ubunye/lineage/proof/pkg/same").glob(f"{result.run_id}.json"))
            records[label] = json.loads(path.read_text())
    finally:
        spark.conf.set("spark.sql.session.timeZone", zone)
    for out in ("by_text_and_day", "by_instant_and_decimal", "by_flag_double_int"):
        spark_dirs, pandas_dirs = folders(tmp_path / "spark" / out), folders(tmp_path / "pandas" / out)
        assert pandas_dirs == spark_dirs, out
        assert len(spark_dirs) >= 4, spark_dirs
        fmt = {"by_text_and_day": "csv", "by_instant_and_decimal": "parquet"}.get(out, "json")
        # the folders pandas wrote read the same with Spark and with pandas, as Spark's own do
        for side in ("pandas", "spark"):
            outcome = check(spark, tmp_path / side / out, fmt, case=f"partition-write:{out}:{side}")
            assert outcome.kind == "agree", str(outcome)

    def digests(rec: dict[str, Any]) -> list[tuple[Any, ...]]:
        return [(s["name"], s["row_count"], s["schema_hash"], s["data_hash"]) for s in rec["outputs"]]

    assert all(d[3] is not None for d in digests(records["spark"])), digests(records["spark"])
    assert digests(records["pandas"]) == digests(records["spark"])


def test_the_both_refuse_list_names_cases_of_this_suite() -> None:
    assert BOTH_REFUSE <= {f"{name}:{fmt}" for name, fmt in LAYOUT_CASES}
