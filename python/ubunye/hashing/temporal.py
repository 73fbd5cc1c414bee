"""Dates and timestamps as integers, for every year (spec 2.3).

Python's ``datetime`` holds years 1..9999 only; Spark holds (and ``to_json``
writes) dates and timestamps far outside them: the proleptic ISO year, at
least four digits, ``-`` before a negative year, ``+`` before a year above
9999 (``"+10000-01-01"``, ``"0000-12-31"``, ``"-0001-01-01"``). Here such
values are plain integers, and their text is computed from them:

- :class:`Days`: a date as days since 1970-01-01;
- :class:`Micros`: a timestamp as microseconds since 1970-01-01T00:00:00
  (UTC for an instant, the wall clock for ``timestamp_ntz``).

The reference writer accepts them as the values of ``date`` and
``timestamp``/``timestamp_ntz`` columns; :func:`arrow_values` gives them for
the temporal values of Arrow arrays (which hold any year).
"""
from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any, Callable, Optional

from ubunye.hashing.arrow_types import is_view

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

# 0001-01-01 and 9999-12-31 in days since 1970-01-01: Python's range
MIN_DAY, MAX_DAY = -719_162, 2_932_896
US_PER_DAY = 86_400_000_000
MIN_MICROS = MIN_DAY * US_PER_DAY
MAX_MICROS = (MAX_DAY + 1) * US_PER_DAY - 1
EPOCH_DATE = dt.date(1970, 1, 1)
_EPOCH = dt.datetime(1970, 1, 1)
_EPOCH_UTC = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
_US = dt.timedelta(microseconds=1)


class Days(int):
    """A date as days since 1970-01-01 (any year)."""

    def __repr__(self) -> str:
        return f"Days({int(self)})"


class Micros(int):
    """A timestamp as microseconds since 1970-01-01T00:00:00 (any year)."""

    def __repr__(self) -> str:
        return f"Micros({int(self)})"


