"""univocity's input side as Spark reads CSV: the character reader and the value appender.

A port of univocity-parsers 2.9.1's ``AbstractCharInputReader``/``DefaultCharInputReader``
(one buffer: ``next_char`` with line-separator detection and normalization, the fast
paths ``get_string`` and ``get_quoted_string``, the end of input) and
``DefaultCharAppender``, for :mod:`ubunye.io.univocity`. Characters up to U+0020, NUL
included, are whitespace (univocity's ``skipBitsAsWhitespace``).
"""
from __future__ import annotations

from typing import Optional

NUL = "\u0000"
NL = "\n"  # the normalized line separator unless lineSep is one character
WHITESPACE = "".join(chr(c) for c in range(33))  # what Java's String.trim() and univocity skip


class UnivocityError(ValueError):
    """Input on which univocity raises (Spark's read fails): refused in one line."""


class EndOfInput(Exception):
    pass


class CharInput:
    """``DefaultCharInputReader`` over one buffer: ``next_char`` with line-ending normalization."""

    def __init__(self, text: str, line_sep: Optional[str], nl: str) -> None:
        self.nl = nl  # the normalized line separator
        self.buf = text
        self.length = len(text) if text else -1
        self.i = 0
        self.ch = NUL
        self.normalize = True
        self.line_count = 0
        self.tmp_len = 0  # characters of the current record read before the end of input
        self.record_start = 0
        self.skipping = False
        self.detect_pending = line_sep is None
        self.ls1, self.ls2 = NUL, NUL
        if line_sep is not None:
            self.ls1, self.ls2 = line_sep[0], (line_sep[1] if len(line_sep) == 2 else NUL)
        if self.detect_pending:
            self._detect()
        if self.length > 0 and self.buf[0] == "\ufeff":
            self.i = 1

    def _detect(self) -> None:
        """``LineSeparatorDetector``: the first ``\\n``, ``\\r`` or ``\\r\\n`` (else ``\\n``)."""
        first, second = NUL, NUL
        for c in (self.buf if self.length > 0 else ""):
            if c in "\r\n":
                if first == NUL:
                    first = c
                else:
                    second = c
                    break
            elif first != NUL:
                break
        if first == NUL:
            self.ls1, self.ls2 = NL, NUL
        elif first == NL:
            self.ls1, self.ls2 = NL, NUL
        else:
            self.ls1, self.ls2 = "\r", (NL if second == NL else NUL)
        if self.length > 4:  # univocity runs the detection again on short inputs
            self.detect_pending = False

    def reload(self, text: str) -> None:
        """``parseLine``'s next line: the buffer is replaced, the position is not."""
        self.buf = text
        self.length = len(text)

    def _update(self) -> None:
        """The buffer is used up: the end of input (the record so far is kept for ``tmp_len``)."""
        if not self.skipping and self.length - self.record_start > 0:
            self.tmp_len += self.length - self.record_start
        self.record_start = 0
        self.length = -1
        self.i = 0
        if self.detect_pending:
            self._detect()

    def next_char(self) -> str:
        if self.length == -1:
            self.ch = NUL
            raise EndOfInput
        ch = self.buf[self.i]
        self.i += 1
        if self.i >= self.length:
            self._update()
        if ch == self.ls1 and (self.ls2 == NUL or (self.length != -1 and self.ls2 == self.buf[self.i])):
            self.line_count += 1
            if self.normalize:
                ch = self.nl
                if self.ls2 != NUL:
                    self.i += 1
                    if self.i >= self.length:
                        if self.length != -1:
                            self._update()
                        else:
                            raise EndOfInput
        self.ch = ch
        return ch

    def mark_record_start(self) -> None:
        self.tmp_len = 0
        self.record_start = self.i % self.length if self.length != -1 else 0

    def parsed_length(self) -> int:
        return (self.i - self.record_start if self.length != -1 else 0) + self.tmp_len

    def skip_whitespace(self, ch: str, stop1: str, stop2: str) -> str:
        while ch <= " " and ch != stop1 and ch != self.nl and ch != stop2:
            ch = self.next_char()
        return ch

    def skip_lines(self) -> None:
        self.skipping = True
        expected = self.line_count + 1
        try:
            while True:
                self.next_char()
                if self.line_count >= expected:
                    break
        except EndOfInput:
            pass
        self.skipping = False

    def _is_sep(self, ch: str, k: int) -> bool:
        """Whether ``ch`` (read before ``buf[k]``) starts a line separator, by the raw characters."""
        return ch == self.ls1 and (self.ls2 == NUL or (k < self.length and self.ls2 == self.buf[k]))

    def get_string(self, ch: str, stop: str, trim: bool, null_value: str) -> Optional[str]:
        """The fast path of an unquoted value: None when it reaches the end of the buffer."""
        if self.i == 0:
            return None
        i = self.i
        while ch != stop:
            if i >= self.length:
                return None
            if ch == self.ls1 and (self.ls2 == NUL or self.ls2 == self.buf[i]):
                break
            ch = self.buf[i]
            i += 1
        pos, size = self.i - 1, i - self.i
        self.i = i - 1
        if trim:
            k = i - 2
            while True:
                if k < 0:
                    raise UnivocityError("univocity reads before the start of the line while trimming a value")
                if self.buf[k] > " ":
                    break
                size -= 1
                k -= 1
        out = null_value if size <= 0 else self.buf[pos:pos + size]
        self.next_char()
        return out

    def get_quoted_string(self, quote: str, escape: str, escape_escape: str, stop1: str,
                          stop2: str) -> Optional[str]:
        """The fast path of a quoted value: None when anything but plain text and a closing quote."""
        if self.i == 0:
            return None
        i = self.i
        while True:
            if i >= self.length:
                return None
            ch = self.ch = self.buf[i]
            if ch == quote:
                if self.buf[i - 1] == escape:
                    return None
                if i + 1 < self.length and self.buf[i + 1] in (stop1, stop2):
                    break
                return None
            if ch == escape:
                if i + 1 < self.length and self.buf[i + 1] in (quote, escape_escape):
                    return None
            elif ch == self.ls1 and self.normalize and (
                    self.ls2 == NUL or (i + 1 < self.length and self.ls2 == self.buf[i + 1])):
                return None
            i += 1
        out = self.buf[self.i:i]
        self.i = i + 1
        if self.i >= self.length:
            self._update()
        return out


class Appender:
    """``DefaultCharAppender``: the characters of the value being read, trailing whitespace counted."""

    def __init__(self, empty_value: str) -> None:
        self.chars: list[str] = []
        self.ws = 0
        self.empty_value = empty_value

    def length(self) -> int:
        return len(self.chars) - self.ws

    def append(self, ch: str) -> None:
        self.chars.append(ch)

    def prepend(self, ch: str) -> None:
        self.chars.insert(0, ch)

    def update_whitespace(self) -> None:
        self.ws = 0
        for c in reversed(self.chars):
            if c > " ":
                break
            self.ws += 1

    def get_and_reset(self) -> str:
        size = len(self.chars) - self.ws
        out = "".join(self.chars[:size]) if size > 0 else self.empty_value
        self.chars, self.ws = [], 0
        return out

    def reset(self) -> None:
        self.chars, self.ws = [], 0

    def append_until(self, ch: str, inp: CharInput, *stops: str) -> str:
        while ch not in stops:
            self.chars.append(ch)
            ch = inp.next_char()
        return ch
