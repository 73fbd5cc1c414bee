"""Date and timestamp text as Spark's CSV reader parses it.

- :func:`lenient_timestamp` / :func:`lenient_date`: Spark's ``stringToTimestamp`` /
  ``stringToDate``, used when no ``timestampFormat`` / ``dateFormat`` is given
  (``2024``, ``2024-1``, ``2024-01-05 1:02``, ``2024-01-05T10:00:00.123456789Z``,
  ``+01:00`` offsets; text after the day ignored for dates).
- :class:`Pattern`: a Spark datetime pattern (``dd/MM/yyyy HH:mm:ss.SSSXXX``), parsed
  strictly as Spark's ``DateTimeFormatter`` does (whole text, valid calendar dates,
  ``S...S`` one to n fraction digits, month names in any case). Letters this reader
  does not follow (week fields, zone names, optional sections) are refused in one
  line naming the option and the letter.

Values are integers, as Arrow holds them: dates are days since 1970-01-01, timestamps
microseconds since 1970-01-01T00:00Z (wall-clock micros for TIMESTAMP_NTZ), reckoned in the
proleptic Gregorian calendar with astronomical years (year 0, -1, ...), so years past 9999
and before 1 are held as Spark holds them (no Python ``datetime`` on that path). A timestamp
past the 64-bit microsecond range is not a timestamp (None), as in Spark.

Naive text is read in the session time zone, UTC.
"""
from __future__ import annotations

import datetime as dt
import re
from typing import Optional

from ubunye.io.datetimes import civil_date, civil_micros, days_from_civil, year_regex
from ubunye.io.options import UnsupportedOption

__all__ = ["Pattern", "civil_micros", "days_from_civil", "lenient_date", "lenient_timestamp"]

_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
           "october", "november", "december"]
_WS = "".join(chr(c) for c in range(33))  # UTF8String.trimAll: whitespace and control characters

_LENIENT_TS = re.compile(
    r"(?P<sign>[+-]?)(?P<y>\d{4,6})(?:-(?P<mo>\d{1,2})(?:-(?P<d>\d{1,2})"
    r"(?:[ T](?P<h>\d{1,2})(?::(?P<mi>\d{1,2})(?::(?P<s>\d{1,2})(?:\.(?P<f>\d{0,9}))?"
    r"(?: ?(?P<z>Z|[+-]\d{1,2}(?::?\d{2})?|[A-Za-z][A-Za-z0-9/_+\-:]*))?)?)?)?)?)?\Z", re.ASCII)
_LENIENT_DATE = re.compile(r"(?P<sign>[+-]?)(?P<y>\d{4,6})(?:-(?P<mo>\d{1,2})(?:-(?P<d>\d{1,2})(?:[ T].*)?)?)?\Z",
                           re.ASCII | re.DOTALL)


def _date(y: int, mo: int, d: int) -> Optional[int]:
    return civil_date(y, mo, d)


def _offset(zone: Optional[str]) -> Optional[int]:
    """Seconds east of UTC of ``Z`` / ``+01:00`` / ``-0130`` / ``+1``."""
    if not zone:
        return None
    if zone in ("Z", "z"):
        return 0
    sign = -1 if zone[0] == "-" else 1
    digits = zone[1:].replace(":", "")
    hours, minutes = (digits[:-2], digits[-2:]) if len(digits) > 2 else (digits, "0")
    if int(hours) > 18 or int(minutes) > 59:
        raise ValueError(zone)
    return sign * (int(hours) * 3600 + int(minutes) * 60)


def lenient_timestamp(text: str, with_zone: bool = True) -> Optional[int]:
    """Spark's ``stringToTimestamp`` (microseconds since the epoch, UTC), or None."""
    m = _LENIENT_TS.match(text.strip(_WS))
    if not m or (m["z"] and not with_zone):
        return None
    frac = (m["f"] or "").ljust(6, "0")[:6]
    local = ((-1 if m["sign"] == "-" else 1) * int(m["y"]), int(m["mo"] or 1), int(m["d"] or 1),
             int(m["h"] or 0), int(m["mi"] or 0), int(m["s"] or 0), int(frac))
    try:
        offset = _zone_offset(m["z"], local)
    except ValueError:
        return None
    return civil_micros(*local, offset=offset or 0)


