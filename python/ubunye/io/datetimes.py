"""Dates and timestamps as integers, as Arrow and Spark hold them, for the pandas readers.

Dates are days since 1970-01-01 (32-bit), timestamps microseconds since
1970-01-01T00:00Z (64-bit), reckoned in the proleptic Gregorian calendar with
astronomical years (year 0, -1, ...): years past 9999 and before 1 are held as
Spark holds them (Python's ``datetime`` holds only 1..9999, so it is not used here).
"""
from __future__ import annotations

from typing import Optional

MICROS_PER_DAY = 86_400_000_000
INT64 = (-(2 ** 63), 2 ** 63 - 1)
INT32 = (-(2 ** 31), 2 ** 31 - 1)
_LOCAL_DATE_YEARS = 999_999_999  # java.time.LocalDate's year range


def days_from_civil(y: int, m: int, d: int) -> Optional[int]:
    """Days since 1970-01-01 of a proleptic Gregorian date (astronomical year), or None if no such date."""
    if not (1 <= m <= 12 and 1 <= d <= 31) or abs(y) > _LOCAL_DATE_YEARS:
        return None
    leap = y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)
    if d > (29 if leap else 28) if m == 2 else d > (30 if m in (4, 6, 9, 11) else 31):
        return None
    y -= m <= 2  # H. Hinnant's days_from_civil: years start in March
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    return era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468


def civil_date(y: int, m: int, d: int) -> Optional[int]:
    """Days since 1970-01-01 of a date Spark can hold (a 32-bit day count), or None."""
    days = days_from_civil(y, m, d)
    return days if days is not None and INT32[0] <= days <= INT32[1] else None


def civil_micros(y: int, mo: int, d: int, h: int = 0, mi: int = 0, s: int = 0, micros: int = 0,
                 offset: int = 0) -> Optional[int]:
    """Microseconds since the epoch of a local time at ``offset`` seconds east of UTC, or None.

    None also when the instant is past the 64-bit microsecond range (Spark holds no such timestamp).
    """
    if not (0 <= h <= 23 and 0 <= mi <= 59 and 0 <= s <= 59):
        return None
    days = days_from_civil(y, mo, d)
    if days is None:
        return None
    value = days * MICROS_PER_DAY + ((h * 60 + mi) * 60 + s - offset) * 1_000_000 + micros
    return value if INT64[0] <= value <= INT64[1] else None


def year_regex(n: int) -> str:
    """The regex of ``n`` (not 2) year letters of a pattern, signs as ``java.time`` parses them.

    ``n < 4``: SignStyle.NORMAL (a ``-`` only); ``n >= 4``: EXCEEDS_PAD (strict: a sign only, and
    then required, past ``n`` digits; no minus zero); up to 19 digits (the value's range is checked later).
    """
    if n >= 4:
        return r"\d{%d}|\+\d{%d,19}|-(?!0+\b)\d{%d,19}" % (n, n + 1, n)
    return r"-?\d{%d,19}" % n


def julian_to_gregorian_days(days: int) -> Optional[int]:
    """Spark's ``rebaseJulianToGregorianDays`` for days before 0001-01-01 (Julian): the Julian calendar's
    date of ``days`` read as the same proleptic Gregorian date; None if that date does not exist."""
    c = days + 2440588 + 32082  # the Julian day number, then E. G. Richards' Julian calendar date
    d = (4 * c + 3) // 1461
    e = c - 1461 * d // 4
    m = (5 * e + 2) // 153
    return days_from_civil(d - 4800 + m // 10, m + 3 - 12 * (m // 10), e - (153 * m + 2) // 5 + 1)


def written_timestamp(value: "dt.datetime") -> str:
    """A timestamp as Spark's csv and json writers print it with their default formats
    (``timestampFormat`` ``yyyy-MM-dd'T'HH:mm:ss[.SSS][XXX]``, ``timestampNTZFormat`` the same
    without the offset): milliseconds (the microseconds beyond them are not written), and an
    instant in UTC with ``Z`` (this package writes in UTC, as a UTC Spark session does)."""
    import datetime as dt

    suffix = ""
    if value.tzinfo is not None:
        value = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
        suffix = "Z"
    return (f"{value.year:04d}-{value.month:02d}-{value.day:02d}T{value.hour:02d}:{value.minute:02d}:"
            f"{value.second:02d}.{value.microsecond // 1000:03d}{suffix}")
