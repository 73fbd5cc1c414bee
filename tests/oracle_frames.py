"""The differential suite's shared generator: frames over every kind of rows-v1 (docs/spec/rows-v1.md).

A :class:`Case` is a list of top-level columns ``(name, Kind)`` and rows of plain Python values
(the reference writer's values, python/ubunye/hashing/reference.py): ``int``, ``float``,
``Decimal``, ``str``, ``bytes``, ``bool``, ``date`` / :class:`Days`, ``datetime`` (aware, in many
zones, around DST, for instants; naive for wall clocks) / :class:`Micros`, lists, structs as dicts,
maps as lists of ``(key, value)`` pairs. The strategy reaches the spec's hard corners: nested
lists/structs/maps with every key kind, decimals at and beyond their scale and precision, floats
with NaN (also signed, with payloads), -0.0, subnormals and extremes, far years, unicode edge cases
(controls, U+2028, noncharacters, astral; lone surrogates, which are not text), names that differ by
case or sort differently by code point and by UTF-16 unit. With ``wild`` it also draws values no
engine can hold (an int out of its kind's range, a decimal beyond its scale or precision, a lone
surrogate, a map key twice): every path must refuse those.

Every path of one case gives an :data:`Outcome`: ``("ok", schema_hash, data_hash, rows)`` or
``("refused",)`` (the frame library refused to hold the rows, or the hash failed honestly).
:func:`python_outcomes` runs the Python paths; integration/test_oracle_spark.py adds Spark's.
Cases are kept as JSON (:func:`case_to_json`, :func:`case_from_json`) in tests/fixtures/oracle/.
"""
from __future__ import annotations

import base64
import datetime as dt
import json
import math
import struct
from dataclasses import dataclass
from functools import lru_cache
from decimal import Context, Decimal
from pathlib import Path
from typing import Any, Callable, Optional
from zoneinfo import ZoneInfo

from hypothesis import strategies as st

from ubunye.hashing import kinds as K
from ubunye.hashing.temporal import MAX_DAY, MIN_DAY, Days, Micros

FIXTURES = Path(__file__).parent / "fixtures" / "oracle"
EXACT = Context(prec=100)
UTC = dt.timezone.utc
ZONES = ["UTC", "Africa/Johannesburg", "America/New_York", "Europe/London", "Australia/Lord_Howe",
         "Asia/Kathmandu", "Pacific/Chatham", "America/St_Johns", "Pacific/Kiritimati", "Etc/GMT+12"]
# (local wall time, zone): just before, in and after DST changes (gaps and repeated hours)
DST_WALLS = [(dt.datetime(2021, 11, 7, 1, 30), "America/New_York"),
             (dt.datetime(2021, 3, 14, 2, 30), "America/New_York"),
             (dt.datetime(2021, 10, 31, 1, 59, 59, 999999), "Europe/London"),
             (dt.datetime(2021, 3, 28, 1, 0), "Europe/London"),
             (dt.datetime(2021, 4, 4, 1, 45), "Australia/Lord_Howe"),
             (dt.datetime(1945, 9, 30, 1, 30), "America/New_York")]
INT_BITS = {"int8": 8, "int16": 16, "int32": 32, "int64": 64}
SCALAR_TAGS = ["int8", "int16", "int32", "int64", "float32", "float64", "bool", "string", "binary",
               "date", "timestamp", "timestamp_ntz"]
HARD_CHARS = list('\x00\x01\x08\t\n\x0b\x0c\r\x1f"\\/\x7f\x80\x85\u00e9\u0301\u200b\u2028\u2029'
                  '\ufeff\ufffd\ufffe\uffff\uff21\U0001f600\U0010ffff')
NAME_CHARS = list('aAbBzZ_09 .:,<>`"\\\t\u00e9\u00c9\uff21\U0001f600\U0001d400')


@dataclass(frozen=True)
class Case:
    """Top-level columns (in frame order) and rows (dicts by column name; a missing name is null)."""

    columns: tuple[tuple[str, K.Kind], ...]
    rows: tuple[dict[str, Any], ...]


Outcome = tuple  # ("ok", schema_hash, data_hash, rows) | ("refused",)
REFUSED: Outcome = ("refused",)


# ------------------------------------------------------------------ kinds


