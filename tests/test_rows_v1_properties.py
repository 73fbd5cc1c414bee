"""Property tests: random schemas and rows through both Python paths.

- the vectorised Arrow path equals the row-at-a-time reference (lines and sums);
- row order and column order do not change the digest;
- changing one cell changes it.
The ``ci`` profile (tests/conftest.py) is derandomized so runs are reproducible.
"""
from __future__ import annotations

import datetime as dt
import math
import string
from functools import lru_cache
from decimal import Decimal
from typing import Any

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from ubunye.hashing import fingerprint
from ubunye.hashing import kinds as K
from ubunye.hashing.arrow import lane_sums, line_array
from ubunye.hashing.arrow_types import arrow_schema_kinds, kind_to_arrow
from ubunye.hashing.reference import arrow_rows, canonical_line_of, reference_arrow_sums

UTC = dt.timezone.utc
INT_RANGE = {"int8": 7, "int16": 15, "int32": 31, "int64": 63}
KEY_TAGS = ["int8", "int16", "int32", "int64", "float32", "float64", "string", "bool",
            "date", "timestamp", "timestamp_ntz", "binary", "decimal"]

# characters that stress the writers: controls, quotes, backslash, DEL, U+2028, astral
_HARD_CHARS = st.sampled_from(list('\x00\x01\x08\t\n\x0b\x0c\r\x1f"\\/\x7f\u2028\u00e9\uff21\U0001f600'))
TEXT = st.text(alphabet=st.one_of(_HARD_CHARS, st.characters(codec="utf-8")), max_size=8)


def decimal_kind() -> st.SearchStrategy[K.Kind]:
    return st.integers(1, 38).flatmap(lambda p: st.integers(0, p).map(lambda s: K.decimal(p, s)))


SCALAR_KINDS = st.one_of(
    st.sampled_from([K.scalar(t) for t in
                     ["int8", "int16", "int32", "int64", "float32", "float64", "string", "binary",
                      "bool", "date", "timestamp", "timestamp_ntz", "null"]]),
    decimal_kind(),
)
KEY_KINDS = st.one_of(
    st.sampled_from([K.scalar(t) for t in KEY_TAGS if t != "decimal"]), decimal_kind()
)


def nested(children: st.SearchStrategy[K.Kind]) -> st.SearchStrategy[K.Kind]:
    names = st.lists(st.text(alphabet=string.ascii_letters + "_ é\"", min_size=1, max_size=4),
                     min_size=1, max_size=3, unique=True)
    return st.one_of(
        children.map(K.list_of),
        st.tuples(KEY_KINDS, children).map(lambda kv: K.map_of(*kv)),
        names.flatmap(lambda ns: st.tuples(*[children for _ in ns]).map(
            lambda ks: K.struct_of(list(zip(ns, ks))))),
    )


KINDS = st.recursive(SCALAR_KINDS, nested, max_leaves=4)


def java_order(x: float) -> tuple[int, float, int]:
    return (1, 0.0, 0) if math.isnan(x) else (0, x, 0 if math.copysign(1, x) < 0 else 1)


@lru_cache(maxsize=None)
def values(kind: K.Kind) -> st.SearchStrategy[Any]:
    """Non-null Python values of ``kind``."""
    tag = kind.tag
    if tag in INT_RANGE:
        bits = INT_RANGE[tag]
        return st.integers(-(2 ** bits), 2 ** bits - 1)
    if tag == "float64":
        return st.one_of(st.floats(), st.sampled_from([0.0, -0.0, 5e-324, 1e23, 1e7, 1e-3, 9.99e-4]))
    if tag == "float32":
        return st.floats(width=32)
    if tag == "decimal":
        limit = Decimal(f"{10 ** kind.precision - 1}E-{kind.scale}")  # exact, no context rounding
        return st.decimals(min_value=-limit, max_value=limit, places=kind.scale,
                           allow_nan=False, allow_infinity=False).filter(lambda d: abs(d) <= limit)
    if tag == "string":
        return TEXT
    if tag == "binary":
        return st.binary(max_size=6)
    if tag == "bool":
        return st.booleans()
    if tag == "date":
        return st.dates()
    if tag == "timestamp":
        return st.datetimes(timezones=st.just(UTC))
    if tag == "timestamp_ntz":
        return st.datetimes()
    if tag == "null":
        return st.none()
    if tag == "list":
        return st.lists(nullable(kind.children[0]), max_size=3)
    if tag == "struct":
        return st.fixed_dictionaries({n: nullable(k) for n, k in zip(kind.names, kind.children)})
    key, value = kind.children
    order = {"float64": java_order, "float32": java_order}.get(key.tag, lambda x: x)
    return st.lists(st.tuples(values(key), nullable(value)), max_size=3,
                    unique_by=lambda kv: order(kv[0]))


