"""What Spark keeps of a JSON record that does not parse: its root loop over Jackson's tokens.

Spark's ``JacksonParser.convertObject`` converts each top-level field of a
record inside a ``try``: an error raised while a field's value converts
(a Jackson syntax error included) is remembered, ``skipChildren()`` runs and
the loop reads on from wherever Jackson's tokenizer stopped; at the end the
row keeps the fields converted so far (with ``_corrupt_record``). An error
raised by the loop's own ``nextToken`` (or by that ``skipChildren``) escapes,
and the row is all null.

Where a record stops therefore depends on Jackson's tokenizer
(``UTF8StreamJsonParser``, which Spark uses for text read as bytes):
:class:`Tokens` ports its ``nextToken`` (a field name is read together with
its value's first token: a number or literal is parsed then, a string is
left unread, a container only opened), how much of an invalid token each
error consumes, and the parsing context an error leaves; :func:`partial_row`
runs Spark's converters over it (``convertObject``, ``convertArray``, the
scalar converters; partial results on, as Spark has them by default since
3.4). Where the port does not model a path (a multi-byte character read
byte by byte in an error),
:func:`partial_row` answers ``None`` and the record stays all-null, as before.
"""
from __future__ import annotations

import unicodedata
from typing import Any, Optional

from ubunye.io.json_convert import convert
from ubunye.io.json_parse import Grammar, JsonSyntax, _Parser, parse_root

FIELD, START_OBJ, END_OBJ, START_ARR, END_ARR, STRING, NUMBER, TRUE, FALSE, NULL = (
    "FIELD_NAME", "START_OBJECT", "END_OBJECT", "START_ARRAY", "END_ARRAY", "VALUE_STRING", "VALUE_NUMBER",
    "VALUE_TRUE", "VALUE_FALSE", "VALUE_NULL")
_DIGITS = "0123456789"
_HEX = set("0123456789abcdefABCDEF")
_ESCAPES = set('"\\/bfnrt')
_IDENT_START = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_$")
# Java's isJavaIdentifierPart over ASCII: letters, digits, _ and $, and the "ignorable" controls
_IDENT_PART = _IDENT_START | set(_DIGITS) | {chr(c) for c in (*range(0, 9), *range(0x0E, 0x1C), 0x7F)}
_IDENT_CATEGORIES = {"Lu", "Ll", "Lt", "Lm", "Lo", "Nl", "Nd", "Mn", "Mc", "Pc", "Sc", "Cf"}
_NAME_CHARS = _IDENT_START | set(_DIGITS) | set("@#*-+\x7f")  # Jackson's unquoted-name table (ASCII)


class JacksonError(Exception):
    """A syntax error Jackson raises (the tokenizer's state is where Jackson leaves it)."""


class Unmodelled(Exception):
    """A path the port does not follow exactly: the caller keeps the record all-null."""


def _ident_part(c: str) -> bool:
    """Java's ``Character.isJavaIdentifierPart`` (Jackson decodes the whole character here)."""
    if c < "\x80":
        return c in _IDENT_PART
    return unicodedata.category(c) in _IDENT_CATEGORIES