def decimal_kinds() -> st.SearchStrategy[K.Kind]:
    return st.integers(1, 38).flatmap(lambda p: st.integers(0, p).map(lambda s: K.decimal(p, s)))


@lru_cache(maxsize=None)
def scalar_kinds() -> st.SearchStrategy[K.Kind]:
    return st.sampled_from(SCALAR_TAGS + ["decimal"]).flatmap(
        lambda tag: decimal_kinds() if tag == "decimal" else st.just(K.scalar(tag)))


@lru_cache(maxsize=None)
def names(min_size: int, max_size: int) -> st.SearchStrategy[list[str]]:
    """Distinct names that often differ only by case, or order differently by code point and UTF-16."""
    name = st.one_of(st.sampled_from(["a", "A", "b", "B", "id", "ID", "Id", "\uff21", "\U0001f600",
                                       "\U0001d400", "", "a b", 'q"', "x\\y"]),
                     st.text(st.sampled_from(NAME_CHARS), min_size=1, max_size=4))
    return st.lists(name, min_size=min_size, max_size=max_size, unique=True)


@lru_cache(maxsize=None)
def kinds(depth: int = 2) -> st.SearchStrategy[K.Kind]:
    """A kind nested up to ``depth`` levels: half the time a scalar, else a list, map or struct."""
    if depth <= 0:
        return scalar_kinds()
    inner = st.integers(0, 7).flatmap(lambda i: kinds(depth - 1) if i else st.just(K.scalar("null")))
    shapes = {
        "scalar": scalar_kinds(),
        "list": inner.map(K.list_of),
        "map": st.tuples(scalar_kinds(), inner).map(lambda kv: K.map_of(*kv)),
        "struct": names(1, 3).flatmap(lambda ns: st.tuples(*[inner for _ in ns]).map(
            lambda ks: K.struct_of(list(zip(ns, ks))))),
    }
    return st.sampled_from(["scalar", "scalar", "scalar", "list", "map", "struct"]).flatmap(shapes.__getitem__)


# ------------------------------------------------------------------ values


def _float_bits(bits: int) -> float:
    return struct.unpack(">d", bits.to_bytes(8, "big"))[0]


FLOAT64_EDGES = [0.0, -0.0, math.nan, -math.nan, _float_bits(0x7FF0000000000001), math.inf, -math.inf,
                 5e-324, -5e-324, 2.225073858507201e-308, 2.2250738585072014e-308, 1.7976931348623157e308,
                 -1.7976931348623157e308, 1e23, 2e23, 1e7, 9999999.999999998, 1e-3, 0.0009999999999999998,
                 0.1, 100.0, 1e16, 123456789012345680.0, 2.0 ** 63, -2.0 ** 63]
FLOAT32_EDGES = [0.0, -0.0, math.nan, math.inf, -math.inf, 1.401298464324817e-45, 1.1754942106924411e-38,
                 1.1754943508222875e-38, 3.4028234663852886e38, 1e7, 9999999.0, 0.0010000000474974513,
                 0.0009999999310821295, 0.10000000149011612, 16777216.0, 33554432.0]


def zoned(wall: dt.datetime, zone: str, fold: int) -> dt.datetime:
    return wall.replace(tzinfo=ZoneInfo(zone), fold=fold)


@lru_cache(maxsize=None)
def instants() -> st.SearchStrategy[Any]:
    """``timestamp`` values: aware datetimes in many zones (also fixed offsets at years 1 and 9999,
    whose UTC instant is outside Python's years), DST gaps and folds, naive ones (UTC wall time),
    far years as :class:`Micros`."""
    offsets = st.integers(-14 * 60, 14 * 60).map(lambda m: dt.timezone(dt.timedelta(minutes=m)))
    return st.one_of(
        st.datetimes(timezones=st.sampled_from(ZONES).map(ZoneInfo)),
        st.datetimes(timezones=offsets),
        st.datetimes(),
        st.tuples(st.sampled_from(DST_WALLS), st.integers(0, 1)).map(lambda t: zoned(t[0][0], t[0][1], t[1])),
        st.sampled_from([dt.datetime(1, 1, 1, tzinfo=dt.timezone(dt.timedelta(hours=5))),
                         dt.datetime(9999, 12, 31, 23, 59, tzinfo=dt.timezone(dt.timedelta(hours=-3)))]),
        far_micros(),
    )


