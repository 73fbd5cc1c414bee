"""JSON lines read the way Spark's ``spark.read.json`` infers them.

One JSON object per line. Spark's inference is kept: integers are ``bigint``
(a decimal(p,0) when too big for a long, a double beyond 38 digits), numbers
with a fraction or exponent are ``double``, strings stay strings (no date or
timestamp inference), objects are structs with their fields **sorted by
name**, arrays take the merged type of their elements, and a column whose
values disagree becomes a string holding each value's JSON text. Null-only
columns and elements are strings.
"""
from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Optional, Union

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

# a Spark type is: "long" | "double" | "bool" | "string" | ("decimal", p)
#                  | ("array", T) | ("struct", {name: T}) | None (null)
SparkType = Union[str, tuple, None]
_NUMERIC = ("long", "decimal", "double")


class _Num(str):
    """A JSON number kept as its text."""


def _load(line: str) -> Any:
    return json.loads(line, parse_int=_Num, parse_float=lambda s: _Num(s + "\0f"))


def _is_float(v: _Num) -> bool:
    return v.endswith("\0f")


def _text(v: _Num) -> str:
    return v[:-2] if _is_float(v) else str.__str__(v)


def infer(v: Any) -> SparkType:
    """The Spark type of one parsed JSON value."""
    if v is None:
        return None
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, _Num):
        if _is_float(v):
            return "double"
        digits = len(_text(v).lstrip("-"))
        if -(2**63) <= int(_text(v)) < 2**63:
            return "long"
        return ("decimal", digits) if digits <= 38 else "double"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        element: SparkType = None
        for e in v:
            element = merge(element, infer(e))
        return ("array", element)
    return ("struct", {k: infer(x) for k, x in v.items()})


def merge(a: SparkType, b: SparkType) -> SparkType:
    """Spark's ``compatibleType`` for JSON types."""
    if a is None:
        return b
    if b is None or a == b:
        return a
    tag_a = a[0] if isinstance(a, tuple) else a
    tag_b = b[0] if isinstance(b, tuple) else b
    if tag_a in _NUMERIC and tag_b in _NUMERIC:
        if "double" in (tag_a, tag_b):
            return "double"
        if tag_a == tag_b == "decimal":
            return ("decimal", max(a[1], b[1]))  # type: ignore[index]
        return ("decimal", max(20, a[1] if tag_a == "decimal" else b[1]))  # type: ignore[index]
    if tag_a == tag_b == "array":
        return ("array", merge(a[1], b[1]))  # type: ignore[index]
    if tag_a == tag_b == "struct":
        assert isinstance(a, tuple) and isinstance(b, tuple)
        fields: dict[str, SparkType] = dict(a[1])
        for k, t in b[1].items():
            fields[k] = merge(fields.get(k), t)
        return ("struct", fields)
    return "string"


def to_arrow_type(t: SparkType) -> "pa.DataType":
    """The Arrow type of an inferred Spark JSON type (struct fields sorted by name)."""
    import pyarrow as pa

    if t is None or t == "string":
        return pa.string()
    if t == "long":
        return pa.int64()
    if t == "double":
        return pa.float64()
    if t == "bool":
        return pa.bool_()
    tag = t[0]  # type: ignore[index]
    if tag == "decimal":
        return pa.decimal128(t[1], 0)  # type: ignore[index]
    if tag == "array":
        return pa.list_(to_arrow_type(t[1]))  # type: ignore[index]
    fields = t[1]  # type: ignore[index]
    return pa.struct([pa.field(k, to_arrow_type(fields[k])) for k in sorted(fields)])


def _json_text(v: Any) -> str:
    if isinstance(v, _Num):
        return _text(v)
    if isinstance(v, list):
        return "[" + ",".join(_json_text(e) for e in v) + "]"
    if isinstance(v, dict):
        return "{" + ",".join(json.dumps(k) + ":" + _json_text(x) for k, x in v.items()) + "}"
    return json.dumps(v, ensure_ascii=False)


def convert(v: Any, t: SparkType) -> Any:
    """A parsed JSON value as the Python value of Spark type ``t``."""
    if v is None or t is None:
        return None
    if t == "string":
        return v if isinstance(v, str) and not isinstance(v, _Num) else _json_text(v)
    if t == "long":
        return int(_text(v))
    if t == "double":
        return float(_text(v))
    if t == "bool":
        return v
    tag = t[0]  # type: ignore[index]
    if tag == "decimal":
        return Decimal(_text(v))
    if tag == "array":
        return [convert(e, t[1]) for e in v]  # type: ignore[index]
    fields = t[1]  # type: ignore[index]
    return {k: convert(v.get(k), fields[k]) for k in sorted(fields)}


# The options this reader follows (lower-case names; ubunye.io.options refuses others).
OPTIONS: tuple[str, ...] = ()


def read_jsonl(paths: list[Path], options: Optional[Mapping[str, str]] = None,
               schema: Optional["pa.Schema"] = None) -> tuple["pa.Table", list[int]]:
    """Read JSON-lines files (``.gz``/``.bz2`` decompressed) into one Arrow table with Spark's inferred types.

    Returns the table (rows in the order of ``paths``) and each file's row count.
    """
    import pyarrow as pa

    from ubunye.io import open_text
    from ubunye.io.options import UnsupportedOption

    if schema is not None:
        raise UnsupportedOption("an explicit schema is not followed by the pandas reader of json")
    rows: list[dict[str, Any]] = []
    counts: list[int] = []
    for path in paths:
        before = len(rows)
        with open_text(path) as handle:
            for number, line in enumerate(handle, 1):
                if line.strip():
                    value = _load(line)
                    if not isinstance(value, dict):
                        raise ValueError(f"{path}:{number}: not a JSON object")
                    rows.append(value)
        counts.append(len(rows) - before)
    types: dict[str, SparkType] = {}
    for row in rows:
        for k, v in row.items():
            types[k] = merge(types.get(k), infer(v))
    names = sorted(types)
    arrays = [pa.array([convert(r.get(k), types[k]) for r in rows], to_arrow_type(types[k])) for k in names]
    if not names:
        return pa.table({"_": pa.nulls(len(rows))}).select([]), counts
    return pa.Table.from_arrays(arrays, names=names), counts


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
        if v.tzinfo is not None:
            return json.dumps(v.astimezone(dt.timezone.utc).replace(tzinfo=None).isoformat() + "Z")
        return json.dumps(v.isoformat())
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
