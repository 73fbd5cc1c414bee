"""Spark's CSV type inference (``CSVInferSchema``), value by value.

A value is tried from the column's type so far along Spark's chain: int, long
(Java's ``parseInt``/``parseLong``: a sign, Unicode decimal digits), decimal (Java's
``BigDecimal`` text with scale 0 and at most 38 digits: ``99999999999999999999``,
``5.``, ``1.5E1``), double (Java's ``parseDouble``: ``1.5d``, `` 1 ``, ``NaN``,
``0x1p4``, or the ``nanValue``/``positiveInf``/``negativeInf`` text), date (``dateFormat``,
strict ``yyyy-MM-dd`` by default, when ``preferDate``), timestamp (``timestampFormat``
or Spark's lenient form: ``2024-1-5``, ``2024-01``), boolean, string. Types merge as
Spark's ``compatibleType``: integers widen to decimals (an int is ``DECIMAL(10,0)``,
a long ``DECIMAL(20,0)``), decimals to double past 38 digits, a date column with
timestamps becomes a timestamp column only when both use Spark's default forms.

A type is a string (``"int"``, ``"long"``, ``"double"``, ``"date"``, ``"timestamp"``,
``"bool"``, ``"string"``) or ``("decimal", precision, scale)``; None is Spark's NullType.
"""
from __future__ import annotations

import re
from typing import Any, Callable, Iterable, Optional, Union

from ubunye.io.csv_datetime import Pattern, lenient_timestamp
from ubunye.io.csv_options import CsvOptions

Type = Union[str, tuple]
INT32 = (-(2**31), 2**31 - 1)
INT64 = (-(2**63), 2**63 - 1)
_INTEGER = re.compile(r"[+-]?\d+\Z")  # Unicode decimal digits, as Java's Character.digit
_BIG_DECIMAL = re.compile(r"[+-]?(?P<int>\d*)(?:\.(?P<frac>\d*))?(?:[eE](?P<exp>[+-]?\d+))?\Z")
_JAVA_DOUBLE = re.compile(
    r"[+-]?(NaN|Infinity|((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[fFdD]?)"
    r"|0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?\d+[fFdD]?)\Z", re.ASCII)
_JAVA_WS = "".join(chr(c) for c in range(33))
# dateFormat values whose dates Spark's lenient timestamp parser also reads
_LENIENT_DATE_FORMATS = {"yyyy-MM-dd", "yyyy-M-d", "yyyy-M-dd", "yyyy-MM-d", "yyyy-MM", "yyyy-M", "yyyy"}


def java_int(v: str, bounds: tuple[int, int]) -> Optional[int]:
    """Java's ``parseInt``/``parseLong`` within ``bounds``, or None."""
    if not _INTEGER.match(v):
        return None
    n = int(v)
    return n if bounds[0] <= n <= bounds[1] else None


def big_decimal(v: str) -> Optional[tuple[int, int, int]]:
    """``(unscaled, precision, scale)`` of Java's ``new BigDecimal(v)``, or None."""
    m = _BIG_DECIMAL.match(v)
    if not m or not (m["int"] or m["frac"]):
        return None
    digits = (m["int"] or "") + (m["frac"] or "")
    unscaled = int(digits) * (-1 if v.startswith("-") else 1)
    scale = len(m["frac"] or "") - int(m["exp"] or 0)
    return unscaled, max(len(str(abs(unscaled))), 1), scale


def java_double(v: str) -> Optional[float]:
    """Java's ``Double.parseDouble`` (surrounding whitespace trimmed), or None."""
    text = v.strip(_JAVA_WS)
    if not _JAVA_DOUBLE.match(text):
        return None
    body = text.rstrip("fFdD") if not text.endswith(("NaN", "Infinity")) else text
    if "x" in body.lower():
        sign = -1.0 if body.startswith("-") else 1.0
        return sign * float.fromhex(body.lstrip("+-"))
    return float(body.replace("Infinity", "inf"))