def far_micros() -> st.SearchStrategy[Micros]:
    return st.one_of(st.integers(-(2 ** 60), MIN_DAY * 86_400_000_000 - 1),
                     st.integers((MAX_DAY + 1) * 86_400_000_000, 2 ** 60)).map(Micros)


def far_days() -> st.SearchStrategy[Days]:
    return st.one_of(st.integers(-(2 ** 26), MIN_DAY - 1), st.integers(MAX_DAY + 1, 2 ** 26),
                     st.sampled_from([MIN_DAY - 1, MAX_DAY + 1, -719_528, -719_529])).map(Days)


@lru_cache(maxsize=None)
def texts(wild: bool) -> st.SearchStrategy[str]:
    chars = st.one_of(st.sampled_from(HARD_CHARS), st.characters(codec="utf-8"))
    text = st.text(chars, max_size=6)
    if not wild:
        return text
    lone = st.sampled_from(["\ud800", "\udfff", "a\udc80", "\udbff\udbff"])  # lone surrogates: not text
    return st.one_of(text, text, text, lone)


@lru_cache(maxsize=None)
def decimals(kind: K.Kind, wild: bool) -> st.SearchStrategy[Decimal]:
    p, s = kind.precision, kind.scale
    fit = st.integers(-(10 ** p - 1), 10 ** p - 1).map(lambda n: Decimal(n).scaleb(-s, EXACT))
    edges = st.sampled_from([Decimal("-0"), Decimal(0).scaleb(-s, EXACT).copy_negate(),
                             Decimal(10 ** p - 1).scaleb(-s, EXACT), Decimal(1).scaleb(-s, EXACT)])
    shorter = st.integers(-(10 ** (p - s) - 1), 10 ** (p - s) - 1).map(Decimal)  # fewer digits than the scale
    if not wild:
        return st.one_of(fit, fit, edges, shorter)
    beyond_scale = st.integers(1, 10 ** min(p, 18) - 1).filter(lambda n: n % 10).map(
        lambda n: Decimal(n).scaleb(-(s + 1), EXACT))
    beyond_precision = st.just(Decimal(10 ** p).scaleb(-s, EXACT))
    return st.one_of(fit, edges, shorter, beyond_scale, beyond_precision)


@lru_cache(maxsize=None)
def values(kind: K.Kind, wild: bool = False) -> st.SearchStrategy[Any]:
    """Non-null values of ``kind`` (with ``wild``, now and then one no engine can hold)."""
    tag = kind.tag
    if tag in INT_BITS:
        bits = INT_BITS[tag]
        lo, hi = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
        fit = st.one_of(st.integers(lo, hi), st.sampled_from([lo, hi, 0, -1]))
        return st.one_of(fit, st.sampled_from([lo - 1, hi + 1])) if wild else fit
    if tag == "float64":
        return st.one_of(st.floats(), st.sampled_from(FLOAT64_EDGES))
    if tag == "float32":
        return st.one_of(st.floats(width=32), st.sampled_from(FLOAT32_EDGES))
    if tag == "decimal":
        return decimals(kind, wild)
    if tag == "string":
        return texts(wild)
    if tag == "binary":
        return st.binary(max_size=6)
    if tag == "null":
        return st.none()
    if tag == "bool":
        return st.booleans()
    if tag == "date":
        return st.one_of(st.dates(), st.dates(), far_days())
    if tag == "timestamp":
        return instants()
    if tag == "timestamp_ntz":
        return st.one_of(st.datetimes(), st.datetimes(), far_micros())
    if tag == "list":
        return st.lists(nullable(kind.children[0], wild), max_size=3)
    if tag == "struct":
        return st.fixed_dictionaries({n: nullable(k, wild) for n, k in zip(kind.names, kind.children)})
    key, value = kind.children
    pairs = st.tuples(values(key, wild), nullable(value, wild))
    unique = st.lists(pairs, max_size=3, unique_by=lambda kv: key_identity(kv[0], key))
    return st.one_of(unique, unique, st.lists(pairs, min_size=2, max_size=3)) if wild else unique


@lru_cache(maxsize=None)
def nullable(kind: K.Kind, wild: bool = False) -> st.SearchStrategy[Any]:
    return st.one_of(st.none(), values(kind, wild))


