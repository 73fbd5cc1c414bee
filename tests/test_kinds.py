"""Canonical kinds (spec section 3): the parsed form, its text, and the refusals a user sees."""
from __future__ import annotations

import re

import pytest

from ubunye.hashing.errors import RowsV1Error
from ubunye.hashing.kinds import (
    FLOAT_KINDS,
    INT_KINDS,
    KEYABLE_TAGS,
    SCALAR_KINDS,
    Kind,
    check_unique_names,
    decimal,
    list_of,
    map_of,
    parse_kind,
    scalar,
    struct_of,
)


def test_the_scalar_kinds_are_the_specs_list() -> None:
    assert INT_KINDS == ("int8", "int16", "int32", "int64")
    assert FLOAT_KINDS == ("float32", "float64")
    assert SCALAR_KINDS == {"int8", "int16", "int32", "int64", "float32", "float64", "bool", "string", "binary",
                            "date", "timestamp", "timestamp_ntz", "null"}


def test_map_keys_may_be_any_scalar_but_null_and_a_decimal() -> None:
    assert KEYABLE_TAGS == (SCALAR_KINDS - {"null"}) | {"decimal"}


@pytest.mark.parametrize("tag", sorted(SCALAR_KINDS))
def test_every_scalar_kind_parses_to_itself(tag: str) -> None:
    kind = parse_kind(tag)
    assert kind == Kind(tag) == scalar(tag)
    assert kind.text == str(kind) == tag
    assert not kind.nested


def test_the_parsed_form_of_nested_kinds() -> None:
    kind = parse_kind("struct<a:list<int8>,b:map<date,decimal(10,2)>>")
    assert kind == Kind("struct", (Kind("list", (Kind("int8"),)),
                                   Kind("map", (Kind("date"), Kind("decimal", precision=10, scale=2)))), ("a", "b"))
    assert kind == struct_of([("a", list_of(scalar("int8"))), ("b", map_of(scalar("date"), decimal(10, 2)))])
    assert str(kind) == "struct<a:list<int8>,b:map<date,decimal(10,2)>>"
    assert [k.nested for k in (kind, kind.children[0], kind.children[1], kind.children[1].children[1])] == [
        True, True, True, False]


def test_a_decimal_keeps_its_precision_and_scale() -> None:
    kind = parse_kind("decimal(38,18)")
    assert (kind.tag, kind.precision, kind.scale, kind.text) == ("decimal", 38, 18, "decimal(38,18)")


def test_struct_field_names_are_taken_up_to_the_colon() -> None:
    kind = parse_kind("struct<a b:int8,c-d:string>")
    assert kind.names == ("a b", "c-d")
    assert kind.text == "struct<a b:int8,c-d:string>"


def test_an_empty_struct_ends_where_it_closes() -> None:
    kind = parse_kind("list<struct<>>")
    assert kind == Kind("list", (Kind("struct"),))


@pytest.mark.parametrize("key", ["list<int8>", "struct<a:int8>", "map<int8,int8>", "null"])
def test_a_map_key_with_no_canonical_text_is_refused(key: str) -> None:
    with pytest.raises(RowsV1Error, match=rf"^map key of kind {key.replace('(', '[(]')} has no canonical text$"):
        parse_kind(f"map<{key},string>")
    lenient = parse_kind(f"map<{key},string>", strict=False)
    assert lenient.text == f"map<{key},string>"


@pytest.mark.parametrize("key", ["int8", "decimal(5,1)", "date", "timestamp_ntz", "binary", "bool"])
def test_a_map_key_of_a_scalar_or_decimal_is_kept(key: str) -> None:
    assert parse_kind(f"map<{key},int8>").children[0].text == key


def test_repeated_struct_field_names_are_refused_unless_lenient() -> None:
    with pytest.raises(RowsV1Error, match=r"^duplicate field names in struct<a,b,a>$"):
        parse_kind("struct<a:int8,b:int8,a:string>")
    lenient = parse_kind("struct<a:int8,b:int8,a:string>", strict=False)
    assert lenient.names == ("a", "b", "a")
    assert struct_of([("a", scalar("int8")), ("a", scalar("int8"))], strict=False).names == ("a", "a")
    with pytest.raises(RowsV1Error):
        map_of(list_of(scalar("int8")), scalar("int8"))
    assert map_of(list_of(scalar("int8")), scalar("int8"), strict=False).text == "map<list<int8>,int8>"