class Inferrer:
    """Spark's ``CSVInferSchema`` for one set of options."""

    def __init__(self, o: CsvOptions) -> None:
        self.o = o
        date_format = o.date_format or ("yyyy-MM-dd" if o.prefer_date else None)
        self.date_format = date_format
        self.date = Pattern(date_format, "dateFormat").date if date_format else None
        if o.timestamp_format:
            self.timestamp: Callable[[str], Any] = Pattern(o.timestamp_format, "timestampFormat").timestamp
        else:
            self.timestamp = lenient_timestamp
        self.specials = {o.nan_value, o.positive_inf, o.negative_inf}

    def field(self, so_far: Optional[Type], v: Optional[str]) -> Optional[Type]:
        """The column's type after value ``v`` (None and ``nullValue`` leave it as it was)."""
        if v is None or v == "" or v == self.o.null_value:
            return so_far
        if so_far is None or so_far == "int":
            t = self._int(v)
        elif so_far == "long":
            t = self._long(v)
        elif isinstance(so_far, tuple):
            t = self._decimal(v)
        elif so_far == "double":
            t = self._double(v)
        elif so_far == "date":
            t = self._date(v)
        elif so_far == "timestamp":
            t = self._timestamp(v)
        elif so_far == "bool":
            t = self._bool(v)
        else:
            return "string"
        return self.merge(so_far, t) or "string"

    def _int(self, v: str) -> Type:
        return "int" if java_int(v, INT32) is not None else self._long(v)

    def _long(self, v: str) -> Type:
        return "long" if java_int(v, INT64) is not None else self._decimal(v)

    def _decimal(self, v: str) -> Type:
        parsed = big_decimal(v)
        if parsed is not None and parsed[2] == 0 and parsed[1] <= 38:
            return ("decimal", parsed[1], 0)
        return self._double(v)

    def _double(self, v: str) -> Type:
        if java_double(v) is not None or v in self.specials:
            return "double"
        return self._date(v) if self.o.prefer_date else self._timestamp(v)

    def _date(self, v: str) -> Type:
        if self.date is not None and self.date(v) is not None:
            return "date"
        return self._timestamp(v)

    def _timestamp(self, v: str) -> Type:
        return "timestamp" if self.timestamp(v) is not None else self._bool(v)

    def _bool(self, v: str) -> Type:
        return "bool" if v.lower() in ("true", "false") else "string"

    def merge(self, a: Optional[Type], b: Optional[Type]) -> Optional[Type]:
        """Spark's ``CSVInferSchema.compatibleType``; None when there is none."""
        if a is None or a == b:
            return b
        if b is None:
            return a
        order = ("int", "long", "double")
        if a in order and b in order:
            return order[max(order.index(a), order.index(b))]  # type: ignore[arg-type]
        if "string" in (a, b):
            return "string"
        if isinstance(a, tuple) or isinstance(b, tuple):
            as_dec = {"int": ("decimal", 10, 0), "long": ("decimal", 20, 0)}
            x, y = as_dec.get(a, a), as_dec.get(b, b)  # type: ignore[call-overload]
            if "double" in (x, y):
                return "double"
            if isinstance(x, tuple) and isinstance(y, tuple):
                scale = max(x[2], y[2])
                whole = max(x[1] - x[2], y[1] - y[2])
                return "double" if whole + scale > 38 else ("decimal", whole + scale, scale)
            return None
        if {a, b} == {"date", "timestamp"}:
            lenient = self.o.timestamp_format is None and self.date_format in _LENIENT_DATE_FORMATS
            return "timestamp" if lenient else "string"
        return None

    def infer(self, records: Iterable[list[Optional[str]]], width: int) -> list[Optional[Type]]:
        """Each of ``width`` columns' type over ``records`` (None: no value seen)."""
        types: list[Optional[Type]] = [None] * width
        for fields in records:
            for i in range(min(width, len(fields))):
                if types[i] != "string":
                    types[i] = self.field(types[i], fields[i])
        return types