def key_identity(value: Any, kind: K.Kind) -> Any:
    """What makes two map keys the same key (so a generated map holds each once)."""
    from ubunye.hashing.reference import _KEY_ORDER
    from ubunye.hashing.temporal import micros_of

    if kind.tag == "timestamp":
        return micros_of(value)
    if kind.tag == "string":
        return value
    return _KEY_ORDER[kind.tag](value)


@st.composite
def cases(draw: Callable[..., Any], max_rows: int = 6, wild: bool = True, max_columns: int = 4) -> Case:
    """One frame: 0 to ``max_columns`` named columns of generated kinds and 0 to ``max_rows`` rows."""
    cols = draw(names(0, max_columns))
    kinds_ = [draw(kinds(2)) if draw(st.integers(0, 9)) else K.scalar("null") for _ in cols]
    wild_case = wild and draw(st.integers(0, 2)) == 0  # most cases hold only values engines can hold
    n = draw(st.integers(0, max_rows))
    rows = []
    for _ in range(n):
        row = {}
        for name, kind in zip(cols, kinds_):
            value = None if kind.tag == "null" else draw(nullable(kind, wild_case))
            if value is not None:
                row[name] = value
        rows.append(row)
    return Case(tuple(zip(cols, kinds_)), tuple(rows))


# ------------------------------------------------------------------ JSON form of a case


def kind_json(kind: K.Kind) -> Any:
    if kind.tag == "decimal":
        return {"decimal": [kind.precision, kind.scale]}
    if kind.tag == "list":
        return {"list": kind_json(kind.children[0])}
    if kind.tag == "map":
        return {"map": [kind_json(kind.children[0]), kind_json(kind.children[1])]}
    if kind.tag == "struct":
        return {"struct": [[n, kind_json(k)] for n, k in zip(kind.names, kind.children)]}
    return kind.tag


def kind_from_json(doc: Any) -> K.Kind:
    if isinstance(doc, str):
        return K.scalar(doc)
    (tag, body), = doc.items()
    if tag == "decimal":
        return K.decimal(*body)
    if tag == "list":
        return K.list_of(kind_from_json(body))
    if tag == "map":
        return K.map_of(kind_from_json(body[0]), kind_from_json(body[1]), strict=False)
    return K.struct_of([(n, kind_from_json(k)) for n, k in body], strict=False)


def value_json(value: Any, kind: K.Kind) -> Any:
    if value is None:
        return None
    tag = kind.tag
    if tag in ("float32", "float64"):
        return {"float": value.hex()}
    if tag == "decimal":
        return {"decimal": str(value)}
    if tag == "binary":
        return {"bytes": base64.b64encode(value).decode("ascii")}
    if tag in ("date", "timestamp", "timestamp_ntz"):
        return temporal_json(value)
    if tag == "list":
        return [value_json(v, kind.children[0]) for v in value]
    if tag == "struct":
        return [value_json(value.get(n), k) for n, k in zip(kind.names, kind.children)]
    if tag == "map":
        return [[value_json(k, kind.children[0]), value_json(v, kind.children[1])] for k, v in value]
    return value  # int, bool, str (json writes a lone surrogate as its \\u escape)


def temporal_json(value: Any) -> Any:
    if isinstance(value, Days):
        return {"days": int(value)}
    if isinstance(value, Micros):
        return {"micros": int(value)}
    if isinstance(value, dt.datetime):
        zone = value.tzinfo
        doc: dict[str, Any] = {"wall": value.replace(tzinfo=None).isoformat(), "fold": value.fold}
        if isinstance(zone, ZoneInfo):
            doc["zone"] = zone.key
        elif zone is not None:
            doc["offset_s"] = int(zone.utcoffset(None).total_seconds())
        return doc
    return {"date": value.isoformat()}


