"""The row-at-a-time reference writer: a canonical line from Python values.

It reads like the spec (section 2) and is used for the port path (frames that
offer ``collect()`` and ``schema``) and as the yardstick of the vectorised
Arrow path. Values are the plain Python values of each kind:

=================  ==========================================================
kind               value
=================  ==========================================================
int8 .. int64      ``int``
float32, float64   ``float`` (float32 is narrowed to 32 bits)
decimal(p,s)       ``decimal.Decimal``
string             ``str`` (bytes that are not UTF-8 as ``surrogateescape`` text)
binary             ``bytes`` (or ``bytearray`` / ``memoryview``)
bool               ``bool``
date               ``datetime.date``, or :class:`~ubunye.hashing.temporal.Days`
                   (any year, also those ``datetime`` cannot hold)
timestamp          ``datetime.datetime``: aware ones are converted to UTC,
                   naive ones are read as UTC wall time; or
                   :class:`~ubunye.hashing.temporal.Micros` (UTC, any year)
timestamp_ntz      ``datetime.datetime``, the wall-clock value; or ``Micros``
list<t>            ``list`` / ``tuple``
struct<...>        ``dict`` by field name (missing = null), or a sequence by position
map<k,v>           ``dict`` or a sequence of ``(key, value)`` pairs
=================  ==========================================================
"""
from __future__ import annotations

import base64
import datetime as dt
import math
from collections.abc import Mapping
from decimal import Context, Decimal
from typing import Any, Callable, Iterable, Sequence

from ubunye.hashing.digest import MASK64, LaneSums, Totals, line_lanes, sums_of_lines
from ubunye.hashing.errors import RowsV1Error
from ubunye.hashing.javatext import double_text, float_text
from ubunye.hashing.jsontext import line_string
from ubunye.hashing.kinds import Kind, check_unique_names, parse_kind
from ubunye.hashing.temporal import Days, Micros, day_text, days_of, micros_of, micros_text

_DECIMAL_CONTEXT = Context(prec=200)


def canonical_line_of(row: Mapping[str, Any], kinds: Sequence[tuple[str, Kind]]) -> str:
    """The canonical line of one row (spec 2.1): members sorted by name, nulls left out.

    ``kinds`` is the table's ``(name, Kind)`` list; names must be unique.
    """
    members = []
    for name, kind in sorted(kinds, key=lambda nk: nk[0]):
        value = row.get(name)
        if value is None:
            continue
        try:
            members.append(line_string(name) + ":" + value_text(value, kind))
        except RowsV1Error as exc:
            raise RowsV1Error(f"column {name!r} of type {kind.text}: {exc}") from None
        except (TypeError, ValueError, OverflowError, AttributeError) as exc:
            raise RowsV1Error(
                f"column {name!r} of type {kind.text}: cannot write {value!r} ({exc})"
            ) from None
    return "{" + ",".join(members) + "}"


def value_text(value: Any, kind: Kind) -> str:
    """The canonical text of one non-null value of ``kind`` (spec 2.3, 2.4)."""
    return _WRITERS[kind.tag](value, kind)


_INT_BITS = {"int8": 8, "int16": 16, "int32": 32, "int64": 64}


def _int(value: Any, kind: Kind) -> str:
    if isinstance(value, float) or isinstance(value, bool):
        raise TypeError(f"not an integer: {value!r}")
    n = int(value)
    half = 1 << (_INT_BITS[kind.tag] - 1)
    if not -half <= n < half:  # no engine holds it in this kind (Arrow and Spark refuse it)
        raise ValueError(f"{n} is out of range for {kind.tag}")
    return str(n)


def _float64(value: Any, kind: Kind) -> str:
    text = double_text(float(value))
    return f'"{text}"' if _non_finite(text) else text


def _float32(value: Any, kind: Kind) -> str:
    text = float_text(float(value))
    return f'"{text}"' if _non_finite(text) else text


