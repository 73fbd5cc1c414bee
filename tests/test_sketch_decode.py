"""The localisation sketch (hashing/sketch.py) beyond the fixture cells: building and taking out
rows, merging and subtracting, peeling a difference (and refusing cells that only look pure), the
estimate when too many rows differ, the summary's words, and each refusal of the record form."""
from __future__ import annotations

import base64
import hashlib
import math
import struct

import numpy as np
import pytest

from ubunye.hashing.lanes_worker import MASK64, cell_index, check_value
from ubunye.hashing.sketch import Decoded, Sketch, decode_cells, difference, parse_record, row_name, sketch_of_lanes


def _lanes(n: int, seed: int) -> list[tuple[int, int]]:
    out = []
    for i in range(n):
        d = hashlib.sha256(f"{seed}:{i}".encode()).digest()
        out.append((int.from_bytes(d[:8], "big"), int.from_bytes(d[8:16], "big")))
    return out


def test_a_row_taken_out_leaves_the_sketch_as_it_was() -> None:
    rows = _lanes(5, 1)
    base = sketch_of_lanes(rows[:4])
    assert sketch_of_lanes(rows).add_row(*rows[4], copies=-1) == base
    twice = Sketch().add_row(*rows[0], copies=2)
    assert twice == sketch_of_lanes([rows[0], rows[0]])
    a = np.array([r[0] for r in rows], dtype=np.uint64)
    b = np.array([r[1] for r in rows], dtype=np.uint64)
    assert Sketch().add_lanes(a, b) == sketch_of_lanes(rows)


def test_rows_counts_the_rows_added_modulo_two_to_the_64() -> None:
    rows = _lanes(3, 2)
    assert sketch_of_lanes(rows).rows() == 3
    assert (Sketch() - sketch_of_lanes(rows)).rows() == 2**64 - 3
    assert Sketch(8, 2).rows() == 0


def test_merge_is_the_sketch_of_both_tables_and_shapes_must_agree() -> None:
    rows = _lanes(6, 3)
    merged = sketch_of_lanes(rows[:2]) + sketch_of_lanes(rows[2:])
    assert merged == sketch_of_lanes(rows) and merged.rows() == 6
    assert (merged.cells, merged.k) == (320, 5)
    assert (merged - sketch_of_lanes(rows[2:])) == sketch_of_lanes(rows[:2])
    other = Sketch(64, 2)
    for combine in (Sketch.merge, Sketch.subtract):
        with pytest.raises(ValueError) as caught:
            combine(Sketch(), other)
        assert str(caught.value) == "sketches of different shapes: 320/5 and 64/2"
    with pytest.raises(ValueError, match="320/5 and 320/10"):
        Sketch() - Sketch(320, 10)


def test_sketches_are_equal_only_of_the_same_geometry_and_cells() -> None:
    assert Sketch(64, 2) != Sketch(64, 4)  # the same zero cells, another geometry
    assert Sketch(64, 2) == Sketch(64, 2)
    assert Sketch() != "sketch" and Sketch() != Sketch().data
    one = Sketch(64, 2).add_row(1, 2)
    assert one != Sketch(64, 2) and one == Sketch(64, 2).add_row(1, 2)


def test_cells_given_as_data_are_kept_and_of_the_geometry() -> None:
    data = [[i, 2 * i, 3 * i, 4 * i] for i in range(8)]
    s = Sketch(8, 2, data)
    assert s.data.dtype == np.uint64 and s.data.tolist() == data and s.width == 4
    with pytest.raises(ValueError) as caught:
        Sketch(8, 2, [[0, 0, 0, 0]] * 3)
    assert str(caught.value) == "sketch data of shape (3, 4), expected (8, 4)"
    with pytest.raises(ValueError, match="power of two"):
        Sketch(12, 2)


