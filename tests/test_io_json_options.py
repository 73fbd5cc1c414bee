"""The pandas JSON reader: Spark's options, inference rules and read modes (no Spark here).

Each expected table is what Spark 4.1 reads from the same text (integration/test_parity_json.py
checks the same inputs against Spark itself).
"""
from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any, Optional, Union

import pyarrow as pa
import pytest

from ubunye.io import UnreadablePath, read_arrow
from ubunye.io import jsonl
from ubunye.io.json_infer import merge
from ubunye.io.json_parse import Grammar, JsonSyntax, parse_root
from ubunye.io.names import DuplicateColumns, message


def read(tmp_path: Path, data: Union[str, bytes], options: Optional[dict] = None, schema: Any = None) -> pa.Table:
    path = tmp_path / "x.json"
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return read_arrow(path, "json", options=options, schema=schema)


def shape(table: pa.Table) -> tuple[str, list[tuple]]:
    return (", ".join(f"{f.name}: {f.type}" for f in table.schema), [tuple(r.values()) for r in table.to_pylist()])


# ---- inference -----------------------------------------------------------------------

def test_empty_field_names_and_empty_objects_are_dropped(tmp_path: Path) -> None:
    table = read(tmp_path, '{"": 1, "a": 2, "e": {}, "l": [{}]}\n{"a": 3, "s": {"": 1, "k": 2}}\n')
    assert shape(table) == ("a: int64, s: struct<k: int64>", [(2, None), (3, {"k": 2})])


def test_records_with_no_fields_are_rows_of_nulls(tmp_path: Path) -> None:
    assert shape(read(tmp_path, '{}\n{"a": 1}\n{}\n')) == ("a: int64", [(None,), (1,), (None,)])


def test_only_records_with_no_fields_give_rows_without_columns(tmp_path: Path) -> None:
    table = read(tmp_path, "{}\n{}\n")
    assert (table.num_columns, table.num_rows) == (0, 2)


def test_an_empty_string_infers_as_null_and_is_a_bad_value_in_a_number_column(tmp_path: Path) -> None:
    assert shape(read(tmp_path, '{"a": 1}\n{"a": ""}\n')) == ("a: int64", [(1,), (None,)])
    assert shape(read(tmp_path, '{"a": ""}\n')) == ("a: string", [("",)])


def test_names_differing_only_by_case_in_one_record_are_refused_as_spark_refuses(tmp_path: Path) -> None:
    # the line both engine backends give (ubunye.io.names), naming the name as Spark does (lower-cased)
    with pytest.raises(UnreadablePath, match="column 'a' appears more than once when case is ignored") as info:
        read(tmp_path, '{"a": 1, "A": 2}\n')
    assert isinstance(info.value.__cause__, DuplicateColumns) and str(info.value.__cause__) == message("A")
    with pytest.raises(UnreadablePath, match="column 'k' appears more than once"):
        read(tmp_path, '{"s": {"k": 1, "K": 2}}\n')


def test_names_differing_by_case_across_records_merge_when_the_types_match(tmp_path: Path) -> None:
    # Spark's findTightestCommonType: structs equal but for the case of names keep the first's names
    assert shape(read(tmp_path, '{"a": 1}\n{"A": 2}\n')) == ("a: int64", [(1,), (None,)])
    with pytest.raises(UnreadablePath, match="column 'a' appears more than once"):
        read(tmp_path, '{"A": 1}\n{"a": "x"}\n')


def test_a_name_twice_in_a_record_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UnreadablePath, match="column 'a' appears more than once"):
        read(tmp_path, '{"a": 1, "a": 2}\n')


def test_bytes_that_are_not_utf8_make_the_record_malformed(tmp_path: Path) -> None:
    table = read(tmp_path, b'{"a": "x\xffy"}\n{"a": "ok"}\n{"a": 1}\n', {"mode": "DROPMALFORMED"})
    assert shape(table) == ("a: string", [("ok",), ("1",)])


def corrupt_bytes(table: pa.Table) -> list:
    return table.column("_corrupt_record").cast(pa.binary()).to_pylist()


