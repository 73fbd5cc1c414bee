"""JSON read the way Spark's ``spark.read.json`` reads it, options included.

Records are lines (``lineSep``, by default any of ``\\n``, ``\\r\\n``, ``\\r``)
or, with ``multiLine``, whole files; a record holds one JSON object or an
array of objects (one row each); text after the first value is ignored, as
Spark ignores it. Parsing follows Jackson's grammar as Spark's options set it
(:mod:`.json_parse`), types are inferred and merged as Spark infers them
(:mod:`.json_infer`), and values are converted as Spark converts them
(:mod:`.json_convert`). A record that does not parse or convert is malformed:
``mode`` PERMISSIVE (default) keeps it with the fields that converted and its
text in ``_corrupt_record`` (added to an inferred schema only when some record
is malformed); DROPMALFORMED drops it; FAILFAST refuses the read. Options:
see :data:`OPTIONS` and :mod:`.json_options`.
"""
from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Optional

from ubunye.io.json_convert import convert_fields, from_arrow, with_formats
from ubunye.io.json_datetime import date_parser, timestamp_parser
from ubunye.io.json_infer import (InferenceRefused, canonical, duplicate_name, infer, merge,
                                  to_arrow_type, with_field)
from ubunye.io.json_options import JsonOptions, records
from ubunye.io.json_parse import EMPTY, JArr, JObj, JsonSyntax, parse_root
from ubunye.io.json_partial import partial_row
from ubunye.io.names import DuplicateColumns, message

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

# The options this reader follows (lower-case names; ubunye.io.options refuses others).
OPTIONS: tuple[str, ...] = (
    "multiline", "primitivesasstring", "prefersdecimal", "allowcomments", "allowunquotedfieldnames",
    "allowsinglequotes", "allownumericleadingzeros", "allownonnumericnumbers", "encoding", "charset",
    "linesep", "dropfieldifallnull", "mode", "columnnameofcorruptrecord", "dateformat", "timestampformat",
)


class MalformedRecord(ValueError):
    """A malformed record under ``mode=FAILFAST`` (the message names the file and record)."""


def _parse(text: Optional[str], opts: JsonOptions) -> Any:
    """The record's value, EMPTY, or a JsonSyntax instance (not raised) for a malformed record."""
    if text is None:
        return JsonSyntax("bytes that are not valid in the encoding")
    try:
        return parse_root(text, opts.grammar)
    except JsonSyntax as exc:
        exc.text = text  # type: ignore[attr-defined]  # for partial_row
        return exc
    except RecursionError:
        return JsonSyntax("nested too deeply")


def _root_type(value: Any, opts: JsonOptions) -> Any:
    """The record's type for inference; ``"corrupt"`` for a malformed record."""
    if isinstance(value, JsonSyntax):
        return "corrupt"
    if value is EMPTY:
        return None
    try:
        return infer(value, opts.primitives_as_string, opts.prefers_decimal)
    except InferenceRefused:  # (NegativeScale is not one: it refuses the read, as in Spark)
        return "corrupt"


def _root_merge(a: Any, b: Any, opts: JsonOptions, where: str) -> Any:
    """Spark's ``compatibleRootType``: arrays of records unwrap; a non-object record makes a corrupt column."""
    if b == "corrupt":
        if opts.mode == "FAILFAST":
            raise MalformedRecord(f"{where}: malformed JSON record (mode FAILFAST)")
        if opts.mode == "DROPMALFORMED":
            return a
        b = ("struct", ((opts.corrupt_column, "string"),))
    if isinstance(a, tuple) and a[0] == "array":
        return _root_merge(a[1], b, opts, where)
    if isinstance(b, tuple) and b[0] == "array":
        return _root_merge(a, b[1], opts, where)
    a_struct = isinstance(a, tuple) and a[0] == "struct"
    b_struct = isinstance(b, tuple) and b[0] == "struct"
    if a_struct and b is None:
        return a
    if b_struct and a is None:
        return b
    if a_struct != b_struct and (a_struct or b_struct):
        struct = a if a_struct else b
        if opts.mode == "PERMISSIVE":
            return with_field(struct, opts.corrupt_column)
        if opts.mode == "FAILFAST":
            raise MalformedRecord(f"{where}: a record that is not a JSON object (mode FAILFAST)")
        return struct
    return merge(a, b)


def infer_schema(parsed: list[tuple[str, Any]], opts: JsonOptions) -> tuple:
    """The struct type of the parsed records (``(where, value)`` pairs), as Spark infers it."""
    root: Any = ("struct", ())  # Spark folds from an empty struct: a file of scalars is all corrupt
    for where, value in parsed:
        root = _root_merge(root, _root_type(value, opts), opts, where)
    root = canonical(root, opts.drop_field_if_all_null)
    if not (isinstance(root, tuple) and root[0] == "struct"):
        return ()
    return root[1]


def _rows(value: Any, fields: tuple, opts: JsonOptions) -> tuple[list[dict], list]:
    """A record's rows and its errors (a non-empty list means the record is malformed)."""
    errors: list = []
    if isinstance(value, JsonSyntax):
        # Spark keeps the top-level fields its root loop converted before the error; Jackson
        # reads text as bytes (UTF8StreamJsonParser) only when no encoding is given
        text = getattr(value, "text", None)
        kept = partial_row(text, fields, opts.grammar) if text is not None and opts.encoding is None else None
        return [kept if kept is not None else dict.fromkeys(n for n, _ in fields)], [str(value)]
    if isinstance(value, JObj):
        return [convert_fields(value, fields, errors)], errors
    if isinstance(value, JArr):
        if not all(isinstance(e, JObj) for e in value):
            return [dict.fromkeys(n for n, _ in fields)], ["an array element that is not a JSON object"]
        return [convert_fields(e, fields, errors) for e in value], errors
    return [dict.fromkeys(n for n, _ in fields)], ["a record that is not a JSON object"]


