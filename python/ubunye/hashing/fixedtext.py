"""Fixed-width canonical text of timestamps, built with numpy.

Arrow's ``strftime`` costs about a microsecond a value; the civil-date
arithmetic below (Howard Hinnant's ``civil_from_days``, proleptic Gregorian
like Spark and Python) writes the digits of a million values in a few tens of
milliseconds. Years outside 0001..9999 (rare) are written one by one from the
integer microseconds (:mod:`ubunye.hashing.temporal`), only when a chunk holds any.
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


_PAIRS: Optional["np.ndarray"] = None


def _pairs() -> "np.ndarray":
    """The two ASCII digits of 0..99 read as native ``uint16`` (written back, the bytes stay in order)."""
    global _PAIRS
    if _PAIRS is None:
        import numpy as np

        _PAIRS = np.frombuffer(b"".join(b"%02d" % i for i in range(100)), dtype=np.uint16).copy()
    return _PAIRS


def _records(template: str, pair_offsets: list[int], n: int) -> "np.ndarray":
    """``n`` copies of ``template`` as records with a ``uint16`` field at each pair offset."""
    import numpy as np

    dtype = np.dtype({
        "names": [f"p{o}" for o in pair_offsets],
        "formats": [np.uint16] * len(pair_offsets),
        "offsets": pair_offsets,
        "itemsize": len(template),
    })
    return np.frombuffer(bytearray(template.encode("ascii") * n), dtype=dtype)


def _to_array(records: "np.ndarray", width: int, valid: "pa.Array") -> "pa.Array":
    import numpy as np
    import pyarrow as pa

    n = len(records)
    offsets = np.arange(0, (n + 1) * width, width, dtype=np.int32)
    bitmap = valid.buffers()[1] if valid.false_count else None
    return pa.StringArray.from_buffers(
        n, pa.py_buffer(offsets), pa.py_buffer(records), bitmap,
        valid.false_count if bitmap is not None else 0)


def timestamp_text(micros: "pa.Array", instant: bool) -> "pa.Array":
    """``"yyyy-MM-ddTHH:mm:ss.ffffff[Z]"`` (quotes included) of microseconds since the epoch (int64).

    Years outside 0001..9999 get Spark's text (``"+10000-01-01T..."``,
    ``"-0001-..."``); they are written one by one after the vectorised pass.
    """
    import numpy as np

    from ubunye.hashing.temporal import MAX_DAY, MIN_DAY

    valid = micros.is_valid()
    values = micros.fill_null(0).to_numpy().astype(np.int64)
    days = np.floor_divide(values, US_PER_DAY)
    far = None
    if len(days) and (days.min() < MIN_DAY or days.max() > MAX_DAY):
        far = (days < MIN_DAY) | (days > MAX_DAY)
        far_values = values[far].tolist()
        values = np.where(far, 0, values)
        days = np.where(far, 0, days)
    rest = values - days * US_PER_DAY
    year, month, day = civil_from_days(days)
    template = '"0000-00-00T00:00:00.000000' + ('Z"' if instant else '"')
    offsets = [1, 3, 6, 9, 12, 15, 18, 21, 23, 25]
    records = _records(template, offsets, len(values))
    seconds, fraction = np.divmod(rest, 1_000_000)
    fields = [year // 100, year % 100, month, day, seconds // 3600, seconds // 60 % 60, seconds % 60,
              fraction // 10_000, fraction // 100 % 100, fraction % 100]
    pairs = _pairs()
    for offset, field in zip(offsets, fields):
        records[f"p{offset}"] = pairs[field]
    text = _to_array(records, len(template), valid)
    if far is None:
        return text
    import pyarrow as pa
    import pyarrow.compute as pc

    from ubunye.hashing.temporal import micros_text

    suffix = 'Z"' if instant else '"'
    texts = pa.array(['"' + micros_text(v) + suffix for v in far_values], pa.string())
    return pc.replace_with_mask(text, pa.array(far), texts)
