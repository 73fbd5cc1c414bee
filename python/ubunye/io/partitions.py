"""Hive-style partitioned folders (``key=value``) discovered and typed as Spark 4.x does it.

Spark's ``PartitioningUtils`` with ``partitionColumnTypeInference.enabled=true``:

- The data files of a folder are the visible files of every folder below it
  (names starting with ``.``, or with ``_`` and holding no ``=``, and names
  ending ``._COPYING_`` are hidden, with everything under them). A folder
  holding files is a *leaf*. Walking up from a leaf to the base path, each
  ``key=value`` folder gives a partition column; the walk stops at the base
  path, or at a plain folder once a column was found (``x/a=1`` has base ``x``).
- With no partition column anywhere, only the files directly in the path are
  read (plain sub-folders are ignored, as Spark ignores them). With partition
  columns, every leaf must reach the same base ("Conflicting directory
  structures detected" otherwise: a plain sub-folder beside partition folders)
  and name the same columns ("Conflicting partition column names detected":
  ``a=1/`` beside ``a=2/b=3/``); files of a leaf without columns (a file in
  the root beside partition folders) are not read.
- Each value is typed by the first rule that takes it: int (``01`` is 1),
  long, decimal (an integer too big for a long, or a number with no
  fraction digits left after its exponent: ``1e5`` is ``decimal(6,0)``, at
  most 38 digits), double (Java's ``Double.parseDouble``: ``1.5``, ``1.0d``,
  ``NaN``, `` 1``), timestamp (``yyyy-MM-dd HH:mm:ss[.S]``, read in UTC),
  date (``yyyy-MM-dd``), else string. ``__HIVE_DEFAULT_PARTITION__`` is null.
  A column's type is the widest of its values' types (int and long: long;
  int and double: double; long or decimal with double: string; date and
  timestamp: timestamp; any other mix: string); a column of nulls only is of
  type null (Spark's ``void``).
- Names and string values are unescaped (``%2F`` is ``/``, each ``%XX`` one
  character U+00XX); the ``basePath`` option names the base path.

Partition columns follow the data columns, in folder order; a partition
column that is also a data column (names compared ignoring case) keeps the
data column's place, with the folder's name, type and values.
"""
from __future__ import annotations

import datetime as dt

import re
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional, Union

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

DEFAULT_PARTITION = "__HIVE_DEFAULT_PARTITION__"
NULL, INT, LONG, DECIMAL, DOUBLE, DATE, TIMESTAMP, STRING = (
    "null", "int", "long", "decimal", "double", "date", "timestamp", "string")
# A partition type: one of the names above, or ("decimal", precision) for decimal(p,0).
PartType = Union[str, tuple]

_INTEGER = re.compile(r"[+-]?\d+\Z")
_BIG_DECIMAL = re.compile(r"[+-]?(\d+)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\Z|[+-]?()\.(\d+)(?:[eE]([+-]?\d+))?\Z")
_JAVA_DOUBLE = re.compile(
    r"[+-]?(?:NaN|Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fFdD]?"
    r"|0[xX](?:[0-9a-fA-F]+\.?|[0-9a-fA-F]*\.[0-9a-fA-F]+)[pP][+-]?[0-9]+[fFdD]?)\Z")
_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})\Z")
_TIMESTAMP = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2}) ([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]))?\Z")
_ESCAPED = re.compile(r"%([0-9A-Fa-f]{2})")
_JAVA_BLANK = "".join(chr(c) for c in range(33))  # String.trim()
INT32 = (-(2**31), 2**31 - 1)
INT64 = (-(2**63), 2**63 - 1)


class PartitionError(ValueError):
    """A folder layout Spark refuses (the message names the reason and the folders)."""


# --- names and values ------------------------------------------------------------------
def unescape(text: str) -> str:
    """Spark's ``unescapePathName``: each ``%XX`` (two hex digits) is the character U+00XX."""
    return _ESCAPED.sub(lambda m: chr(int(m.group(1), 16)), text)


def hidden(name: str) -> bool:
    """Spark's ``shouldFilterOutPathName`` (``_metadata`` files are not data files either)."""
    return (name.startswith("_") and "=" not in name) or name.startswith(".") or name.endswith("._COPYING_")