def test_bytes_that_are_not_utf8_are_kept_raw_in_the_corrupt_column(tmp_path: Path) -> None:
    # Spark keeps the record's raw bytes there and rows-v1 hashes them as held (the parity
    # suite compares the digest with Spark's): the pandas reader keeps the same bytes.
    table = read(tmp_path, b'{"a": "x\xffy"}\n{"a": "ok"}\n')
    assert table.column("a").to_pylist() == [None, "ok"]
    assert corrupt_bytes(table) == [b'{"a": "x\xffy"}', None]
    table = read(tmp_path, b'{"a": "\xc3("}\n{"a": "ok"}\n', {"encoding": "UTF-8"})
    assert corrupt_bytes(table) == [b'{"a": "\xc3("}', None]


def test_a_kept_record_hashes_as_its_bytes(tmp_path: Path) -> None:
    from ubunye.hashing import fingerprint

    table = read(tmp_path, b'{"a": "x\xffy"}\n{"a": "ok"}\n')
    by_hand = pa.table({"a": pa.array([None, "ok"]),
                        "_corrupt_record": pa.array([b'{"a": "x\xffy"}', None], pa.binary()).view(pa.string())})
    assert fingerprint(table).data_hash == fingerprint(by_hand).data_hash
    assert fingerprint(table).error is None


def test_a_malformed_record_in_another_encoding_keeps_its_bytes(tmp_path: Path) -> None:
    data = '{"a": "caf\xe9"\n{"a": "x"}\n'.encode("latin-1")
    table = read(tmp_path, data, {"encoding": "ISO-8859-1", "lineSep": "\n"})
    assert corrupt_bytes(table) == [b'{"a": "caf\xe9"', None]  # Spark keeps b"caf\xe9": not UTF-8
    table = read(tmp_path, b'{"a": 1\n{"a": 2}\n', {"encoding": "ISO-8859-1", "lineSep": "\n"})
    assert table.column("_corrupt_record").to_pylist() == ['{"a": 1', None]


@pytest.mark.parametrize("name", ["windows-1252", "UTF8", "latin1"])
def test_charsets_spark_4_does_not_read_are_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(UnreadablePath, match=f"'{name}' is not one of the charsets Spark 4 reads"):
        read(tmp_path, b'{"a": 1}\n', {"encoding": name, "lineSep": "\n"})


def test_numbers_past_64_bits_are_decimals_and_past_38_digits_doubles(tmp_path: Path) -> None:
    table = read(tmp_path, '{"a": 123456789012345678901234, "b": -9223372036854775809, "c": 1' + "0" * 39 + '}\n'
                 '{"a": 1}\n')
    assert str(table.schema.field("a").type) == "decimal128(24, 0)"
    assert str(table.schema.field("b").type) == "decimal128(19, 0)"
    assert table.schema.field("c").type == pa.float64()
    assert table.column("a").to_pylist() == [Decimal("123456789012345678901234"), Decimal(1)]


@pytest.mark.parametrize("a, b, merged", [
    ("long", "double", "double"),
    (("decimal", 23, 0), "long", ("decimal", 23, 0)),
    (("decimal", 3, 2), "long", ("decimal", 22, 2)),
    (("decimal", 20, 0), "double", "double"),
    (("decimal", 30, 10), ("decimal", 30, 0), "double"),
    ("bool", "long", "string"),
    (("array", "long"), "long", "string"),
    (("array", "long"), ("array", "string"), ("array", "string")),
    (("struct", (("x", "long"),)), ("struct", (("x", "string"), ("y", "bool"))),
     ("struct", (("x", "string"), ("y", "bool")))),
    (None, "bool", "bool"),
])
def test_spark_merge_rules(a: Any, b: Any, merged: Any) -> None:
    assert merge(a, b) == merged
    assert merge(b, a) == merged


def test_values_read_into_a_string_column_keep_their_text(tmp_path: Path) -> None:
    table = read(tmp_path, '{"a": 1.50}\n{"a": "x"}\n{"a": 1e5}\n{"a": {"k": 1.0, "z": [true, null]}}\n{"a": false}\n')
    assert table.column("a").to_pylist() == ["1.50", "x", "1e5", '{"k": 1.0, "z": [true, null]}', "false"]


def test_conflicting_nested_types(tmp_path: Path) -> None:
    table = read(tmp_path, '{"a": [1, "x"]}\n{"a": [[1], 2]}\n{"s": {"x": 1}}\n{"s": 3}\n')
    assert shape(table) == ("a: list<item: string>, s: string",
                            [(["1", "x"], None), (["[1]", "2"], None), (None, '{"x": 1}'), (None, "3")])


