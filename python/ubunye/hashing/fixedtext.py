"""Fixed-width canonical text of dates and timestamps, built with numpy.

Arrow's ``strftime`` costs about a microsecond a value; the civil-date
arithmetic below (Howard Hinnant's ``civil_from_days``, proleptic Gregorian
like Spark and Python) writes the digits of a million values in a few tens of
milliseconds. Years outside 0000..9999 are left to the caller (the function
returns None).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import pyarrow as pa

US_PER_DAY = 86_400_000_000


def civil_from_days(days: "np.ndarray") -> tuple["np.ndarray", "np.ndarray", "np.ndarray"]:
    """Year, month, day of days since 1970-01-01 (int64 arrays)."""
    import numpy as np

    z = days + 719_468
    era = np.floor_divide(z, 146_097)
    doe = z - era * 146_097
    yoe = (doe - doe // 1460 + doe // 36_524 - doe // 146_096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = np.where(mp < 10, mp + 3, mp - 9)
    year = yoe + era * 400 + (month <= 2)
    return year, month, day


def _put(chars: "np.ndarray", col: int, values: "np.ndarray", width: int) -> None:
    for k in range(width - 1, -1, -1):
        chars[:, col + k] = values % 10 + 48
        values = values // 10


def _template(text: str, n: int) -> "np.ndarray":
    import numpy as np

    return np.tile(np.frombuffer(text.encode("ascii"), dtype=np.uint8), (n, 1))


def _to_array(chars: "np.ndarray", valid: "pa.Array") -> "pa.Array":
    import numpy as np
    import pyarrow as pa

    n, width = chars.shape
    offsets = np.arange(0, (n + 1) * width, width, dtype=np.int32)
    bitmap = valid.buffers()[1] if valid.false_count else None
    return pa.StringArray.from_buffers(
        n, pa.py_buffer(offsets), pa.py_buffer(chars.tobytes()), bitmap,
        valid.false_count if bitmap is not None else 0)


def date_text(days: "pa.Array") -> Optional["pa.Array"]:
    """``"yyyy-MM-dd"`` (with quotes) of a date32 array, or None if a year is out of range."""
    import numpy as np
    import pyarrow as pa

    valid = days.is_valid()
    values = days.cast(pa.int32()).fill_null(0).to_numpy().astype(np.int64)
    year, month, day = civil_from_days(values)
    if len(year) and (year.min() < 0 or year.max() > 9999):
        return None
    chars = _template('"0000-00-00"', len(values))
    _put(chars, 1, year, 4)
    _put(chars, 6, month, 2)
    _put(chars, 9, day, 2)
    return _to_array(chars, valid)


def timestamp_text(micros: "pa.Array", instant: bool) -> Optional["pa.Array"]:
    """``"yyyy-MM-ddTHH:mm:ss.ffffff[Z]"`` of microseconds since the epoch (int64), or None."""
    import numpy as np

    valid = micros.is_valid()
    values = micros.fill_null(0).to_numpy().astype(np.int64)
    days = np.floor_divide(values, US_PER_DAY)
    rest = values - days * US_PER_DAY
    year, month, day = civil_from_days(days)
    if len(year) and (year.min() < 0 or year.max() > 9999):
        return None
    chars = _template('"0000-00-00T00:00:00.000000' + ('Z"' if instant else '"'), len(values))
    _put(chars, 1, year, 4)
    _put(chars, 6, month, 2)
    _put(chars, 9, day, 2)
    seconds, fraction = np.divmod(rest, 1_000_000)
    _put(chars, 12, seconds // 3600, 2)
    _put(chars, 15, seconds // 60 % 60, 2)
    _put(chars, 18, seconds % 60, 2)
    _put(chars, 21, fraction, 6)
    return _to_array(chars, valid)