def _days(year: int, month: int, day: int) -> Optional[int]:
    """Days since 1970-01-01 of a valid proleptic Gregorian date (year 0 included), else None."""
    if not 1 <= month <= 12:
        return None
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    last = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    if not 1 <= day <= last:
        return None
    y = year - (month <= 2)  # days_from_civil (H. Hinnant)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def parse_date(raw: str) -> Optional[int]:
    """``yyyy-MM-dd`` as days since the epoch, or None."""
    m = _DATE.match(raw)
    return _days(int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None


def parse_timestamp(text: str) -> Optional[int]:
    """``yyyy-MM-dd HH:mm:ss[.S]`` (UTC) as microseconds since the epoch, or None."""
    m = _TIMESTAMP.match(text)
    if not m:
        return None
    days = _days(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    hour, minute, second = int(m.group(4)), int(m.group(5)), int(m.group(6))
    if days is None or hour > 23 or minute > 59 or second > 59:
        return None
    tenths = int(m.group(7) or 0)
    return ((days * 24 + hour) * 60 + minute) * 60_000_000 + second * 1_000_000 + tenths * 100_000


def parse_double(raw: str) -> Optional[float]:
    """Java's ``Double.parseDouble`` (whitespace trimmed, ``d``/``f`` suffix, hex floats), or None."""
    text = raw.strip(_JAVA_BLANK)
    if not _JAVA_DOUBLE.match(text):
        return None
    if text[-1] in "fFdD" and not text.endswith("Infinity"):
        text = text[:-1]
    return float.fromhex(text) if "x" in text.lower() else float(text)


def decimal_precision(raw: str) -> Optional[int]:
    """The precision of ``decimal(p,0)`` Spark gives a number with no fraction left, or None.

    Java's ``BigDecimal`` text; the scale (fraction digits minus exponent) must be
    at most 0; the precision is the unscaled value's digits minus the scale, at most 38.
    """
    m = _BIG_DECIMAL.match(raw)
    if not m:
        return None
    whole, frac, exp = (m.group(1), m.group(2), m.group(3)) if m.group(1) is not None else (
        m.group(4), m.group(5), m.group(6))
    frac = frac or ""
    try:
        scale = len(frac) - int(exp or 0)
    except ValueError:
        return None
    if scale > 0:
        return None
    digits = (whole + frac).lstrip("0") or "0"
    precision = len(digits) - scale
    return precision if precision <= 38 else None


def infer(raw: str) -> PartType:
    """The type Spark infers for one raw (escaped) folder value."""
    if _INTEGER.match(raw):
        value = int(raw)
        if INT32[0] <= value <= INT32[1]:
            return INT
        if INT64[0] <= value <= INT64[1]:
            return LONG
    precision = decimal_precision(raw)
    if precision is not None:
        return (DECIMAL, precision)
    if parse_double(raw) is not None:
        return DOUBLE
    if parse_timestamp(unescape(raw)) is not None:
        return TIMESTAMP
    if parse_date(raw) is not None:
        return DATE
    return NULL if raw == DEFAULT_PARTITION else STRING


def _as_decimal(t: PartType) -> Optional[int]:
    if t == INT:
        return 10
    if t == LONG:
        return 20
    return t[1] if isinstance(t, tuple) else None


def wider(a: PartType, b: PartType) -> PartType:
    """Spark's ``findWiderTypeForPartitionColumn`` of two non-null types."""
    if a == b:
        return a
    pair = {a if not isinstance(a, tuple) else DECIMAL, b if not isinstance(b, tuple) else DECIMAL}
    if pair in ({DOUBLE, DECIMAL}, {DOUBLE, LONG}):
        return STRING
    if pair == {INT, LONG}:
        return LONG
    if pair == {INT, DOUBLE}:
        return DOUBLE
    if pair == {DATE, TIMESTAMP}:
        return TIMESTAMP
    pa_, pb = _as_decimal(a), _as_decimal(b)
    if pa_ is not None and pb is not None:
        return (DECIMAL, min(max(pa_, pb), 38))
    return STRING


def resolve(raws: list[str]) -> PartType:
    """One column's type: the widest of its non-null values' types (null when none)."""
    types = [t for t in (infer(r) for r in raws) if t != NULL]
    if not types:
        return NULL
    out = types[0]
    for t in types[1:]:
        out = wider(out, t)
    return out


def arrow_type(t: PartType) -> "pa.DataType":
    import pyarrow as pa

    if isinstance(t, tuple):
        return pa.decimal128(t[1], 0)
    return {NULL: pa.null(), INT: pa.int32(), LONG: pa.int64(), DOUBLE: pa.float64(), DATE: pa.date32(),
            TIMESTAMP: pa.timestamp("us", tz="UTC"), STRING: pa.string()}[t]


def value(raw: str, t: PartType) -> Any:
    """Spark's ``castPartValueToDesiredType`` of a raw value to the column's inferred type."""
    if raw == DEFAULT_PARTITION or t == NULL:
        return None
    if t == STRING:
        return unescape(raw)
    if t in (INT, LONG):
        return int(raw)
    if t == DOUBLE:
        return parse_double(raw)
    if isinstance(t, tuple):
        return Decimal(int(Decimal(raw)))  # no fraction: the scale is at most 0
    if t == DATE:
        return parse_date(raw)  # days since the epoch
    micros = parse_timestamp(unescape(raw))
    if micros is None:
        micros = parse_date(raw) * 86_400_000_000  # type: ignore[operator]
    return micros


def column(raws: list[str], counts: list[int], t: PartType, cast: Optional[Callable[[str], Any]] = None,
           arrow: Optional["pa.DataType"] = None) -> "pa.Array":
    """One partition column: each file's value repeated for its rows."""
    import pyarrow as pa

    convert = cast or (lambda raw: value(raw, t))
    values: list[Any] = []
    for raw, n in zip(raws, counts):
        values.extend([convert(raw)] * n)
    target = arrow if arrow is not None else arrow_type(t)
    if cast is None and t in (DATE, TIMESTAMP):  # days / microseconds since the epoch
        return pa.array(values, pa.int32() if t == DATE else pa.int64()).cast(target)
    return pa.array(values, target)


# --- discovery -------------------------------------------------------------------------
@dataclass
class Layout:
    """The data files of a path and their partition values (raw folder text, in folder order)."""

    files: list[Path]
    names: list[str] = field(default_factory=list)
    raws: list[list[str]] = field(default_factory=list)  # per file, one raw value per name


def _leaves(root: Path) -> dict[Path, list[Path]]:
    """Each folder under ``root`` (itself included) holding visible files: its files, sorted."""
    out: dict[Path, list[Path]] = {}
    stack = [root]
    while stack:
        folder = stack.pop()
        found = []
        for entry in sorted(folder.iterdir()):
            if hidden(entry.name):
                continue
            if entry.is_dir():
                stack.append(entry)
            elif entry.is_file():
                found.append(entry)
            elif entry.is_symlink():  # a loop of links, or nothing at its end: never silently left out
                raise PartitionError(f"{entry}: {_unfollowable(entry)}: a link in a data folder must lead to "
                                     "a file or folder (remove it, or name it with a leading _ or .)")
        if found:
            out[folder] = found
    return dict(sorted(out.items()))


def _unfollowable(link: Path) -> str:
    try:
        link.stat()
    except OSError as exc:
        return exc.strerror or type(exc).__name__
    return "cannot be followed"


def _parse(leaf: Path, base: Path) -> tuple[list[tuple[str, str]], Path]:
    """Spark's ``parsePartition``: the leaf's (name, raw value) columns and where the walk stopped."""
    columns: list[tuple[str, str]] = []
    current = leaf
    while True:
        if current == base:
            break
        spec = current.name
        if "=" in spec:
            name, raw = spec.split("=", 1)
            name = unescape(name)
            if not name:
                raise PartitionError(f"{current}: empty partition column name in {spec!r}")
            if not raw:
                raise PartitionError(f"{current}: empty partition column value in {spec!r}")
            columns.append((name, raw))
        elif columns:
            break
        if current.parent == current:
            break
        current = current.parent
    if not columns:
        return [], leaf
    return columns[::-1], current


def base_path(path: Path, option: Optional[str]) -> Path:
    """The base path: the ``basePath`` option (a folder holding ``path``), else the path (its folder for a file)."""
    if option is None:
        return path if path.is_dir() else path.parent
    base = Path(option[7:] if option.startswith("file://") else option)
    if not base.exists():
        raise PartitionError(f"option basePath {option!r}: no such folder")
    if not base.is_dir():
        raise PartitionError(f"option basePath {option!r} must be a folder")
    a, b = base.resolve(), path.resolve()
    if a != b and a not in b.parents:
        raise PartitionError(f"option basePath {option!r} does not hold the path {str(path)!r} (wrong basePath)")
    return base


def discover(path: Path, base_option: Optional[str] = None) -> Layout:
    """The data files of ``path`` (a file or a folder) and their partition columns, as Spark finds them."""
    base = base_path(path, base_option)
    leaves = {path.parent: [path]} if path.is_file() else _leaves(path)
    parsed = {leaf: _parse(leaf.resolve(), base.resolve()) for leaf in leaves}
    with_columns = {leaf: cols for leaf, (cols, _) in parsed.items() if cols}
    if not with_columns:
        root = path.parent if path.is_file() else path
        return Layout(files=list(leaves.get(root, [])))
    bases = sorted({str(stop) for _, stop in parsed.values()})
    if len(bases) > 1:
        raise PartitionError(
            f"{path}: conflicting directory structures detected (as Spark refuses them): data files under "
            f"{bases[0]} and {bases[1]}; a plain sub-folder beside partition folders, or set basePath")
    lists = sorted({tuple(n.lower() for n, _ in cols) for cols in with_columns.values()})
    if len(lists) > 1:
        raise PartitionError(
            f"{path}: conflicting partition column names detected (as Spark refuses them): "
            f"{', '.join(lists[0])} and {', '.join(lists[1])}; data files must all be at the same depth")
    first = next(iter(with_columns.values()))
    names = [n for n, _ in first]
    lowered = [n.lower() for n in names]
    if len(set(lowered)) < len(lowered):
        dup = next(n for n in names if lowered.count(n.lower()) > 1)
        raise PartitionError(f"{path}: the partition column {dup!r} appears twice in one folder path")
    for cols in with_columns.values():
        spelled = [n for n, _ in cols]
        if spelled != names:
            other = next(b for a, b in zip(names, spelled) if a != b)
            raise PartitionError(
                f"{path}: partition folders spell the column {names[spelled.index(other)]!r} as {other!r} too; "
                "Spark names the column after one of them, picked by hash order: rename the folders")
    files: list[Path] = []
    raws: list[list[str]] = []
    for leaf, cols in with_columns.items():
        for f in leaves[leaf]:
            files.append(f)
            raws.append([raw for _, raw in cols])
    return Layout(files=files, names=names, raws=raws)


# --- the table -------------------------------------------------------------------------
_LENIENT_DATE = re.compile(r"([0-9]{4})(?:-([0-9]{1,2})(?:-([0-9]{1,2})(?:[ T].*)?)?)?\Z")


def _cast_user(raw: str, target: "pa.DataType", name: str) -> Any:
    """Spark's ``castPartValueToDesiredType`` to a type the explicit schema gives a partition column."""
    import pyarrow as pa

    if raw == DEFAULT_PARTITION:
        return None
    got: Any = None
    if pa.types.is_string(target) or pa.types.is_large_string(target):
        return unescape(raw)
    if pa.types.is_int32(target) or pa.types.is_int64(target):
        bounds = INT32 if pa.types.is_int32(target) else INT64
        if _INTEGER.match(raw) and bounds[0] <= int(raw) <= bounds[1]:
            got = int(raw)
    elif pa.types.is_float64(target):
        got = parse_double(raw)
    elif pa.types.is_boolean(target):
        got = {"true": True, "false": False}.get(raw.lower())
    elif pa.types.is_decimal(target):
        if decimal_precision(raw) is not None or _BIG_DECIMAL.match(raw):
            number = Decimal(raw).quantize(Decimal(1).scaleb(-target.scale))
            if number == Decimal(raw) and len(number.as_tuple().digits) <= target.precision:
                got = number
    elif pa.types.is_date32(target):
        m = _LENIENT_DATE.match(raw)
        if m:
            days = _days(int(m.group(1)), int(m.group(2) or 1), int(m.group(3) or 1))
            got = None if days is None else dt.date(1970, 1, 1) + dt.timedelta(days=days)
    elif pa.types.is_timestamp(target) and target.tz is not None:
        micros = parse_timestamp(unescape(raw))
        if micros is None and parse_date(raw) is not None:
            micros = parse_date(raw) * 86_400_000_000  # type: ignore[operator]
        got = None if micros is None else dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(
            microseconds=micros)
    else:
        raise PartitionError(f"partition column {name!r}: the explicit schema's type {target} is not followed "
                             "for partition columns by the pandas reader")
    if got is None:
        raise PartitionError(f"partition column {name!r}: failed to cast value {unescape(raw)!r} to {target} "
                             "(the explicit schema's type), as Spark fails")
    return got


def split_schema(schema: Optional["pa.Schema"], layout: Layout) -> Optional["pa.Schema"]:
    """The explicit schema without the partition columns: what the data files are read with."""
    if schema is None or not layout.names:
        return schema
    import pyarrow as pa

    parts = {n.lower() for n in layout.names}
    return pa.schema([f for f in schema if f.name.lower() not in parts])


def attach(table: "pa.Table", counts: list[int], layout: Layout,
           schema: Optional["pa.Schema"] = None) -> "pa.Table":
    """``table`` (the data files' rows, file by file) with the partition columns of ``layout``.

    A partition column named by the explicit ``schema`` takes its name and type
    from there and follows the data columns; else it takes its inferred type, and
    the place of a data column of the same name (ignoring case) if there is one.
    """
    if not layout.names:
        return table
    if len(counts) != len(layout.files) or sum(counts) != table.num_rows:
        raise PartitionError(f"the reader gave {len(counts)} row counts for {len(layout.files)} files")
    given = {f.name.lower(): f for f in (schema or [])}
    for i, name in enumerate(layout.names):
        raws = [r[i] for r in layout.raws]
        user = given.get(name.lower())
        if user is not None:
            col = column(raws, counts, STRING, lambda raw, t=user.type, n=name: _cast_user(raw, t, n), user.type)
            table = table.append_column(user.name, col)
            continue
        t = resolve(raws)
        col = column(raws, counts, t)
        low = [n.lower() for n in table.column_names]
        if name.lower() in low:
            table = table.set_column(low.index(name.lower()), name, col)
        else:
            table = table.append_column(name, col)
    return table
