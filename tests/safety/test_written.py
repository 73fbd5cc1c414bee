"""Lying record: a csv or json output's hash is of the files the write created (issue 19, "Hash
what was written"), on the pandas backend, for every mode and with ``partition_by``.

The frame holds what text files do not keep as it is: timestamps with microseconds (the writer
prints milliseconds, as Spark's default ``timestampFormat`` does) and an empty string as a
partition value (its folder is ``__HIVE_DEFAULT_PARTITION__``: read back as null). Each probe
runs the real CLI, then reads exactly the files the run added, with the reader settings the step
records, and compares: the record must state what was written, never the frame's hash.
"""
from __future__ import annotations

import datetime as dt
from pathlib import Path

import pyarrow as pa
import pytest

from harness import Usecase, cli, task_code

UTC = dt.timezone.utc
ROWS = pa.table({
    "id": pa.array([1, 2, 3, 4], pa.int64()),
    "p": pa.array(["a", "", None, "a"], pa.string()),
    "t": pa.array([dt.datetime(2024, 1, 1, 1, 2, 3, 123456, tzinfo=UTC), None,
                   dt.datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
                   dt.datetime(2024, 1, 1, tzinfo=UTC)], pa.timestamp("us", tz="UTC")),
    "naive": pa.array([dt.datetime(2024, 5, 6, 7, 8, 9, 654321), None, None, None], pa.timestamp("us")),
})
CONFIG = """
CONFIG:
  inputs:
    rows: {{format: parquet, path: "{src}"}}
  outputs:
    out: {{format: {fmt}, path: "{out}", mode: {mode}{extra}}}
"""
CODE = task_code('return {"out": sources["rows"]}')


def data_files(folder: Path) -> set[Path]:
    return {p for p in folder.rglob("*") if p.is_file() and not any(
        part.startswith((".", "_")) for part in p.relative_to(folder).parts)}


def hash_of(files: set[Path], folder: Path, fmt: str, step: dict) -> str:
    """The rows-v1 hash of exactly ``files`` (copied alone into a fresh folder, keeping their
    ``key=value`` folders), read with the step's options and schema."""
    import shutil

    from ubunye.hashing import fingerprint
    from ubunye.io import read_arrow

    alone = folder.parent / (folder.name + ".alone")
    shutil.rmtree(alone, ignore_errors=True)
    for f in files:
        target = alone / f.relative_to(folder)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(f, target)
    return fingerprint(read_arrow(alone, fmt, options=step["options"], schema=step["schema"])).data_hash


@pytest.mark.parametrize("fmt", ["csv", "json"])
@pytest.mark.parametrize("mode,extra", [("overwrite", ""), ("append", ""), ("overwrite", ", partition_by: [p]"),
                                        ("append", ", partition_by: [p]")])
def test_lying_record_csv_json_hash_is_of_the_files_this_write_created(tmp_path: Path, fmt: str, mode: str,
                                                                      extra: str) -> None:
    from ubunye.hashing import fingerprint

    uc = Usecase(tmp_path / "uc")
    src = uc.parquet("rows.parquet", ROWS if fmt == "csv" else ROWS.drop_columns(["naive"]))
    out = uc.root / "data" / "out"
    uc.task("t", CONFIG.format(src=src, fmt=fmt, out=out, mode=mode, extra=extra), CODE)
    seen: set[Path] = set()
    for turn in range(2 if mode == "append" else 1):  # an append's second write adds to the first
        result = uc.run("-t", "t", "--lineage")
        assert result.code == 0, str(result)
        (step,) = uc.records("t")[-1]["outputs"]
        new = data_files(out) - seen
        seen |= new
        assert step["hash_pass"] == "second-pass" and step["row_count"] == 4, step
        assert step["data_hash"] == hash_of(new, out, fmt, step), (turn, step)
        assert step["data_hash"] != fingerprint(ROWS).data_hash  # the files do not hold the frame's values
        if turn == 0:  # the location holds this write alone: verify reads it back the same
            verify = cli("lineage", "verify", "-d", str(uc.root), "-u", "shop", "-p", "orders", "-t", "t")
            assert verify.code == 0, str(verify)


def test_lying_record_json_that_cannot_be_read_back_records_no_hash_and_says_why(tmp_path: Path) -> None:
    """A json output with a TIMESTAMP_NTZ column: the pandas json reader cannot read that type back
    with the written schema, so the step has no hash and says why; never the frame's hash."""
    uc = Usecase(tmp_path / "uc")
    src = uc.parquet("rows.parquet", ROWS)
    out = uc.root / "data" / "out"
    uc.task("t", CONFIG.format(src=src, fmt="json", out=out, mode="overwrite", extra=""), CODE)
    result = uc.run("-t", "t", "--lineage")
    (step,) = uc.records("t")[-1]["outputs"]
    assert result.code == 0 and step["data_hash"] is None, (str(result), step)
    assert step["hash_error"].startswith("not hashed: the written json files cannot be read back"), step
    assert "timestamp[us] column" in step["hash_error"], step