def test_summary_words() -> None:
    assert Decoded(removed=[(1, 2)]).summary() == "1 row removed, 0 added"
    assert Decoded(removed=[(1, 2), (3, 4)], added=[(5, 6)]).summary() == "2 rows removed, 1 added"
    assert Decoded(added=[(5, 6)]).summary() == "0 rows removed, 1 added"
    assert Decoded().summary() == "no row differs"
    assert Decoded(complete=False, estimate=7, at_least=5).summary() == \
        "about 7 rows differ (too many to name from the records)"
    assert Decoded(complete=False, estimate=9, at_least=9, saturated=True).summary() == \
        "at least 9 rows differ (too many to name from the records)"


def test_names_are_sorted_and_cut_to_64_bit_lanes() -> None:
    got = Decoded(added=[(3, 1), (1, 2), (2, 0)], removed=[(9, 9), (0, 1)])
    assert got.added_names == [row_name(1, 2), row_name(2, 0), row_name(3, 1)]
    assert got.removed_names == [row_name(0, 1), row_name(9, 9)]
    assert row_name(-1, 2**64 + 5) == "sha256:ffffffffffffffff0000000000000005"
    assert row_name(0x0123456789ABCDEF, 0) == "sha256:0123456789abcdef0000000000000000"


def test_decode_names_removed_rows_and_added_rows_of_every_geometry() -> None:
    rows = _lanes(9, 4)
    for cells, k in ((320, 5), (64, 2), (8, 2), (96, 3)):
        old = sketch_of_lanes(rows[:6], cells, k)
        new = sketch_of_lanes(rows[3:], cells, k)
        got = (new - old).decode()
        if cells == 8:  # 6 differences in 8 cells: may not peel, but never names a wrong row
            assert set(got.added) <= set(rows[6:]) and set(got.removed) <= set(rows[:3])
            continue
        assert got.complete, (cells, k)
        assert sorted(got.removed) == sorted(rows[:3]) and sorted(got.added) == sorted(rows[6:])
        assert (got.estimate, got.at_least, got.saturated) == (0, 0, False)
        back = difference(new.to_record(), old.to_record())
        assert back is not None and sorted(back.added) == sorted(rows[:3])


def test_a_cell_that_only_looks_pure_is_never_peeled() -> None:
    cells, k = 64, 2
    width = cells // k
    a, b = _lanes(1, 5)[0]
    right = cell_index(a, 0, width)
    wrong = (right + 1) % width  # the row's sums, in a cell of sub-table 0 that is not its own
    grid = [[0, 0, 0, 0] for _ in range(cells)]
    grid[wrong] = [1, a, b, check_value(a, b)]
    got = decode_cells([row[:] for row in grid], cells, k)
    assert not got.complete and got.added == [] and got.at_least == 1
    bad_check = [[0, 0, 0, 0] for _ in range(cells)]
    for j in range(k):  # in its own cells, but with a check value that is not its own
        bad_check[cell_index(a, j, width)] = [1, a, b, check_value(a, b) ^ 1]
    got = decode_cells(bad_check, cells, k)
    assert not got.complete and got.added == [] and got.removed == []
    taken_out = [[0, 0, 0, 0] for _ in range(cells)]  # a row removed: count -1, sums negated
    for j in range(k):
        taken_out[cell_index(a, j, width)] = [MASK64, (-a) & MASK64, (-b) & MASK64, (-check_value(a, b)) & MASK64]
    got = decode_cells(taken_out, cells, k)
    assert got.complete and got.removed == [(a, b)] and got.added == []


def test_a_row_added_twice_is_not_a_pure_cell_and_counts_twice() -> None:
    a, b = _lanes(1, 6)[0]
    got = (Sketch(64, 2).add_row(a, b, copies=2) - Sketch(64, 2)).decode()
    assert not got.complete and not got.saturated and got.added == []
    assert got.at_least == 2 and got.estimate == 2  # |count| 2 in each sub-table