def civil(days: int) -> tuple[int, int, int]:
    """Proleptic Gregorian year, month, day of days since 1970-01-01 (H. Hinnant's ``civil_from_days``)."""
    z = days + 719_468
    era = z // 146_097
    doe = z - era * 146_097
    yoe = (doe - doe // 1460 + doe // 36_524 - doe // 146_096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (month <= 2), month, day


def year_text(year: int) -> str:
    """Spark's year: four digits at least, ``-`` below year 0, ``+`` above 9999."""
    if year < 0:
        return f"-{-year:04d}"
    if year > 9999:
        return f"+{year}"
    return f"{year:04d}"


def day_text(days: int) -> str:
    """``yyyy-MM-dd`` of days since 1970-01-01, any year."""
    if MIN_DAY <= days <= MAX_DAY:
        d = EPOCH_DATE + dt.timedelta(days=days)
        return f"{d.year:04d}-{d.month:02d}-{d.day:02d}"
    year, month, day = civil(days)
    return f"{year_text(year)}-{month:02d}-{day:02d}"


def micros_text(micros: int) -> str:
    """``yyyy-MM-ddTHH:mm:ss.ffffff`` of microseconds since 1970-01-01T00:00:00, any year."""
    days, rest = divmod(micros, US_PER_DAY)
    seconds, fraction = divmod(rest, 1_000_000)
    return (f"{day_text(days)}T{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
            f".{fraction:06d}")


def days_of(value: Any) -> int:
    """Days since 1970-01-01 of a :class:`Days` or a ``date`` (a datetime's date)."""
    if isinstance(value, Days):
        return int(value)
    if isinstance(value, dt.datetime):
        value = value.date()
    if not isinstance(value, dt.date):
        raise TypeError(f"not a date: {value!r}")
    return (value - EPOCH_DATE).days


def micros_of(value: Any) -> int:
    """Microseconds since the epoch of a :class:`Micros` or a ``datetime``.

    An aware datetime counts from 1970-01-01T00:00:00Z; a naive one is read as
    UTC wall time (for ``timestamp_ntz``, its wall-clock value).
    """
    if isinstance(value, Micros):
        return int(value)
    if not isinstance(value, dt.datetime):
        raise TypeError(f"not a datetime: {value!r}")
    if value.tzinfo is not None and value.utcoffset() is not None:
        return (value - _EPOCH_UTC) // _US
    return (value.replace(tzinfo=None) - _EPOCH) // _US


# ---------------------------------------------------------------- Arrow values


def arrow_values(arr: "pa.Array") -> list[Any]:
    """``arr.to_pylist()``, with every date as :class:`Days` and every timestamp as :class:`Micros`.

    Arrow holds years that ``datetime`` cannot (``to_pylist`` raises on them),
    so temporal values, at any depth, are read as integers (:func:`_walk`) and
    wrapped. Timestamps in nanoseconds are floored to microseconds.
    """
    import pyarrow as pa

    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    return _walk(arr)


def _walk(arr: "pa.Array") -> list[Any]:
    """The values of ``arr`` (no chunks, no dictionary) with temporal leaves as integers.

    Nested arrays are taken apart by hand (offsets, children, validity) rather than
    cast to a type with integer leaves: pyarrow's nested casts fail on some shapes
    (a sliced struct with a null-typed field; a map whose items are maps of nulls).
    """
    import pyarrow as pa
    import pyarrow.types as pt

    t = arr.type
    if pt.is_dictionary(t):
        return _walk(arr.dictionary_decode())
    if isinstance(t, pa.ExtensionType):
        return _walk(arr.storage)
    if not _temporal(t):
        return arr.to_pylist()
    valid = arr.is_valid().to_pylist()
    if pt.is_list(t) or pt.is_large_list(t) or pt.is_map(t):
        offsets = arr.offsets.to_pylist()
        if pt.is_map(t):
            keys, items = _walk(arr.keys), _walk(arr.items)
            children: list[Any] = list(zip(keys, items))
        else:
            children = _walk(arr.values)
        return [children[offsets[i]:offsets[i + 1]] if ok else None for i, ok in enumerate(valid)]
    if is_view(t, "list_view") or is_view(t, "large_list_view"):  # each row its own offset and size
        starts, sizes, values = arr.offsets.to_pylist(), arr.sizes.to_pylist(), _walk(arr.values)
        return [values[start:start + size] if ok else None for start, size, ok in zip(starts, sizes, valid)]
    if pt.is_struct(t):
        names = [t.field(i).name for i in range(t.num_fields)]
        columns = [_walk(child) for child in arr.flatten()]
        return [dict(zip(names, row)) if ok else None for ok, row in zip(valid, zip(*columns))]
    leaf = _leaf(t)
    assert leaf is not None, t  # every nested temporal type is taken apart above
    int_type, wrap = leaf
    ints = arr.cast(int_type)  # a temporal leaf: its integers
    return [None if v is None else wrap(v) for v in ints.to_pylist()]


_Leaf = Optional[tuple["pa.DataType", Callable[[Any], Any]]]
_PER_US = {"s": (1_000_000, 1), "ms": (1000, 1), "us": (1, 1), "ns": (1, 1000)}


def _leaf(t: "pa.DataType") -> _Leaf:
    """The integer type standing for a temporal leaf type ``t`` and how to wrap its values; None otherwise."""
    import pyarrow as pa
    import pyarrow.types as pt

    if pt.is_date32(t):
        return pa.int32(), Days
    if pt.is_date64(t):
        return pa.int64(), lambda ms: Days(ms // 86_400_000)
    if pt.is_timestamp(t):
        mul, div = _PER_US[t.unit]
        return pa.int64(), lambda v: Micros(v * mul // div)
    return None


def _temporal(t: "pa.DataType") -> bool:
    """Whether ``t`` is or holds (at any depth) a date or a timestamp."""
    import pyarrow as pa
    import pyarrow.types as pt

    if _leaf(t) is not None:
        return True
    if pt.is_dictionary(t):
        return _temporal(t.value_type)
    if isinstance(t, pa.ExtensionType):
        return _temporal(t.storage_type)
    if pt.is_list(t) or pt.is_large_list(t) or is_view(t, "list_view") or is_view(t, "large_list_view"):
        return _temporal(t.value_type)
    if pt.is_map(t):
        return _temporal(t.key_type) or _temporal(t.item_type)
    if pt.is_struct(t):
        return any(_temporal(t.field(i).type) for i in range(t.num_fields))
    return False
