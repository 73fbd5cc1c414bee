"""The pandas csv reader's options, inference and explicit schemas (no Spark).

Expected tables are what Spark 4.1 read from the same text (integration/test_parity_csv.py
checks them against Spark itself).
"""
from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path
from typing import Any, Optional

import pyarrow as pa
import pytest

from ubunye.io import UnreadablePath, read_arrow
from ubunye.io.csv import split_record
from ubunye.io.csv_datetime import Pattern, lenient_date, lenient_timestamp
from ubunye.io.csv_options import CsvOptions, parse, separator
from ubunye.io.options import UnsupportedOption

UTC = dt.timezone.utc


def us(value: dt.datetime) -> int:
    """Microseconds since the epoch (what the csv_datetime parsers return)."""
    return (value - dt.datetime(1970, 1, 1, tzinfo=value.tzinfo)) // dt.timedelta(microseconds=1)


def days(value: dt.date) -> int:
    return (value - dt.date(1970, 1, 1)).days


def read(tmp_path: Path, content: Any, schema: Optional[str] = None, **options: str) -> pa.Table:
    path = tmp_path / "data.csv"
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return read_arrow(path, "csv", options=options, schema=schema)


def rows(table: pa.Table) -> list[tuple]:
    return [tuple(r.values()) for r in table.to_pylist()]


def types(table: pa.Table) -> list[str]:
    return [str(f.type) for f in table.schema]


# --- options ---------------------------------------------------------------------------------

@pytest.mark.parametrize("opts, text", [
    ({"sep": ";"}, "a;b\n1;x\n"), ({"sep": "\\t"}, "a\tb\n1\tx\n"), ({"delimiter": "|"}, "a|b\n1|x\n"),
    ({"sep": "||"}, "a||b\n1||x\n"), ({"lineSep": ";"}, "a,b;1,x;"), ({"lineSep": "\r\n"}, "a,b\r\n1,x\r\n"),
])
def test_separators(tmp_path: Path, opts: dict, text: str) -> None:
    table = read(tmp_path, text, **opts)
    assert table.column_names == ["a", "b"] and rows(table) == [(1, "x")]


def test_separator_escapes_and_refusals() -> None:
    assert separator("\\t") == "\t" and separator("\\u0001") == "\u0001"
    with pytest.raises(UnsupportedOption, match="single backslash"):
        separator("\\")
    with pytest.raises(UnsupportedOption, match="lineSep"):
        parse({"linesep": "abc"})
    with pytest.raises(UnsupportedOption, match="'quote' must be one character"):
        parse({"quote": "''"})


def test_quote_escape_and_no_quoting() -> None:
    o = CsvOptions()
    assert split_record('"a\\\\b",1', o=o) == ["a\\b", "1"]  # an escaped escape
    assert split_record('"a\\"b","x" ,2', o=o) == ['a"b', "x", "2"]  # whitespace after a closing quote
    assert split_record('"1,2",x', o=CsvOptions(quote="\u0000")) == ['"1', '2"', "x"]
    assert split_record("\"a''b\",1", o=CsvOptions(escape="'")) == ["a'b", "1"]


def test_header_false_infer_false_and_names(tmp_path: Path) -> None:
    assert read(tmp_path, "a,b\n1,x\n", header="false").column_names == ["_c0", "_c1"]
    assert types(read(tmp_path, "a,b\n1,x\n", inferSchema="false")) == ["string", "string"]
    assert read(tmp_path, "a,A,,b\n1,2,3,4\n").column_names == ["a0", "A1", "_c2", "b"]
    assert read(tmp_path, "a,c\n1,2\n", nullValue="a").column_names == ["_c0", "c"]


def test_null_empty_nan_and_infinity_values(tmp_path: Path) -> None:
    assert rows(read(tmp_path, 'a,b,c\nNA,NA,\n1,x,""\n', nullValue="NA")) == [(None, None, None), (1, "x", "")]
    assert rows(read(tmp_path, 'a,b\n1,""\n2,\n', emptyValue="E")) == [(1, "E"), (2, None)]
    table = read(tmp_path, "a\nnope\nPINF\nNINF\n1.5\n", nanValue="nope", positiveInf="PINF", negativeInf="NINF")
    values = table.column("a").to_pylist()
    assert types(table) == ["double"] and values[0] != values[0] and values[1:] == [float("inf"), float("-inf"), 1.5]