def test_too_many_differences_give_the_spec_estimate_and_a_sure_bound() -> None:
    """Spec 4: N = rows peeled + the mean over sub-tables of -W ln(1 - z_j / W), z_j the non-zero
    cells left; the bound, rows peeled + the larger of max z_j and the largest sum of |count|. Here
    z_j and the counts come from the rows the decode did not name (their cells), not from the cells."""
    rows = _lanes(1000, 7)
    cells, k = 1280, 5
    width = cells // k
    got = (sketch_of_lanes(rows[:500], cells, k) - sketch_of_lanes(rows[500:], cells, k)).decode()
    assert not got.complete and not got.saturated
    assert set(got.added) <= set(rows[:500]) and set(got.removed) <= set(rows[500:])
    peeled = len(got.added) + len(got.removed)
    named = set(got.added) | set(got.removed)
    rest = [(i < 500, r) for i, r in enumerate(rows) if r not in named]
    z, counts = [], []
    for j in range(k):
        per_cell: dict[int, int] = {}
        for added, (a, _) in rest:
            i = cell_index(a, j, width)
            per_cell[i] = per_cell.get(i, 0) + (1 if added else -1)
        z.append(len(per_cell))  # (random lanes: no cell's sums cancel)
        counts.append(sum(abs(c) for c in per_cell.values()))
    assert 0 < peeled < 1000 and max(z) < width
    assert got.at_least == peeled + max(max(z), max(counts)) <= 1000  # a sure lower bound
    expected = peeled + round(sum(-width * math.log(1 - zj / width) for zj in z) / k)
    assert got.estimate == max(got.at_least, expected) > got.at_least
    assert got.summary() == f"about {got.estimate} rows differ (too many to name from the records)"


def test_a_saturated_difference_gives_only_its_sure_bound() -> None:
    rows = _lanes(300, 8)
    got = (sketch_of_lanes(rows[:150], 64, 2) - sketch_of_lanes(rows[150:], 64, 2)).decode()
    assert not got.complete and got.saturated
    assert got.estimate == got.at_least and 32 <= got.at_least <= 300
    assert got.summary().startswith(f"at least {got.at_least} rows differ")


def test_the_record_form_is_little_endian_cells_in_order() -> None:
    s = Sketch(8, 2, [[1, 2, 3, 4], [2**64 - 1, 0, 0, 5]] + [[0, 0, 0, 0]] * 6)
    record = s.to_record()
    assert record == {"version": "rows-v1-sketch/1", "cells": 8, "k": 2, "data": record["data"]}
    raw = base64.b64decode(record["data"])
    assert raw[:64] == struct.pack("<8Q", 1, 2, 3, 4, 2**64 - 1, 0, 0, 5) and len(raw) == 256
    assert parse_record(record) == (8, 2, s.data.tolist())
    assert Sketch.from_record(record) == s


def _record(**change: object) -> dict:
    return {**Sketch(8, 2).to_record(), **change}