@pytest.mark.parametrize(
    "text, message",
    [
        ("int8 ", r"^malformed kind 'int8 ' at position 4$"),
        ("list<int8>>", r"^malformed kind 'list<int8>>' at position 10$"),
        ("list<int8", r"^malformed kind 'list<int8': expected '>' at position 9$"),
        ("map<int8;int8>", r"^malformed kind 'map<int8;int8>': expected ',' at position 8$"),
        ("map<int8,int8", r"^malformed kind 'map<int8,int8': expected '>' at position 13$"),
        ("struct<a:int8;b:int8>", r"^malformed kind 'struct<a:int8;b:int8>': expected ',' at position 13$"),
        ("struct<a>", r"^malformed kind 'struct<a>': struct field without ':'$"),
        ("decimal(10)", r"^malformed kind 'decimal\(10\)': bad decimal$"),
        ("decimal(x,2)", r"^malformed kind 'decimal\(x,2\)': bad decimal$"),
        ("decimal(1,2,3)", r"^malformed kind 'decimal\(1,2,3\)': bad decimal$"),
        ("uint8", r"^unknown kind 'uint8' in 'uint8'$"),
        ("list<Int8>", r"^unknown kind 'Int8' in 'list<Int8>'$"),
        ("list<>", r"^unknown kind '' in 'list<>'$"),
        ("", r"^unknown kind '' in ''$"),
        ("int8-x", r"^malformed kind 'int8-x' at position 4$"),
    ],
)
def test_malformed_kinds_are_refused_with_where(text: str, message: str) -> None:
    with pytest.raises(RowsV1Error, match=message):
        parse_kind(text)


def test_a_decimal_followed_by_more_text_is_refused_at_its_end() -> None:
    with pytest.raises(RowsV1Error, match=r"^malformed kind 'decimal\(5,1\)x' at position 12$"):
        parse_kind("decimal(5,1)x")
    assert parse_kind("map<decimal(5,1),int8>").children[0] == decimal(5, 1)


def test_a_repeated_top_level_column_is_named() -> None:
    check_unique_names(["a", "b", "A"])
    check_unique_names([])
    with pytest.raises(RowsV1Error, match=r"^column 'b': duplicate top-level column names cannot make a canonical line$"):
        check_unique_names(["a", "b", "c", "b"])


def test_struct_of_refuses_repeated_names_by_default() -> None:
    with pytest.raises(RowsV1Error, match=r"^duplicate field names in struct<a,a>$"):
        struct_of([("a", scalar("int8")), ("a", scalar("string"))])


@pytest.mark.parametrize("text, message", [
    ("list<map<list<int8>,int8>>", "map key of kind list<int8>"),
    ("map<int8,map<list<int8>,int8>>", "map key of kind list<int8>"),
    ("map<struct<a:int8,a:int8>,int8>", "duplicate field names in struct<a,a>"),
    ("struct<s:struct<a:int8,a:int8>>", "duplicate field names in struct<a,a>"),
])
def test_strictness_reaches_nested_kinds(text: str, message: str) -> None:
    with pytest.raises(RowsV1Error, match="^" + re.escape(message)):
        parse_kind(text)
    assert parse_kind(text, strict=False).text == text


@pytest.mark.parametrize("text", ["map<decimal(5,1),decimal(7,2)>", "struct<a:decimal(5,1),b:decimal(7,2)>",
                                  "list<decimal(38,0)>"])
def test_each_decimal_reads_its_own_precision_and_scale(text: str) -> None:
    kind = parse_kind(text)
    assert kind.text == text
    assert [(c.precision, c.scale) for c in kind.children if c.tag == "decimal"] == (
        [(38, 0)] if text.startswith("list") else [(5, 1), (7, 2)])
