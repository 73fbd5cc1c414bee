"""Canonical value text of one Arrow column, vectorised where it can be.

:func:`column_pieces` returns the pieces whose concatenation is the canonical
text of each value (spec 2.3, 2.4): constant strings and string arrays of
the column's length, null where the value is null. The line writer
(:func:`ubunye.hashing.arrow.line_array`) concatenates the pieces of all
columns in one pass, so quotes and suffixes cost no copy of their own.

Common scalars are written by ``pyarrow.compute`` or numpy; the rare hard
values (floats outside the plain range, strings with characters to escape)
and the kinds without a vectorised writer (binary, nested) go through the
reference writer one value at a time.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Union

from ubunye.hashing.arrow_types import is_view, restored, strings_as_binary
from ubunye.hashing.errors import RowsV1Error
from ubunye.hashing.javatext import double_text, float_text
from ubunye.hashing.jsontext import line_bytes
from ubunye.hashing.kinds import Kind
from ubunye.hashing.reference import value_text

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

Piece = Union[str, "pa.Array"]
_NEEDS_ESCAPE = r'[\x00-\x1f"\\]'
_NON_FINITE = {"NaN": '"NaN"', "Infinity": '"Infinity"', "-Infinity": '"-Infinity"'}


def column_pieces(arr: "pa.Array", kind: Kind) -> list[Piece]:
    """Pieces of the canonical text of each value of ``arr`` (arrays null where the value is)."""
    import pyarrow as pa

    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if pa.types.is_dictionary(arr.type):
        arr = arr.dictionary_decode()
    if isinstance(arr.type, pa.ExtensionType):
        arr = arr.storage
    writer = _VECTOR.get(kind.tag, _python_column)
    return writer(arr, kind)


def _ints(arr: "pa.Array", kind: Kind) -> list[Piece]:
    import pyarrow as pa

    return [arr.cast(pa.string())]


def _bools(arr: "pa.Array", kind: Kind) -> list[Piece]:
    import pyarrow as pa
    import pyarrow.compute as pc

    return [pc.if_else(arr, pa.scalar("true"), pa.scalar("false"))]


def _data_has(arr: "pa.Array") -> bool:
    """Whether the string data buffer holds any byte that needs escaping."""
    import numpy as np

    offsets = np.frombuffer(arr.buffers()[1], dtype=np.int32, count=len(arr) + 1, offset=4 * arr.offset)
    data = arr.buffers()[2]
    if data is None or offsets[-1] == offsets[0]:
        return False
    b = np.frombuffer(data, dtype=np.uint8, count=int(offsets[-1] - offsets[0]), offset=int(offsets[0]))
    return bool(((b < 0x20) | (b == 0x22) | (b == 0x5C)).any())


def _strings(arr: "pa.Array", kind: Kind) -> list[Piece]:
    import pyarrow as pa
    import pyarrow.compute as pc

    if not pa.types.is_string(arr.type):
        arr = arr.cast(pa.string())
    if not _data_has(arr):
        return ['"', arr, '"']
    needs = pc.fill_null(pc.match_substring_regex(arr, _NEEDS_ESCAPE), False)
    # Escaped byte-wise (the values' bytes as held, valid UTF-8 or not, as the plugin does).
    escaped = [line_bytes(b) for b in arr.filter(needs).view(pa.binary()).to_pylist()]
    quoted = pc.binary_join_element_wise('"', arr, '"', "")
    return [pc.replace_with_mask(quoted, needs, pa.array(escaped, pa.binary()).view(pa.string()))]


def _floats(arr: "pa.Array", kind: Kind) -> list[Piece]:
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_float16(arr.type):
        arr = arr.cast(pa.float32())
    text = arr.cast(pa.string())
    values = arr.to_numpy(zero_copy_only=False)  # nulls read as NaN; masked below
    valid = np.ones(len(arr), dtype=bool) if arr.null_count == 0 else arr.is_valid().to_numpy(
        zero_copy_only=False)
    with np.errstate(invalid="ignore"):
        magnitude = np.abs(values)
        plain = ((magnitude >= 1e-3) & (magnitude < 1e7)) | (values == 0)
    slow = valid & ~plain
    if slow.any():
        to_text: Callable[[float], str] = float_text if kind.tag == "float32" else double_text
        replacements = []
        for x in values[slow].tolist():
            t = to_text(x)
            replacements.append(_NON_FINITE.get(t, t))
        text = pc.replace_with_mask(text, pa.array(slow), pa.array(replacements, pa.string()))
    # Arrow writes integral values in the plain range without a fraction ("100")
    whole = plain & (values == np.trunc(values))
    if not whole.any():
        return [text]
    suffix = pc.if_else(pa.array(whole), pa.scalar(".0"), pa.scalar(""))
    return [text, suffix]


def _decimals(arr: "pa.Array", kind: Kind) -> list[Piece]:
    import pyarrow as pa

    # Arrow writes decimals as Java's BigDecimal.toString does (0E-10, -1.00E-7); older
    # pyarrow (14, as on Databricks 15.4 LTS) writes one digit then a point before the
    # exponent (0.E-10, 1.E-10), which Java never does: the point is dropped there.
    text = arr.cast(pa.string())
    return [_without_point_before_exponent(text) if _decimal_point_before_exponent() else text]


def _without_point_before_exponent(text: "pa.Array") -> "pa.Array":
    """pyarrow 14's decimal text (``1.E-10``, ``-0.E-10``) as Java writes it (``1E-10``)."""
    import pyarrow.compute as pc

    return pc.replace_substring_regex(text, r"^(-?\d)\.E", r"\1E")


