"""Spark's ``dateFormat`` / ``timestampFormat`` patterns, for the JSON reader.

Spark parses with ``java.time``'s ``DateTimeFormatter`` built from the pattern
(case-insensitive, strict resolution: no February 30th; month, day, minute and
second default to their first value; the whole text must match). Values are
days since 1970-01-01 and microseconds since the epoch (:mod:`ubunye.io.datetimes`):
years past 9999 and before 1 are read, with ``y`` signs as ``java.time`` takes them
(``yyyy``: a sign only, and then required, past four digits). Without a
pattern Spark uses its default and falls back to its lenient cast parsing
(:func:`ubunye.io.json_convert.parse_date` / ``parse_timestamp``); with one there is
no fallback: a value that does not match is a bad value.

The pattern letters followed: ``y`` (``yy`` two-digit years from 2000, else signed as above), ``M``
(``MMM``/``MMMM`` English month names), ``d``, ``H``, ``h`` with ``a``, ``m``,
``s``, ``S`` (a fraction of 1 to n digits), ``X``/``x``/``Z`` (offsets), quoted
literals, ``[...]`` optional sections and punctuation. Any other letter is
refused, naming it.
"""
from __future__ import annotations

import re
from typing import Callable, Optional

from ubunye.io.datetimes import civil_date, civil_micros, year_regex
from ubunye.io.options import UnsupportedOption

_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december"]


class PatternMismatch(ValueError):
    """A value that does not match the pattern (a bad value: null, record malformed)."""


def _field(letter: str, n: int) -> tuple[str, str]:
    """(group name, regex) of a run of ``n`` pattern letters."""
    if letter == "y":
        return ("yy", r"\d{2}") if n == 2 else ("y", year_regex(n))
    if letter == "M":
        if n == 3:
            return "Mtext", "|".join(m[:3] for m in _MONTHS)
        if n == 4:
            return "Mtext", "|".join(_MONTHS)
    if letter in "MdHhms" and n <= 2:
        return letter, r"\d{2}" if n == 2 else r"\d{1,19}"
    if letter == "S":
        return "S", rf"\d{{1,{n}}}"
    if letter == "a" and n == 1:
        return "a", "am|pm"
    if letter == "X" and n <= 3:
        return "zone", ["Z|[+-]\\d{2}(?:\\d{2})?", "Z|[+-]\\d{4}", "Z|[+-]\\d{2}:\\d{2}"][n - 1]
    if letter == "x" and n <= 3:
        return "zone", ["[+-]\\d{2}(?:\\d{2})?", "[+-]\\d{4}", "[+-]\\d{2}:\\d{2}"][n - 1]
    if letter == "Z" and n <= 3:
        return "zone", "[+-]\\d{4}"
    raise UnsupportedOption(f"pattern letters {letter * n!r} are not followed by the pandas reader of json")


def compile_pattern(pattern: str, option: str) -> "re.Pattern[str]":
    """The regex of a Spark datetime pattern (named groups per field); refuses what is not followed."""
    out: list[str] = []
    seen: set[str] = set()
    i = 0
    depth = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "'":
            end = pattern.find("'", i + 1)
            if end < 0:
                raise UnsupportedOption(f"option {option!r}: unclosed quote in pattern {pattern!r}")
            out.append(re.escape("'" if end == i + 1 else pattern[i + 1:end]))
            i = end + 1
        elif c == "[":
            out.append("(?:")
            depth += 1
            i += 1
        elif c == "]":
            out.append(")?")
            depth -= 1
            i += 1
        elif c.isalpha():
            n = 1
            while i + n < len(pattern) and pattern[i + n] == c:
                n += 1
            name, regex = _field(c, n)
            if name in seen:
                raise UnsupportedOption(f"option {option!r}: pattern {pattern!r} names a field twice")
            seen.add(name)
            out.append(f"(?P<{name}>{regex})")
            i += n
        else:
            out.append(re.escape(c))
            i += 1
    if depth != 0:
        raise UnsupportedOption(f"option {option!r}: unbalanced [ ] in pattern {pattern!r}")
    if ("h" in seen) != ("a" in seen):
        raise UnsupportedOption(f"option {option!r}: pattern {pattern!r} must use 'h' with 'a' (or 'H')")
    return re.compile("".join(out), re.IGNORECASE)


def _offset(text: Optional[str]) -> int:
    """Seconds east of UTC of a matched ``X``/``x``/``Z`` offset (UTC when absent)."""
    if not text or text.upper() == "Z":
        return 0
    sign = -1 if text[0] == "-" else 1
    body = text[1:].replace(":", "")
    hours, minutes = int(body[:2]), (int(body[2:4]) if len(body) >= 4 else 0)
    if hours > 18 or minutes > 59 or hours * 60 + minutes > 18 * 60:
        raise PatternMismatch(f"{text!r} is not a zone offset")
    return sign * (hours * 3600 + minutes * 60)


def _parts(regex: "re.Pattern[str]", text: str) -> dict:
    m = regex.fullmatch(text)
    if m is None:
        raise PatternMismatch(f"{text!r} does not match the pattern")
    g = {k: v for k, v in m.groupdict().items() if v is not None}
    year = 2000 + int(g["yy"]) if "yy" in g else int(g.get("y", 1970))
    if "Mtext" in g:
        low = g["Mtext"].lower()
        month = next(i + 1 for i, m_ in enumerate(_MONTHS) if m_ == low or m_[:3] == low)
    else:
        month = int(g.get("M", 1))
    hour = int(g.get("H", 0))
    if "h" in g:
        h = int(g["h"])
        if not 1 <= h <= 12:
            raise PatternMismatch(f"{text!r}: hour {h} is not 1 to 12")
        hour = h % 12 + (12 if g["a"].lower() == "pm" else 0)
    fraction = g.get("S", "0")
    return {"year": year, "month": month, "day": int(g.get("d", 1)), "hour": hour, "minute": int(g.get("m", 0)),
            "second": int(g.get("s", 0)), "micro": int(fraction.ljust(9, "0")[:6]), "zone": g.get("zone")}


def date_parser(pattern: str) -> Callable[[str], int]:
    """A parser of ``dateFormat`` text to days since 1970-01-01 (PatternMismatch when it does not read)."""
    regex = compile_pattern(pattern, "dateFormat")

    def parse(text: str) -> int:
        p = _parts(regex, text)
        days = civil_date(p["year"], p["month"], p["day"])
        if days is None:
            raise PatternMismatch(f"{text!r} is not a date")
        return days
    return parse


def timestamp_parser(pattern: str) -> Callable[[str], int]:
    """A parser of ``timestampFormat`` text to microseconds since the epoch; text without an offset is
    read in UTC (the engine's session time zone); an instant past 64-bit microseconds does not read."""
    regex = compile_pattern(pattern, "timestampFormat")

    def parse(text: str) -> int:
        p = _parts(regex, text)
        micros = civil_micros(p["year"], p["month"], p["day"], p["hour"], p["minute"], p["second"], p["micro"],
                              _offset(p["zone"]))
        if micros is None:
            raise PatternMismatch(f"{text!r} is not a timestamp")
        return micros
    return parse
