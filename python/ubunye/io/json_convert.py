"""Parsed JSON values converted to a column's type as Spark's ``JacksonParser`` converts them.

A value that does not fit its type (an empty string in a number column, ``1.5``
in an int column, ``"x"`` in a boolean column ...) is a *bad record*: the value
is null and the record is flagged (``errors`` gets the reason), and the read
mode decides what happens to the record. A struct keeps the fields that did
convert (Spark's partial results); an array with one bad element is null.

Types are those of :mod:`ubunye.io.json_infer`, plus, for an explicit schema,
``("int", bits)``, ``"float"``, ``"date"``, ``"timestamp"`` and ``"binary"``.
Dates are days since 1970-01-01 and timestamps microseconds since the epoch in UTC
(:mod:`ubunye.io.datetimes`), so years past 9999 and before 1 are held as Spark holds them.
"""
from __future__ import annotations

import base64
import binascii
import re
import struct as _struct
from decimal import ROUND_HALF_UP, Context, Decimal, InvalidOperation, localcontext
from typing import TYPE_CHECKING, Any, Callable, Optional

from ubunye.io.datetimes import INT32, INT64, civil_date, civil_micros, julian_to_gregorian_days
from ubunye.io.json_infer import SparkType
from ubunye.io.json_parse import JArr, JObj, Num, raw_text

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

_SPECIAL_TEXT = {"NaN": float("nan"), "Infinity": float("inf"), "+Infinity": float("inf"),
                 "+INF": float("inf"), "-Infinity": float("-inf"), "-INF": float("-inf")}
_JULIAN_YEAR_1 = -719164  # 0001-01-01 (Julian) in days since the epoch
# DateTimeUtils.stringToDate: yyyy, yyyy-[m]m, yyyy-[m]m-[d]d, then ' ' or 'T' and anything
_DATE = re.compile(r"([+-]?\d{4,7})(?:-(\d{1,2})(?:-(\d{1,2})(?:[ T].*)?)?)?", re.S)
# DateTimeUtils.stringToTimestamp, its common forms: date, then ' ' or 'T' and [h]h:[m]m[:[s]s[.fraction]], zone
_TS = re.compile(r"([+-]?\d{4,7})(?:-(\d{1,2})(?:-(\d{1,2})(?:[ T](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,9}))?)?"
                 r"\s*(Z|UTC|[+-]\d{1,2}(?::?\d{2})?)?)?)?)?")


class Bad(ValueError):
    """One value that does not convert (the record is malformed)."""


def _int_range(bits: int) -> tuple[int, int]:
    return -(2 ** (bits - 1)), 2 ** (bits - 1) - 1


def _offset(text: Optional[str]) -> int:
    """Seconds east of UTC of ``Z`` / ``UTC`` / ``+01:00`` / ``-0130`` / ``+1`` (at most 18 hours, as java.time)."""
    if text is None or text in ("Z", "UTC"):
        return 0
    sign = -1 if text[0] == "-" else 1
    body = text[1:].replace(":", "")
    hours, minutes = (int(body[:-2]), int(body[-2:])) if len(body) > 2 else (int(body), 0)
    if hours > 18 or minutes > 59 or hours * 60 + minutes > 18 * 60:
        raise Bad(f"{text!r} is not a zone offset")
    return sign * (hours * 3600 + minutes * 60)


def parse_date(text: str) -> int:
    """A date (days since 1970-01-01) as Spark reads it with the default ``dateFormat`` (and its fallback).

    Years past 9999 and before 1 are read (astronomical years, ``+12024``, ``-0001``).
    """
    s = text.strip()
    m = _DATE.fullmatch(s)
    if m:
        days = civil_date(int(m.group(1)), int(m.group(2) or 1), int(m.group(3) or 1))
        if days is None:
            raise Bad(f"{text!r} is not a date")
        return days
    if re.fullmatch(r"[+-]?\d+", s):  # Spark 1.5 wrote days since the epoch (a Java int, Julian before 1582)
        days = int(s)
        if not INT32[0] <= days <= INT32[1]:
            raise Bad(f"{text!r} is not a date")
        if days >= _JULIAN_YEAR_1:  # rebaseJulianToGregorianDays; later days reaching here (under 4 digits or
            return days  # past 7) are past 1582: unchanged
        rebased = julian_to_gregorian_days(days)
        if rebased is None:
            raise Bad(f"{text!r} is not a date (no such Gregorian date)")
        return rebased
    raise Bad(f"{text!r} is not a date")


def parse_timestamp(text: str) -> int:
    """A timestamp (microseconds since the epoch, UTC) as Spark reads it with the default ``timestampFormat``
    (and its fallback); years past 9999 and before 1 are read, an instant past 64-bit microseconds is bad."""
    m = _TS.fullmatch(text.strip())
    if not m:
        raise Bad(f"{text!r} is not a timestamp")
    year, month, day, hour, minute, second, fraction, zone = m.groups()
    micros = civil_micros(int(year), int(month or 1), int(day or 1), int(hour or 0), int(minute or 0),
                          int(second or 0), int((fraction or "0").ljust(6, "0")[:6]), _offset(zone))
    if micros is None:
        raise Bad(f"{text!r} is not a timestamp")
    return micros


def _seconds_to_micros(raw: str) -> int:
    """A JSON integer of seconds as microseconds: Jackson's long (else bad) times 10**6, wrapping as Java's does."""
    n = int(raw)
    if not INT64[0] <= n <= INT64[1]:
        raise Bad(f"{raw} is out of the range of a long")
    return (n * 1_000_000 - INT64[0]) % 2 ** 64 + INT64[0]