_POINT_BEFORE_EXPONENT: list[bool] = []  # measured once per process


def _decimal_point_before_exponent() -> bool:
    """Whether this pyarrow casts decimal 1E-10 to the string ``1.E-10`` (pyarrow 14 does)."""
    if not _POINT_BEFORE_EXPONENT:
        import decimal

        import pyarrow as pa

        one = pa.array([decimal.Decimal("1E-10")], pa.decimal128(20, 10)).cast(pa.string())
        _POINT_BEFORE_EXPONENT.append(one[0].as_py() == "1.E-10")
    return _POINT_BEFORE_EXPONENT[0]


def _dates(arr: "pa.Array", kind: Kind) -> list[Piece]:
    import pyarrow as pa
    import pyarrow.compute as pc

    from ubunye.hashing.temporal import MAX_DAY, MIN_DAY, day_text

    if not pa.types.is_date32(arr.type):
        arr = arr.cast(pa.date32())
    days = arr.view(pa.int32()) if arr.offset == 0 else arr.cast(pa.int32())
    bounds = pc.min_max(days).as_py()
    if bounds["min"] is None or (bounds["min"] >= MIN_DAY and bounds["max"] <= MAX_DAY):
        # Arrow writes date32 in years 0001..9999 as yyyy-MM-dd with a four-digit year
        return ['"', arr.cast(pa.string()), '"']
    # years outside 0001..9999 (rare): Spark's text, computed from the days
    far = pc.fill_null(pc.or_(pc.less(days, MIN_DAY), pc.greater(days, MAX_DAY)), False)
    near = pc.if_else(far, pa.scalar(0, pa.int32()), days).cast(pa.date32()).cast(pa.string())
    texts = pa.array([day_text(d) for d in days.filter(far).to_pylist()], pa.string())
    return ['"', pc.replace_with_mask(near, far, texts), '"']


def _micros(arr: "pa.Array") -> "pa.Array":
    """Microseconds since the epoch (int64; sub-microsecond parts floored)."""
    import numpy as np
    import pyarrow as pa

    unit = arr.type.unit
    ints = arr.cast(pa.int64())
    if unit == "us":
        return ints
    values = ints.fill_null(0).to_numpy()
    if unit == "ns":
        values = np.floor_divide(values, 1000)
    else:
        values = values * (1000 if unit == "ms" else 1_000_000)
    return pa.array(values, pa.int64(), mask=ints.is_null().to_numpy(zero_copy_only=False))


def _timestamps(arr: "pa.Array", kind: Kind) -> list[Piece]:
    from ubunye.hashing.fixedtext import timestamp_text

    return [timestamp_text(_micros(arr), kind.tag == "timestamp")]


def _nulls(arr: "pa.Array", kind: Kind) -> list[Piece]:
    import pyarrow as pa

    return [pa.nulls(len(arr), pa.string())]


def _python_column(arr: "pa.Array", kind: Kind) -> list[Piece]:
    """Write each value with the reference writer (binary and nested kinds)."""
    import pyarrow as pa

    from ubunye.hashing.temporal import arrow_values

    try:
        values = arrow_values(arr)
    except UnicodeDecodeError:  # a nested string whose bytes are not UTF-8 (Spark holds such bytes)
        return [_raw_text_column(arr, kind)]
    texts = [None if v is None else value_text(v, kind) for v in values]
    return [pa.array(texts, pa.string())]


def _raw_text_column(arr: "pa.Array", kind: Kind) -> "pa.Array":
    """The reference writer's text of nested values whose strings hold bytes that are not
    UTF-8, byte for byte as the plugin writes them: the strings are read as bytes, carried
    through the writer as ``surrogateescape`` text (escapes touch only ASCII) and written
    back to their bytes."""
    import pyarrow as pa

    from ubunye.hashing.temporal import arrow_values

    try:
        values = arrow_values(arr.cast(strings_as_binary(arr.type)))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        raise RowsV1Error(f"a string inside it holds bytes that are not valid UTF-8, and its strings "
                          f"could not be read as bytes ({' '.join(str(exc).split())})") from None
    texts = [None if v is None else value_text(restored(v, kind), kind).encode("utf-8", "surrogateescape")
             for v in values]
    return pa.array(texts, pa.binary()).view(pa.string())


_VECTOR: dict[str, Callable[["pa.Array", Kind], list[Piece]]] = {
    "int8": _ints,
    "int16": _ints,
    "int32": _ints,
    "int64": _ints,
    "bool": _bools,
    "string": _strings,
    "float32": _floats,
    "float64": _floats,
    "decimal": _decimals,
    "date": _dates,
    "timestamp": _timestamps,
    "timestamp_ntz": _timestamps,
    "null": _nulls,
}
