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

Naive text is read in the session time zone, UTC.
"""
from __future__ import annotations

import datetime as dt
import re
from typing import Optional

from ubunye.io.options import UnsupportedOption

UTC = dt.timezone.utc
_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
           "october", "november", "december"]
_WS = "".join(chr(c) for c in range(33))  # UTF8String.trimAll: whitespace and control characters

_LENIENT_TS = re.compile(
    r"(?P<sign>[+-]?)(?P<y>\d{4,6})(?:-(?P<mo>\d{1,2})(?:-(?P<d>\d{1,2})"
    r"(?:[ T](?P<h>\d{1,2})(?::(?P<mi>\d{1,2})(?::(?P<s>\d{1,2})(?:\.(?P<f>\d{0,9}))?"
    r"(?: ?(?P<z>Z|[+-]\d{1,2}(?::?\d{2})?|[A-Za-z][A-Za-z0-9/_+\-:]*))?)?)?)?)?)?\Z", re.ASCII)
_LENIENT_DATE = re.compile(r"(?P<sign>[+-]?)(?P<y>\d{4,6})(?:-(?P<mo>\d{1,2})(?:-(?P<d>\d{1,2})(?:[ T].*)?)?)?\Z",
                           re.ASCII | re.DOTALL)


def _offset(zone: Optional[str]) -> Optional[dt.timedelta]:
    if not zone:
        return None
    if zone in ("Z", "z"):
        return dt.timedelta(0)
    sign = -1 if zone[0] == "-" else 1
    digits = zone[1:].replace(":", "")
    hours, minutes = (digits[:-2], digits[-2:]) if len(digits) > 2 else (digits, "0")
    if int(hours) > 18 or int(minutes) > 59:
        raise ValueError(zone)
    return sign * dt.timedelta(hours=int(hours), minutes=int(minutes))


def _instant(y: int, mo: int, d: int, h: int, mi: int, s: int, micros: int,
             offset: Optional[dt.timedelta]) -> Optional[dt.datetime]:
    try:
        local = dt.datetime(y, mo, d, h, mi, s, micros)
    except ValueError:
        return None
    return (local - (offset or dt.timedelta(0))).replace(tzinfo=UTC)


def lenient_timestamp(text: str, with_zone: bool = True) -> Optional[dt.datetime]:
    """Spark's ``stringToTimestamp`` (an instant, UTC), or None."""
    m = _LENIENT_TS.match(text.strip(_WS))
    if not m or m["sign"] == "-" or (m["z"] and not with_zone):
        return None
    _year_in_range(m["y"])
    frac = (m["f"] or "").ljust(6, "0")[:6]
    local = (int(m["y"]), int(m["mo"] or 1), int(m["d"] or 1), int(m["h"] or 0), int(m["mi"] or 0),
             int(m["s"] or 0), int(frac))
    try:
        offset = _zone_offset(m["z"], local)
    except ValueError:
        return None
    return _instant(*local, offset)


def _year_in_range(year: str) -> None:
    if int(year) > 9999:  # Spark reads it; Python's datetime (and so this reader) cannot hold it
        raise OverflowError(f"year {int(year)} is out of the range this reader holds (1 to 9999)")


def _zone_offset(zone: Optional[str], local: tuple[int, ...]) -> Optional[dt.timedelta]:
    """The offset of a zone (``Z``, ``+01:00``, ``UTC``, ``UTC+1``, ``Europe/Paris``) at a local time."""
    if not zone:
        return None
    if zone[0] in "+-Z":
        return _offset(zone)
    for prefix in ("UTC", "GMT", "UT"):
        if zone.upper().startswith(prefix):
            rest = zone[len(prefix):]
            return dt.timedelta(0) if rest == "" else _offset(rest if rest[0] in "+-" else "x")
    from zoneinfo import ZoneInfo

    try:
        info = ZoneInfo(zone)
        offset = dt.datetime(*local, tzinfo=info).utcoffset()  # type: ignore[misc]
    except Exception:  # noqa: BLE001 - an unknown zone or an impossible time: not a timestamp
        raise ValueError(zone) from None
    return offset


def lenient_date(text: str) -> Optional[dt.date]:
    """Spark's ``stringToDate``, or None."""
    m = _LENIENT_DATE.match(text.strip(_WS))
    if not m or m["sign"] == "-":
        return None
    _year_in_range(m["y"])
    try:
        return dt.date(int(m["y"]), int(m["mo"] or 1), int(m["d"] or 1))
    except ValueError:
        return None


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
            return self._group("y", r"\d{4}" if n >= 4 else r"\d{%d,4}" % n)
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

    def _datetime(self, text: str) -> Optional[tuple[dt.datetime, Optional[dt.timedelta]]]:
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
            offset = _offset(zone if zone != "+0000" else "Z")
            value = dt.datetime(year, month, int(f.get("d", 1)), hour, int(f.get("mi", 0)), int(f.get("s", 0)),
                                micros)
        except ValueError:
            return None
        return value, offset

    def timestamp(self, text: str) -> Optional[dt.datetime]:
        """An instant (UTC) from ``text``, or None."""
        got = self._datetime(text)
        if got is None:
            return None
        value, offset = got
        return (value - (offset or dt.timedelta(0))).replace(tzinfo=UTC)

    def timestamp_ntz(self, text: str) -> Optional[dt.datetime]:
        """A wall-clock time (the offset, if any, ignored), or None."""
        got = self._datetime(text)
        return None if got is None else got[0]

    def date(self, text: str) -> Optional[dt.date]:
        got = self._datetime(text)
        return None if got is None else got[0].date()
