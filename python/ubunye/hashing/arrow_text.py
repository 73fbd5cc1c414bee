"""Canonical value text of one Arrow column, vectorised where it can be.

:func:`column_text` returns a string array of the same length whose element
is the canonical text of the value (spec 2.3, 2.4), or null where the value is
null. Common scalars are written by ``pyarrow.compute``; the rare hard values
(floats outside the plain range, strings with characters to escape) and the
kinds without a vectorised writer (binary, nested) go through the reference
writer one value at a time.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from ubunye.hashing.javatext import double_text, float_text
from ubunye.hashing.jsontext import line_string
from ubunye.hashing.kinds import Kind
from ubunye.hashing.reference import value_text

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

_NEEDS_ESCAPE = r'[\x00-\x1f"\\]'
_NON_FINITE = {"NaN": '"NaN"', "Infinity": '"Infinity"', "-Infinity": '"-Infinity"'}


def column_text(arr: "pa.Array", kind: Kind) -> "pa.StringArray":
    """Canonical text of each value of ``arr`` (null where the value is null)."""
    import pyarrow as pa

    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if pa.types.is_dictionary(arr.type):
        arr = arr.dictionary_decode()
    if isinstance(arr.type, pa.ExtensionType):
        arr = arr.storage
    writer = _VECTOR.get(kind.tag, _python_column)
    return writer(arr, kind)


def _quoted(text: "pa.Array", suffix: str = "") -> "pa.Array":
    import pyarrow.compute as pc

    return pc.binary_join_element_wise('"', text, suffix + '"', "")


def _ints(arr: "pa.Array", kind: Kind) -> "pa.Array":
    import pyarrow as pa

    return arr.cast(pa.string())


def _bools(arr: "pa.Array", kind: Kind) -> "pa.Array":
    import pyarrow as pa
    import pyarrow.compute as pc

    return pc.if_else(arr, pa.scalar("true"), pa.scalar("false"))


def _strings(arr: "pa.Array", kind: Kind) -> "pa.Array":
    import pyarrow as pa
    import pyarrow.compute as pc

    if not pa.types.is_string(arr.type):
        arr = arr.cast(pa.string())
    needs = pc.match_substring_regex(arr, _NEEDS_ESCAPE)
    if pc.any(needs).as_py():
        escaped = [line_string(s) for s in arr.filter(needs).to_pylist()]
        quoted = _quoted(arr)
        return pc.replace_with_mask(quoted, pc.fill_null(needs, False), pa.array(escaped, pa.string()))
    return _quoted(arr)


def _floats(arr: "pa.Array", kind: Kind) -> "pa.Array":
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_float16(arr.type):
        arr = arr.cast(pa.float32())
    text = arr.cast(pa.string())
    magnitude = pc.abs(arr)
    plain = pc.or_(
        pc.and_(pc.greater_equal(magnitude, 1e-3), pc.less(magnitude, 1e7)),
        pc.equal(arr, 0.0),
    )
    fast = pc.and_(plain, pc.invert(pc.match_substring(text, "e")))
    fast_text = pc.if_else(
        pc.match_substring(text, "."), text, pc.binary_join_element_wise(text, ".0", "")
    )
    slow = pc.and_(pc.invert(fast), pc.is_valid(arr))
    slow = pc.fill_null(slow, False)
    if not pc.any(slow).as_py():
        return fast_text
    to_text: Callable[[float], str] = float_text if kind.tag == "float32" else double_text
    replacements = []
    for x in arr.filter(slow).to_pylist():
        t = to_text(x)
        replacements.append(_NON_FINITE.get(t, t))
    return pc.replace_with_mask(fast_text, slow, pa.array(replacements, pa.string()))


def _decimals(arr: "pa.Array", kind: Kind) -> "pa.Array":
    import pyarrow as pa

    # Arrow writes decimals as Java's BigDecimal.toString does (0E-10, -1.00E-7).
    return arr.cast(pa.string())


def _dates(arr: "pa.Array", kind: Kind) -> "pa.Array":
    import pyarrow as pa

    from ubunye.hashing.fixedtext import date_text

    if not pa.types.is_date32(arr.type):
        arr = arr.cast(pa.date32())
    fast = date_text(arr)
    return fast if fast is not None else _quoted(arr.cast(pa.string()))


def _micros(arr: "pa.Array") -> "pa.Array":
    """Microseconds since the epoch (int64; sub-microsecond parts floored)."""
    import numpy as np
    import pyarrow as pa

    unit = arr.type.unit
    ints = arr.view(pa.int64()) if arr.offset == 0 else arr.cast(pa.int64())
    if unit == "us":
        return ints
    values = ints.fill_null(0).to_numpy()
    if unit == "ns":
        values = np.floor_divide(values, 1000)
    else:
        values = values * (1000 if unit == "ms" else 1_000_000)
    return pa.array(values, pa.int64(), mask=ints.is_null().to_numpy(zero_copy_only=False))


def _timestamps(arr: "pa.Array", kind: Kind) -> "pa.Array":
    import pyarrow as pa
    import pyarrow.compute as pc

    from ubunye.hashing.fixedtext import timestamp_text

    instant = kind.tag == "timestamp"
    micros = _micros(arr)
    fast = timestamp_text(micros, instant)
    if fast is not None:
        return fast
    text = pc.strftime(micros.cast(pa.timestamp("us", tz="UTC" if instant else None)),
                       format="%Y-%m-%dT%H:%M:%S")
    return _quoted(text, "Z" if instant else "")


def _nulls(arr: "pa.Array", kind: Kind) -> "pa.Array":
    import pyarrow as pa

    return pa.nulls(len(arr), pa.string())


def _python_column(arr: "pa.Array", kind: Kind) -> "pa.Array":
    """Write each value with the reference writer (binary and nested kinds)."""
    import pyarrow as pa

    texts = [None if v is None else value_text(v, kind) for v in arr.to_pylist()]
    return pa.array(texts, pa.string())


_VECTOR: dict[str, Callable[["pa.Array", Kind], "pa.Array"]] = {
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