class Tokens:
    """Jackson 2.20's ``UTF8StreamJsonParser`` token by token, over one record's text."""

    def __init__(self, text: str, grammar: Grammar) -> None:
        self.s, self.n, self.p, self.g = text, len(text), 0, grammar
        self.ctx: list[list] = [["root", -1, None]]  # [type, index, current name]
        self.cur: Optional[str] = None
        self.nxt: Optional[str] = None
        self.incomplete = False  # a double-quoted string not read yet
        self.start = 0  # where the current (or pending) value token starts
        self.strings = _Parser(text, grammar)
        self.lost = False  # an error left the input at a place the port does not know

    # -- characters --------------------------------------------------------------------
    def _ascii(self, c: str) -> str:
        """Jackson reads these one byte at a time, and every such place raises on a byte past
        ASCII: the error is certain, where it leaves the input is not (``lost``)."""
        if c >= "\x80":
            self.lost = True
            raise JacksonError("a multi-byte character read byte by byte")
        return c

    def _get(self) -> Optional[str]:
        if self.p >= self.n:
            return None
        self.p += 1
        return self.s[self.p - 1]

    def _need(self) -> str:
        c = self._get()
        if c is None:
            raise JacksonError("unexpected end-of-input")
        return c

    def _ws(self, at_end_ok: bool) -> Optional[str]:
        """``_skipWSOrEnd`` (at_end_ok) or ``_skipWS``: the next significant character, consumed."""
        while True:
            c = self._get()
            if c is None:
                if at_end_ok and self.ctx[-1][0] == "root":
                    return None
                raise JacksonError("unexpected end-of-input")
            if c > " ":
                if c == "/":
                    self._comment()
                    continue
                return c
            if c not in " \t\n\r":
                raise JacksonError("illegal white space character")

    def _comment(self) -> None:
        if not self.g.comments:
            raise JacksonError("comments not allowed")
        c = self._need()
        if c == "/":
            while (c := self._get()) is not None and c not in "\r\n":
                pass
        elif c == "*":
            end = self.s.find("*/", self.p)
            if end < 0:
                self.p = self.n
                raise JacksonError("unexpected end-of-input in a comment")
            self.p = end + 2
        else:
            self._ascii(c)
            raise JacksonError("was expecting '*' or '/' for a comment")

    def _invalid_token(self, matched: str) -> None:
        """``_reportInvalidToken``: consumes the rest of the word and one character after it."""
        size = len(matched)
        while (c := self._get()) is not None and _ident_part(c):
            size += 1
            if size >= 256:
                break
        raise JacksonError("unrecognized token")

    def _match(self, word: str, i: int) -> None:
        """``_matchToken``: the rest of ``word`` from index ``i``, then no identifier character."""
        while i < len(word):
            if self.p >= self.n or self.s[self.p] != word[i]:
                self._invalid_token(word[:i])
            self.p += 1
            i += 1
        if self.p < self.n:
            c = self.s[self.p]
            if c >= "0" and c not in "]}" and self._ascii(c) in _IDENT_PART:
                self._invalid_token(word)

    # -- values ------------------------------------------------------------------------
    def _zeros(self) -> str:
        """``_verifyNoLeadingZeroes`` after a first ``0``: the digit to start with."""
        if self.p >= self.n or self.s[self.p] not in _DIGITS:
            return "0"
        if not self.g.leading_zeros:
            raise JacksonError("leading zeroes not allowed")
        ch = self.s[self.p]
        self.p += 1
        if ch == "0":
            while self.p < self.n:
                ch = self.s[self.p]
                if ch not in _DIGITS:
                    return "0"
                self.p += 1
                if ch != "0":
                    break
        return ch

    def _number(self, c: str) -> str:
        """``_parseUnsignedNumber`` / the digits of ``_parseSignedNumber`` (``c`` consumed)."""
        if c == "0":
            self._zeros()
        while (c := self._get()) is not None and c in _DIGITS:
            pass
        if c is not None and (c == "." or c in "eE"):
            return self._float(c)
        if c is not None:
            self.p -= 1
        return NUMBER

    def _float(self, c: Optional[str]) -> str:
        eof = False
        if c == ".":
            digits = 0
            while True:
                c = self._get()
                if c is None:
                    eof = True
                    break
                if c not in _DIGITS:
                    break
                digits += 1
            if digits == 0:
                raise JacksonError("decimal point not followed by a digit")
        if c is not None and not eof and c in "eE":
            c = self._need()
            if c in "+-":
                c = self._need()
            digits = 0
            while c is not None and c in _DIGITS:
                digits += 1
                c = self._get()
                if c is None:
                    eof = True
            if digits == 0:
                raise JacksonError("exponent indicator not followed by a digit")
        if not eof:
            self.p -= 1
        return NUMBER

    def _signed(self, negative: bool) -> str:
        c = self._ascii(self._need())
        if c <= "0":
            if c != "0":
                if c == ".":
                    raise JacksonError("unexpected character '.'")  # no leading decimal point
                return self._bad_number_start(c, negative)
        elif c > "9":
            return self._bad_number_start(c, negative)
        return self._number(c)

    def _bad_number_start(self, c: str, negative: bool) -> str:
        """``_handleInvalidNumberStart`` (with a sign): ``-INF``, ``+Infinity``, ... or an error."""
        if self._ascii(c) == "I":
            c = self._ascii(self._need())
            word = {"N": "INF", "n": "Infinity"}.get(c)
            if word is not None:
                self._match(("-" if negative else "+") + word, 3)
                if self.g.non_numeric:
                    return NUMBER
                raise JacksonError("non-standard token")
        raise JacksonError("expected digit")

    def _unexpected_value(self, c: str) -> str:
        """``_handleUnexpectedValue``."""
        if c == "'" and self.g.single_quotes:
            return self._string(self.p - 1)
        if c in "NI":
            self._match("NaN" if c == "N" else "Infinity", 1)
            if self.g.non_numeric:
                return NUMBER
            raise JacksonError("non-standard token")
        if c == "+":
            return self._bad_number_start(self._need(), False)
        if c >= "\x80" and len(c.encode("utf-8")) == 2 and c.encode("utf-8")[0] != 0xD7:
            # Jackson takes the first byte as a Latin-1 letter and reads an "invalid token": the next
            # byte, a continuation byte, fails as a UTF-8 start byte, just past the character
            raise JacksonError("invalid UTF-8 start byte")
        if self._ascii(c) in _IDENT_START:
            self._invalid_token(c)
        raise JacksonError("unexpected character")

    def _string(self, at: int) -> str:
        """A whole quoted string from ``at`` (``_finishString`` / ``_skipString``): an error
        stops after the character that raised it (a control character, a bad escape or hex
        digit), or at the end of the text."""
        quote, self.p = self.s[at], at + 1
        while True:
            c = self._need()
            if c == quote:
                return STRING
            if c == "\\":
                e = self._need()
                if e == "u":
                    for _ in range(4):
                        if self._ascii(self._need()) not in _HEX:
                            raise JacksonError("bad hex digit in a \\u escape")
                elif e not in _ESCAPES and not (e == "'" and self.g.single_quotes):
                    self._ascii(e)
                    raise JacksonError("unrecognized character escape")
            elif c < " ":
                raise JacksonError("illegal unquoted character in a string")

    def _value(self, c: str) -> str:
        """The first token of a value whose first character ``c`` was consumed."""
        self.start = self.p - 1
        if c == '"':
            self.incomplete = True
            return STRING
        if c in "[{":
            return START_ARR if c == "[" else START_OBJ
        if c in "tfn":
            self._match({"t": "true", "f": "false", "n": "null"}[c], 1)
            return {"t": TRUE, "f": FALSE, "n": NULL}[c]
        if c == "-":
            return self._signed(True)
        if c in _DIGITS:
            return self._number(c)
        if c == ".":
            raise JacksonError("unexpected character '.'")  # no leading decimal point
        return self._unexpected_value(c)

    def _name(self, c: str) -> str:
        if c == '"' or (c == "'" and self.g.single_quotes):
            at = self.p - 1
            self._string(at)
            try:
                return self.strings.string(at)[0]
            except JsonSyntax as exc:
                raise Unmodelled("a name Jackson reads but the parser refuses") from exc
        if not self.g.unquoted_names:
            raise JacksonError("was expecting double-quote to start field name")
        if c >= "\x80":
            raise Unmodelled("a non-ASCII unquoted name")
        if c not in _NAME_CHARS:
            raise JacksonError("was expecting a valid name character")
        begin = self.p - 1
        while self.p < self.n and self.s[self.p] in _NAME_CHARS:
            self.p += 1
        if self.p >= self.n:
            raise JacksonError("unexpected end-of-input in field name")
        if self.s[self.p] >= "\x80":
            raise Unmodelled("a non-ASCII unquoted name")
        return self.s[begin:self.p]

    def _colon(self) -> str:
        """``_skipColon``: the colon, then the value's first character (both consumed)."""
        c = self._ws(False)
        if c != ":":
            raise JacksonError("was expecting a colon")
        return self._ws(False)  # type: ignore[return-value]

    # -- tokens ------------------------------------------------------------------------
    def _close(self, kind: str) -> None:
        if self.ctx[-1][0] != kind:
            raise JacksonError("mismatched end marker")
        self.ctx.pop()

    def next_token(self) -> Optional[str]:
        if self.cur == FIELD:  # _nextAfterName
            t, self.nxt = self.nxt, None
            if t in (START_ARR, START_OBJ):
                self.ctx.append(["array" if t == START_ARR else "object", -1, None])
            self.cur = t
            return t
        if self.lost:
            raise Unmodelled("reading on after an error that left the input at an unknown place")
        if self.incomplete:
            self.incomplete = False
            self._string(self.start)
        c = self._ws(True)
        if c is None:
            self.cur = None
            return None
        if c in "]}":
            self._close("array" if c == "]" else "object")
            self.cur = END_ARR if c == "]" else END_OBJ
            return self.cur
        top = self.ctx[-1]
        top[1] += 1
        if top[0] != "root" and top[1] > 0:  # expectComma
            if c != ",":
                self._ascii(c)  # type: ignore[arg-type]
                raise JacksonError("was expecting comma")
            c = self._ws(False)
        if top[0] != "object":
            t = self._value(c)  # type: ignore[arg-type]
            if t in (START_ARR, START_OBJ):
                self.ctx.append(["array" if t == START_ARR else "object", -1, None])
            self.cur = t
            return t
        top[2] = self._name(c)  # type: ignore[arg-type]
        self.cur = FIELD
        self.nxt = self._value(self._colon())
        return FIELD

    def current_name(self) -> Optional[str]:
        if self.cur in (START_OBJ, START_ARR) and len(self.ctx) > 1:
            return self.ctx[-2][2]
        return self.ctx[-1][2]

    def skip_children(self) -> None:
        if self.cur not in (START_OBJ, START_ARR):
            return
        depth = 1
        while True:
            t = self.next_token()
            if t is None:
                raise JacksonError("unexpected end-of-input")
            if t in (START_OBJ, START_ARR):
                depth += 1
            elif t in (END_OBJ, END_ARR):
                depth -= 1
                if depth == 0:
                    return

    def finish_string(self) -> None:
        """``getText`` of a string read lazily."""
        if self.incomplete:
            self.incomplete = False
            self._string(self.start)


