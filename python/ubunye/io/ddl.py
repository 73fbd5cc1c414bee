"""Spark DDL schemas (``"a INT, b DECIMAL(10,2), c ARRAY<STRING>"``) as Arrow schemas.

``spark.read.schema(text)`` takes a schema as a DDL string; :func:`parse` turns the
same text into the ``pyarrow.Schema`` the pandas readers fill, with the Arrow type
of each Spark type as rows-v1 kinds them (``TIMESTAMP`` is an instant, UTC;
``TIMESTAMP_NTZ`` a wall-clock time; ``DECIMAL`` alone is ``DECIMAL(10,0)``).

Accepted, as Spark's parser accepts them: type names in any case and their
aliases (``INTEGER``, ``LONG``, ``SHORT``, ``BYTE``, ``REAL``, ``DEC``,
``NUMERIC``, ``TIMESTAMP_LTZ``), back-quoted names (`` `a b` ``, a doubled
back-quote inside), ``NOT NULL``, ``COMMENT '...'``, ``STRUCT<a: INT, b INT>``,
``ARRAY<T>``, ``MAP<K, V>``; ``CHAR(n)``/``VARCHAR(n)`` read as strings. Types
that no reader here fills (intervals, ``VOID``, variants) and malformed text are
refused with :class:`DDLError`, one line naming the position.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Optional

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa


class DDLError(ValueError):
    """A DDL schema string that cannot be read (the message names where)."""


_TOKEN = re.compile(r"\s*(?:(`(?:[^`]|``)*`)|([A-Za-z_][A-Za-z0-9_]*)|(-?\d+)|('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")|([<>(),:]))")
_SIMPLE = {
    "boolean": "bool", "tinyint": "int8", "byte": "int8", "smallint": "int16", "short": "int16",
    "int": "int32", "integer": "int32", "bigint": "int64", "long": "int64", "float": "float32",
    "real": "float32", "double": "float64", "string": "string", "binary": "binary", "date": "date32",
    "timestamp": "timestamp", "timestamp_ltz": "timestamp", "timestamp_ntz": "timestamp_ntz",
}
_REFUSED = ("interval", "void", "variant", "object", "geometry", "geography", "time")


def _tokens(text: str) -> list[tuple[str, str, int]]:
    """(kind, text, position) of each token: name, quoted, number, string, punct."""
    out: list[tuple[str, str, int]] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise DDLError(f"schema {text!r}: unexpected {text[pos:].strip()[:10]!r} at position {pos}")
        kind = ("quoted", "name", "number", "string", "punct")[m.lastindex - 1]  # type: ignore[operator]
        out.append((kind, m.group(m.lastindex), m.start(m.lastindex)))  # type: ignore[arg-type]
        pos = m.end()
    return out


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokens(text)
        self.i = 0

    def fail(self, what: str) -> DDLError:
        if self.i < len(self.tokens):
            _, tok, pos = self.tokens[self.i]
            return DDLError(f"schema {self.text!r}: {what}, found {tok!r} at position {pos}")
        return DDLError(f"schema {self.text!r}: {what}, found the end")

    def peek(self) -> Optional[tuple[str, str, int]]:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def word(self, *words: str) -> bool:
        tok = self.peek()
        if tok is not None and tok[0] == "name" and tok[1].lower() in words:
            self.i += 1
            return True
        return False

    def punct(self, char: str, required: bool = True) -> bool:
        tok = self.peek()
        if tok is not None and tok[0] == "punct" and tok[1] == char:
            self.i += 1
            return True
        if required:
            raise self.fail(f"expected {char!r}")
        return False

    def number(self) -> int:
        tok = self.peek()
        if tok is None or tok[0] != "number":
            raise self.fail("expected a number")
        self.i += 1
        return int(tok[1])

    def name(self) -> str:
        tok = self.peek()
        if tok is None or tok[0] not in ("name", "quoted"):
            raise self.fail("expected a column name")
        self.i += 1
        return tok[1][1:-1].replace("``", "`") if tok[0] == "quoted" else tok[1]

    def field(self, in_struct: bool) -> "pa.Field":
        import pyarrow as pa

        name = self.name()
        if in_struct:
            self.punct(":", required=False)
        dtype = self.type()
        nullable = True
        if self.word("not"):
            if not self.word("null"):
                raise self.fail("expected NULL after NOT")
            nullable = False
        metadata = None
        if self.word("comment"):
            tok = self.peek()
            if tok is None or tok[0] != "string":
                raise self.fail("expected a quoted comment")
            self.i += 1
            metadata = {"comment": tok[1][1:-1]}
        return pa.field(name, dtype, nullable=nullable, metadata=metadata)

    def type(self) -> "pa.DataType":
        import pyarrow as pa

        tok = self.peek()
        if tok is None or tok[0] != "name":
            raise self.fail("expected a type")
        low = tok[1].lower()
        self.i += 1
        if low in _SIMPLE:
            simple = _SIMPLE[low]
            if simple == "timestamp":
                return pa.timestamp("us", tz="UTC")
            if simple == "timestamp_ntz":
                return pa.timestamp("us")
            return getattr(pa, simple)() if simple != "bool" else pa.bool_()
        if low in ("decimal", "dec", "numeric"):
            precision, scale = 10, 0
            if self.punct("(", required=False):
                precision = self.number()
                if self.punct(",", required=False):
                    scale = self.number()
                self.punct(")")
            if not 1 <= precision <= 38 or not 0 <= scale <= precision:
                raise DDLError(f"schema {self.text!r}: DECIMAL({precision},{scale}) is out of range (precision 1..38, "
                               "scale 0..precision)")
            return pa.decimal128(precision, scale)
        if low in ("char", "varchar", "character"):
            self.punct("(")
            self.number()
            self.punct(")")
            return pa.string()
        if low == "array":
            self.punct("<")
            item = self.type()
            self.punct(">")
            return pa.list_(item)
        if low == "map":
            self.punct("<")
            key = self.type()
            self.punct(",")
            value = self.type()
            self.punct(">")
            return pa.map_(key, value)
        if low == "struct":
            self.punct("<")
            fields: list[Any] = []
            if not self.punct(">", required=False):
                while True:
                    fields.append(self.field(in_struct=True))
                    if self.punct(">", required=False):
                        break
                    self.punct(",")
            return pa.struct(fields)
        if low in _REFUSED:
            self.i -= 1
            raise self.fail(f"type {tok[1].upper()} is not read by the pandas readers")
        self.i -= 1
        raise self.fail("unknown type")


def parse(text: str) -> "pa.Schema":
    """The Arrow schema of a Spark DDL schema string (see the module docstring)."""
    import pyarrow as pa

    if not isinstance(text, str):
        raise DDLError(f"schema must be a DDL string such as 'a INT, b STRING'; got {type(text).__name__}")
    parser = _Parser(text)
    if parser.peek() is None:
        raise DDLError("schema is empty: give at least one column, e.g. 'a INT'")
    fields = []
    while True:
        fields.append(parser.field(in_struct=False))
        if parser.peek() is None:
            break
        parser.punct(",")
    names = [f.name for f in fields]
    lowered: dict[str, str] = {}
    for name in names:
        if name.lower() in lowered:
            raise DDLError(f"schema {text!r}: columns {lowered[name.lower()]!r} and {name!r} have the same name "
                           "(names ignore case, as in Spark)")
        lowered[name.lower()] = name
    return pa.schema(fields)


def as_schema(schema: Any) -> Optional["pa.Schema"]:
    """``None``, a ``pyarrow.Schema`` (kept) or a DDL string (parsed)."""
    import pyarrow as pa

    if schema is None or isinstance(schema, pa.Schema):
        return schema
    return parse(schema)


_DDL_NAMES = {"bool": "BOOLEAN", "int8": "TINYINT", "int16": "SMALLINT", "int32": "INT", "int64": "BIGINT",
              "float": "FLOAT", "double": "DOUBLE", "string": "STRING", "large_string": "STRING",
              "binary": "BINARY", "large_binary": "BINARY", "date32[day]": "DATE"}


def to_ddl(schema: "pa.Schema") -> str:
    """An Arrow schema as the Spark DDL :func:`parse` reads back to the same types (names
    back-quoted; unsigned integers as Spark reads them). A type Spark has no name for (a null
    column, a time of day, a duration) is refused with :class:`DDLError` naming the column."""
    from ubunye.io.parquet_schema import spark_type

    return ", ".join(f"{_quoted(f.name)} {_ddl_type(spark_type(f.type), f.name)}" for f in schema)


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _ddl_type(t: "pa.DataType", name: str) -> str:
    import pyarrow as pa

    if str(t) in _DDL_NAMES:
        return _DDL_NAMES[str(t)]
    if pa.types.is_timestamp(t):
        return "TIMESTAMP" if t.tz is not None else "TIMESTAMP_NTZ"
    if pa.types.is_decimal(t) and t.precision <= 38:
        return f"DECIMAL({t.precision},{t.scale})"
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return f"ARRAY<{_ddl_type(t.value_type, name)}>"
    if pa.types.is_map(t):
        return f"MAP<{_ddl_type(t.key_type, name)}, {_ddl_type(t.item_type, name)}>"
    if pa.types.is_struct(t):
        return "STRUCT<" + ", ".join(f"{_quoted(f.name)}: {_ddl_type(f.type, name)}" for f in t) + ">"
    raise DDLError(f"column {name!r} of type {t}: no Spark type to read it back as")