def convert(v: Any, t: SparkType, errors: list) -> Any:
    """``v`` as a value of type ``t``; a bad value is None and its reason is appended to ``errors``."""
    if v is None:
        return None
    try:
        return _convert(v, t, errors)
    except (Bad, ValueError, ArithmeticError, InvalidOperation, OverflowError) as exc:
        errors.append(str(exc) or f"cannot read {raw_text(v)!r} as {t}")
        return None


def _convert(v: Any, t: SparkType, errors: list) -> Any:
    tag = t[0] if isinstance(t, tuple) else t
    if tag == "string":
        return raw_text(v)
    if isinstance(v, str) and v == "":
        raise Bad(f"an empty string is not a {tag}")
    if tag == "bool":
        if v is True or v is False:
            return v
    elif tag == "long" or tag == "int":
        if isinstance(v, Num) and v.kind == "int":
            bits = 64 if tag == "long" else t[1]  # type: ignore[index]
            low, high = _int_range(bits)
            n = int(v.raw)
            if bits == 8 and high < n <= 255:
                return n - 256  # Jackson's getByteValue takes 128..255 as unsigned bytes
            if low <= n <= high:
                return n
            raise Bad(f"{v.raw} is out of range")
    elif tag == "double" or tag == "float":
        if isinstance(v, Num):
            # an integer token reads as its long (or big integer) value: -0 is 0.0, as Jackson reads it
            x = float(int(v.raw)) if v.kind == "int" else float(v.raw.lstrip("+"))
            return _struct.unpack("f", _struct.pack("f", x))[0] if tag == "float" and abs(x) < 3.5e38 else x
        if isinstance(v, str) and v in _SPECIAL_TEXT:
            return _SPECIAL_TEXT[v]
    elif tag == "decimal":
        _, precision, scale = t  # type: ignore[misc]
        if isinstance(v, Num) and v.kind != "special":
            d = Decimal(v.raw)
        elif isinstance(v, str) and re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", v.replace(",", "")):
            d = Decimal(v.replace(",", ""))
        else:
            raise Bad(f"{raw_text(v)!r} is not a decimal")
        with localcontext(Context(prec=100)):
            d = d.quantize(Decimal(1).scaleb(-scale), rounding=ROUND_HALF_UP)
        if len(d.as_tuple().digits) > precision and d != 0:
            raise Bad(f"{raw_text(v)} does not fit decimal({precision},{scale})")
        return d
    elif tag == "date":  # ("date", parser) with a dateFormat
        if isinstance(v, str):
            return t[1](v) if isinstance(t, tuple) else parse_date(v)
    elif tag == "timestamp":  # ("timestamp", parser) with a timestampFormat
        if isinstance(v, str):
            return t[1](v) if isinstance(t, tuple) else parse_timestamp(v)
        if isinstance(v, Num) and v.kind == "int":
            return _seconds_to_micros(v.raw)
    elif tag == "binary":
        if isinstance(v, str):
            try:
                return base64.b64decode(v, validate=False)
            except binascii.Error as exc:
                raise Bad(f"{v!r} is not Base64") from exc
    elif tag == "array":
        if isinstance(v, JArr):
            inner: list = []
            values = [convert(e, t[1], inner) for e in v]  # type: ignore[index]
            if inner:
                errors.extend(inner)
                return None  # Spark keeps no part of an array with a bad element
            return values
    elif tag == "struct":
        if isinstance(v, JObj):
            return convert_fields(v, t[1], errors)  # type: ignore[index]
    raise Bad(f"cannot read {raw_text(v)!r} as {tag}")


def convert_fields(obj: JObj, fields: tuple, errors: list) -> dict:
    """A JSON object as a struct of ``fields`` (names matched exactly). A name given twice
    takes the later value, unless that one fails to convert: Spark updates the row only when
    a value converts (or converts in part, a struct with a bad field)."""
    types = dict(fields)
    out = {name: None for name, _ in fields}
    for key, value in obj:
        if key in types:
            before = len(errors)
            got = convert(value, types[key], errors)
            if got is not None or len(errors) == before:
                out[key] = got
    return out


def with_formats(t: SparkType, date: Optional[Callable], timestamp: Optional[Callable]) -> SparkType:
    """``t`` with its date and timestamp types parsed by the given parsers (dateFormat, timestampFormat)."""
    if t == "date" and date is not None:
        return ("date", date)
    if t == "timestamp" and timestamp is not None:
        return ("timestamp", timestamp)
    if isinstance(t, tuple) and t[0] == "array":
        return ("array", with_formats(t[1], date, timestamp))
    if isinstance(t, tuple) and t[0] == "struct":
        return ("struct", tuple((n, with_formats(x, date, timestamp)) for n, x in t[1]))
    return t


def from_arrow(t: "pa.DataType") -> SparkType:
    """The converter type of an Arrow type from an explicit schema; refuses types not followed."""
    import pyarrow.types as pt

    if pt.is_string(t) or pt.is_large_string(t):
        return "string"
    if pt.is_boolean(t):
        return "bool"
    if pt.is_int64(t):
        return "long"
    if pt.is_int8(t) or pt.is_int16(t) or pt.is_int32(t):
        return ("int", t.bit_width)
    if pt.is_float64(t):
        return "double"
    if pt.is_float32(t):
        return "float"
    if pt.is_decimal(t):
        return ("decimal", t.precision, t.scale)
    if pt.is_date32(t):
        return "date"
    if pt.is_timestamp(t) and t.tz is not None:
        return "timestamp"
    if pt.is_binary(t):
        return "binary"
    if pt.is_list(t) or pt.is_large_list(t):
        return ("array", from_arrow(t.value_type))
    if pt.is_struct(t):
        return ("struct", tuple((t.field(i).name, from_arrow(t.field(i).type)) for i in range(t.num_fields)))
    raise ValueError(f"json: the pandas reader does not read a {t} column of an explicit schema")