def _non_finite(text: str) -> bool:
    return text in ("NaN", "Infinity", "-Infinity")


def _decimal(value: Any, kind: Kind) -> str:
    d = value if isinstance(value, Decimal) else Decimal(str(value))
    if not d.is_finite():
        raise ValueError(f"decimal {d} is not finite")
    q = d.quantize(Decimal(1).scaleb(-kind.scale), context=_DECIMAL_CONTEXT)
    if q != d:
        raise ValueError(f"decimal {d} does not fit scale {kind.scale}")
    if q.scaleb(kind.scale, _DECIMAL_CONTEXT).copy_abs() >= 10 ** kind.precision:
        raise ValueError(f"decimal {d} does not fit precision {kind.precision}")
    # Java's BigDecimal (and Arrow's decimal) has no negative zero: -0.00 is written 0.00
    return str(q.copy_abs() if q.is_zero() else q)


def _bool(value: Any, kind: Kind) -> str:
    if not isinstance(value, bool) and type(value).__name__ != "bool_":
        raise TypeError(f"not a bool: {value!r}")
    return "true" if value else "false"


def _string(value: Any, kind: Kind) -> str:
    if not isinstance(value, str):
        raise TypeError(f"not a string: {value!r}")
    return line_string(value)


def _binary(value: Any, kind: Kind) -> str:
    return '"' + base64.b64encode(bytes(value)).decode("ascii") + '"'


def date_text(value: dt.date) -> str:
    """``yyyy-MM-dd`` with a four-digit year (Spark's year text for a :class:`Days` far out)."""
    if isinstance(value, Days):
        return day_text(value)
    if isinstance(value, dt.datetime):
        value = value.date()
    return f"{value.year:04d}-{value.month:02d}-{value.day:02d}"


def wall_text(value: dt.datetime) -> str:
    """``yyyy-MM-ddTHH:mm:ss.ffffff`` of a datetime's wall-clock fields."""
    return (
        f"{value.year:04d}-{value.month:02d}-{value.day:02d}T"
        f"{value.hour:02d}:{value.minute:02d}:{value.second:02d}.{value.microsecond:06d}"
    )


def _date(value: Any, kind: Kind) -> str:
    return '"' + date_text(value) + '"'


def _timestamp(value: Any, kind: Kind) -> str:
    if isinstance(value, Micros):
        return '"' + micros_text(value) + 'Z"'
    if not isinstance(value, dt.datetime):
        raise TypeError(f"not a datetime: {value!r}")
    if value.tzinfo is not None and value.utcoffset() is not None:
        # from its microseconds: the UTC instant may lie outside the years datetime holds
        return '"' + micros_text(micros_of(value)) + 'Z"'
    return '"' + wall_text(value) + 'Z"'


def _timestamp_ntz(value: Any, kind: Kind) -> str:
    if isinstance(value, Micros):
        return '"' + micros_text(value) + '"'
    if not isinstance(value, dt.datetime):
        raise TypeError(f"not a datetime: {value!r}")
    return '"' + wall_text(value) + '"'


def _null(value: Any, kind: Kind) -> str:
    raise TypeError(f"a value of kind null must be None, got {value!r}")


def _list(value: Any, kind: Kind) -> str:
    element = kind.children[0]
    return "[" + ",".join("null" if v is None else value_text(v, element) for v in value) + "]"


def _struct(value: Any, kind: Kind) -> str:
    if isinstance(value, Mapping):
        values = [value.get(name) for name in kind.names]
    elif hasattr(value, "asDict"):
        d = value.asDict()
        values = [d.get(name) for name in kind.names]
    else:
        values = list(value)
        if len(values) != len(kind.names):
            raise ValueError(f"struct value with {len(values)} fields, expected {len(kind.names)}")
    members = [
        line_string(name) + ":" + value_text(v, k)
        for name, k, v in zip(kind.names, kind.children, values)
        if v is not None
    ]
    return "{" + ",".join(members) + "}"