@pytest.mark.parametrize("value, message", [
    ("x", "a sketch must be an object, not str"),
    ([], "a sketch must be an object, not list"),
    (_record(version="rows-v1-sketch/2"), "sketch version 'rows-v1-sketch/2' is not 'rows-v1-sketch/1'"),
    ({"cells": 8, "k": 2}, "sketch version None is not 'rows-v1-sketch/1'"),
    (_record(cells=True), "sketch cells and k must be whole numbers"),
    (_record(k=True), "sketch cells and k must be whole numbers"),
    (_record(cells="8"), "sketch cells and k must be whole numbers"),
    (_record(k=2.0), "sketch cells and k must be whole numbers"),
    (_record(k=3), "a sketch of 8 cells and k=3: cells / k must be a power of two >= 2"),
    (_record(data="AAAA"), "sketch data holds 3 bytes, expected 256"),
    ({"version": "rows-v1-sketch/1", "cells": 8, "k": 2}, "sketch data holds 0 bytes, expected 256"),
    (_record(cells=16, k=2), "sketch data holds 256 bytes, expected 512"),
])
def test_each_damaged_record_field_is_named(value: object, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_record(value)
    assert str(caught.value) == message
    assert difference(value, Sketch(8, 2).to_record()) is None
    assert difference(Sketch(8, 2).to_record(), value) is None


def test_data_that_is_not_base64_is_named() -> None:
    for data in ("AA!A" * 86, "A" * 342 + "=="[:1]):
        with pytest.raises(ValueError) as caught:
            parse_record(_record(data=data))
        assert str(caught.value).startswith("sketch data is not base64: ")


def test_difference_needs_two_sketches_of_one_geometry() -> None:
    one = Sketch(8, 2).add_row(1, 2).to_record()
    assert difference(None, one) is None and difference(one, None) is None
    assert difference(Sketch(16, 2).to_record(), one) is None
    assert difference(Sketch(8, 4).to_record(), one) is None  # the same cells, another k
    assert difference(Sketch(8, 2).to_record(), one).added == [(1, 2)]


def test_rows_added_to_a_sketch_holding_rows_add_to_them() -> None:
    rows = _lanes(7, 9)
    a = np.array([r[0] for r in rows[3:]], dtype=np.uint64)
    b = np.array([r[1] for r in rows[3:]], dtype=np.uint64)
    assert sketch_of_lanes(rows[:3], 64, 2).add_lanes(a, b) == sketch_of_lanes(rows, 64, 2)
    assert sketch_of_lanes(rows[:3], 96, 3).add_lanes(a, b) == sketch_of_lanes(rows, 96, 3)


def test_a_failed_decode_says_complete_false() -> None:
    a, b = _lanes(1, 10)[0]
    got = (Sketch(64, 2).add_row(a, b, copies=2) - Sketch(64, 2)).decode()
    assert got.complete is False  # (written as JSON: false, never null)


def test_peeling_goes_on_through_the_cells_each_peel_makes_pure() -> None:
    """A difference no first pass can name whole: rows whose every cell is shared become pure only
    once another row is peeled out of them."""
    cells, k = 64, 2
    width = cells // k
    rows = _lanes(400, 11)
    first = {}
    for a, b in rows:  # rows by their cells: find a chain (row 2 shares both cells with others)
        first.setdefault(cell_index(a, 0, width), []).append((a, b))
    chosen: list[tuple[int, int]] = []
    for group in first.values():
        if len(group) >= 2 and len(chosen) < 24:
            chosen.extend(group[:2])
    got = (sketch_of_lanes(chosen, cells, k) - Sketch(cells, k)).decode()
    initially_pure = {i for i in range(cells) if sum(1 for a, _ in chosen
                                                      for j in range(k) if cell_index(a, j, width) == i) == 1}
    never_pure_at_first = [r for r in chosen if not any(cell_index(r[0], j, width) in initially_pure
                                                        for j in range(k))]
    assert never_pure_at_first  # the case needs the chain
    assert got.complete and sorted(got.added) == sorted(chosen) and got.removed == []


def test_a_false_pure_cell_that_would_loop_for_ever_stops_at_eight_peels_a_cell() -> None:
    """A row's +1 in one of its cells and nothing in the other: peeling it leaves -1 in the other,
    which peels back: the bound (8 x cells peels, spec 4) ends it, and the decode fails honestly."""
    cells, k = 8, 2
    width = cells // k
    a, b = _lanes(1, 12)[0]
    grid = [[0, 0, 0, 0] for _ in range(cells)]
    grid[cell_index(a, 0, width)] = [1, a, b, check_value(a, b)]
    got = decode_cells(grid, cells, k)
    assert got.complete is False and not got.saturated
    assert len(got.added) + len(got.removed) == 8 * cells
    assert len(got.added) == len(got.removed) == 4 * cells


def test_data_with_a_character_outside_base64_is_refused_not_skipped() -> None:
    good = _record()["data"]
    for data in ("!" + good, good[:100] + "\n" + good[100:], good[:-4] + "*" + good[-4:]):
        with pytest.raises(ValueError) as caught:
            parse_record(_record(data=data))
        assert str(caught.value).startswith("sketch data is not base64: ")
