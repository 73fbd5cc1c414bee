"""Per-partition sums (docs/spec/rows-v1-localise.md section 7): computed in the same pass
as the table's sums, keyed by the partition folder, for outputs written with
``partition_by`` and inputs read from ``key=value`` folders; compared exactly."""
from __future__ import annotations

import datetime as dt
import hashlib
from functools import partial
from pathlib import Path

import pyarrow as pa
import pytest

from ubunye.engine.backends.pandas_backend import PandasBackend
from ubunye.engine.config import IOSpec
from ubunye.hashing import canonical_lines, fingerprint
from ubunye.hashing.fingerprint import fingerprint_partitioned
from ubunye.hashing.partition_sums import VERSION, changed, describe, parse_record
from ubunye.io.partition_write import partition_keys

MASK = (1 << 64) - 1


def table() -> pa.Table:
    return pa.table({"id": list(range(12)), "day": [dt.date(2024, 1, 1 + i % 3) for i in range(12)],
                     "shop": ["a/b", "c", None, "d"] * 3})


def lanes(line: str) -> tuple[int, int]:
    d = hashlib.sha256(line.encode("utf-8")).digest()
    return int.from_bytes(d[:8], "big"), int.from_bytes(d[8:16], "big")


def test_sums_per_folder_are_the_rows_of_that_folder_and_add_up_to_the_table() -> None:
    t = table()
    fp = fingerprint_partitioned(t, ["day", "shop"], partial(partition_keys, columns=["day", "shop"]))
    plain = fingerprint(t)
    assert fp.data_hash == plain.data_hash and fp.sketch == plain.sketch
    sums = parse_record(fp.partitions)
    assert fp.partitions["version"] == VERSION and fp.partitions["columns"] == ["day", "shop"]
    # expected from the rows' own lines, grouped by hand
    expected: dict[str, list[int]] = {}
    for row, line in zip(t.to_pylist(), canonical_lines(t)):
        shop = "__HIVE_DEFAULT_PARTITION__" if row["shop"] is None else row["shop"].replace("/", "%2F")
        key = f"day={row['day'].isoformat()}/shop={shop}"
        a, b = lanes(line)
        got = expected.setdefault(key, [0, 0, 0])
        got[0], got[1], got[2] = got[0] + 1, (got[1] + a) & MASK, (got[2] + b) & MASK
    assert sums == {k: tuple(v) for k, v in expected.items()}
    assert "day=2024-01-01/shop=a%2Fb" in sums
    assert all(isinstance(v[1], str) for v in fp.partitions["sums"].values())  # decimal text


def test_an_input_read_from_key_value_folders_records_its_folders(tmp_path: Path) -> None:
    backend = PandasBackend()
    out = IOSpec(name="o", direction="output", format="parquet", path=str(tmp_path / "t"), mode="overwrite",
                 partition_by=["day"])
    written = backend.write(backend.from_arrow(table()), out, hash_output=True)
    assert written.fingerprint.partitions is not None
    read = backend.read(IOSpec(name="i", direction="input", format="parquet", path=str(tmp_path / "t")))
    fp = backend.fingerprint(read.frame)
    assert fp.partitions is not None and fp.partitions["columns"] == ["day"]
    assert sorted(parse_record(fp.partitions)) == sorted(p.name for p in (tmp_path / "t").iterdir()
                                                         if p.name.startswith("day="))
    assert [r[0] for r in parse_record(fp.partitions).values()] == [4, 4, 4]
    assert backend.fingerprint(read.frame.copy()).partitions is None  # only the frame read


def test_changed_lists_added_removed_and_changed_partitions_exactly() -> None:
    old = {"version": VERSION, "columns": ["d"], "sums": {"d=1": [2, "5", "6"], "d=2": [1, "1", "1"],
                                                           "d=3": [4, "9", "9"]}}
    new = {"version": VERSION, "columns": ["d"], "sums": {"d=1": [2, "5", "6"], "d=2": [1, "2", "1"],
                                                           "d=4": [3, "1", "2"]}}
    got = changed(old, new)
    assert got == [{"partition": "d=2", "rows_before": 1, "rows_after": 1},
                   {"partition": "d=3", "rows_before": 4, "rows_after": None},
                   {"partition": "d=4", "rows_before": None, "rows_after": 3}]
    assert [describe(c) for c in got] == ["d=2 (1 -> 1 rows)", "d=3 (removed, 4 rows)", "d=4 (added, 3 rows)"]
    assert changed(old, old) == []
    assert changed(old, None) is None and changed(old, {**new, "columns": ["e"]}) is None
    assert changed(old, {**new, "version": "rows-v1-partitions/9"}) is None


@pytest.mark.parametrize("bad", [[], {"version": VERSION}, {"version": VERSION, "sums": {"d=1": [1, "x", "2"]}},
                                 {"version": VERSION, "sums": {"d=1": [-1, "1", "2"]}}])
def test_damaged_sums_are_refused_naming_what(bad: object) -> None:
    with pytest.raises(ValueError, match="partition sums"):
        parse_record(bad)


def test_the_spark_fallback_partitions_sum_per_folder_and_merge_to_the_whole() -> None:
    """The mapInArrow body (run here without Spark) answers each Spark partition's sums per
    folder; added key by key they are the table's."""
    import json

    from ubunye.hashing.digest import LaneSums
    from ubunye.hashing.partition_sums import merge, to_record
    from ubunye.spark.fallback import partition_sums

    t = table()
    whole = fingerprint_partitioned(t, ["day"], partial(partition_keys, columns=["day"])).partitions
    halves = []
    for part in (t.slice(0, 5), t.slice(5)):
        (out,) = partition_sums(iter(part.to_batches()), names=t.column_names, keys=["day"])
        halves.append({k: LaneSums(*v) for k, v in parse_record(
            {"version": VERSION, "sums": json.loads(out.column("parts")[0].as_py())}).items()})
    assert to_record(["day"], merge(halves)) == whole
    (plain,) = partition_sums(iter(t.to_batches()), names=t.column_names)
    assert plain.column("parts")[0].as_py() is None
