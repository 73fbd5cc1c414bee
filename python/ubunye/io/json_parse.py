"""A JSON parser that accepts what Spark's Jackson parser accepts, option by option.

Spark parses JSON with Jackson, whose grammar is stricter than Python's
``json`` in some places (no unescaped control characters in strings) and
looser in others (single-quoted strings by default; ``NaN`` and
``Infinity`` by default; comments, unquoted names and leading zeros when
asked). :class:`Grammar` holds those switches; :func:`parse_root` parses the
first JSON value of a record (text after it is ignored, as Spark ignores it).

Parsed values: ``None``, ``True``/``False``, ``str``, :class:`Num` (a number
kept as its text), :class:`JArr` (a list) and :class:`JObj` (a list of
``(name, value)`` pairs, duplicates kept). Numbers and containers keep their
raw text (``raw``): Spark 4 reads a non-string value into a string column as
the text it was written as.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Optional


class JsonSyntax(ValueError):
    """Text Jackson (with the given options) would not parse."""


class Num:
    """A JSON number: its text and kind (``int``, ``float`` or ``special`` for NaN/Infinity)."""

    __slots__ = ("raw", "kind")

    def __init__(self, raw: str, kind: str) -> None:
        self.raw = raw
        self.kind = kind

    def __repr__(self) -> str:
        return f"Num({self.raw!r})"


class JArr(list):
    """A JSON array (a list) with its raw text."""

    raw = ""


class JObj(list):
    """A JSON object: its ``(name, value)`` pairs in order, with its raw text."""

    raw = ""


EMPTY = object()  # a record holding no JSON value (blank, or only comments)


@dataclass(frozen=True)
class Grammar:
    """Jackson's features as Spark's JSON options set them (Spark's defaults)."""

    comments: bool = False  # allowComments
    unquoted_names: bool = False  # allowUnquotedFieldNames
    single_quotes: bool = True  # allowSingleQuotes
    leading_zeros: bool = False  # allowNumericLeadingZeros
    non_numeric: bool = True  # allowNonNumericNumbers


_WS = re.compile(r"[ \t\r\n]*")
_WS_COMMENTS = re.compile(r"(?:[ \t\r\n]+|//[^\r\n]*|/\*(?:[^*]|\*(?!/))*\*/)*")
_NUM = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
_NUM_ZEROS = re.compile(r"-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?")
# Jackson (ALLOW_NON_NUMERIC_NUMBERS): NaN, Infinity with or without a sign, and INF after a sign
_SPECIAL = re.compile(r"NaN|[+-]?Infinity|[+-]INF")
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "'": "'"}
_DQ = re.compile(r'"((?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt\']|u[0-9a-fA-F]{4}))*)"')
_SQ = re.compile(r"'((?:[^'\\\x00-\x1f]|\\(?:[\"\\/bfnrt']|u[0-9a-fA-F]{4}))*)'")
_DQ_STRICT = re.compile(r'"((?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*)"')
_ESC = re.compile(r"\\(u[0-9a-fA-F]{4}|.)")
_NAME = re.compile(r"[^\W\d]|\$")
_NAME_REST = re.compile(r"[\w$]*")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _unescape(body: str) -> str:
    if "\\" not in body:
        return body
    text = _ESC.sub(lambda m: chr(int(m.group(1)[1:], 16)) if len(m.group(1)) == 5 else _ESCAPES[m.group(1)], body)
    if _LONE_SURROGATE.search(text):  # pairs join; a lone surrogate is written '?', as Java writes it
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
        text = _LONE_SURROGATE.sub("?", text)
    return text