def test_multiline_comment_whitespace_encoding(tmp_path: Path) -> None:
    assert rows(read(tmp_path, 'a,b\n"l1\nl2",x\n', multiLine="true")) == [("l1\nl2", "x")]
    assert rows(read(tmp_path, 'a,b\r\n"x\r\ny",1\r\n', multiLine="true")) == [("x\ny", 1)]
    assert rows(read(tmp_path, 'a,b\n"x\ry",1\n', multiLine="true")) == [("x\ry", 1)]
    assert rows(read(tmp_path, 'a,b\n"l1\nl2",x\n')) == [("l1", None), ('l2"', "x")]
    assert rows(read(tmp_path, "a,b\n#s,m\n1,x\n  #n,2\n", comment="#")) == [("1", "x"), ("  #n", "2")]
    assert rows(read(tmp_path, "a,b\n  1  ,  x y  \n")) == [(1.0, "  x y  ")]
    both = {"ignoreLeadingWhiteSpace": "true", "ignoreTrailingWhiteSpace": "true"}
    assert rows(read(tmp_path, "a,b\n  1  ,  x y  \n", **both)) == [(1, "x y")]
    assert rows(read(tmp_path, b"a\ncaf\xe9\n", encoding="ISO-8859-1")) == [("café",)]
    assert rows(read(tmp_path, b"a,b\n\xff\xfe,1\ncaf\xe9,2\n")) == [("\ufffd\ufffd", 1), ("caf\ufffd", 2)]


@pytest.mark.parametrize("encoding", ["windows-1252", "latin1", "UTF-16"])
def test_encodings_spark_4_refuses_or_this_reader_does_not_follow(tmp_path: Path, encoding: str) -> None:
    with pytest.raises(UnreadablePath, match="option 'encoding'"):
        read(tmp_path, "a\n1\n", encoding=encoding)


def test_modes_with_a_schema(tmp_path: Path) -> None:
    text = "a,b\n1,x\nz,y\n3\n4,q,r\n"
    assert rows(read(tmp_path, text, "a INT, b STRING")) == [(1, "x"), (None, "y"), (3, None), (4, "q")]
    assert rows(read(tmp_path, text, "a INT, b STRING", mode="DROPMALFORMED")) == [(1, "x")]
    with pytest.raises(UnreadablePath, match=r"data.csv line 3: malformed record .* FAILFAST"):
        read(tmp_path, text, "a INT, b STRING", mode="FAILFAST")
    assert rows(read(tmp_path, "a,b\n1,x\n3\n", mode="DROPMALFORMED")) == [(1, "x")]


def test_enforce_schema_false_checks_each_header(tmp_path: Path) -> None:
    folder = tmp_path / "parts"
    folder.mkdir()
    (folder / "p1.csv").write_text("a,b\n1,x\n")
    (folder / "p2.csv").write_text("b,a\ny,2\n")
    assert rows(read_arrow(folder, "csv")) == [("1", "x"), ("y", "2")]
    with pytest.raises(UnreadablePath, match="p2.csv: CSV header"):
        read_arrow(folder, "csv", options={"enforceSchema": "false"})


def test_explicit_schema_conversions(tmp_path: Path) -> None:
    table = read(tmp_path, "a,b,c,d,e,f,g\n1.235,2024-1-5,2024-01-05 10:00,TRUE,1.5d,+7,x\n",
                 "a DECIMAL(5,2), b DATE, c TIMESTAMP, d BOOLEAN, e DOUBLE, f LONG, g STRING")
    assert rows(table) == [(Decimal("1.24"), dt.date(2024, 1, 5), dt.datetime(2024, 1, 5, 10, tzinfo=UTC), True,
                            1.5, 7, "x")]
    assert rows(read(tmp_path, 'a\n"1,000.5"\n999.999\n99999.999\n', "a DECIMAL(7,2)")) == [
        (Decimal("1000.50"),), (Decimal("1000.00"),), (None,)]
    assert rows(read(tmp_path, "a,b\n300,5\n", "a TINYINT, b SHORT")) == [(None, 5)]
    with pytest.raises(UnreadablePath, match="does not support"):
        read(tmp_path, "a\n1\n", "a ARRAY<INT>")


# --- inference -------------------------------------------------------------------------------

@pytest.mark.parametrize("values, kind, first", [
    (["1", "99999999999999999999"], "decimal128(20, 0)", Decimal(1)),
    (["3000000000", "9999999999999999999"], "decimal128(20, 0)", Decimal(3000000000)),
    (["123456789012345678901234567890123456789"], "double", 1.2345678901234568e38),
    (["+5", "-3"], "int32", 5),
    (["1.5d", "2"], "double", 1.5),
    (["\u0661\u0662", "\uff13"], "int32", 12),
    (["\u0661.\u0662"], "string", "\u0661.\u0662"),
    (["5."], "decimal128(1, 0)", Decimal(5)),
    (["1.5E1"], "decimal128(2, 0)", Decimal(15)),
    (["1E5"], "double", 1e5),
    (["5.", "3000000000"], "decimal128(10, 0)", Decimal(5)),
    (['"1,000"'], "string", "1,000"),
    (["0x1p4"], "double", 16.0),
    (["NaNd"], "string", "NaNd"),
    (["TRUE", "false"], "bool", True),
    (["2024-1-5"], "timestamp[us, tz=UTC]", dt.datetime(2024, 1, 5, tzinfo=UTC)),
    (["2024-01"], "timestamp[us, tz=UTC]", dt.datetime(2024, 1, 1, tzinfo=UTC)),
    (["2024-01-05", "2024-01-05 10:00"], "timestamp[us, tz=UTC]", dt.datetime(2024, 1, 5, tzinfo=UTC)),
    (["2024-01-05"], "date32[day]", dt.date(2024, 1, 5)),
    (["2024-01-05T10:00+01:00"], "string", "2024-01-05T10:00+01:00"),
    (["2024-07-05T10:00:00Europe/Paris"], "timestamp[us, tz=UTC]", dt.datetime(2024, 7, 5, 8, tzinfo=UTC)),
    (["2024-01-05T"], "string", "2024-01-05T"),
])
def test_inference_as_spark(tmp_path: Path, values: list[str], kind: str, first: Any) -> None:
    table = read(tmp_path, "a\n" + "\n".join(values) + "\n")
    assert types(table) == [kind] and table.column("a")[0].as_py() == first