def value_from_json(doc: Any, kind: K.Kind) -> Any:
    if doc is None:
        return None
    tag = kind.tag
    if tag in ("float32", "float64"):
        return float.fromhex(doc["float"])
    if tag == "decimal":
        return Decimal(doc["decimal"])
    if tag == "binary":
        return base64.b64decode(doc["bytes"])
    if tag in ("date", "timestamp", "timestamp_ntz"):
        if "days" in doc:
            return Days(doc["days"])
        if "micros" in doc:
            return Micros(doc["micros"])
        if "date" in doc:
            return dt.date.fromisoformat(doc["date"])
        wall = dt.datetime.fromisoformat(doc["wall"]).replace(fold=doc["fold"])
        if "zone" in doc:
            return wall.replace(tzinfo=ZoneInfo(doc["zone"]))
        if "offset_s" in doc:
            return wall.replace(tzinfo=dt.timezone(dt.timedelta(seconds=doc["offset_s"])))
        return wall
    if tag == "list":
        return [value_from_json(v, kind.children[0]) for v in doc]
    if tag == "struct":
        return {n: value_from_json(v, k) for n, k, v in zip(kind.names, kind.children, doc)}
    if tag == "map":
        return [(value_from_json(k, kind.children[0]), value_from_json(v, kind.children[1])) for k, v in doc]
    return doc


def case_to_json(case: Case, note: str = "") -> str:
    """One JSON object: the note, the columns on one line, each row on a line of its own."""
    def dumps(value: Any) -> str:
        return json.dumps(value, ensure_ascii=True)

    rows = [dumps([value_json(row.get(n), k) for n, k in case.columns]) for row in case.rows]
    return (f'{{"note": {dumps(note)},\n "columns": {dumps([[n, kind_json(k)] for n, k in case.columns])},\n'
            f' "rows": [' + ",\n  ".join(rows) + "]}\n")


def case_from_json(text: str) -> Case:
    doc = json.loads(text)
    columns = tuple((n, kind_from_json(k)) for n, k in doc["columns"])
    rows = tuple({n: value_from_json(v, k) for (n, k), v in zip(columns, row) if v is not None}
                 for row in doc["rows"])
    return Case(columns, rows)


def fixture_cases() -> list[tuple[str, Case]]:
    """The kept cases (tests/fixtures/oracle/*.json), by file name."""
    return [(p.name, case_from_json(p.read_text(encoding="utf-8"))) for p in sorted(FIXTURES.glob("*.json"))]


# ------------------------------------------------------------------ frames and outcomes


class Port:
    """A port frame (spec section 4): ``collect()`` gives the rows, ``schema`` the kinds."""

    def __init__(self, case: Case) -> None:
        self.schema = [(n, k) for n, k in case.columns]
        self._rows = [dict(r) for r in case.rows]

    def collect(self) -> list[dict[str, Any]]:
        return self._rows


def outcome(fp: Any) -> Outcome:
    return ("ok", fp.schema_hash, fp.data_hash, fp.row_count) if fp.ok else REFUSED


def _int_leaves(kind: K.Kind, strings: Any = None) -> Any:
    """The Arrow type of ``kind`` with dates and timestamps as their integers (any year fits) and
    strings as ``strings`` (default binary: a string's bytes as held, valid UTF-8 or not)."""
    import pyarrow as pa

    from ubunye.hashing.arrow_types import kind_to_arrow

    if kind.tag == "string":
        return strings or pa.binary()
    if kind.tag == "date":
        return pa.int32()
    if kind.tag in ("timestamp", "timestamp_ntz"):
        return pa.int64()
    if kind.tag == "list":
        return pa.list_(_int_leaves(kind.children[0], strings))
    if kind.tag == "map":
        return pa.map_(_int_leaves(kind.children[0], strings), _int_leaves(kind.children[1], strings))
    if kind.tag == "struct":
        return pa.struct([pa.field(n, _int_leaves(k, strings)) for n, k in zip(kind.names, kind.children)])
    return kind_to_arrow(kind)


def _as_ints(value: Any, kind: K.Kind, raw: bool = False) -> Any:
    from ubunye.hashing.temporal import days_of, micros_of

    if value is None:
        return None
    if kind.tag == "string":  # surrogate escapes stand for bytes that are not UTF-8 (spec 2.2)
        return value.encode("utf-8", "surrogateescape") if raw else value
    if kind.tag == "date":
        return days_of(value)
    if kind.tag == "timestamp":
        return micros_of(value)
    if kind.tag == "timestamp_ntz":
        return micros_of(value.replace(tzinfo=None) if isinstance(value, dt.datetime) else value)
    if kind.tag == "list":
        return [_as_ints(v, kind.children[0], raw) for v in value]
    if kind.tag == "struct":
        return {n: _as_ints(value.get(n), k, raw) for n, k in zip(kind.names, kind.children)}
    if kind.tag == "map":
        return [(_as_ints(k, kind.children[0], raw), _as_ints(v, kind.children[1], raw)) for k, v in value]
    return value


