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
``TextParsingException``): a record of more than 20,480 values, a blank first value of a
line trimmed with ``ignoreTrailingWhiteSpace`` (univocity reads before the line's start),
and, refused here though Spark may read it, a quoted value with more than
:data:`MAX_NESTING` stray quotes after an escape (univocity goes one call deeper for
each; Spark's read fails with a ``StackOverflowError`` past a depth the JVM's stack sets).
"""
from __future__ import annotations

import sys
from typing import Callable, Iterator, Optional

from ubunye.io.univocity_input import NL, NUL, WHITESPACE, Appender, CharInput, EndOfInput, UnivocityError

__all__ = ["CsvTokenizer", "UnivocityError"]

MAX_COLUMNS = 20480  # Spark's maxColumns
# univocity reads each stray quote after an escape within a quoted value one call deeper; Spark 4.1
# read 5,000 of them and failed (StackOverflowError) on 50,000: past this many, refused
MAX_NESTING = 5000


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
        # Format.setLineSeparator: a separator of one character is also the normalized one
        self.nl = line_sep if line_sep is not None and len(line_sep) == 1 else NL
        self.detect = multi_line and line_sep is None
        self.normalize_in_quotes = not (multi_line and line_sep is not None)
        self.ignore_leading, self.ignore_trailing = ignore_leading, ignore_trailing
        self.null_value, self.empty_value = null_value, empty_value
        self.appender = Appender(empty_value)
        self.values: list[str] = []
        self.trim = False
        self.ch = self.prev = NUL
        self.unescaped = False
        self.match = 0
        self.depth = 0
        self.first_row_seen = False
        self.input: Optional[CharInput] = None
        self.stopped = False

    # ---- AbstractParser / ParserOutput ------------------------------------------------

    def parse_line(self, line: str) -> Optional[list[str]]:
        """One line (``parseLine``): the first record it holds, or None."""
        if not line:
            return None
        if self.input is None or self.stopped:
            self.input = CharInput(line, self.line_sep or NL, self.nl)
            self.values, self.stopped, self.first_row_seen = [], False, False
        else:
            self.input.reload(line)
        return self._guard(lambda: self._next_record(one_line=True))

    def _guard(self, step: Callable[[], Optional[list[str]]]) -> Optional[list[str]]:
        """``step`` with room for :data:`MAX_NESTING` stray quotes; the tokenizer stops where univocity raises."""
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 4 * MAX_NESTING + 1000))
        try:
            return step()
        except UnivocityError:
            self.stopped = True
            raise
        finally:
            sys.setrecursionlimit(limit)

    def _next_record(self, one_line: bool) -> Optional[list[str]]:
        """``parseLine`` (``one_line``: a comment line gives None) or ``parseNext`` (it is skipped)."""
        inp = self.input
        assert inp is not None
        try:
            while not self.stopped:
                inp.mark_record_start()
                self.ch = inp.next_char()
                if self.process_comments and self.ch == self.comment:
                    inp.skip_lines()
                    if one_line:
                        return None
                    continue
                self._parse_record()
                row = self._row_parsed()
                if row is not None:
                    return row
            if one_line:
                return None
            if self.values:
                return self._row_parsed()
            self._stop()
            return None
        except EndOfInput:
            row = self._handle_eof()
            if not one_line:
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
        if not self.first_row_seen:
            self.first_row_seen = True
            self._first_row_as_headers(row)
        return row

    def _first_row_as_headers(self, row: list[str]) -> None:
        """``ParserOutput.initializeHeaders``: the first record's values, trimmed as header names.

        With ``ignoreTrailingWhiteSpace`` alone, ``ArgumentUtils.trim`` of a value made only of
        whitespace reads before its start (Spark's read fails); values whose names clash
        (``NormalizedString``: trimmed, lower-cased) or quoted in ``'`` are literals, not trimmed.
        """
        if not self.ignore_trailing or self.ignore_leading:
            return
        literal = [False] * len(row)
        seen: dict[str, tuple[str, int]] = {}
        for i, value in enumerate(row):
            trimmed = value.strip(WHITESPACE)
            if len(trimmed) > 2 and trimmed[0] == trimmed[-1] == "'":
                literal[i] = True
            elif trimmed.lower() in seen and seen[trimmed.lower()][0] != value:
                literal[i] = literal[seen[trimmed.lower()][1]] = True
            else:
                seen[trimmed.lower()] = (value, i)
        if any(value and not literal[i] and not value.strip(WHITESPACE) for i, value in enumerate(row)):
            raise UnivocityError("the first record has a value of whitespace only, which univocity trims past "
                                 "its start (ignoreTrailingWhiteSpace)")

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
        out = self.prev != NUL and self.ch != self.delim and self.ch != self.nl and self.ch != self.comment
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
        while self.ch != self.nl:
            if self.ch <= " " and self.ignore_leading:
                self.ch = inp.skip_whitespace(self.ch, delim, quote)
            if self.ch == delim or self.ch == self.nl:
                self._empty_parsed()
            else:
                self.unescaped = False
                self.prev = NUL
                if self.ch == quote:
                    inp.normalize = self.normalize_in_quotes
                    if app.length() == 0:
                        value = inp.get_quoted_string(quote, self.qesc, self.esc_esc, delim, self.nl)
                        if value is not None:
                            self._value_parsed(self.empty_value if value == "" else value)
                            inp.normalize = True
                            try:
                                self.ch = inp.next_char()
                                if self.ch == delim:
                                    try:
                                        self.ch = inp.next_char()
                                        if self.ch == self.nl:
                                            self._empty_parsed()
                                    except EndOfInput:
                                        self._empty_parsed()
                                        return
                            except EndOfInput:
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
                        self.ch = app.append_until(self.ch, inp, delim, self.nl)
                        self._value_parsed()
            if self.ch != self.nl:
                self.ch = inp.next_char()
                if self.ch == self.nl:
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
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise UnivocityError(f"a quoted value holds more than {MAX_NESTING:,} stray quotes after an escape "
                                 "(univocity reads each one level deeper; Spark's read fails past some depth)")
        try:
            self._parse_value_processing_escape()
        finally:
            self.depth -= 1

    def _parse_value_processing_escape(self) -> None:
        inp = self.input
        assert inp is not None
        while self.ch != self.delim and self.ch != self.nl:
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

    def _quoted_body(self, multi: bool) -> bool:
        """The characters after an opening quote up to the closing one; True when the value ended there."""
        inp, app, quote, qesc = self.input, self.appender, self.quote, self.qesc
        assert inp is not None
        self.ch = inp.next_char()
        while True:
            if self.prev == quote:
                if self.ch <= " " or self.ch == self.nl or (not multi and self.ch == self.delim):
                    return False
                if multi and self._match_delimiter():
                    return True
            if self.ch != quote and self.ch != qesc:
                if self.prev == quote:
                    self._unescaped_quote()
                    return True
                if self.prev == qesc and qesc != NUL:
                    app.append(qesc)
                self.ch = app.append_until(self.ch, inp, quote, qesc, self.esc_esc)
                self.prev = self.ch
                self.ch = inp.next_char()
            else:
                self._process_quote_escape()
                self.prev = self.ch
                self.ch = inp.next_char()
                if self.unescaped and (self.ch == self.nl or (self._match_delimiter() if multi else self.ch == self.delim)):
                    return True

    def _parse_quoted_value(self) -> None:
        inp, app, delim, quote = self.input, self.appender, self.delim, self.quote
        assert inp is not None
        if self.prev != NUL:  # parseUnescapedQuotesUntilDelimiter
            app.prepend(quote)
            self.ch = inp.next_char()
            self.trim = self.ignore_trailing
            self.ch = app.append_until(self.ch, inp, delim, self.nl)
        elif self._quoted_body(multi=False):
            return
        else:
            if self.ch != delim and self.ch != self.nl and self.ch <= " ":
                spaces = []
                while True:
                    spaces.append(self.ch)
                    self.ch = inp.next_char()
                    if self.ch == self.nl:
                        return
                    if not (self.ch <= " " and self.ch != delim):
                        break
                if self.ch != delim:
                    app.append(quote)
                    app.chars.extend(spaces)
                    app.append(self.ch)
                    self.prev = self.ch
                    self._parse_quoted_value()
            if self.ch != delim and self.ch != self.nl:
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
        while self.ch <= " " and self.match < len(multi) and self.ch != self.nl and self.ch != self.quote:
            self.ch = inp.next_char()
            if multi[self.match] == self.ch and self._match_delimiter():
                self._empty_parsed()
                self.ch = inp.next_char()
        self._save_matching()

    def _append_until_multi(self) -> None:
        multi, inp, app = self.multi, self.input, self.appender
        assert multi is not None and inp is not None
        while self.match < len(multi) and self.ch != self.nl:
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
        while self.ch != self.nl:
            if self.ch <= " " and self.ignore_leading:
                self._skip_whitespace_multi()
            if self.ch == self.nl or self._match_delimiter():
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
            if self.ch != self.nl:
                self.ch = inp.next_char()
                if self.ch == self.nl:
                    self._empty_parsed()

    def _parse_quoted_value_multi(self) -> None:
        inp, app, quote = self.input, self.appender, self.quote
        assert inp is not None
        if self.prev != NUL:
            app.prepend(quote)
            self.ch = inp.next_char()
            self.trim = self.ignore_trailing
            self._append_until_multi()
        elif self._quoted_body(multi=True):
            return
        if self.ch != self.nl and self.ch <= " " and not self._match_delimiter(save=False):
            spaces = []
            while True:
                spaces.append(self.ch)
                self.ch = inp.next_char()
                if self.ch == self.nl or self._match_delimiter(save=False):
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
        self.input = CharInput(text, None if self.detect else (self.line_sep or NL), self.nl)
        self.values, self.stopped, self.first_row_seen = [], False, False
        self.appender.reset()
        while not self.stopped:
            number = self.input.line_count + 1
            row = self._guard(lambda: self._next_record(one_line=False))
            if row is None:
                break
            yield number, row
