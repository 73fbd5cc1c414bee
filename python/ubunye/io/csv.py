"""CSV read the way Spark reads it with ``header=true, inferSchema=true`` in a UTC session.

Spark's CSV defaults are kept: separator ``,``, quote ``"``, escape ``\\``
(so ``""`` inside a quoted value is *not* an escaped quote: an unescaped quote
makes the value run raw up to the next separator, as univocity's
``STOP_AT_DELIMITER`` does), empty fields are null, one record per line,
missing trailing fields are null. Duplicate header names get their column
index appended (``a0``, ``a1``), empty ones become ``_c<i>``.

Type inference follows Spark's ``CSVInferSchema``: each value is tried as
int, long, decimal (integers too big for a long), double, date
(``yyyy-MM-dd``), timestamp (naive values read as UTC), boolean, and the
column takes the widest type its values need; anything else is a string. An
all-null column is a string column.
"""
from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Optional

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

INT, LONG, DECIMAL, DOUBLE, DATE, TIMESTAMP, BOOL, STRING = (
    "int", "long", "decimal", "double", "date", "timestamp", "bool", "string")
CHAIN = [INT, LONG, DECIMAL, DOUBLE, DATE, TIMESTAMP, BOOL, STRING]
INT32 = (-(2**31), 2**31 - 1)
INT64 = (-(2**63), 2**63 - 1)

_INTEGER = re.compile(r"[+-]?[0-9]+\Z")
_DOUBLE = re.compile(
    r"[+-]?(NaN|Infinity|((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?))[fFdD]?\Z")
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})\Z")
_TIMESTAMP = re.compile(
    r"(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?"
    r"\s*(Z|[+-]\d{2}(?::?\d{2})?)?\Z")
_SPECIAL_DOUBLES = {"NaN": float("nan"), "Inf": float("inf"), "-Inf": float("-inf")}


def split_record(line: str, sep: str = ",", quote: str = '"', escape: str = "\\") -> list[Optional[str]]:
    """Fields of one CSV record; None for an empty (null) field."""
    fields: list[Optional[str]] = []
    i, n = 0, len(line)
    while True:
        if i < n and line[i] == quote:
            j, buf, value = i + 1, [], None
            while j < n:
                c = line[j]
                if c == escape and j + 1 < n and line[j + 1] == quote:
                    buf.append(quote)
                    j += 2
                    continue
                if c == quote:
                    if j + 1 == n or line[j + 1] == sep:  # a closing quote
                        value, j = "".join(buf), j + 1
                    else:  # an unescaped quote: the raw text up to the separator
                        end = line.find(sep, j)
                        end = n if end < 0 else end
                        value, j = line[i:end], end
                    break
                buf.append(c)
                j += 1
            if value is None:  # no closing quote on the line
                value = "".join(buf)
            fields.append(value if value != "" else None)
            i = j
        else:
            end = line.find(sep, i)
            end = n if end < 0 else end
            fields.append(line[i:end] if end > i else None)
            i = end
        if i >= n:
            return fields
        i += len(sep)
        if i == n:
            fields.append(None)
            return fields


def header_names(fields: list[Optional[str]]) -> list[str]:
    """Spark's header names: ``_c<i>`` for empty ones, ``<name><i>`` for repeats."""
    names = [f if f else f"_c{i}" for i, f in enumerate(fields)]
    lowered = [n.lower() for n in names]
    return [f"{n}{i}" if lowered.count(n.lower()) > 1 else n for i, n in enumerate(names)]


def _fits_int(v: str, bounds: tuple[int, int]) -> bool:
    return bool(_INTEGER.match(v)) and bounds[0] <= int(v) <= bounds[1]


def _is_double(v: str) -> bool:
    return v in _SPECIAL_DOUBLES or bool(_DOUBLE.match(v.strip()))


def parse_timestamp(v: str) -> Optional[dt.datetime]:
    """An instant from Spark's default timestamp text (naive text read as UTC)."""
    m = _TIMESTAMP.match(v.strip())
    if not m:
        return None
    y, mo, d, h, mi, s, frac, zone = m.groups()
    try:
        micros = int((frac or "0").ljust(9, "0")[:6])
        t = dt.datetime(int(y), int(mo), int(d), int(h or 0), int(mi or 0), int(s or 0), micros)
    except ValueError:
        return None
    offset = dt.timedelta(0)
    if zone and zone != "Z":
        sign = -1 if zone[0] == "-" else 1
        digits = zone[1:].replace(":", "")
        offset = sign * dt.timedelta(hours=int(digits[:2]), minutes=int(digits[2:4] or 0))
    return (t - offset).replace(tzinfo=dt.timezone.utc)


def parse_date(v: str) -> Optional[dt.date]:
    """A date from ``yyyy-MM-dd`` text, or None."""
    m = _DATE.match(v)
    if not m:
        return None
    try:
        return dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None


