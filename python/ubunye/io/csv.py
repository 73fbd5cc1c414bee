"""CSV read the way Spark 4.x reads it (``header=true, inferSchema=true`` by default, a UTC session).

Options follow Spark's meaning (:mod:`.csv_options`): ``sep``/``delimiter``, ``quote``,
``escape``, ``comment``, ``header``, ``inferSchema``, ``nullValue``, ``emptyValue``,
``nanValue``, ``positiveInf``, ``negativeInf``, ``dateFormat``, ``timestampFormat``,
``timestampNTZFormat``, ``multiLine``, ``encoding``/``charset``, ``ignoreLeadingWhiteSpace``,
``ignoreTrailingWhiteSpace``, ``lineSep``, ``mode``, ``enforceSchema``, ``preferDate``.

Records: one per line (``\\n``, ``\\r`` or ``\\r\\n``, or ``lineSep``), blank lines and
lines starting with ``comment`` skipped; with ``multiLine`` a quoted value may hold line
breaks. Within a quoted value ``escape`` followed by ``quote`` is a quote; a stray quote
after a quoted value makes the raw text run to the separator (univocity's
``STOP_AT_DELIMITER``). An empty field is null, an empty quoted field is ``emptyValue``,
a field equal to ``nullValue`` is null. Bytes that are not valid in the encoding become
U+FFFD. Header names: ``_c<i>`` for empty ones, ``<name><i>`` for names repeated in any
case; the header is the largest file's (Spark reads it first), every file's first record
is skipped, and with ``enforceSchema=false`` a file whose header names differ is refused.

Types: inferred as Spark infers them (:mod:`.csv_infer`), all strings with
``inferSchema=false``, or an explicit schema. A value that does not convert is
malformed, as is a record with too few or too many fields: ``PERMISSIVE`` makes the
value null (missing fields null, extra ones dropped), ``DROPMALFORMED`` drops the record,
``FAILFAST`` refuses naming the file and line.
"""
from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, Optional

from ubunye.io import csv_datetime as dates
from ubunye.io.compressed import read_bytes
from ubunye.io.csv_infer import INT32, INT64, Inferrer, Type, big_decimal, java_double, java_int
from ubunye.io.csv_options import FOLLOWED, NUL, CsvOptions, parse
from ubunye.io.java_text import java_decode
from ubunye.io.univocity import CsvTokenizer, UnivocityError
from ubunye.io.options import UnsupportedOption

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

# The options this reader follows (lower-case names; ubunye.io.options refuses others).
OPTIONS = FOLLOWED
_WS = "".join(chr(c) for c in range(33))
EMPTY = ""  # an empty quoted field, before emptyValue


class Malformed(ValueError):
    """A malformed record read with ``mode=FAILFAST`` (names the file and line)."""


def tokenizer(o: CsvOptions) -> CsvTokenizer:
    """univocity's parser with Spark's settings for these options (:mod:`.univocity`)."""
    return CsvTokenizer(sep=o.sep, quote=o.quote, escape=o.escape,
                        comment=None if o.comment == NUL else o.comment, line_sep=o.line_sep,
                        multi_line=o.multi_line, ignore_leading=o.ignore_leading,
                        ignore_trailing=o.ignore_trailing, null_value=o.null_value, empty_value=o.empty_value)


def split_record(line: str, sep: str = ",", quote: str = '"', escape: str = "\\",
                 o: Optional[CsvOptions] = None) -> list[Optional[str]]:
    """Fields of one CSV line as Spark reads it; None for an empty (or ``nullValue``) field."""
    o = o or CsvOptions(sep=sep, quote=quote, escape=escape)
    return [None if f == o.null_value else f for f in tokenizer(o).parse_line(line) or []]


def records(text: str, o: CsvOptions) -> Iterator[tuple[int, list[str]]]:
    """``(line number, values)`` of each record of a file's text, as Spark's reader gives them.

    Line by line (Hadoop's line reader: ``\\n``, ``\\r``, ``\\r\\n`` or ``lineSep``), blank and
    comment lines skipped, each line parsed by one tokenizer kept for the file; with
    ``multiLine`` the whole text is parsed. A line univocity makes no record of is ``[]``.
    """
    parser = tokenizer(o)
    if o.multi_line:
        yield from parser.records(text)
        return
    lines = text.split(o.line_sep) if o.line_sep else _lines(text)
    for number, line in enumerate(lines, 1):
        if line.strip(_WS) and not (o.comment != NUL and line.startswith(o.comment)):
            yield number, parser.parse_line(line) or []