class Conversion(Exception):
    """A value Spark's converter refuses (not a syntax error)."""


class Partial(Exception):
    """Spark's ``PartialValueException``: a struct or array with a bad part, and its good parts."""

    def __init__(self, value: Any) -> None:
        super().__init__("partial")
        self.value = value


def _tag(t: Any) -> str:
    return t[0] if isinstance(t, tuple) else t


def _value(tokens: Tokens, t: Any, grammar: Grammar) -> Any:
    """Spark's ``parseJsonToken`` and the converter of type ``t``, at the current token."""
    if tokens.cur == FIELD:
        tokens.next_token()
    token, tag = tokens.cur, _tag(t)
    if token is None or token == NULL:
        return None
    if token in (END_OBJ, END_ARR):
        if tag != "string":
            raise Conversion("an end marker read as a value")
        return "]" if token == END_ARR else "}"  # the marker's own bytes, as Spark 4 copies them
    start = tokens.start
    if token in (START_OBJ, START_ARR):
        if tag == "struct" and token == START_OBJ:
            return _object(tokens, t[1], grammar)
        if tag == "array" and token == START_ARR:
            return _array(tokens, t[1], grammar)
        if tag != "string":
            raise Conversion("a container where the schema has another type")
        tokens.skip_children()
        return tokens.s[start:tokens.p]  # Spark 4's exact string parsing: the value's bytes
    if tag in ("struct", "array"):
        raise Conversion("a scalar where the schema has a container")
    if token == STRING:
        tokens.finish_string()
    try:
        value = parse_root(tokens.s[start:tokens.p], grammar)
    except JsonSyntax as exc:
        raise Unmodelled("a token Jackson reads but the parser refuses") from exc
    errors: list = []
    out = convert(value, t, errors)
    if errors:
        raise Conversion(errors[0])
    return out