_TRIES: dict[str, Callable[[str], bool]] = {
    INT: lambda v: _fits_int(v, INT32),
    LONG: lambda v: _fits_int(v, INT64),
    DECIMAL: lambda v: bool(_INTEGER.match(v)) and len(v.lstrip("+-")) <= 38,
    DOUBLE: _is_double,
    DATE: lambda v: parse_date(v) is not None,
    TIMESTAMP: lambda v: parse_timestamp(v) is not None,
    BOOL: lambda v: v.lower() in ("true", "false"),
    STRING: lambda v: True,
}


def infer_value(type_so_far: Optional[str], v: str) -> str:
    """The type of ``v``, trying Spark's chain from ``type_so_far`` on."""
    start = CHAIN.index(type_so_far) if type_so_far else 0
    for t in CHAIN[start:]:
        if _TRIES[t](v):
            return t
    return STRING


def merge(a: Optional[str], b: str) -> str:
    """Spark's ``compatibleType`` for the CSV types."""
    if a is None or a == b:
        return b
    numeric = (INT, LONG, DECIMAL, DOUBLE)
    if a in numeric and b in numeric:
        return numeric[max(numeric.index(a), numeric.index(b))]
    if {a, b} == {DATE, TIMESTAMP}:
        return TIMESTAMP
    return STRING


def infer_types(records: Iterable[list[Optional[str]]], width: int) -> list[str]:
    """The inferred type of each of ``width`` columns over all records (string when all null)."""
    types: list[Optional[str]] = [None] * width
    for fields in records:
        for i in range(min(width, len(fields))):
            v = fields[i]
            if v is not None and types[i] != STRING:
                types[i] = merge(types[i], infer_value(types[i], v))
    return [t or STRING for t in types]


def _convert(t: str) -> Callable[[str], Any]:
    if t in (INT, LONG):
        return int
    if t == DECIMAL:
        return lambda v: Decimal(v)
    if t == DOUBLE:
        return lambda v: _SPECIAL_DOUBLES[v] if v in _SPECIAL_DOUBLES else float(v.strip().rstrip("fFdD"))
    if t == DATE:
        return parse_date
    if t == TIMESTAMP:
        return parse_timestamp
    if t == BOOL:
        return lambda v: v.lower() == "true"
    return lambda v: v


def arrow_type(t: str, values: list[Any]) -> "pa.DataType":
    """The Arrow type of an inferred CSV type (decimals sized to their widest value)."""
    import pyarrow as pa

    if t == DECIMAL:
        digits = max((len(str(abs(int(v)))) for v in values if v is not None), default=1)
        return pa.decimal128(max(digits, 1), 0)
    return {
        INT: pa.int32(), LONG: pa.int64(), DOUBLE: pa.float64(), DATE: pa.date32(),
        TIMESTAMP: pa.timestamp("us", tz="UTC"), BOOL: pa.bool_(), STRING: pa.string(),
    }[t]


# The options this reader follows (lower-case names; ubunye.io.options refuses others).
OPTIONS = ("header", "inferschema")


def read_csv(paths: list[Path], options: Optional[Mapping[str, str]] = None,
             schema: Optional["pa.Schema"] = None) -> tuple["pa.Table", list[int]]:
    """Read CSV files (each with a header line; ``.gz``/``.bz2`` decompressed) into one Arrow table.

    Returns the table (rows in the order of ``paths``) and each file's row count.
    """
    import pyarrow as pa

    from ubunye.io import open_text
    from ubunye.io.options import UnsupportedOption, flag

    opts = options or {}
    if not flag(opts, "header", True) or not flag(opts, "inferSchema", True):
        raise UnsupportedOption("options header=false and inferSchema=false are not followed by the pandas reader of csv")
    if schema is not None:
        raise UnsupportedOption("an explicit schema is not followed by the pandas reader of csv")
    names: Optional[list[str]] = None
    records: list[list[Optional[str]]] = []
    counts: list[int] = []
    for path in paths:
        with open_text(path, newline="") as handle:
            lines = [line.rstrip("\r\n") for line in handle]
        if not lines:
            counts.append(0)
            continue
        header = header_names(split_record(lines[0]))
        names = names or header
        before = len(records)
        records.extend(split_record(line) for line in lines[1:] if line != "")
        counts.append(len(records) - before)
    if names is None:
        return pa.table({}), counts
    types = infer_types(records, len(names))
    arrays = []
    for i, t in enumerate(types):
        convert = _convert(t)
        cells = [r[i] if i < len(r) else None for r in records]
        values = [None if v is None else convert(v) for v in cells]
        arrays.append(pa.array(values, arrow_type(t, values)))
    return pa.Table.from_arrays(arrays, names=names), counts