def test_inference_options(tmp_path: Path) -> None:
    assert types(read(tmp_path, "a\n2024-01-05\n", preferDate="false")) == ["timestamp[us, tz=UTC]"]
    assert types(read(tmp_path, "a\n05/01/2024\n2024-01-05\n", dateFormat="dd/MM/yyyy")) == ["string"]
    assert types(read(tmp_path, "a\n05/01/2024 10:11\n", timestampNTZFormat="dd/MM/yyyy HH:mm")) == ["string"]


def test_inference_skips_records_equal_to_the_header(tmp_path: Path) -> None:
    assert rows(read(tmp_path, "a,b\n1,2\na,b\n3,4\n")) == [(1, 2), (None, None), (3, 4)]


def test_the_largest_files_header_names_the_columns(tmp_path: Path) -> None:
    folder = tmp_path / "parts"
    folder.mkdir()
    (folder / "p0.csv").write_text("a,b\n1,2\n")
    (folder / "p1.csv").write_text("b,a\n11,22\n33,44\n")
    assert read_arrow(folder, "csv").column_names == ["b", "a"]


def test_a_byte_order_mark_is_skipped(tmp_path: Path) -> None:
    assert read(tmp_path, "\ufeffa,b\n1,2\n").column_names == ["a", "b"]


# --- datetime patterns -----------------------------------------------------------------------

def test_patterns() -> None:
    assert Pattern("dd/MM/yyyy HH:mm:ss.SSS", "x").timestamp("05/01/2024 10:11:12.3") == us(dt.datetime(
        2024, 1, 5, 10, 11, 12, 300000, tzinfo=UTC))
    assert Pattern("yyyy-MM-dd'T'HH:mm:ssXXX", "x").timestamp("2024-01-05T10:11:12+02:00") == us(dt.datetime(
        2024, 1, 5, 8, 11, 12, tzinfo=UTC))
    assert Pattern("dd MMMM yyyy", "x").date("5 january 2024") is None  # dd needs two digits
    assert Pattern("d MMMM yyyy", "x").date("5 January 2024") == days(dt.date(2024, 1, 5))
    assert Pattern("yyyy-MM-dd", "x").date("2024-02-30") is None
    assert Pattern("yyyy-MM-dd hh:mm a", "x").timestamp("2024-01-05 12:30 AM") == us(dt.datetime(2024, 1, 5, 0, 30,
                                                                                                tzinfo=UTC))


@pytest.mark.parametrize("pattern, letter", [("EEE dd", "'E'"), ("yyyy-ww", "'w'"), ("yyyy[-MM]", "optional"),
                                             ("HH:mm VV", "'V'"), ("'unclosed", "unclosed")])
def test_patterns_not_followed_are_refused_naming_them(pattern: str, letter: str) -> None:
    with pytest.raises(UnsupportedOption, match=f"option 'dateFormat' .*{letter}.* is not followed") as info:
        Pattern(pattern, "dateFormat")
    assert "\n" not in str(info.value)


def test_lenient_forms() -> None:
    assert lenient_timestamp("2024-01-05 10") == us(dt.datetime(2024, 1, 5, 10, tzinfo=UTC))
    assert lenient_timestamp("2024-01-05T10:00:00.") == us(dt.datetime(2024, 1, 5, 10, tzinfo=UTC))
    assert lenient_timestamp("2024-07-05T10:00:00UTC+01:00") == us(dt.datetime(2024, 7, 5, 9, tzinfo=UTC))
    assert lenient_timestamp("2024-01-05T10:00Z") is None
    assert lenient_timestamp("2024-01-05 10:00:00+01:00", with_zone=False) is None
    assert lenient_date("2024-1-5 anything") == days(dt.date(2024, 1, 5))
    assert lenient_date("2024-13-01") is None
