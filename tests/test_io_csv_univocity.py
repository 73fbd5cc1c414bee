"""Quotes, escapes and line breaks as univocity's parser reads them for Spark (no Spark).

Each expected table is what Spark 4.1 read from the same text; the cases are the
differences the csv fuzz found (integration/test_parity_fuzz.py) or rules read in
univocity's source, and integration/test_parity_csv.py (QUOTE_CASES) checks them
against Spark itself.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import pytest

from ubunye.io import UnreadablePath, read_arrow
from ubunye.io.csv import split_record
from ubunye.io.univocity import MAX_NESTING


def rows(tmp_path: Path, text: str, schema: Optional[str] = None, **options: str) -> list[tuple]:
    path = tmp_path / "data.csv"
    path.write_bytes(text.encode("utf-8"))
    table = read_arrow(path, "csv", options={"header": "false", **options}, schema=schema)
    return [tuple(r.values()) for r in table.to_pylist()]


def test_a_lone_quote_ending_a_line_is_a_value() -> None:
    # the parser reaches the end of the line right after an opening quote: the quote is the value
    assert split_record('b,"') == ["b", '"']
    assert split_record('"') == ['"']


def test_quotes_inside_and_after_values_are_kept() -> None:
    # STOP_AT_DELIMITER: a quoted value followed by text is read raw up to the delimiter
    assert split_record('"x" y,"p"q"r",a"b') == ['"x" y', '"p"q"r"', 'a"b']


def test_an_escape_equal_to_the_quote(tmp_path: Path) -> None:
    assert rows(tmp_path, '"\n""\n"" \n', "a STRING", escape='"') == [('"',), (None,), (None,)]


def test_doubled_quotes_with_no_escape(tmp_path: Path) -> None:
    # escape unset: the character before the first quote "escapes" it, then pairs read as one quote
    assert rows(tmp_path, ' "1,\'\n"""""\t\\\n', escape="", header="true") == [('""""\t\\', None)]


def test_multiline_lines_end_as_the_first_line_break_found(tmp_path: Path) -> None:
    # a file whose first line ends in \r: \r ends records, \n is text
    assert rows(tmp_path, "b\ra'\n\t\rc", quote="", multiLine="true") == [("b",), ("a'\n\t",), ("c",)]


def test_multiline_unclosed_quote_runs_to_the_end(tmp_path: Path) -> None:
    # no escape: the last doubled quote is read as one, the opening quote is dropped, line breaks kept
    text = '\t\'b\n ,"\'\tb,\n,\t,b\'a\t\'\n\n,bba\'\na\taa\tb ""\nb'
    assert rows(tmp_path, text, "a STRING, b STRING", escape="", multiLine="true") == [
        ("\t'b", None), (" ", "'\tb,\n,\t,b'a\t'\n\n,bba'\na\taa\tb \""), ("b", None)]


def test_multiline_short_text_detects_its_line_break_again_at_the_end(tmp_path: Path) -> None:
    # univocity detects the line separator again at the end of an input of 4 characters or fewer
    assert rows(tmp_path, "a\r", multiLine="true") == [("a\r",)]
    assert rows(tmp_path, "abcd\r", multiLine="true") == [("abcd",)]


def test_a_one_character_line_separator_is_the_normalized_newline(tmp_path: Path) -> None:
    assert rows(tmp_path, 'x;"a\r\nb"\nc;', lineSep=";") == [("x",), ('"a\r\nb"\nc',)]
    assert rows(tmp_path, 'x;"a\nb";c;', lineSep=";", multiLine="true") == [("x",), ("a\nb",), ("c",)]


def test_a_two_character_separator_matched_in_part(tmp_path: Path) -> None:
    # after a closing quote, the part of the separator matched is kept before the quote
    assert rows(tmp_path, 'a||"b"|c||d\na|||b||c|\n', sep="||") == [("a", '"b|"c', "d"), ("a", "|b", "c|")]


def test_an_empty_file_is_not_read(tmp_path: Path) -> None:
    # with quoting off univocity would make a record of an empty input; Spark never reads a file of 0 bytes
    assert rows(tmp_path, "", "a STRING", quote="", multiLine="true") == []


def test_inputs_univocity_fails_on_are_refused(tmp_path: Path) -> None:
    with pytest.raises(UnreadablePath, match="data.csv.*before the start of the line"):
        rows(tmp_path, "   ,a\n", "a STRING, b STRING", ignoreTrailingWhiteSpace="true")


def test_a_stray_quote_after_an_escape_reads_past_the_delimiter() -> None:
    # the escape after a quote starts a nested read that stops at the delimiter; the outer one reads on past it
    assert split_record('"a"\\b",x') == ['a"\\bx']


def test_stray_quotes_after_an_escape_nest_up_to_a_limit(tmp_path: Path) -> None:
    text = '"a"\\' + 'b"' * MAX_NESTING + ",x\n"
    assert rows(tmp_path, text, "a STRING, b STRING") == [('a"\\' + 'b"' * (MAX_NESTING - 1) + "bx", None)]
    with pytest.raises(UnreadablePath, match="more than 5,000 stray quotes"):
        rows(tmp_path, '"a"\\' + 'b"' * (MAX_NESTING + 1) + ",x\n", "a STRING, b STRING")


def test_a_first_record_value_of_whitespace_only_is_refused_when_trailing_whitespace_is_trimmed(
        tmp_path: Path) -> None:
    # univocity trims the first record's values as header names (ArgumentUtils.trim reads before the start)
    with pytest.raises(UnreadablePath, match="first record has a value of whitespace only"):
        rows(tmp_path, '"\t",a\n', "a STRING, b STRING", ignoreTrailingWhiteSpace="true")
    with pytest.raises(UnreadablePath, match="first record has a value of whitespace only"):
        rows(tmp_path, "x||\t", "a STRING, b STRING", sep="||", multiLine="true", ignoreTrailingWhiteSpace="true")
    # names that clash once trimmed and lower-cased are literals, left untrimmed: read
    assert rows(tmp_path, '"\t","\t "\n', "a STRING, b STRING", ignoreTrailingWhiteSpace="true") == [("\t", "\t ")]
    assert rows(tmp_path, "||\t", "a STRING, b STRING", sep="||", multiLine="true",
                ignoreTrailingWhiteSpace="true") == [(None, "\t")]
