"""The CSV tokenizer Spark reads with: univocity-parsers 2.9.1's ``CsvParser``, as ``CSVOptions`` sets it.

A port of the parser's state machine, step for step, so that text a writer would never
produce (a quote after spaces, a quote inside an unquoted value, an escape before a
non-quote, an unclosed quote, doubled quotes with no escape) splits into the same values
and records as on Spark. The settings are Spark's (``CSVOptions.asParserSettings``):
``unescapedQuoteHandling=STOP_AT_DELIMITER``, empty lines skipped, comment processing
only when ``comment`` is set, ``maxCharsPerColumn=-1``, ``maxColumns=20480``, the line
separator detected from the first line break (``multiLine`` without ``lineSep``) or
``lineSep`` (else ``\\n``), line endings normalized to ``\\n`` (within quotes too, unless
``multiLine`` with ``lineSep``). Characters up to U+0020, NUL included, are whitespace.

The input is one buffer (univocity reads 1M characters at a time: values that cross such
a boundary may take its slow path where this port takes the fast one; both give the
same values except in inputs that make the parser raise). Spark's two uses:
:meth:`CsvTokenizer.parse_line` (one line of a file read line by line; the tokenizer is
kept for the whole file, as Spark keeps it) and :meth:`CsvTokenizer.records`
(``multiLine``: the whole text). A record is a list of values, ``null_value`` for an
empty unquoted value, ``empty_value`` for ``""``; ``parse_line`` gives None where
univocity gives no record (Spark then makes a row of nulls).

:class:`UnivocityError` is raised where univocity raises (Spark's read fails with a
``TextParsingException``): too many columns, a backslash-free value that trims past
the start of the line, or nesting deeper than this port follows.
"""
from __future__ import annotations

from typing import Iterator, Optional

NUL = "\u0000"
NL = "\n"  # the normalized line separator
MAX_COLUMNS = 20480  # Spark's maxColumns


class UnivocityError(ValueError):
    """Input on which univocity raises (Spark's read fails): refused in one line."""


class _EOF(Exception):
    pass


class _Input:
    """``DefaultCharInputReader`` over one buffer: ``next_char`` with line-ending normalization."""

    def __init__(self, text: str, line_sep: Optional[str]) -> None:
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
            raise _EOF
        ch = self.buf[self.i]
        self.i += 1
        if self.i >= self.length:
            self._update()
        if ch == self.ls1 and (self.ls2 == NUL or (self.length != -1 and self.ls2 == self.buf[self.i])):
            self.line_count += 1
            if self.normalize:
                ch = NL
                if self.ls2 != NUL:
                    self.i += 1
                    if self.i >= self.length:
                        if self.length != -1:
                            self._update()
                        else:
                            raise _EOF
        self.ch = ch
        return ch

    def mark_record_start(self) -> None:
        self.tmp_len = 0
        self.record_start = self.i % self.length if self.length != -1 else 0

    def parsed_length(self) -> int:
        return (self.i - self.record_start if self.length != -1 else 0) + self.tmp_len

    def skip_whitespace(self, ch: str, stop1: str, stop2: str) -> str:
        while ch <= " " and ch != stop1 and ch != NL and ch != stop2:
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
        except _EOF:
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


class _Appender:
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

    def append_until(self, ch: str, inp: _Input, *stops: str) -> str:
        while ch not in stops:
            self.chars.append(ch)
            ch = inp.next_char()
        return ch