def _map(value: Any, kind: Kind) -> str:
    key_kind, value_kind = kind.children
    pairs = list(value.items()) if isinstance(value, Mapping) else [tuple(p) for p in value]
    sort_key = _KEY_ORDER[key_kind.tag]
    keyed = []
    for k, v in pairs:
        if k is None:
            raise RowsV1Error(f"map<{key_kind.text},{value_kind.text}> holds a null key")
        keyed.append((sort_key(k), k, v))
    keyed.sort(key=lambda t: t[0])
    for (k1, key1, _), (k2, _, _) in zip(keyed, keyed[1:]):
        if k1 == k2:
            raise RowsV1Error(
                f"map<{key_kind.text},{value_kind.text}> holds the key {key1!r} twice"
            )
    members = [
        key_text(k, key_kind) + ":" + ("null" if v is None else value_text(v, value_kind))
        for _, k, v in keyed
    ]
    return "{" + ",".join(members) + "}"


def key_text(key: Any, kind: Kind) -> str:
    """A map key as a JSON string (spec 2.4): the value's text without its quotes."""
    if kind.tag == "string":
        return _string(key, kind)
    text = value_text(key, kind)
    return text if text.startswith('"') else '"' + text + '"'


def _float_order(x: Any) -> tuple[int, float, int]:
    """Java's ``Double.compare`` order: -0.0 before 0.0, NaN after everything."""
    f = float(x)
    if math.isnan(f):
        return (1, 0.0, 0)
    return (0, f, 0 if math.copysign(1.0, f) < 0 else 1)


def _float32_order(x: Any) -> tuple[int, float, int]:
    import numpy as np

    return _float_order(float(np.float32(x)))


def _instant_order(x: Any) -> int:
    """Time order of a ``timestamp`` key (a datetime or :class:`Micros`) in UTC microseconds."""
    return micros_of(x)


def _wall_order(x: Any) -> int:
    """Order of a ``timestamp_ntz`` key: its wall-clock value (the zone of a datetime ignored)."""
    return micros_of(x.replace(tzinfo=None) if isinstance(x, dt.datetime) else x)


_KEY_ORDER: dict[str, Callable[[Any], Any]] = {
    "string": lambda x: x,
    "int8": int,
    "int16": int,
    "int32": int,
    "int64": int,
    "bool": bool,
    "float64": _float_order,
    "float32": _float32_order,
    "decimal": lambda x: Decimal(x) if not isinstance(x, Decimal) else x,
    "date": days_of,
    "timestamp": _instant_order,
    "timestamp_ntz": _wall_order,
    "binary": bytes,
}

_WRITERS: dict[str, Callable[[Any, Kind], str]] = {
    "int8": _int,
    "int16": _int,
    "int32": _int,
    "int64": _int,
    "float64": _float64,
    "float32": _float32,
    "decimal": _decimal,
    "bool": _bool,
    "string": _string,
    "binary": _binary,
    "date": _date,
    "timestamp": _timestamp,
    "timestamp_ntz": _timestamp_ntz,
    "null": _null,
    "list": _list,
    "struct": _struct,
    "map": _map,
}


def parse_kinds(pairs: Iterable[tuple[str, Any]]) -> list[tuple[str, Kind]]:
    """``(name, Kind)`` pairs from ``(name, kind text or Kind)``; names must be unique."""
    out: list[tuple[str, Kind]] = []
    for name, kind in pairs:
        try:
            parsed = kind if isinstance(kind, Kind) else parse_kind(str(kind))
        except RowsV1Error as exc:
            raise RowsV1Error(f"column {name!r} of type {kind}: {exc}") from None
        out.append((str(name), parsed))
    check_unique_names([n for n, _ in out])
    return out


