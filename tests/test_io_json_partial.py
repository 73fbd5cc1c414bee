"""What Spark keeps of a JSON record that does not parse (ubunye.io.json_partial).

The expected rows were read from Spark 4.1.1 (integration/test_parity_json.py holds the same
records as parity cases, read by both); these tests pin the port's steps without Spark.
"""
from __future__ import annotations

import pytest

from ubunye.io.json_convert import convert_fields
from ubunye.io.json_parse import Grammar, JObj, Num
from ubunye.io.json_partial import (END_ARR, FIELD, NUMBER, START_ARR, START_OBJ, JacksonError, Tokens,
                                    partial_row)

DEFAULT = Grammar()
FUZZ_4249 = Grammar(comments=True, unquoted_names=True, single_quotes=False, leading_zeros=True, non_numeric=False)
FUZZ_6015 = Grammar(comments=True, unquoted_names=True, single_quotes=True, leading_zeros=True, non_numeric=True)


def test_a_name_is_read_with_its_values_first_token() -> None:
    tokens = Tokens('{"a":12,"b":[1]}', DEFAULT)
    assert tokens.next_token() == START_OBJ
    assert tokens.next_token() == FIELD and tokens.current_name() == "a"
    assert tokens.p == len('{"a":12')  # the number was read with the name
    assert tokens.next_token() == NUMBER
    assert tokens.next_token() == FIELD and tokens.p == len('{"a":12,"b":[')  # the array only opened
    assert tokens.next_token() == START_ARR and tokens.current_name() == "b"


def test_an_invalid_word_takes_the_rest_of_the_word_and_one_character_more() -> None:
    tokens = Tokens("[1,True ,2]", DEFAULT)
    tokens.next_token()
    tokens.next_token()
    with pytest.raises(JacksonError):
        tokens.next_token()
    assert tokens.p == len("[1,True ")  # as Jackson's _reportInvalidToken consumes
    assert tokens.next_token() == NUMBER  # the array's comma was taken: 2 reads on
    assert tokens.next_token() == END_ARR


def test_a_bad_value_after_a_name_leaves_no_next_token() -> None:
    tokens = Tokens('{"a":tru,"b":1}', DEFAULT)
    tokens.next_token()
    with pytest.raises(JacksonError):
        tokens.next_token()
    assert tokens.cur == FIELD
    assert tokens.next_token() is None  # Jackson's _nextAfterName with no pending token


@pytest.mark.parametrize("text, grammar, fields, row", [
    # the fuzz's two records (json:0:4249, json:0:6015), as Spark 4.1.1 reads them
    ('{"c4249_b":01.5,"c4249_a":{"r":-9223372036854775809,"p":True}}', FUZZ_4249,
     (("c4249_a", "string"), ("c4249_b", "string"), ("c4249_c", ("array", "string"))),
     {"c4249_a": None, "c4249_b": "01.5", "c4249_c": None}),
    ('{/* c */"c6015_c":{"r":00},"c6015_a":00,"c6015_b":{"r":true,"p":+-1}/**/', FUZZ_6015,
     (("c6015_a", "long"), ("c6015_b", "string"), ("c6015_c", "bool")),
     {"c6015_a": 0, "c6015_b": None, "c6015_c": None}),
    # inside an array the loop reads on: the array's end comes back as the field's value
    ('{"a":"s","c":[1,True ,2],"b":3}', DEFAULT, (("a", "string"), ("b", "long"), ("c", ("array", "long"))),
     {"a": "s", "b": 3, "c": None}),
    ('{"a":[[1x]],"b":3}', DEFAULT, (("a", "string"), ("b", "long")), {"a": "]", "b": 3}),
    # inside an object the row ends at the error
    ('{"a":"s","d":{"p":1,"q":tru},"b":3}', DEFAULT,
     (("a", "string"), ("b", "long"), ("d", ("struct", (("p", "long"), ("q", "bool"))))),
     {"a": "s", "b": None, "d": None}),
    # the loop's own token fails: every field null
    ('{"a":"s","b":tru,"c":[1]}', DEFAULT, (("a", "string"), ("b", "bool"), ("c", ("array", "long"))),
     {"a": None, "b": None, "c": None}),
    # a nested struct catches the error of its own field and keeps its other fields
    ('{"d":{"p":1,"q":[1,}]},"b":2}', DEFAULT,
     (("b", "long"), ("d", ("struct", (("p", "long"), ("q", ("array", "long")))))),
     {"b": 2, "d": {"p": 1, "q": None}}),
    # a bad escape stops after its character; the array reads on from there
    ('{"a":["x\\q,1],"b":2}', DEFAULT, (("a", ("array", "string")), ("b", "long")), {"a": None, "b": 2}),
    ('{"b":2,"a":["x\\qy",1]}', DEFAULT, (("a", ("array", "string")), ("b", "long")), {"a": None, "b": None}),
    # after the word and the character after it, the array wants a comma: the row is null
    ('{"a":"s","c":[1,True,2],"b":3}', DEFAULT, (("a", "string"), ("b", "long"), ("c", ("array", "long"))),
     {"a": None, "b": None, "c": None}),
    # a conversion error before the syntax error: skipChildren meets the error, the row is null
    ('{"c":[[+1]],"a":[true],"b":null}', DEFAULT, (("a", "string"), ("b", "long"), ("c", ("array", "long"))),
     {"a": None, "b": None, "c": None}),
])
def test_partial_row(text: str, grammar: Grammar, fields: tuple, row: dict) -> None:
    assert partial_row(text, fields, grammar) == row


def test_where_the_input_is_lost_the_record_stays_as_it_was() -> None:
    # a multi-byte character after a sign: Jackson takes one byte of it, and reads on from there
    assert partial_row('{"a":[-\u00e9,1],"b":2}', (("a", "string"), ("b", "long")), DEFAULT) is None
    # the same error where nothing reads on (a value after a name) is exact
    assert partial_row('{"b":2,"a":{"p":-\u00e9},"c":1}', (("a", "string"), ("b", "long"), ("c", "long")),
                       DEFAULT) == {"a": None, "b": 2, "c": None}


def test_a_record_jackson_reads_whole_is_not_answered() -> None:
    assert partial_row('{"a":1}', (("a", "long"),), DEFAULT) is None


def test_a_name_twice_keeps_the_earlier_value_when_the_later_fails() -> None:
    errors: list = []
    obj = JObj([("b", Num("1", "int")), ("b", "x")])
    assert convert_fields(obj, (("b", "long"),), errors) == {"b": 1}
    assert errors
