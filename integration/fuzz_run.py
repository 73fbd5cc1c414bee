"""The batched parity fuzz: many generated files read in few Spark jobs, compared per case.

Cases with the same options (integration/fuzz_cases.py) are written as the files of
one folder (``<index>.<fmt>``) and the folder is read once with Spark's own reader
(``read_spark``: ``spark.read.format(fmt).options(...).schema(...).load(folder)``,
exactly what users get) and once with the pandas reader over the same file list.
Each side gets a column ``_fuzz_file`` (Spark: the file name of
``input_file_name()``; pandas: each file's name repeated over its rows, as the
reader returns per-file counts), and both tables are compared by their rows-v1
fingerprint (schema hash, count, digest). Equal fingerprints mean every case of
the folder reads the same: each row carries its case's file name. When they
differ, both tables are split by file and compared row by row to name the cases
that differ (rows collected to Python, NaN equal to NaN).

When Spark refuses a folder (a case univocity fails on), each of its cases is read alone:
a case both readers refuse agrees, one only one refuses differs, the others are compared
as above. A generated case is a file of its own in a folder, so it reads exactly as a lone file
would for csv with an explicit schema (every file's first record is its header with
``header=true``). For json with inference the folder's schema is the union of the
cases' fields; field names carry the case number, so no two cases share a column
except ``_corrupt_record``.
"""
from __future__ import annotations

import math
import os
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterable

from fuzz_cases import FuzzCase

FILE_COLUMN = "_fuzz_file"


def fuzz_count(default: int = 1000) -> int:
    """Cases per generator: ``$UBUNYE_FUZZ_CASES`` (nightly: 10000), else ``default``."""
    return int(os.environ.get("UBUNYE_FUZZ_CASES", default))


def _spark_table(spark: Any, folder: Path, fmt: str, options: dict, schema: Any) -> Any:
    from pyspark.sql import functions as F

    from parity import spark_read

    frame = spark_read(spark, folder, fmt, options, schema)
    return frame.withColumn(FILE_COLUMN, F.element_at(F.split(F.input_file_name(), "/"), -1))


def _pandas_table(folder: Path, fmt: str, options: dict, schema: Any) -> Any:
    import pyarrow as pa

    from ubunye.io import _layout, _readers
    from ubunye.io import options as reader_options
    from ubunye.io.ddl import as_schema

    opts = reader_options.normalize(options)
    if fmt == "csv":
        opts.setdefault("header", "true")
        opts.setdefault("inferschema", "true")
    files = _layout(folder).files
    read, followed = _readers()[fmt]
    reader_options.check(fmt, opts, followed)
    table, counts = read(files, opts, as_schema(schema))
    names = [p.name for p, n in zip(files, counts) for _ in range(n)]
    return table.append_column(FILE_COLUMN, pa.array(names, pa.string()))


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return a == b


def _spark_rows(frame: Any) -> list[dict]:
    return [r.asDict(recursive=True) for r in frame.collect()]


def _split_differences(frame: Any, table: Any, by_file: dict[str, FuzzCase]) -> list[str]:
    """The cases whose rows differ, with the first differing row of each."""
    left: dict[str, list] = defaultdict(list)
    right: dict[str, list] = defaultdict(list)
    for row in _spark_rows(frame):
        left[row.pop(FILE_COLUMN)].append(row)
    for row in table.to_pylist():
        right[row.pop(FILE_COLUMN)].append(row)
    found = []
    for name, case in by_file.items():
        a, b = left.get(name, []), right.get(name, [])
        keys = set(a[0] if a else ()) & set(b[0] if b else ())  # a column only one side has is in the schema line
        a = [{k: v for k, v in r.items() if k in keys} for r in a]
        b = [{k: v for k, v in r.items() if k in keys} for r in b]
        if not _same(a, b):
            first = next((i for i, (x, y) in enumerate(zip(a, b)) if not _same(x, y)), min(len(a), len(b)))
            found.append(f"{case.name}: {len(a)} rows on Spark, {len(b)} on pandas; row {first}: "
                         f"spark {a[first] if first < len(a) else None}, pandas {b[first] if first < len(b) else None}; "
                         f"input {case.data!r}")
    return found


def run_group(spark: Any, folder: Path, fmt: str, cases: list[FuzzCase]) -> list[str]:
    """Read one group's files both ways; the differences, one line each (empty: all agree)."""
    from parity import _hash, _one_line

    folder.mkdir(parents=True)
    by_file = {}
    for i, case in enumerate(cases):
        name = f"{i:05d}.{fmt}"
        (folder / name).write_bytes(case.data)
        by_file[name] = case
    options, schema = dict(cases[0].options), cases[0].schema
    try:
        frame = _spark_table(spark, folder, fmt, options, schema)
        left = _hash(frame)
    except Exception:  # noqa: BLE001 - some case Spark refuses: each case read alone
        return _one_by_one(spark, folder, fmt, by_file)
    try:
        table = _pandas_table(folder, fmt, options, schema)
        right = _hash(table)
    except Exception as exc:  # noqa: BLE001
        return [f"{fmt} {options}: pandas refused the folder Spark read: {_one_line(exc)}"]
    if (left.schema_hash, left.row_count, left.data_hash) == (right.schema_hash, right.row_count, right.data_hash):
        return []
    if left.schema_hash != right.schema_hash:
        only_spark = sorted(set(frame.columns) - set(table.column_names))
        only_pandas = sorted(set(table.column_names) - set(frame.columns))
        head = (f"{fmt} {options}: schema: columns only Spark has {only_spark}, only pandas has {only_pandas}; "
                f"spark {frame.schema.simpleString()}, pandas {table.schema}".replace("\n", "; "))
        return [head[:2000]] + _split_differences(frame, table, by_file)[:20]
    return _split_differences(frame, table, by_file) or [f"{fmt} {options}: digests differ, no case found"]


def _one_by_one(spark: Any, folder: Path, fmt: str, by_file: dict[str, FuzzCase]) -> list[str]:
    """Spark refused the folder: each case in a folder of its own; both refusing it agree."""
    from parity import _one_line

    found = []
    for name, case in by_file.items():
        alone = folder / f"alone-{Path(name).stem}"
        alone.mkdir()
        (folder / name).rename(alone / name)
        refused = []
        for side in ("Spark", "pandas"):
            try:
                if side == "Spark":
                    _spark_table(spark, alone, fmt, dict(case.options), case.schema).collect()
                else:
                    _pandas_table(alone, fmt, dict(case.options), case.schema)
            except Exception as exc:  # noqa: BLE001 - a refusal is an outcome
                refused.append(f"{side}: {_one_line(exc)[:300]}")
        if len(refused) == 1:
            found.append(f"{case.name}: only {refused[0]}; input {case.data!r}")
        elif not refused:
            found += run_group(spark, folder / f"read-{Path(name).stem}", fmt, [case])
    return found


def run(spark: Any, root: Path, fmt: str, cases: Iterable[FuzzCase]) -> tuple[int, list[str]]:
    """Every case, grouped by options and read group by group: (case count, differences)."""
    groups: dict[tuple, list[FuzzCase]] = defaultdict(list)
    for case in cases:
        groups[case.group].append(case)
    differences: list[str] = []
    for number, group in enumerate(groups.values()):
        differences += run_group(spark, root / f"g{number:03d}", fmt, group)
    return sum(len(g) for g in groups.values()), differences
