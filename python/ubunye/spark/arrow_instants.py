"""Naive Arrow timestamps, at any depth, read as wall-clock time in a time zone.

What pyspark 4.x does to a naive timestamp of a pyarrow Table given to
``createDataFrame`` (a ``TIMESTAMP`` is an instant), done here for pyspark 3.5
(see :func:`ubunye.spark._compat.frame_from_arrow`). Nested arrays are taken apart
and rebuilt (offsets, children, validity) rather than cast, as pyarrow's nested
cast fails on some shapes.
"""
from __future__ import annotations

from typing import Any


def naive_instants_in(column: Any, zone: str, prefer_ntz: bool) -> Any:
    """``column`` (a chunked array) with each naive timestamp, at any depth, read as
    wall-clock time in ``zone`` (left as is when it becomes ``TIMESTAMP_NTZ``)."""
    import pyarrow as pa

    if prefer_ntz or not _has_naive_timestamp(column.type):
        return column
    return pa.chunked_array([_localized(chunk, zone) for chunk in column.chunks], _localized_type(column.type))


def _has_naive_timestamp(t: Any) -> bool:
    import pyarrow as pa

    if pa.types.is_timestamp(t):
        return t.tz is None
    if pa.types.is_map(t):
        return _has_naive_timestamp(t.key_type) or _has_naive_timestamp(t.item_type)
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return _has_naive_timestamp(t.value_type)
    if pa.types.is_struct(t):
        return any(_has_naive_timestamp(t.field(i).type) for i in range(t.num_fields))
    return False


def _localized_type(t: Any) -> Any:
    import pyarrow as pa

    if pa.types.is_timestamp(t):
        return pa.timestamp(t.unit, tz="UTC") if t.tz is None else t
    if pa.types.is_map(t):
        return pa.map_(_localized_type(t.key_type), _localized_type(t.item_type))
    if pa.types.is_list(t):
        return pa.list_(_localized_type(t.value_type))
    if pa.types.is_large_list(t):
        return pa.large_list(_localized_type(t.value_type))
    if pa.types.is_struct(t):
        return pa.struct([t.field(i).with_type(_localized_type(t.field(i).type)) for i in range(t.num_fields)])
    return t


def _localized(array: Any, zone: str) -> Any:
    """One array with its naive timestamps (at any depth) read in ``zone``, taken apart and
    rebuilt (offsets, children, validity) rather than through pyarrow's nested cast."""
    import pyarrow as pa
    import pyarrow.compute as pc

    t = array.type
    if not _has_naive_timestamp(t):
        return array
    if pa.types.is_timestamp(t):
        return pc.assume_timezone(array, zone, ambiguous="earliest", nonexistent="earliest").cast(pa.timestamp(t.unit, tz="UTC"))
    if array.offset:  # children and offsets of a slice do not start at its first row
        array = pa.concat_arrays([array])
    mask = array.is_null() if array.null_count else None
    if pa.types.is_struct(t):
        children = [_localized(array.field(i), zone) for i in range(t.num_fields)]
        return pa.StructArray.from_arrays(children, fields=list(_localized_type(t)), mask=mask)
    offsets = array.offsets
    if pa.types.is_map(t):
        keys, items = _localized(array.keys, zone), _localized(array.items, zone)
        return pa.MapArray.from_arrays(offsets, keys, items, mask=mask)
    values = _localized(array.values, zone)
    kind = pa.LargeListArray if pa.types.is_large_list(t) else pa.ListArray
    return kind.from_arrays(offsets, values, mask=mask)