def _zone_offset(zone: Optional[str], local: tuple[int, ...]) -> Optional[int]:
    """The offset of a zone (``Z``, ``+01:00``, ``UTC``, ``UTC+1``, ``Europe/Paris``) at a local time."""
    if not zone:
        return None
    if zone[0] in "+-Z":
        return _offset(zone)
    for prefix in ("UTC", "GMT", "UT"):
        if zone.upper().startswith(prefix):
            rest = zone[len(prefix):]
            return 0 if rest == "" else _offset(rest if rest[0] in "+-" else "x")
    from zoneinfo import ZoneInfo

    y = local[0]
    if not 1 <= y <= 9999:  # the Gregorian calendar repeats every 400 years; zone rules past the
        y = 2000 + (y - 2000) % 400  # tables are the last rule, as in java.time
    try:
        info = ZoneInfo(zone)
        offset = dt.datetime(y, *local[1:], tzinfo=info).utcoffset()  # type: ignore[misc]
    except Exception:  # noqa: BLE001 - an unknown zone or an impossible time: not a timestamp
        raise ValueError(zone) from None
    assert offset is not None
    return int(offset.total_seconds())


def lenient_date(text: str) -> Optional[int]:
    """Spark's ``stringToDate`` (days since 1970-01-01), or None."""
    m = _LENIENT_DATE.match(text.strip(_WS))
    if not m:
        return None
    return _date((-1 if m["sign"] == "-" else 1) * int(m["y"]), int(m["mo"] or 1), int(m["d"] or 1))


_FIELDS = {  # letter -> (group name, widths by count)
    "y": "y", "u": "y", "M": "mo", "L": "mo", "d": "d", "H": "h", "h": "h12", "k": "k", "K": "K12",
    "m": "mi", "s": "s", "S": "f", "a": "ampm", "X": "zX", "x": "zx", "Z": "zZ",
}


