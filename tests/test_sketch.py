"""The rows-v1 localisation sketch (docs/spec/rows-v1-localise.md): known-answer cells on
the Arrow path, its worker process and the row reference; decoding; the record form."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from ubunye.hashing import fingerprint
from ubunye.hashing.arrow import lane_totals
from ubunye.hashing.lanes_worker import lane_cells
from ubunye.hashing.reference import reference_arrow_totals
from ubunye.hashing.sketch import Sketch, difference, row_name, sketch_of_lanes

VECTORS = json.loads((Path(__file__).parent / "fixtures" / "sketch" / "vectors.json").read_text(encoding="utf-8"))
TYPES = {"int64": pa.int64(), "string": pa.string(), "float64": pa.float64()}
DEFAULT = [c for c in VECTORS["cases"] if (c["cells"], c["k"]) == (320, 5)]


def _table(case: dict) -> pa.Table:
    schema = pa.schema([(n, TYPES[k]) for n, k in case["schema"].items()])
    return pa.Table.from_pylist(case["rows"], schema=schema)


def _expected(case: dict) -> np.ndarray:
    out = np.zeros((case["cells"], 4), dtype=np.uint64)
    for i, cell in case["expected_cells"].items():
        out[int(i)] = [int(v) for v in cell]
    return out


def _lanes(case: dict) -> tuple[np.ndarray, np.ndarray]:
    a = np.array([int(x) for x, _ in case["lanes"]], dtype=np.uint64)
    b = np.array([int(y) for _, y in case["lanes"]], dtype=np.uint64)
    return a, b


@pytest.mark.parametrize("case", DEFAULT, ids=lambda c: c["name"])
def test_arrow_path_and_reference_give_the_fixture_cells(case: dict) -> None:
    table, want = _table(case), _expected(case)
    assert (lane_totals(table, workers=1).cells == want).all()
    assert (reference_arrow_totals(table.to_batches()).cells == want).all()
    for engine in ("arrow", "rows"):
        assert (fingerprint(table, engine=engine).sketch.data == want).all()


@pytest.mark.parametrize("case", VECTORS["cases"], ids=lambda c: c["name"])
def test_cell_rule_vectorised_and_row_by_row_match_the_fixture(case: dict) -> None:
    a, b = _lanes(case)
    want = _expected(case)
    assert (lane_cells(a, b, case["cells"], case["k"]) == want).all()
    assert (sketch_of_lanes(zip(a.tolist(), b.tolist()), case["cells"], case["k"]).data == want).all()


def test_worker_process_returns_the_same_cells() -> None:
    """Chunks hashed by the second process carry their cells back (op K)."""
    case = next(c for c in DEFAULT if c["name"] == "three_rows")
    table = pa.concat_tables([_table(case)] * 23_000).combine_chunks()  # two chunks at least: one goes to the worker
    one, two = lane_totals(table, workers=1), lane_totals(table, workers=2)
    assert one.sums == two.sums
    assert (one.cells == two.cells).all()
    a, b = _lanes(case)
    assert (one.cells == lane_cells(np.tile(a, 23_000), np.tile(b, 23_000))).all()


def _sketch_of(lines: list[str]) -> Sketch:
    lanes = []
    for line in lines:
        d = hashlib.sha256(line.encode("utf-8")).digest()
        lanes.append((int.from_bytes(d[:8], "big"), int.from_bytes(d[8:16], "big")))
    return sketch_of_lanes(lanes)


def test_decode_names_the_updated_added_and_removed_rows() -> None:
    case = VECTORS["differences"][0]
    old, new = _sketch_of(case["old_lines"]), _sketch_of(case["new_lines"])
    got = difference(old.to_record(), new.to_record())
    assert got is not None and got.complete
    assert got.removed_names == case["removed"] and got.added_names == case["added"]
    assert got.summary() == "2 rows removed, 2 added"
    assert (old - old).decode().summary() == "no row differs"


def test_a_row_present_twice_then_once_decodes_as_one_removed_copy() -> None:
    lines = ['{"id":1}', '{"id":2}']
    got = (_sketch_of(lines) - _sketch_of(lines + ['{"id":1}'])).decode()
    assert got.complete and got.added == [] and len(got.removed) == 1
    assert got.removed_names == ["sha256:" + hashlib.sha256(b'{"id":1}').hexdigest()[:32]]


def test_too_many_differences_say_about_how_many_never_a_list() -> None:
    rng = np.random.default_rng(5)
    a = rng.integers(0, 2**63, size=600, dtype=np.uint64)
    got = (Sketch().add_lanes(a, a) - Sketch()).decode()
    assert not got.complete and got.saturated
    assert got.estimate == got.at_least == 600  # all added: the counts bound it exactly
    assert got.summary().startswith("at least 600 rows differ")
    got = (Sketch().add_lanes(a[:150], a[:150]) - Sketch().add_lanes(a[150:300], a[150:300])).decode()
    if not got.complete:  # (rare at 300) the linear-counting estimate
        assert not got.saturated and 150 <= got.estimate <= 600
        assert got.summary().startswith(f"about {got.estimate} rows differ")


def test_record_form_round_trips_and_refuses_what_it_does_not_know() -> None:
    s = Sketch().add_lanes(np.array([1, 2**64 - 1], dtype=np.uint64), np.array([3, 4], dtype=np.uint64))
    record = s.to_record()
    assert record["version"] == "rows-v1-sketch/1" and len(record["data"]) == 13656
    assert Sketch.from_record(json.loads(json.dumps(record))) == s
    for bad in ({**record, "version": "rows-v1-sketch/2"}, {**record, "data": record["data"][:-8]},
                {**record, "cells": 319}, "x"):
        with pytest.raises(ValueError):
            Sketch.from_record(bad)
    assert difference(record, {**record, "version": "other"}) is None
    assert row_name(1, 2**64 - 1) == "sha256:0000000000000001ffffffffffffffff"


def test_spark_fallback_partition_body_carries_the_partitions_cells() -> None:
    """The mapInArrow body (run here without Spark) answers its partition's cells."""
    from ubunye.spark.fallback import partition_sums

    case = next(c for c in DEFAULT if c["name"] == "three_rows")
    table = _table(case)
    out = list(partition_sums(iter(table.to_batches()), names=table.column_names))
    raw = out[0].column(3).to_pylist()[0]
    cells = np.frombuffer(raw, dtype="<u8").astype(np.uint64).reshape(case["cells"], 4)
    assert (cells == _expected(case)).all()