def test_records_that_are_arrays_null_or_scalars(tmp_path: Path) -> None:
    table = read(tmp_path, '[{"a": 1}, {"a": 2}]\nnull\n5\n[]\n')
    assert shape(table) == ("_corrupt_record: string, a: int64", [(None, 1), (None, 2), ("null", None), ("5", None)])


def test_text_after_the_first_value_blank_lines_and_line_ends(tmp_path: Path) -> None:
    table = read(tmp_path, '{"a": 1} xyz\n\n  \n{"a": 2}\r\n{"a": 3}\r{"a": 4}')
    assert table.column("a").to_pylist() == [1, 2, 3, 4]


def test_every_record_malformed_is_refused_as_spark_refuses(tmp_path: Path) -> None:
    with pytest.raises(UnreadablePath, match="only column is the corrupt-record column"):
        read(tmp_path, "null\nbad\n")
    with pytest.raises(UnreadablePath, match="only column is the corrupt-record column"):
        read(tmp_path, "5\n")  # Spark folds from an empty struct: a scalar record is corrupt


# ---- the grammar (Jackson's, per option) ---------------------------------------------

@pytest.mark.parametrize("text, grammar, ok", [
    ("{'a': 1}", Grammar(), True),
    ("{'a': 1}", Grammar(single_quotes=False), False),
    ('{"a": NaN}', Grammar(), True),
    ('{"a": NaN}', Grammar(non_numeric=False), False),
    ('{"a": 01}', Grammar(), False),
    ('{"a": 01}', Grammar(leading_zeros=True), True),
    ("{a: 1}", Grammar(), False),
    ("{a: 1}", Grammar(unquoted_names=True), True),
    ('/* c */ {"a": 1}', Grammar(), False),
    ('/* c */ {"a": 1}', Grammar(comments=True), True),
    ('{"a": "x\ty"}', Grammar(), False),
    ('{"a": "\\x"}', Grammar(), False),
    ('{"a": 1.}', Grammar(), False),
    ('{"a": tru}', Grammar(), False),
])
def test_grammar(text: str, grammar: Grammar, ok: bool) -> None:
    if ok:
        parse_root(text, grammar)
    else:
        with pytest.raises(JsonSyntax):
            parse_root(text, grammar)


def test_escapes_and_lone_surrogates(tmp_path: Path) -> None:
    table = read(tmp_path, '{"a": "\\u00e9\\/\\"\\ud83d\\ude00", "b": "\\ud800x"}\n')
    assert table.to_pylist() == [{"a": 'é/"\U0001f600', "b": "?x"}]


# ---- options ---------------------------------------------------------------------------

def test_every_followed_option_is_listed() -> None:
    assert set(jsonl.OPTIONS) >= {
        "multiline", "primitivesasstring", "prefersdecimal", "allowcomments", "allowunquotedfieldnames",
        "allowsinglequotes", "allownumericleadingzeros", "allownonnumericnumbers", "encoding", "linesep",
        "dropfieldifallnull", "mode"}


def test_multiline(tmp_path: Path) -> None:
    assert shape(read(tmp_path, '{\n "a": 1,\n "b": [1,\n 2]\n}\n{"a": 2}', {"multiLine": True})) == (
        "a: int64, b: list<item: int64>", [(1, [1, 2])])
    table = read(tmp_path, '[{"a": 1},\n {"a": 2, "b": "x"}]', {"multiLine": "true"})
    assert table.to_pylist() == [{"a": 1, "b": None}, {"a": 2, "b": "x"}]


def test_primitives_as_string(tmp_path: Path) -> None:
    table = read(tmp_path, '{"a": 1, "b": 1.5, "c": true, "d": [1, false], "e": {"x": 2}}\n',
                 {"primitivesAsString": "true"})
    assert table.to_pylist() == [{"a": "1", "b": "1.5", "c": "true", "d": ["1", "false"], "e": {"x": "2"}}]


def test_prefers_decimal(tmp_path: Path) -> None:
    table = read(tmp_path, '{"a": 1.5}\n{"a": 123456789012345678901}\n{"b": 1.25}\n{"b": 7}\n{"c": 1.5e-3}\n',
                 {"prefersDecimal": "true"})
    assert [str(f.type) for f in table.schema] == ["decimal128(22, 1)", "decimal128(22, 2)", "decimal128(4, 4)"]
    with pytest.raises(UnreadablePath, match="negative scale"):
        read(tmp_path, '{"a": 1e5}\n', {"prefersDecimal": "true"})


