"""Canonical kinds (spec section 3): one set of type names on every engine.

A :class:`Kind` is the parsed form of a kind text such as
``map<string,list<int64>>`` or ``struct<x:float64,y:decimal(10,2)>``. This
module imports nothing heavy; the Arrow mapping lives in
:mod:`ubunye.hashing.arrow_types`.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ubunye.hashing.errors import RowsV1Error

INT_KINDS = ("int8", "int16", "int32", "int64")
FLOAT_KINDS = ("float32", "float64")
SCALAR_KINDS = frozenset(
    INT_KINDS + FLOAT_KINDS
    + ("bool", "string", "binary", "date", "timestamp", "timestamp_ntz", "null")
)
# kinds a map key may have (spec 2.4: never list, struct or map)
KEYABLE_TAGS = frozenset(SCALAR_KINDS - {"null"}) | {"decimal"}


@dataclass(frozen=True)
class Kind:
    """A parsed canonical kind.

    ``tag`` is a scalar kind name or one of ``decimal``, ``list``, ``map``,
    ``struct``. ``children`` holds the element kind (list), the key and value
    kinds (map) or the field kinds (struct, named by ``names``).
    """

    tag: str
    children: tuple["Kind", ...] = ()
    names: tuple[str, ...] = ()
    precision: int = 0
    scale: int = 0

    @property
    def text(self) -> str:
        """The canonical kind text, without spaces."""
        if self.tag == "decimal":
            return f"decimal({self.precision},{self.scale})"
        if self.tag == "list":
            return f"list<{self.children[0].text}>"
        if self.tag == "map":
            return f"map<{self.children[0].text},{self.children[1].text}>"
        if self.tag == "struct":
            fields = ",".join(f"{n}:{k.text}" for n, k in zip(self.names, self.children))
            return f"struct<{fields}>"
        return self.tag

    def __str__(self) -> str:
        return self.text

    @property
    def nested(self) -> bool:
        return self.tag in ("list", "map", "struct")


def scalar(tag: str) -> Kind:
    """A scalar kind such as ``int64`` or ``string``."""
    return Kind(tag)


def decimal(precision: int, scale: int) -> Kind:
    """``decimal(p,s)``."""
    return Kind("decimal", precision=precision, scale=scale)


def list_of(element: Kind) -> Kind:
    """``list<element>``."""
    return Kind("list", (element,))


def map_of(key: Kind, value: Kind, strict: bool = True) -> Kind:
    """A map kind; ``strict`` refuses keys with no canonical text (list, struct, map)."""
    if strict and key.tag not in KEYABLE_TAGS:
        raise RowsV1Error(f"map key of kind {key.text} has no canonical text")
    return Kind("map", (key, value))


def struct_of(fields: list[tuple[str, Kind]], strict: bool = True) -> Kind:
    """A struct kind; ``strict`` refuses repeated field names."""
    names = tuple(n for n, _ in fields)
    if strict and len(set(names)) != len(names):
        raise RowsV1Error(f"duplicate field names in struct<{','.join(names)}>")
    return Kind("struct", tuple(k for _, k in fields), names)


def parse_kind(text: str, strict: bool = True) -> Kind:
    """Parse a canonical kind text; raises :class:`RowsV1Error` if malformed.

    With ``strict`` (the default) a map key of a nested kind or a repeated
    struct field name is refused too, as having no canonical text.
    """
    kind, end = _parse(text, 0, strict)
    if end != len(text):
        raise RowsV1Error(f"malformed kind {text!r} at position {end}")
    return kind


def _expect(text: str, pos: int, token: str) -> int:
    if not text.startswith(token, pos):
        raise RowsV1Error(f"malformed kind {text!r}: expected {token!r} at position {pos}")
    return pos + len(token)


def _parse(text: str, pos: int, strict: bool) -> tuple[Kind, int]:
    if text.startswith("list<", pos):
        element, pos = _parse(text, pos + 5, strict)
        return list_of(element), _expect(text, pos, ">")
    if text.startswith("map<", pos):
        key, pos = _parse(text, pos + 4, strict)
        pos = _expect(text, pos, ",")
        value, pos = _parse(text, pos, strict)
        return map_of(key, value, strict), _expect(text, pos, ">")
    if text.startswith("struct<", pos):
        pos += 7
        fields: list[tuple[str, Kind]] = []
        while not text.startswith(">", pos):
            if fields:
                pos = _expect(text, pos, ",")
            colon = text.find(":", pos)
            if colon < 0:
                raise RowsV1Error(f"malformed kind {text!r}: struct field without ':'")
            name = text[pos:colon]
            field, pos = _parse(text, colon + 1, strict)
            fields.append((name, field))
        return struct_of(fields, strict), pos + 1
    if text.startswith("decimal(", pos):
        close = text.find(")", pos)
        try:
            p, s = (int(x) for x in text[pos + 8:close].split(","))
        except ValueError:
            raise RowsV1Error(f"malformed kind {text!r}: bad decimal") from None
        return decimal(p, s), close + 1
    end = pos
    while end < len(text) and (text[end].isalnum() or text[end] == "_"):
        end += 1
    tag = text[pos:end]
    if tag not in SCALAR_KINDS:
        raise RowsV1Error(f"unknown kind {tag!r} in {text!r}")
    return Kind(tag), end


def check_unique_names(names: Sequence[str]) -> None:
    """Raise :class:`RowsV1Error` naming a repeated top-level column."""
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise RowsV1Error(
                f"column {name!r}: duplicate top-level column names cannot make a canonical line"
            )
        seen.add(name)