def infer_value(type_so_far: Optional[Type], v: str) -> Optional[Type]:
    """The type of a column after value ``v`` with the default options (:class:`.csv_infer.Inferrer`)."""
    return Inferrer(CsvOptions()).field(type_so_far, v)


def _lines(text: str) -> list[str]:
    """Lines split as Hadoop's line reader splits them: ``\\n``, ``\\r`` or ``\\r\\n``."""
    out = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return out[:-1] if out and out[-1] == "" else out


def header_names(fields: list[Optional[str]], null_value: str = "") -> list[str]:
    """Spark's header names: ``_c<i>`` for empty (or ``nullValue``) ones, ``<name><i>`` for repeats (any case)."""
    names = [f if f and f != null_value else f"_c{i}" for i, f in enumerate(fields)]
    lowered = [n.lower() for n in names]
    return [f"{n}{i}" if lowered.count(n.lower()) > 1 else n for i, n in enumerate(names)]


def _read_text(path: Path, o: CsvOptions) -> str:
    data = read_bytes(path)
    text = java_decode(data, o.encoding)  # Spark's decoder: U+FFFD for bad bytes, counted as Java does
    return text[1:] if text.startswith("\ufeff") else text  # a byte-order mark is skipped


def _converter(t: Any, o: CsvOptions) -> Callable[[str], Any]:
    """Spark's ``UnivocityParser.makeConverter`` for an Arrow type: text -> value, ValueError if malformed."""
    import pyarrow as pa

    def need(value: Any) -> Any:
        if value is None:
            raise ValueError("malformed")
        return value

    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return lambda v: v
    if pa.types.is_integer(t) and pa.types.is_signed_integer(t):
        bits = t.bit_width
        bounds = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
        return lambda v: need(java_int(v, bounds))
    if pa.types.is_floating(t):
        specials = {o.nan_value: float("nan"), o.negative_inf: float("-inf"), o.positive_inf: float("inf")}
        return lambda v: specials[v] if v in specials else need(java_double(v))
    if pa.types.is_decimal(t):
        return lambda v: _decimal(v, t.precision, t.scale)
    if pa.types.is_boolean(t):
        return lambda v: need({"true": True, "false": False}.get(v.lower()))
    if pa.types.is_date32(t):
        pattern = dates.Pattern(o.date_format or "yyyy-MM-dd", "dateFormat")
        fallback = o.date_format is None
        return lambda v: need(pattern.date(v) or (dates.lenient_date(v) if fallback else None))
    if pa.types.is_timestamp(t):
        ntz = t.tz is None
        fmt = o.timestamp_ntz_format if ntz else o.timestamp_format
        if fmt:
            p = dates.Pattern(fmt, "timestampNTZFormat" if ntz else "timestampFormat")
            parse_one = p.timestamp_ntz if ntz else p.timestamp
            return lambda v: need(parse_one(v))
        if ntz:
            return lambda v: need(dates.lenient_timestamp(v, with_zone=False))
        return lambda v: need(dates.lenient_timestamp(v))
    if pa.types.is_binary(t):
        return lambda v: v.encode("utf-8")
    raise UnsupportedOption(f"CSV data source does not support {t} data type")


def _decimal(v: str, precision: int, scale: int) -> Decimal:
    parsed = big_decimal(v.replace(",", ""))  # Spark's decimal parser (locale en-US) drops commas
    if parsed is None:
        raise ValueError("malformed")
    unscaled, _, s = parsed
    value = Decimal(unscaled).scaleb(-s)
    try:
        value = value.quantize(Decimal(1).scaleb(-scale), rounding=ROUND_HALF_UP)
    except InvalidOperation:
        raise ValueError("malformed") from None
    if len(value.as_tuple().digits) > precision and value != 0:
        raise ValueError("malformed")
    return value


def arrow_type(t: Optional[Type]) -> "pa.DataType":
    """The Arrow type of an inferred CSV type (None: string)."""
    import pyarrow as pa

    if isinstance(t, tuple):
        return pa.decimal128(t[1], t[2])
    return {
        None: pa.string(), "int": pa.int32(), "long": pa.int64(), "double": pa.float64(), "date": pa.date32(),
        "timestamp": pa.timestamp("us", tz="UTC"), "bool": pa.bool_(), "string": pa.string(),
    }[t]