def _column(values: list[Any], name: str, arrow_type: "pa.DataType", corrupt: str) -> "pa.Array":
    """One column's Arrow array; the corrupt-record column holds each malformed record's
    raw bytes, as Spark keeps them (valid UTF-8 or not: rows-v1 hashes a string's bytes
    as held, so the pandas reader's receipt is Spark's)."""
    import pyarrow as pa

    if name == corrupt and pa.types.is_string(arrow_type):
        return pa.array(values, pa.binary()).view(pa.string())
    return pa.array(values, arrow_type)


def read_jsonl(paths: list[Path], options: Optional[Mapping[str, str]] = None,
               schema: Optional["pa.Schema"] = None) -> tuple["pa.Table", list[int]]:
    """Read JSON files (``.gz``/``.bz2`` decompressed) into one Arrow table, as Spark reads them.

    Returns the table (rows in the order of ``paths``) and each file's row count.
    """
    import pyarrow as pa

    opts = JsonOptions.parse(options or {})
    texts: list[tuple[str, Optional[str], bytes]] = []
    per_file: list[int] = []
    for path in paths:
        found = records(path, opts)
        texts.extend(found)
        per_file.append(len(found))
    parsed = [(where, _parse(text, opts)) for where, text, _raw in texts]
    if schema is None:
        fields = infer_schema(parsed, opts)
        twice = duplicate_name(("struct", fields))
        if twice is not None:
            raise DuplicateColumns(message(twice))
        out_fields = [pa.field(n, to_arrow_type(t)) for n, t in fields]
    else:
        if isinstance(schema, str):
            raise ValueError("json: an explicit schema must reach the reader as a pyarrow Schema")
        out_fields = [pa.field(f.name, f.type) for f in schema]
        fields = tuple((f.name, from_arrow(f.type)) for f in schema)
        if opts.date_format is not None or opts.timestamp_format is not None:
            date = date_parser(opts.date_format) if opts.date_format is not None else None
            stamp = timestamp_parser(opts.timestamp_format) if opts.timestamp_format is not None else None
            fields = with_formats(("struct", fields), date, stamp)[1]  # type: ignore[index]
    corrupt = opts.corrupt_column
    if len(fields) == 1 and fields[0][0] == corrupt:
        raise ValueError(f"json: the only column is the corrupt-record column {corrupt!r} (every record is "
                         "malformed, or the schema has that column alone); Spark refuses such a read")
    parse_fields = tuple(f for f in fields if f[0] != corrupt)
    keeps_corrupt = any(n == corrupt for n, _ in fields)
    rows: list[dict] = []
    counts: list[int] = []
    start = 0
    for size in per_file:
        before = len(rows)
        for (where, value), (_, _, raw) in zip(parsed[start:start + size], texts[start:start + size]):
            if value is EMPTY:
                continue
            got, errors = _rows(value, parse_fields, opts)
            if errors:
                if opts.mode == "FAILFAST":
                    raise MalformedRecord(f"{where}: malformed JSON record (mode FAILFAST): {errors[0]}")
                if opts.mode == "DROPMALFORMED":
                    continue
            if keeps_corrupt:
                kept = raw if errors else None
                for row in got:
                    row[corrupt] = kept
            rows.extend(got)
        start += size
        counts.append(len(rows) - before)
    names = [f.name for f in out_fields]
    if not names:
        return pa.table({"_": pa.nulls(len(rows))}).select([]), counts
    arrays = [_column([r.get(n) for r in rows], n, f.type, corrupt) for n, f in zip(names, out_fields)]
    return pa.Table.from_arrays(arrays, schema=pa.schema(out_fields)), counts


def json_value(v: Any) -> str:
    """Compact JSON text of a Python value as Spark's JSON writer lays it out.

    Null struct fields are left out; decimals keep every digit; NaN and the
    infinities are the strings ``"NaN"``, ``"Infinity"``, ``"-Infinity"``;
    dates are ``yyyy-MM-dd``, timestamps ISO 8601 in UTC; binary is Base64.
    """
    import base64
    import datetime as dt
    import math

    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            return json.dumps("NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity"))
        return repr(v)
    if isinstance(v, Decimal):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, bytes):
        return json.dumps(base64.b64encode(v).decode("ascii"))
    if isinstance(v, dt.datetime):
        from ubunye.io.datetimes import written_timestamp

        return json.dumps(written_timestamp(v))
    if isinstance(v, dt.date):
        return json.dumps(v.isoformat())
    if isinstance(v, dict):
        return "{" + ",".join(
            json.dumps(str(k), ensure_ascii=False) + ":" + json_value(x) for k, x in v.items() if x is not None
        ) + "}"
    if isinstance(v, (list, tuple)):
        if v and all(isinstance(e, tuple) and len(e) == 2 for e in v):  # a map's (key, value) pairs
            return "{" + ",".join(json.dumps(str(k), ensure_ascii=False) + ":" + json_value(x) for k, x in v) + "}"
        return "[" + ",".join(json_value(e) for e in v) + "]"
    raise ValueError(f"cannot write {type(v).__name__} value {v!r} as JSON")


def write_jsonl(table: "pa.Table", path: Path) -> None:
    """Write one JSON object per row, null members left out (as Spark writes JSON)."""
    with open(path, "w", encoding="utf-8") as handle:
        for row in table.to_pylist():
            handle.write(json_value(row) + "\n")