def test_lenient_grammar_options(tmp_path: Path) -> None:
    assert read(tmp_path, '{a: 1, $b: 2}\n', {"allowUnquotedFieldNames": "true"}).column_names == ["$b", "a"]
    assert read(tmp_path, '{"a": 1} // c\n/* x */ {"a": 2}\n', {"allowComments": "true"}).column(
        "a").to_pylist() == [1, 2]
    assert read(tmp_path, '{"a": 01}\n{"a": -00}\n{"a": 2.5}\n', {"allowNumericLeadingZeros": "true"}).column(
        "a").to_pylist() == [1.0, 0.0, 2.5]
    table = read(tmp_path, '{"a": NaN}\n{"a": 1}\n', {"allowNonNumericNumbers": "false"})
    assert table.column("_corrupt_record").to_pylist() == ['{"a": NaN}', None]
    table = read(tmp_path, "{'a': 1}\n{\"a\": 2}\n", {"allowSingleQuotes": "false"})
    assert table.column("a").to_pylist() == [None, 2]


def test_encoding_and_line_separator(tmp_path: Path) -> None:
    data = '{"a": "caf\xe9"}|{"a": "x"}|'.encode("latin-1")
    assert read(tmp_path, data, {"encoding": "ISO-8859-1", "lineSep": "|"}).column("a").to_pylist() == ["café", "x"]
    utf16 = '{"a": "x"}\n{"a": "\xe9"}\n'.encode("utf-16le")
    assert read(tmp_path, utf16, {"encoding": "UTF-16LE", "lineSep": "\n"}).column("a").to_pylist() == ["x", "é"]
    with pytest.raises(UnreadablePath, match="lineSep option must be specified"):
        read(tmp_path, data, {"encoding": "ISO-8859-1"})
    assert read(tmp_path, '{"a": 1}|{"a": 2}', {"lineSep": "|"}).column("a").to_pylist() == [1, 2]


def test_drop_field_if_all_null(tmp_path: Path) -> None:
    table = read(tmp_path, '{"a": null, "b": 1, "c": [], "d": {"x": null, "y": 1}, "e": [null]}\n',
                 {"dropFieldIfAllNull": "true"})
    assert table.to_pylist() == [{"b": 1, "d": {"y": 1}}]


def test_modes(tmp_path: Path) -> None:
    text = '{"a": 1, "b": ""}\nbad\n{"b": 2, "a": 3}\n'
    assert shape(read(tmp_path, text)) == ("_corrupt_record: string, a: int64, b: int64",
                                          [('{"a": 1, "b": ""}', 1, None), ("bad", None, None), (None, 3, 2)])
    assert shape(read(tmp_path, text, {"mode": "dropMalformed"})) == ("a: int64, b: int64", [(3, 2)])
    with pytest.raises(UnreadablePath, match=r"x\.json:2: malformed JSON record \(mode FAILFAST\)"):
        read(tmp_path, text, {"mode": "FAILFAST"})  # "bad" fails inference already, as in Spark
    with pytest.raises(UnreadablePath, match=r"x\.json:1: malformed JSON record \(mode FAILFAST\): an empty string"):
        read(tmp_path, '{"a": 1, "b": ""}\n{"b": 2}\n', {"mode": "FAILFAST"})
    assert read(tmp_path, text, {"mode": "other"}).num_rows == 3  # Spark takes an unknown mode as PERMISSIVE
    assert read(tmp_path, text, {"columnNameOfCorruptRecord": "bad_"}).column_names == ["a", "b", "bad_"]


def test_a_bad_flag_value_is_refused_naming_the_option(tmp_path: Path) -> None:
    with pytest.raises(UnreadablePath, match="option 'multiLine' must be true or false"):
        read(tmp_path, '{"a": 1}\n', {"multiLine": "yes"})


# ---- an explicit schema ----------------------------------------------------------------