@lru_cache(maxsize=None)
def nullable(kind: K.Kind) -> st.SearchStrategy[Any]:
    return st.one_of(st.none(), values(kind))


@st.composite
def tables(draw: st.DrawFn, min_rows: int = 0) -> pa.Table:
    names = draw(st.lists(st.text(alphabet=string.printable + "é\U0001f600", max_size=4),
                          max_size=5, unique=True))
    kinds = [draw(KINDS) for _ in names]
    n = draw(st.integers(min_rows, 6))
    fields = [pa.field(name, kind_to_arrow(kind)) for name, kind in zip(names, kinds)]
    if not fields:
        return pa.table({"_": pa.nulls(n)}).select([])
    arrays = [_array(draw(st.lists(nullable(kind), min_size=n, max_size=n)), f.type)
              for kind, f in zip(kinds, fields)]
    table = pa.Table.from_arrays(arrays, schema=pa.schema(fields))
    if n > 1 and draw(st.booleans()):  # several chunks
        cut = draw(st.integers(1, n - 1))
        table = pa.concat_tables([table.slice(0, cut), table.slice(cut)])
    return table


@settings(max_examples=2000)
@given(tables())
def test_vectorised_equals_reference(table: pa.Table) -> None:
    kinds = arrow_schema_kinds(table.schema)
    for batch in table.to_batches():
        want = [canonical_line_of(row, kinds) for row in arrow_rows(batch)]
        assert line_array(batch, kinds).to_pylist() == want
    assert lane_sums(table.to_batches()) == reference_arrow_sums(table.to_batches())
    assert fingerprint(table) .data_hash == fingerprint(table, engine="rows").data_hash


@settings(max_examples=300)
@given(tables(), st.randoms(use_true_random=False))
def test_row_and_column_order_do_not_matter(table: pa.Table, rnd: Any) -> None:
    order = list(range(table.num_rows))
    rnd.shuffle(order)
    columns = list(range(table.num_columns))
    rnd.shuffle(columns)
    shuffled = table.take(pa.array(order, pa.int64())).select(columns) if table.num_columns else table
    assert fingerprint(shuffled).data_hash == fingerprint(table).data_hash
    assert fingerprint(shuffled).schema_hash == fingerprint(table).schema_hash


@settings(max_examples=300)
@given(st.data())
def test_one_changed_cell_changes_the_digest(data: st.DataObject) -> None:
    table = data.draw(tables(min_rows=1))
    if table.num_columns == 0:
        return
    col = data.draw(st.integers(0, table.num_columns - 1))
    row = data.draw(st.integers(0, table.num_rows - 1))
    kinds = arrow_schema_kinds(table.schema)
    kind = kinds[col][1]
    old = table.column(col).to_pylist()
    before = canonical_line_of(arrow_rows(table.slice(row, 1).combine_chunks().to_batches()[0])[0], kinds)
    new_value = data.draw(nullable(kind))
    cells = list(old)
    cells[row] = new_value
    changed = table.set_column(col, table.schema.field(col), pa.array(cells, type=table.schema.field(col).type))
    after = canonical_line_of(arrow_rows(changed.slice(row, 1).combine_chunks().to_batches()[0])[0], kinds)
    if before == after:  # the same canonical value (e.g. NaN for NaN, None for None)
        assert fingerprint(changed).data_hash == fingerprint(table).data_hash
    else:
        assert fingerprint(changed).data_hash != fingerprint(table).data_hash


def _array(cells: list[Any], t: pa.DataType) -> pa.Array:
    try:
        return pa.array(cells, type=t)
    except Exception as exc:
        raise AssertionError(f"{t}: {cells!r}: {exc}") from None