def reference_lines(
    rows: Iterable[Mapping[str, Any]], kinds: Sequence[tuple[str, Kind]]
) -> Iterable[str]:
    """Canonical lines of ``rows``, one at a time."""
    for row in rows:
        yield canonical_line_of(row, kinds)


def line_data(line: str) -> bytes:
    """A line's bytes. A string's bytes that are not UTF-8 (spec 2.2: Spark keeps them) are
    carried as ``surrogateescape`` text (U+DC80..U+DCFF, as :func:`arrow_rows` reads them) and
    written back to those bytes; any other lone surrogate is not text, and fails here."""
    return line.encode("utf-8", "surrogateescape")


def reference_sums(rows: Iterable[Mapping[str, Any]], kinds: Sequence[tuple[str, Kind]]) -> LaneSums:
    """Lane sums of ``rows`` computed row by row."""
    return sums_of_lines(line_data(line) for line in reference_lines(rows, kinds))


def reference_totals(rows: Iterable[Mapping[str, Any]], kinds: Sequence[tuple[str, Kind]]) -> Totals:
    """Lane sums and the sketch's cells of ``rows``, row by row in plain Python (the
    yardstick of the vectorised cell rule)."""
    from ubunye.hashing.sketch import Sketch

    sketch = Sketch()
    rows_n = a = b = 0
    for line in reference_lines(rows, kinds):
        la, lb = line_lanes(line_data(line))
        rows_n, a, b = rows_n + 1, (a + la) & MASK64, (b + lb) & MASK64
        sketch.add_row(la, lb)
    return Totals(LaneSums(rows_n, a, b), sketch.data)


def reference_arrow_sums(batches: Iterable[Any]) -> LaneSums:
    """Lane sums of Arrow record batches, row by row through ``to_pylist``.

    The yardstick for :func:`ubunye.hashing.arrow.lane_sums`.
    """
    return reference_arrow_totals(batches, sketch=False).sums


def reference_arrow_totals(batches: Iterable[Any], sketch: bool = True) -> Totals:
    """:func:`reference_arrow_sums` with the sketch's cells (``sketch``), row by row."""
    from ubunye.hashing.arrow_types import arrow_schema_kinds

    total = Totals()
    for batch in batches:
        kinds = arrow_schema_kinds(batch.schema)
        if sketch:
            total = total + reference_totals(arrow_rows(batch), kinds)
        else:
            total = total + Totals(reference_sums(arrow_rows(batch), kinds))
    if sketch and total.cells is None:
        from ubunye.hashing.sketch import Sketch

        total = Totals(total.sums, Sketch().data)
    return total


def arrow_rows(batch: Any) -> list[dict[str, Any]]:
    """Rows of an Arrow batch as dicts of Python values (dictionaries decoded).

    Dates are :class:`~ubunye.hashing.temporal.Days` and timestamps
    :class:`~ubunye.hashing.temporal.Micros`, at any depth: Arrow holds years
    that ``datetime`` cannot.
    """
    from ubunye.hashing.temporal import arrow_values

    columns = [_column_values(column, arrow_values) for column in batch.columns]
    names = batch.schema.names
    return [dict(zip(names, values)) for values in zip(*columns)] if columns else [
        {} for _ in range(batch.num_rows)
    ]


def _column_values(column: Any, arrow_values: Callable[[Any], list[Any]]) -> list[Any]:
    """One column's values; strings whose bytes are not UTF-8 as ``surrogateescape`` text (the
    vectorised path writes them byte for byte, spec 2.2, and so must the reference)."""
    try:
        return arrow_values(column)
    except UnicodeDecodeError:
        import pyarrow as pa

        from ubunye.hashing.arrow_types import arrow_kind, restored, strings_as_binary

        if isinstance(column, pa.ChunkedArray):
            column = column.combine_chunks()
        kind = arrow_kind(column.type)
        return [restored(v, kind) for v in arrow_values(column.cast(strings_as_binary(column.type)))]