def _array(cells: list[Any], t: Any) -> Any:
    """``pa.array(cells, t)``, with structs and lists put together from their children: pyarrow 26
    builds a struct holding a ``list<null>`` from Python values as an invalid array."""
    import pyarrow as pa

    mask = pa.array([c is None for c in cells], pa.bool_())
    if pa.types.is_struct(t):
        children = [_array([None if c is None else c.get(f.name) for c in cells], f.type) for f in t]
        return pa.StructArray.from_arrays(children, fields=list(t), mask=mask)
    if pa.types.is_list(t):
        offsets, flat = [0], []
        for c in cells:
            flat.extend(c or [])
            offsets.append(len(flat))
        return pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), _array(flat, t.value_type), type=t, mask=mask)
    return pa.array(cells, type=t)


def arrow_table(case: Case, chunks: int = 1, zone: Optional[str] = None) -> Any:
    """The case as an Arrow table (raises when Arrow cannot hold a value); top-level instants
    in ``zone`` (same instants, another zone in the type), in ``chunks`` chunks."""
    import pyarrow as pa

    from ubunye.hashing.arrow_types import kind_to_arrow

    arrays, fields = [], []
    for name, kind in case.columns:
        try:
            arr = _array([_as_ints(row.get(name), kind) for row in case.rows], _int_leaves(kind, pa.string()))
        except UnicodeEncodeError:  # strings with bytes that are not UTF-8: built as bytes, viewed as text
            # (only then: pyarrow 26's view of a list<null> or map<_,null> loses its child's length)
            cells = [_as_ints(row.get(name), kind, raw=True) for row in case.rows]
            arr = _array(cells, _int_leaves(kind)).view(_int_leaves(kind, pa.string()))
        if arr.type != kind_to_arrow(kind):  # (pyarrow 26 casts list<null> to itself into an invalid array)
            arr = arr.cast(kind_to_arrow(kind))
        if kind.tag == "timestamp" and zone is not None:
            arr = arr.cast(pa.timestamp("us", tz=zone))
        arrays.append(arr)
        fields.append(pa.field(name, arr.type))
    if not fields:
        return pa.table({"_": pa.nulls(len(case.rows))}).drop_columns(["_"])
    table = pa.Table.from_arrays(arrays, schema=pa.schema(fields))
    if chunks > 1 and table.num_rows > 1:
        step = max(1, table.num_rows // chunks)
        table = pa.concat_tables([table.slice(i, step) for i in range(0, table.num_rows, step)])
    return table


_DDL = {"bool": "BOOLEAN", "int8": "TINYINT", "int16": "SMALLINT", "int32": "INT", "int64": "BIGINT",
        "float32": "FLOAT", "float64": "DOUBLE", "string": "STRING", "binary": "BINARY", "date": "DATE",
        "timestamp": "TIMESTAMP", "timestamp_ntz": "TIMESTAMP_NTZ", "null": "VOID"}


def spark_ddl(kind: K.Kind) -> str:
    """The Spark DDL type of ``kind`` (spec section 3, read backwards)."""
    if kind.tag in _DDL:
        return _DDL[kind.tag]
    inner = [spark_ddl(k) for k in kind.children]
    forms = {"decimal": lambda: f"DECIMAL({kind.precision},{kind.scale})",
             "list": lambda: f"ARRAY<{inner[0]}>",
             "map": lambda: f"MAP<{', '.join(inner)}>",
             "struct": lambda: "STRUCT<" + ", ".join(f"{quoted(n)}: {t}" for n, t in zip(kind.names, inner)) + ">"}
    return forms[kind.tag]()


def quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def recoded_strings(table: Any) -> Any:
    """``table`` with its strings held otherwise (same kind, same values): top-level string
    columns dictionary-encoded or as ``string_view``, lists of strings as ``large_list<string_view>``."""
    import pyarrow as pa

    columns = []
    for i, column in enumerate(table.columns):
        t = column.type
        if pa.types.is_string(t):
            column = column.dictionary_encode() if i % 2 == 0 else column.cast(pa.string_view())
        elif pa.types.is_list(t) and pa.types.is_string(t.value_type):
            column = column.cast(pa.large_list(pa.string_view()))
        columns.append(column)
    return pa.Table.from_arrays(columns, names=table.column_names) if columns else table


def python_outcomes(case: Case) -> dict[str, Outcome]:
    """The outcome of every Python path on ``case``: the port (row by row from Python values), the
    Arrow table through the vectorised path and through the reference, the same table in chunks
    with its instants in another zone, pandas (Arrow-backed), and polars / DuckDB when installed and
    able to hold the frame unchanged (their own conversions are theirs, not the hash's)."""
    from ubunye.hashing import fingerprint

    out = {"port": outcome(fingerprint(Port(case)))}
    try:
        table = arrow_table(case)
    except Exception:  # noqa: BLE001 - Arrow cannot hold a value: every Arrow-based path refuses
        return {**out, "arrow": REFUSED, "arrow-rows": REFUSED}
    out["arrow"] = outcome(fingerprint(table))
    out["arrow-rows"] = outcome(fingerprint(table, engine="rows"))
    out["arrow-chunked"] = outcome(fingerprint(arrow_table(case, chunks=3, zone="Asia/Kathmandu")))
    recoded = recoded_strings(table)
    out["arrow-recoded"] = outcome(fingerprint(recoded))
    out["arrow-recoded-rows"] = outcome(fingerprint(recoded, engine="rows"))
    out.update(_library_outcomes(table))
    return out


def _numpy_pandas_outcome(table: Any, same_kinds: Callable[[Any], bool]) -> dict[str, Outcome]:
    """numpy-backed pandas (``to_pandas()``), when it holds the table's kinds and values: top-level
    scalars only, no float NaN (numpy-backed NaN is null, spec section 3)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from ubunye.hashing import fingerprint
    from ubunye.hashing.frames import pandas_to_arrow

    if not table.num_columns or any(pa.types.is_nested(t) for t in table.schema.types):
        return {}
    if any(pa.types.is_floating(c.type) and pc.any(pc.is_nan(c)).as_py() for c in table.columns):
        return {}
    try:
        frame = table.to_pandas()
        held = pandas_to_arrow(frame)
    except Exception:  # noqa: BLE001 - numpy cannot hold it (far years in nanoseconds ...)
        return {}
    return {"pandas-numpy": outcome(fingerprint(frame))} if same_kinds(held) else {}


def _library_outcomes(table: Any) -> dict[str, Outcome]:
    import importlib.util

    from ubunye.hashing import fingerprint
    from ubunye.hashing.arrow_types import arrow_schema_kinds

    def same_kinds(t: Any) -> bool:
        try:
            return arrow_schema_kinds(t.schema) == arrow_schema_kinds(table.schema)
        except Exception:  # noqa: BLE001 - no canonical kinds: compare by refusal below
            return False

    out: dict[str, Outcome] = {}
    import pandas as pd

    try:
        frame = table.to_pandas(types_mapper=pd.ArrowDtype)
    except Exception:  # noqa: BLE001 - pandas cannot hold it
        frame = None
    if frame is not None and len(frame.columns) == table.num_columns:
        out["pandas"] = outcome(fingerprint(frame))
    out.update(_numpy_pandas_outcome(table, same_kinds))
    if importlib.util.find_spec("polars") is not None and table.num_columns:
        import polars as pl

        try:
            frame = pl.from_arrow(table)
            held = frame.to_arrow()
        except Exception:  # noqa: BLE001 - polars cannot hold it (maps, some decimals)
            frame = None
        if frame is not None and same_kinds(held):
            out["polars"] = outcome(fingerprint(frame))
    if importlib.util.find_spec("duckdb") is not None and table.num_columns:
        import duckdb

        con = duckdb.connect()
        try:
            relation = con.from_arrow(table)
            held = relation.to_arrow_table()
        except Exception:  # noqa: BLE001 - DuckDB cannot hold it (case-insensitive names ...)
            relation = None
        if relation is not None and same_kinds(held):
            out["duckdb"] = outcome(fingerprint(con.from_arrow(table)))
        con.close()
    return out