def read_csv(paths: list[Path], options: Optional[Mapping[str, str]] = None,
             schema: Optional["pa.Schema"] = None) -> tuple["pa.Table", list[int]]:
    """Read CSV files (``.gz``/``.bz2`` decompressed) into one Arrow table, as Spark reads them.

    Returns the table (rows in the order of ``paths``) and each file's row count.
    """
    import pyarrow as pa

    o = parse(options or {})
    files = []
    for path in paths:
        # Spark splits a file into byte ranges: a file of no bytes is never read
        try:
            recs = list(records(_read_text(path, o), o)) if path.stat().st_size else []
        except UnivocityError as exc:
            raise UnivocityError(f"{path.name}: {exc}") from None
        files.append((path, recs[0][1] if o.header and recs else None, recs[1:] if o.header else recs))
    # Spark reads the largest file first: its first record is the header (or gives the width)
    first = next((f for f in sorted(files, key=lambda f: -f[0].stat().st_size) if f[1] or f[2]), None)
    if schema is None and first is None:
        return pa.table({}), [0] * len(paths)
    if schema is None:
        assert first is not None
        head = first[1] if o.header else first[2][0][1]
        names = header_names(head, o.null_value) if o.header else [f"_c{i}" for i in range(len(head))]
        types: list[Any] = [None] * len(names)
        if o.infer_schema:
            inferrer = Inferrer(o)
            for _, header, recs in sorted(files, key=lambda f: -f[0].stat().st_size):
                lines = list(recs) if header is None or header == first[1] else [(0, header)] + recs
                # Spark's inference skips every record equal to the header (the read keeps them)
                data = (fields for _, fields in lines if not (o.header and fields == first[1]))
                per_file = inferrer.infer(data, len(names))
                types = [inferrer.merge(a, b) or "string" for a, b in zip(types, per_file)]
        schema = pa.schema([(n, arrow_type(t)) for n, t in zip(names, types)])
    if not o.enforce_schema and o.header:
        _check_headers(files, schema)
    convert = [_converter(f.type, o) for f in schema]
    columns: list[list[Any]] = [[] for _ in schema]
    counts = []
    for path, _header, recs in files:
        count = 0
        for number, fields in recs:
            row = _row(fields, convert, o, path, number)
            if row is not None:
                for column, value in zip(columns, row):
                    column.append(value)
                count += 1
        counts.append(count)
    arrays = [_array(values, f.type) for values, f in zip(columns, schema)]
    return pa.Table.from_arrays(arrays, schema=pa.schema([f.with_nullable(True) for f in schema])), counts


def _array(values: list[Any], t: "pa.DataType") -> "pa.Array":
    """An Arrow array; dates and timestamps come as integers (days, microseconds: csv_datetime)."""
    import pyarrow as pa

    if pa.types.is_date32(t):
        return pa.array(values, pa.int32()).cast(t)
    if pa.types.is_timestamp(t):
        return pa.array(values, pa.int64()).cast(t)
    return pa.array(values, t)


def _row(fields: list[Optional[str]], convert: list[Callable[[str], Any]], o: CsvOptions, path: Path,
         number: int) -> Optional[list[Any]]:
    """One record's values; None when DROPMALFORMED drops it."""
    width = len(convert)
    bad = None if len(fields) == width else f"{width} fields expected, {len(fields)} found"
    row: list[Any] = []
    for i, conv in enumerate(convert):
        v = fields[i] if i < len(fields) else None
        if v is None or v == o.null_value:
            row.append(None)
            continue
        try:
            row.append(conv(v))
        except ValueError:
            bad = bad or f"value {v[:40]!r} of column {i} does not convert"
            row.append(None)
    if bad is None or o.mode == "PERMISSIVE":
        return row
    if o.mode == "DROPMALFORMED":
        return None
    raise Malformed(f"{path.name} line {number}: malformed record ({bad}) in mode FAILFAST")


def _check_headers(files: list[Any], schema: "pa.Schema") -> None:
    """``enforceSchema=false``: each file's header must name the schema's columns (any case)."""
    expected = [f.name.lower() for f in schema]
    for path, header, _ in files:
        if header is None:
            continue
        got = [(h or f"_c{i}").lower() for i, h in enumerate(header)]
        if got != expected:
            raise Malformed(f"{path.name}: CSV header {header} does not conform to the schema "
                            f"{[f.name for f in schema]} (enforceSchema=false)")