class CsvTokenizer:
    """univocity's ``CsvParser`` with Spark's settings (one delimiter or several characters)."""

    def __init__(self, sep: str = ",", quote: str = '"', escape: str = "\\", comment: Optional[str] = None,
                 line_sep: Optional[str] = None, multi_line: bool = False, ignore_leading: bool = False,
                 ignore_trailing: bool = False, null_value: str = "", empty_value: str = "",
                 escape_escape: Optional[str] = None) -> None:
        self.multi = sep if len(sep) > 1 else None
        self.delim = sep if self.multi is None else NUL  # univocity leaves it unset with several characters
        self.quote, self.qesc = quote, escape
        # CsvFormat.getCharToEscapeQuoteEscaping: unset -> none when quote == escape, else the escape
        self.esc_esc = escape_escape if escape_escape else (NUL if quote == escape else escape)
        self.comment = comment if comment is not None else "#"  # univocity's default, unused unless set
        self.process_comments = comment is not None
        self.line_sep = line_sep
        self.detect = multi_line and line_sep is None
        self.normalize_in_quotes = not (multi_line and line_sep is not None)
        self.ignore_leading, self.ignore_trailing = ignore_leading, ignore_trailing
        self.null_value, self.empty_value = null_value, empty_value
        self.appender = _Appender(empty_value)
        self.values: list[str] = []
        self.trim = False
        self.ch = self.prev = NUL
        self.unescaped = False
        self.match = 0
        self.input: Optional[_Input] = None
        self.stopped = False

    # ---- AbstractParser / ParserOutput ------------------------------------------------

    def parse_line(self, line: str) -> Optional[list[str]]:
        """One line (``parseLine``): the first record it holds, or None."""
        if not line:
            return None
        if self.input is None or self.stopped:
            self.input = _Input(line, self.line_sep or NL)
            self.values, self.stopped = [], False
        else:
            self.input.reload(line)
        return self._guard(self._parse_one_line)

    def _guard(self, step):  # type: ignore[no-untyped-def]
        try:
            return step()
        except RecursionError:
            self.stopped = True
            raise UnivocityError("univocity's parser nests deeper than this reader follows") from None
        except UnivocityError:
            self.stopped = True
            raise

    def _parse_one_line(self) -> Optional[list[str]]:
        inp = self.input
        assert inp is not None
        try:
            while not self.stopped:
                inp.mark_record_start()
                self.ch = inp.next_char()
                if self.process_comments and self.ch == self.comment:
                    inp.skip_lines()
                    return None
                self._parse_record()
                row = self._row_parsed()
                if row is not None:
                    return row
            return None
        except _EOF:
            return self._handle_eof()

    def _parse_next(self) -> Optional[list[str]]:
        return self._guard(self._parse_next_step)

    def _parse_next_step(self) -> Optional[list[str]]:
        inp = self.input
        assert inp is not None
        try:
            while not self.stopped:
                inp.mark_record_start()
                self.ch = inp.next_char()
                if self.process_comments and self.ch == self.comment:
                    inp.skip_lines()
                    continue
                self._parse_record()
                row = self._row_parsed()
                if row is not None:
                    return row
            if self.values:
                return self._row_parsed()
            self._stop()
            return None
        except _EOF:
            row = self._handle_eof()
            self._stop()
            return row

    def _stop(self) -> None:
        self.stopped = True
        self.ch = NUL
        self.appender.reset()

    def _handle_eof(self) -> Optional[list[str]]:
        consume = self._consume_value_on_eof()
        inp, app = self.input, self.appender
        assert inp is not None
        if self.values or (consume and not self.stopped):
            if app.length() > 0 or consume:
                self._value_parsed()
            elif inp.parsed_length() > 0:
                self._empty_parsed()
            return self._row_parsed()
        if app.length() > 0 or inp.parsed_length() > 0:
            if app.length() == 0:
                self._empty_parsed()
            else:
                self._value_parsed()
            return self._row_parsed()
        return None

    def _row_parsed(self) -> Optional[list[str]]:
        if not self.values:
            return None  # an empty line (skipEmptyLines)
        row, self.values = self.values, []
        return row

    def _add(self, value: str) -> None:
        if len(self.values) >= MAX_COLUMNS:
            raise UnivocityError(f"a record has more than {MAX_COLUMNS} columns (Spark's maxColumns)")
        self.values.append(value)

    def _empty_parsed(self) -> None:
        self._add(self.null_value)

    def _value_parsed(self, value: Optional[str] = None) -> None:
        if value is None:
            if self.trim:
                self.appender.update_whitespace()
            value = self.appender.get_and_reset()
        self._add(value)

    # ---- CsvParser ------------------------------------------------------------------

    def _consume_value_on_eof(self) -> bool:
        if self.ch == self.quote:
            if self.prev == self.quote:
                return True
            if not self.unescaped:
                self.appender.append(self.quote)
        out = self.prev != NUL and self.ch != self.delim and self.ch != NL and self.ch != self.comment
        self.ch = self.prev = NUL
        if self.match > 0:
            self._save_matching()
            return True
        return out

    def _parse_record(self) -> None:
        if self.multi is not None:
            self._parse_multi_delimiter_record()
            return
        inp, app, delim, quote = self.input, self.appender, self.delim, self.quote
        assert inp is not None
        if self.ch <= " " and self.ignore_leading:
            self.ch = inp.skip_whitespace(self.ch, delim, quote)
        while self.ch != NL:
            if self.ch <= " " and self.ignore_leading:
                self.ch = inp.skip_whitespace(self.ch, delim, quote)
            if self.ch == delim or self.ch == NL:
                self._empty_parsed()
            else:
                self.unescaped = False
                self.prev = NUL
                if self.ch == quote:
                    inp.normalize = self.normalize_in_quotes
                    if app.length() == 0:
                        value = inp.get_quoted_string(quote, self.qesc, self.esc_esc, delim, NL)
                        if value is not None:
                            self._value_parsed(self.empty_value if value == "" else value)
                            inp.normalize = True
                            try:
                                self.ch = inp.next_char()
                                if self.ch == delim:
                                    try:
                                        self.ch = inp.next_char()
                                        if self.ch == NL:
                                            self._empty_parsed()
                                    except _EOF:
                                        self._empty_parsed()
                                        return
                            except _EOF:
                                return
                            continue
                    self.trim = False
                    self._parse_quoted_value()
                    inp.normalize = True
                    self._value_parsed()
                else:
                    value = None
                    if app.length() == 0:
                        value = inp.get_string(self.ch, delim, self.ignore_trailing, self.null_value)
                    if value is not None:
                        self._value_parsed(value)
                        self.ch = inp.ch
                    else:
                        self.trim = self.ignore_trailing
                        self.ch = app.append_until(self.ch, inp, delim, NL)
                        self._value_parsed()
            if self.ch != NL:
                self.ch = inp.next_char()
                if self.ch == NL:
                    self._empty_parsed()

    def _process_quote_escape(self) -> None:
        ch, prev, app = self.ch, self.prev, self.appender
        if ch == self.qesc and prev == self.esc_esc and self.esc_esc != NUL:
            app.append(self.qesc)
            self.ch = NUL
        elif prev == self.qesc:
            if ch == self.quote:
                app.append(self.quote)
                self.ch = NUL
            else:
                app.append(prev)
        elif ch == self.quote and prev == self.quote:
            app.append(self.quote)
        elif prev == self.quote:
            self._unescaped_quote_in_value()

    def _unescaped_quote_in_value(self) -> None:
        """``handleUnescapedQuoteInValue`` (STOP_AT_DELIMITER): the quote is kept, the value read on."""
        self.appender.append(self.quote)
        self.prev = self.ch
        self._parse_value_processing_escape()

    def _parse_value_processing_escape(self) -> None:
        inp = self.input
        assert inp is not None
        while self.ch != self.delim and self.ch != NL:
            if self.ch != self.quote and self.ch != self.qesc:
                if self.prev == self.quote:
                    self._unescaped_quote_in_value()
                    return
                self.appender.append(self.ch)
            else:
                self._process_quote_escape()
            self.prev = self.ch
            self.ch = inp.next_char()

    def _unescaped_quote(self) -> None:
        """``handleUnescapedQuote`` (STOP_AT_DELIMITER): quote and character kept, read on to the delimiter."""
        self.unescaped = True
        self.appender.append(self.quote)
        self.appender.append(self.ch)
        self.prev = self.ch
        if self.multi is None:
            self._parse_quoted_value()
        else:
            self._parse_quoted_value_multi()

    def _parse_quoted_value(self) -> None:
        inp, app, delim, quote, qesc = self.input, self.appender, self.delim, self.quote, self.qesc
        assert inp is not None
        if self.prev != NUL:  # parseUnescapedQuotesUntilDelimiter
            app.prepend(quote)
            self.ch = inp.next_char()
            self.trim = self.ignore_trailing
            self.ch = app.append_until(self.ch, inp, delim, NL)
        else:
            self.ch = inp.next_char()
            while True:
                if self.prev == quote and (self.ch <= " " or self.ch == delim or self.ch == NL):
                    break
                if self.ch != quote and self.ch != qesc:
                    if self.prev == quote:
                        self._unescaped_quote()
                        return
                    if self.prev == qesc and qesc != NUL:
                        app.append(qesc)
                    self.ch = app.append_until(self.ch, inp, quote, qesc, self.esc_esc)
                    self.prev = self.ch
                    self.ch = inp.next_char()
                else:
                    self._process_quote_escape()
                    self.prev = self.ch
                    self.ch = inp.next_char()
                    if self.unescaped and (self.ch == delim or self.ch == NL):
                        return
            if self.ch != delim and self.ch != NL and self.ch <= " ":
                spaces = []
                while True:
                    spaces.append(self.ch)
                    self.ch = inp.next_char()
                    if self.ch == NL:
                        return
                    if not (self.ch <= " " and self.ch != delim):
                        break
                if self.ch != delim:
                    app.append(quote)
                    app.chars.extend(spaces)
                    app.append(self.ch)
                    self.prev = self.ch
                    self._parse_quoted_value()
            if self.ch != delim and self.ch != NL:
                raise UnivocityError(f"unexpected character {self.ch!r} after a quoted value")

    # ---- a delimiter of several characters ------------------------------------------

    def _save_matching(self) -> None:
        if self.match > 0:
            if self.multi and self.match < len(self.multi):
                self.appender.chars.extend(self.multi[:self.match])
            self.match = 0

    def _match_delimiter(self, save: bool = True) -> bool:
        multi, inp = self.multi, self.input
        assert multi is not None and inp is not None
        while self.ch == multi[self.match]:
            self.match += 1
            if self.match == len(multi):
                break
            self.ch = inp.next_char()
        if self.match == len(multi):
            self.match = 0
            return True
        if save and self.match > 0:
            self._save_matching()
        return False

    def _skip_whitespace_multi(self) -> None:
        multi, inp = self.multi, self.input
        assert multi is not None and inp is not None
        while self.ch <= " " and self.match < len(multi) and self.ch != NL and self.ch != self.quote:
            self.ch = inp.next_char()
            if multi[self.match] == self.ch and self._match_delimiter():
                self._empty_parsed()
                self.ch = inp.next_char()
        self._save_matching()

    def _append_until_multi(self) -> None:
        multi, inp, app = self.multi, self.input, self.appender
        assert multi is not None and inp is not None
        while self.match < len(multi) and self.ch != NL:
            if multi[self.match] == self.ch:
                self.match += 1
                if self.match == len(multi):
                    break
            else:
                if self.match > 0:
                    self._save_matching()
                    continue
                app.append(self.ch)
            self.ch = inp.next_char()
        self._save_matching()

    def _parse_multi_delimiter_record(self) -> None:
        inp = self.input
        assert inp is not None
        if self.ch <= " " and self.ignore_leading:
            self._skip_whitespace_multi()
        while self.ch != NL:
            if self.ch <= " " and self.ignore_leading:
                self._skip_whitespace_multi()
            if self.ch == NL or self._match_delimiter():
                self._empty_parsed()
            else:
                self.unescaped = False
                self.prev = NUL
                if self.ch == self.quote and self.appender.length() == 0:
                    inp.normalize = self.normalize_in_quotes
                    self.trim = False
                    self._parse_quoted_value_multi()
                    inp.normalize = True
                    self._value_parsed()
                else:
                    self._append_until_multi()
                    if self.ignore_trailing:
                        self.appender.update_whitespace()
                    self._value_parsed()
            if self.ch != NL:
                self.ch = inp.next_char()
                if self.ch == NL:
                    self._empty_parsed()

    def _parse_quoted_value_multi(self) -> None:
        inp, app, quote, qesc = self.input, self.appender, self.quote, self.qesc
        assert inp is not None
        if self.prev != NUL:
            app.prepend(quote)
            self.ch = inp.next_char()
            self.trim = self.ignore_trailing
            self._append_until_multi()
        else:
            self.ch = inp.next_char()
            while True:
                if self.prev == quote and (self.ch <= " " or self.ch == NL):
                    break
                if self.prev == quote and self._match_delimiter():
                    return
                if self.ch != quote and self.ch != qesc:
                    if self.prev == quote:
                        self._unescaped_quote()
                        return
                    if self.prev == qesc and qesc != NUL:
                        app.append(qesc)
                    self.ch = app.append_until(self.ch, inp, quote, qesc, self.esc_esc)
                    self.prev = self.ch
                    self.ch = inp.next_char()
                else:
                    self._process_quote_escape()
                    self.prev = self.ch
                    self.ch = inp.next_char()
                    if self.unescaped and (self.ch == NL or self._match_delimiter()):
                        return
        if self.ch != NL and self.ch <= " " and not self._match_delimiter(save=False):
            spaces = []
            while True:
                spaces.append(self.ch)
                self.ch = inp.next_char()
                if self.ch == NL or self._match_delimiter(save=False):
                    return
                if not self.ch <= " ":
                    break
            if not self._match_delimiter(save=False):
                app.append(quote)
                app.chars.extend(spaces)
                app.append(self.ch)
                self.prev = self.ch
                self._parse_quoted_value()

    def records(self, text: str) -> Iterator[tuple[int, list[str]]]:
        """``(line number, values)`` of every record of a whole text (``multiLine``)."""
        self.input = _Input(text, None if self.detect else (self.line_sep or NL))
        self.values, self.stopped = [], False
        self.appender.reset()
        while not self.stopped:
            number = self.input.line_count + 1
            row = self._parse_next()
            if row is None:
                break
            yield number, row