def test_explicit_schema_converts_and_nulls_as_spark(tmp_path: Path) -> None:
    text = ('{"a": 1, "b": "x", "t": 128}\n{"a": 1.5, "b": 2, "t": -1}\n{"a": 99999999999, "b": [1, 2]}\n'
            '{"a": "7", "d": 1.005}\n{"d": 123456}\n')
    table = read(tmp_path, text, schema="a INT, b STRING, t TINYINT, d DECIMAL(5,2)")
    assert table.to_pylist() == [
        {"a": 1, "b": "x", "t": -128, "d": None}, {"a": None, "b": "2", "t": -1, "d": None},
        {"a": None, "b": "[1, 2]", "t": None, "d": None}, {"a": None, "b": None, "t": None, "d": Decimal("1.01")},
        {"a": None, "b": None, "t": None, "d": None}]


def test_explicit_schema_nested_partial_results_and_modes(tmp_path: Path) -> None:
    text = '{"s": {"x": "q", "y": "z"}, "l": [1, 2]}\n{"s": {"x": 1}, "l": [1, "2"]}\n'
    schema = "s STRUCT<x: INT, y: STRING>, l ARRAY<INT>, _corrupt_record STRING"
    assert read(tmp_path, text, schema=schema).to_pylist() == [
        {"s": {"x": None, "y": "z"}, "l": [1, 2], "_corrupt_record": '{"s": {"x": "q", "y": "z"}, "l": [1, 2]}'},
        {"s": {"x": 1, "y": None}, "l": None, "_corrupt_record": '{"s": {"x": 1}, "l": [1, "2"]}'}]
    # only the schema's fields are read: the second record's bad "l" does not count without "l"
    assert read(tmp_path, text, {"mode": "DROPMALFORMED"}, schema="s STRUCT<x: INT, y: STRING>").to_pylist() == [
        {"s": {"x": 1, "y": None}}]
    with pytest.raises(UnreadablePath, match="FAILFAST"):
        read(tmp_path, text, {"mode": "FAILFAST"}, schema="l ARRAY<INT>")


def test_explicit_schema_dates_and_timestamps(tmp_path: Path) -> None:
    import datetime as dt

    text = ('{"d": "2024-01-05", "t": "2024-01-05T10:11:12Z"}\n{"d": "2024-1-5", "t": "2024-01-05 10:11:12.5+02:00"}\n'
            '{"d": "x", "t": 1700000000}\n')
    rows = read(tmp_path, text, schema="d DATE, t TIMESTAMP").to_pylist()
    utc = dt.timezone.utc
    assert rows == [
        {"d": dt.date(2024, 1, 5), "t": dt.datetime(2024, 1, 5, 10, 11, 12, tzinfo=utc)},
        {"d": dt.date(2024, 1, 5), "t": dt.datetime(2024, 1, 5, 8, 11, 12, 500000, tzinfo=utc)},
        {"d": None, "t": dt.datetime(2023, 11, 14, 22, 13, 20, tzinfo=utc)}]


def test_date_and_timestamp_formats(tmp_path: Path) -> None:
    import datetime as dt

    utc = dt.timezone.utc
    table = read(tmp_path, '{"d": "05/01/2024"}\n{"d": "2024-01-05"}\n{"d": "31/02/2024"}\n', {"dateFormat": "dd/MM/yyyy"},
                 schema="d DATE")
    assert table.column("d").to_pylist() == [dt.date(2024, 1, 5), None, None]  # no fallback with a pattern
    table = read(tmp_path, '{"t": "05.01.2024 01:02 PM +0200"}\n{"t": "05 01 2024"}\n',
                 {"timestampFormat": "dd.MM.yyyy hh:mm a X"}, schema="t TIMESTAMP")
    assert table.column("t").to_pylist() == [dt.datetime(2024, 1, 5, 11, 2, tzinfo=utc), None]
    table = read(tmp_path, '{"t": "20240105101112"}\n{"t": "2024/01/05 10:11:12.5"}\n',
                 {"timestampFormat": "yyyyMMddHHmmss"}, schema="t TIMESTAMP")
    assert table.column("t").to_pylist() == [dt.datetime(2024, 1, 5, 10, 11, 12, tzinfo=utc), None]


def test_a_pattern_letter_not_followed_is_refused_naming_it(tmp_path: Path) -> None:
    with pytest.raises(UnreadablePath, match="pattern letters 'EEE' are not followed"):
        read(tmp_path, '{"d": "Fri 2024"}\n', {"dateFormat": "EEE yyyy"}, schema="d DATE")