class Pattern:
    """A Spark datetime pattern, parsed strictly (see the module docstring)."""

    def __init__(self, pattern: str, option: str) -> None:
        self.pattern = pattern
        self.option = option
        self.groups: set[str] = set()
        self.regex = re.compile(self._compile(pattern) + r"\Z", re.IGNORECASE | re.ASCII)

    def _refuse(self, what: str) -> UnsupportedOption:
        return UnsupportedOption(f"option {self.option!r} {self.pattern!r}: {what} is not followed by the "
                                 "pandas reader of csv")

    def _compile(self, p: str) -> str:
        out, i = [], 0
        while i < len(p):
            c = p[i]
            if c == "'":
                end = p.find("'", i + 1)
                if end < 0:
                    raise self._refuse("an unclosed quote")
                out.append(re.escape(p[i + 1:end]) if end > i + 1 else "'")
                i = end + 1
                continue
            if not c.isalpha():
                if c in "[]{}#":
                    raise self._refuse(f"{c!r} (optional sections)")
                out.append(re.escape(c))
                i += 1
                continue
            n = 1
            while i + n < len(p) and p[i + n] == c:
                n += 1
            i += n
            out.append(self._field(c, n))
        return "".join(out)

    def _group(self, name: str, body: str) -> str:
        if name in self.groups:
            raise self._refuse(f"a repeated field ({name})")
        self.groups.add(name)
        return f"(?P<{name}>{body})"

    def _field(self, c: str, n: int) -> str:
        if c not in _FIELDS:
            raise self._refuse(f"the pattern letter {c!r}")
        name = _FIELDS[c]
        if c in "yu":
            if n == 2:
                return self._group("yy", r"\d{2}")
            # java.time: n < 4 signs NORMAL (a '-' only), n >= 4 EXCEEDS_PAD (a sign only past n digits,
            # strict); up to 19 digits (LocalDate's range is checked on the value); no minus zero
            return self._group("y", year_regex(n))
        if c in "ML":
            if n >= 5:
                raise self._refuse(f"the pattern {c * n!r}")
            if n == 3:
                return self._group("mon", "|".join(m[:3] for m in _MONTHS))
            if n == 4:
                return self._group("month", "|".join(_MONTHS))
            return self._group(name, r"\d{2}" if n == 2 else r"\d{1,2}")
        if c == "S":
            return self._group("f", r"\d{1,%d}" % min(n, 9) if n <= 9 else r"\d{%d}" % n)
        if c == "a":
            if n > 1:
                raise self._refuse(f"the pattern {c * n!r}")
            return self._group("ampm", "AM|PM")
        if c in "Xx":
            if n > 3:
                raise self._refuse(f"the pattern {c * n!r}")
            body = {1: r"[+-]\d{2}(?:\d{2})?", 2: r"[+-]\d{4}", 3: r"[+-]\d{2}:\d{2}"}[n]
            return self._group("zone", f"Z|{body}" if c == "X" else body)
        if c == "Z":
            if n > 3:
                raise self._refuse(f"the pattern {c * n!r}")
            return self._group("zone", r"[+-]\d{4}|\+0000")
        if n > 2:
            raise self._refuse(f"the pattern {c * n!r}")
        return self._group(name, r"\d{2}" if n == 2 else r"\d{1,2}")

    def fields(self, text: str) -> Optional[dict[str, str]]:
        m = self.regex.match(text)
        return None if m is None else {k: v for k, v in m.groupdict().items() if v is not None}

    def _datetime(self, text: str) -> Optional[tuple[tuple[int, ...], int]]:
        """The local fields (year .. micros) of ``text`` and its offset (seconds east of UTC)."""
        f = self.fields(text)
        if f is None:
            return None
        try:
            year = 2000 + int(f["yy"]) if "yy" in f else int(f.get("y", 1970))
            month = int(f.get("mo", 0)) or (_MONTHS.index(f["month"].lower()) + 1 if "month" in f else 0) or (
                [m[:3] for m in _MONTHS].index(f["mon"].lower()) + 1 if "mon" in f else 1)
            hour = int(f.get("h", f.get("k", 0)))
            if "k" in f:
                hour = 0 if hour == 24 else hour
                if not 1 <= int(f["k"]) <= 24:
                    return None
            if "h12" in f or "K12" in f:
                raw = int(f.get("h12", f.get("K12", 0)))
                if ("h12" in f and not 1 <= raw <= 12) or ("K12" in f and raw > 11) or "ampm" not in f:
                    return None
                hour = raw % 12 + (12 if f["ampm"].upper() == "PM" else 0)
            elif "ampm" in f:
                return None
            micros = int(f.get("f", "0").ljust(9, "0")[:6])
            zone = f.get("zone")
            offset = _offset(zone if zone != "+0000" else "Z") or 0
            local = (year, month, int(f.get("d", 1)), hour, int(f.get("mi", 0)), int(f.get("s", 0)), micros)
        except ValueError:
            return None
        if not (0 <= local[3] <= 23 and 0 <= local[4] <= 59 and 0 <= local[5] <= 59):
            return None
        return (local, offset) if days_from_civil(*local[:3]) is not None else None

    def timestamp(self, text: str) -> Optional[int]:
        """An instant (microseconds since the epoch, UTC) from ``text``, or None."""
        got = self._datetime(text)
        return None if got is None else civil_micros(*got[0], offset=got[1])

    def timestamp_ntz(self, text: str) -> Optional[int]:
        """A wall-clock time (microseconds; the offset, if any, ignored), or None."""
        got = self._datetime(text)
        return None if got is None else civil_micros(*got[0])

    def date(self, text: str) -> Optional[int]:
        """Days since 1970-01-01 from ``text``, or None."""
        got = self._datetime(text)
        return None if got is None else _date(*got[0][:3])