class _Parser:
    def __init__(self, text: str, grammar: Grammar) -> None:
        self.text = text
        self.g = grammar
        self.ws = _WS_COMMENTS if grammar.comments else _WS
        self.dq = _DQ if grammar.single_quotes else _DQ_STRICT
        self.num = _NUM_ZEROS if grammar.leading_zeros else _NUM

    def fail(self, pos: int, what: str) -> JsonSyntax:
        near = self.text[pos:pos + 20]
        return JsonSyntax(f"{what} at character {pos + 1} (near {near!r})" if near else f"{what} at the end")

    def skip(self, pos: int) -> int:
        end = self.ws.match(self.text, pos).end()
        if self.g.comments and self.text.startswith("/*", end):
            raise self.fail(end, "unclosed comment")
        return end

    def string(self, pos: int) -> tuple[str, int]:
        quote = self.text[pos:pos + 1]
        m = self.dq.match(self.text, pos) if quote == '"' else (
            _SQ.match(self.text, pos) if quote == "'" and self.g.single_quotes else None)
        if m is None:
            raise self.fail(pos, "bad string")
        return _unescape(m.group(1)), m.end()

    def name(self, pos: int) -> tuple[str, int]:
        if self.text[pos:pos + 1] in ('"', "'"):
            return self.string(pos)
        if self.g.unquoted_names and _NAME.match(self.text, pos):
            end = _NAME_REST.match(self.text, pos + 1).end()
            return self.text[pos:end], end
        raise self.fail(pos, "expected a field name")

    def value(self, pos: int) -> tuple[Any, int]:
        text = self.text
        c = text[pos:pos + 1]
        if c == "{":
            obj = JObj()
            p = self.skip(pos + 1)
            if text.startswith("}", p):
                obj.raw = text[pos:p + 1]
                return obj, p + 1
            while True:
                key, p = self.name(p)
                p = self.skip(p)
                if not text.startswith(":", p):
                    raise self.fail(p, "expected ':'")
                v, p = self.value(self.skip(p + 1))
                obj.append((key, v))
                p = self.skip(p)
                if text.startswith(",", p):
                    p = self.skip(p + 1)
                elif text.startswith("}", p):
                    obj.raw = text[pos:p + 1]
                    return obj, p + 1
                else:
                    raise self.fail(p, "expected ',' or '}'")
        if c == "[":
            arr = JArr()
            p = self.skip(pos + 1)
            if text.startswith("]", p):
                arr.raw = text[pos:p + 1]
                return arr, p + 1
            while True:
                v, p = self.value(p)
                arr.append(v)
                p = self.skip(p)
                if text.startswith(",", p):
                    p = self.skip(p + 1)
                elif text.startswith("]", p):
                    arr.raw = text[pos:p + 1]
                    return arr, p + 1
                else:
                    raise self.fail(p, "expected ',' or ']'")
        if c == '"' or c == "'":
            return self.string(pos)
        if self.g.non_numeric:
            m = _SPECIAL.match(text, pos)
            if m:
                return Num(m.group(), "special"), self._ends(m.end())
        m = self.num.match(text, pos)
        if m:
            kind = "float" if m.group(1) or m.group(2) else "int"
            return Num(m.group(), kind), self._ends(m.end())
        for word, v in (("true", True), ("false", False), ("null", None)):
            if text.startswith(word, pos):
                return v, self._ends(pos + len(word))
        raise self.fail(pos, "unexpected character")

    def _ends(self, end: int) -> int:
        """A number or literal runs into no letter or digit (Jackson refuses ``1x`` and ``truex``)."""
        nxt = self.text[end:end + 1]
        if nxt and (nxt.isalnum() or nxt in "_$.+-"):
            raise self.fail(end, "unexpected character after a value")
        return end


def parse_root(text: str, grammar: Grammar) -> Any:
    """The first JSON value of a record, or :data:`EMPTY`; raises :class:`JsonSyntax`."""
    parser = _Parser(text, grammar)
    pos = parser.skip(0)
    if pos >= len(text):
        return EMPTY
    value, _end = parser.value(pos)
    return value


def raw_text(value: Any) -> Optional[str]:
    """The text Spark 4 puts in a string column for a parsed value (a string's own text)."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if value is True or value is False:
        return "true" if value else "false"
    return value.raw