def _object(tokens: Tokens, fields: tuple, grammar: Grammar) -> dict:
    """Spark's ``convertObject`` (partial results on, Spark's default since 3.4): each field
    converts inside a ``try``; the loop's own ``nextToken`` is outside it."""
    types = dict(fields)
    row: dict = dict.fromkeys(types)
    bad = False
    while (t := tokens.next_token()) is not None and t != END_OBJ:
        name = tokens.current_name()
        if name not in types:
            tokens.skip_children()
            continue
        try:
            row[name] = _value(tokens, types[name], grammar)
        except Partial as part:
            row[name], bad = part.value, True
        except (JacksonError, Conversion):
            bad = True
            tokens.skip_children()
    if bad:
        raise Partial(row)
    return row


def _array(tokens: Tokens, element: Any, grammar: Grammar) -> list:
    """Spark's ``convertArray``: only a partial element is caught; any other error escapes."""
    values: list = []
    bad = False
    while (t := tokens.next_token()) is not None and t != END_ARR:
        try:
            values.append(_value(tokens, element, grammar))
        except Partial as part:
            values.append(part.value)
            bad = True
    if bad:
        raise Partial(values)
    return values


def partial_row(text: str, fields: tuple, grammar: Grammar) -> Optional[dict]:
    """The row Spark keeps of a record that does not parse (all fields null where Spark nulls
    them), or None where the port cannot tell."""
    tokens = Tokens(text, grammar)
    try:
        if tokens.next_token() != START_OBJ:
            return None
        _object(tokens, fields, grammar)
        return None  # Jackson read it all: a disagreement with the parser, not modelled
    except Partial as part:
        return part.value
    except (JacksonError, Conversion):
        return dict.fromkeys(n for n, _ in fields)
    except (Unmodelled, RecursionError):
        return None
