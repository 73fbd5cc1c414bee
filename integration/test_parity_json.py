"""Parity of Spark and the pandas reader on JSON: each option, each inference rule, random files.

Every case is written once and read by Spark (``spark.read.format("json")``) and by
``ubunye.io.read_arrow`` (integration/parity.py's ``check``); each must agree or
both must refuse. Cases where Spark 3.5 reads differently from Spark 4.x are in
``SPARK35_DIFFERS`` with the reason; on Spark 3.5 they must differ (so the list
stays true), on 4.x they must agree.
"""
from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Optional, Union

import pytest

from parity import check, expect

Data = Union[str, bytes]
# name -> (file content, options, explicit schema DDL or None)
CASES: dict[str, tuple[Data, dict[str, str], Optional[str]]] = {
    # inference rules
    "infer-plain": ('{"a": 1, "b": "x"}\n{"a": 2}\n', {}, None),
    "infer-empty-name": ('{"": 1, "a": 2}\n{"a": 3, "s": {"": 1, "k": 2}}\n', {}, None),
    "infer-empty-object": ('{"a": {}, "b": 1}\n{"c": [{}], "b": 2}\n', {}, None),
    "infer-records-with-no-fields": ('{}\n{"a": 1}\n{}\n', {}, None),
    "infer-only-empty-records": ("{}\n{}\n", {}, None),
    "infer-empty-file": ("", {}, None),
    "infer-empty-string-in-number": ('{"a": 1}\n{"a": ""}\n{"a": 3}\n', {}, None),
    "infer-empty-string-only": ('{"a": ""}\n{"a": null}\n', {}, None),
    "infer-case-in-one-record": ('{"a": 1, "A": 2}\n', {}, None),
    "infer-case-nested": ('{"s": {"k": 1, "K": 2}}\n', {}, None),
    "infer-case-across-records": ('{"b": 1, "a": 1}\n{"A": 2, "c": 1}\n', {}, None),
    "infer-case-same-type-kept-first": ('{"a": 1}\n{"A": 2}\n{"b": {"x": 1}}\n{"b": {"X": 2}}\n', {}, None),
    "infer-case-other-type-refused": ('{"A": 1}\n{"a": "x"}\n', {}, None),
    "infer-duplicate-name": ('{"a": 1, "a": 2}\n', {}, None),
    "infer-invalid-utf8": (b'{"a": "x\xff\xfey"}\n{"a": "ok"}\n{"a": "\xc3(", "b": 1}\n', {}, None),
    "infer-invalid-utf8-dropped": (b'{"a": "x\xff\xfey"}\n{"a": "ok"}\n{"a": 1}\n', {"mode": "DROPMALFORMED"},
                                   None),
    "infer-invalid-utf8-only": (b'{"a": "x\xff"}\n', {}, None),
    "infer-long-past-64-bits": ('{"a": 123456789012345678901234}\n{"a": 1}\n{"b": -9223372036854775809}\n', {}, None),
    "infer-number-past-38-digits": ('{"a": 1234567890123456789012345678901234567890}\n', {}, None),
    "infer-decimal-and-double": ('{"a": 12345678901234567890}\n{"a": 1.5}\n', {}, None),
    "infer-long-and-double": ('{"a": 1}\n{"a": 1.5}\n{"a": -0}\n', {}, None),
    "infer-bool-and-number": ('{"b": true}\n{"b": 1}\n', {}, None),
    "infer-array-and-scalar": ('{"c": [1]}\n{"c": 2}\n', {}, None),
    "infer-nested-array-conflict": ('{"a": [1, "x"]}\n{"a": [[1], 2]}\n{"a": [1.5, 2]}\n', {}, None),
    "infer-nested-struct-conflict": ('{"s": {"x": 1}}\n{"s": {"x": "y", "z": [1]}}\n{"s": {"z": [2.5]}}\n', {}, None),
    "infer-struct-and-scalar": ('{"s": {"x": 1}}\n{"s": 3}\n', {}, None),
    "infer-mixed-to-string-raw": ('{"a": 1.50}\n{"a": "x"}\n{"a": 1e5}\n{"a": {"k": 1.0, "z": [true, null]}}\n',
                                  {}, None),
    "infer-escapes-and-unicode": ('{"a": "\\u00e9\\/\\"\\n\\ud83d\\ude00", "b": "caf\u00e9 \u4e2d"}\n', {}, None),
    "infer-emoji-nested-to-string": ('{"a": ["\U0001f600"]}\n{"a": 1}\n{"b": "\U0001f600"}\n', {}, None),
    "infer-lone-surrogate": ('{"a": "\\ud800x"}\n', {}, None),
    "infer-null-only": ('{"a": null, "b": [null], "c": []}\n', {}, None),
    "infer-null-record": ('{"a": 1}\nnull\n', {}, None),
    "infer-null-record-beside-malformed": ('{"a": 1}\nnull\nbad\n[{"a": 2}, 3]\n', {}, None),
    "infer-scalar-record": ('{"a": 1}\n5\n"s"\n', {}, None),
    "infer-array-of-records": ('[{"a": 1}, {"a": 2, "b": "x"}]\n{"a": 3}\n[]\n', {}, None),
    "infer-array-of-scalars": ('[1, 2]\n{"a": 3}\n', {}, None),
    "infer-malformed-lines": ('{"a": 1}\nnot json\n{"a": 2, "b": 3\n', {}, None),
    "infer-partial-record": ('{"a": 1, "b": ""}\nbad\n{"b": 2, "a": 3}\n', {}, None),
    "infer-nested-partial": ('{"s": {"x": 1, "y": "q"}}\n{"s": {"x": "", "y": "z"}}\n{"l": [1, "", 3]}\n', {}, None),
    "infer-text-after-value": ('{"a": 1} xyz\n', {}, None),
    "infer-blank-lines-and-crlf": ('{"a": 1}\n\n   \n{"a": 2}\r\n{"a": 3}\r{"a": 4}', {}, None),
    "infer-control-character": ('{"a": "x\ty"}\n{"a": "ok"}\n', {}, None),
    "infer-byte-order-mark": (b'\xef\xbb\xbf{"a": 1}\n{"a": 2}\n', {}, None),
    "infer-non-numeric-default": ('{"a": NaN}\n{"a": Infinity}\n{"a": -Infinity}\n{"a": +Infinity}\n{"a": 1}\n',
                                  {}, None),
    # found by the fuzz (integration/test_parity_fuzz.py): Jackson takes INF after a sign, not alone
    "fuzz-non-numeric-signed-INF": ('{"a": +INF}\n{"a": -INF}\n{"b": INF}\n{"b": -INF}\n', {}, None),
    "fuzz-non-numeric-signed-INF-off": ('{"a": +INF}\n{"a": 1}\n', {"allowNonNumericNumbers": "false"}, None),
    # found by the fuzz at 10,000 (json:0:4249, json:0:6015): a syntax error inside a top-level field's
    # value is caught by Spark's root loop, which keeps the fields converted before it
    "fuzz-partial-nested-bad-literal": ('{"c4249_b":01.5,"c4249_a":{"r":-9223372036854775809,"p":True}}\n'
                                        '{"c4249_b" :1.0,"c4249_a"/**/:1111111111111111111111111111111111111111/**/}\n'
                                        '{/* c */"c4249_c"\t:  [],/* c */"c4249_b"/* c */:false,c4249_a/* c */:"\u00e9"  }\n'
                                        '{/**/"c4249_a":[-INF]}\n',
                                        {"allowComments": "true", "allowNumericLeadingZeros": "true",
                                         "allowNonNumericNumbers": "false", "allowSingleQuotes": "false",
                                         "allowUnquotedFieldNames": "true"}, None),
    "fuzz-partial-nested-bad-number-unbalanced": (
        '{/* c */"c6015_c":{"r":00},"c6015_a":00,"c6015_b":{"r":true,"p":+-1}/**/\n'
        '{"c6015_b":\'y\',c6015_c: /* , */ true}\n{/* c */"c6015_a"/**/:  -1}\n',
        {"allowComments": "true", "allowNumericLeadingZeros": "true", "allowNonNumericNumbers": "true",
         "allowSingleQuotes": "true", "allowUnquotedFieldNames": "true"}, None),
    # the root loop after an error: inside an array it reads on (the array's end marker comes back as the
    # field's value: "]" in a string column); inside an object the next token is none and the row ends;
    # an error in the loop's own token (a top-level value) nulls the row
    "partial-array-error-reads-on": ('{"a":"s","c":[1,True ,2],"b":3}\n{"a":"t","c":[1],"b":4}\n', {}, None),
    "partial-array-error-wants-comma": ('{"a":"s","c":[1,True,2],"b":3}\n{"a":"t","c":[1],"b":4}\n', {}, None),
    "partial-array-error-string-column": ('{"a":[[1x]],"b":3}\n{"a":"t","b":4}\n', {}, None),
    "partial-object-error-ends-row": ('{"a":"s","d":{"p":1,"q":tru},"b":3}\n{"a":"t","d":{"p":1,"q":true},"b":4}\n',
                                      {}, None),
    "partial-top-level-error-nulls-row": ('{"a":"s","b":tru,"c":[1]}\n{"a":"t","b":true,"c":[1]}\n', {}, None),
    "partial-nested-struct-keeps-its-part": ('{"d":{"p":1,"q":[1,}]},"b":2}\n{"d":{"p":1,"q":[1]},"b":3}\n',
                                             {}, "d struct<p:bigint,q:array<bigint>>, b bigint, _corrupt_record string"),
    "partial-string-error-reads-on": ('{"a":["x\\q,1],"b":2}\n{"a":["x"],"b":3}\n', {}, None),
    "partial-string-error-wants-comma": ('{"b":2,"a":["x\\qy",1]}\n{"a":["x"],"b":3}\n', {}, None),
    "partial-explicit-schema-mismatch-then-error": ('{"c":[[+1]],"a":[true],"b":null}\n',
                                                    {}, "a string, b bigint, c array<bigint>, _corrupt_record string"),
    # a name twice in a record: Spark updates the row only when a value converts (the earlier one stays)
    "duplicate-name-later-value-bad": ('{"b":1,"b":"x","c":{"p":2,"p":"y"}}\n', {},
                                       "b bigint, c struct<p:bigint>, _corrupt_record string"),
    "infer-single-quotes-default": ("{'a': 1}\n{\"a\": 'x\\'y'}\n", {}, None),
    "infer-every-record-malformed": ("null\nbad\n", {}, None),
    # options
    "opt-multiLine-object": ('{\n "a": 1,\n "b": [1,\n 2]\n}\n', {"multiLine": "true"}, None),
    "opt-multiLine-array": ('[{"a": 1},\n {"a": 2, "b": "x"}]\n', {"multiLine": "true"}, None),
    "opt-multiLine-two-objects": ('{"a": 1}\n{"a": 2}\n', {"multiLine": "true"}, None),
    "opt-multiLine-malformed": ('{"a": 1,\n', {"multiLine": "true"}, None),
    "opt-multiLine-empty": ("", {"multiLine": "true"}, None),
    "opt-multiLine-bad-value": ('{"a": 1}\n', {"multiLine": "yes"}, None),
    "opt-primitivesAsString": ('{"a": 1, "b": 1.5, "c": true, "d": [1, false], "e": {"x": 2}, "f": null, "g": "s"}\n',
                               {"primitivesAsString": "true"}, None),
    "opt-prefersDecimal": ('{"a": 1.5}\n{"a": 123456789012345678901}\n{"b": 1.25}\n{"b": 7}\n{"c": 1.5e-3}\n',
                           {"prefersDecimal": "true"}, None),
    "opt-prefersDecimal-negative-scale": ('{"a": 1e5}\n', {"prefersDecimal": "true"}, None),
    "opt-allowComments": ('{"a": 1} // c\n/* x */ {"a": 2}\n# h\n{"a": /*i*/ 3}\n', {"allowComments": "true"}, None),
    "opt-allowComments-off": ('/* x */ {"a": 2}\n{"a": 1}\n', {"allowComments": "false"}, None),
    "opt-allowUnquotedFieldNames": ('{a: 1, $b_c: 2}\n', {"allowUnquotedFieldNames": "true"}, None),
    "opt-allowUnquotedFieldNames-off": ('{a: 1}\n{"a": 2}\n', {}, None),
    "opt-allowSingleQuotes-off": ("{'a': 1}\n{\"a\": 'x'}\n{\"a\": 2}\n", {"allowSingleQuotes": "false"}, None),
    "opt-allowNumericLeadingZeros": ('{"a": 01}\n{"a": 007.5}\n{"a": -00}\n', {"allowNumericLeadingZeros": "true"},
                                     None),
    "opt-allowNumericLeadingZeros-off": ('{"a": 01}\n{"a": 2}\n', {}, None),
    "opt-allowNonNumericNumbers-off": ('{"a": NaN}\n{"a": 1}\n', {"allowNonNumericNumbers": "false"}, None),
    "opt-encoding-latin1": ('{"a": "caf\xe9"}\n{"a": "x"}\n'.encode("latin-1"), {"encoding": "ISO-8859-1",
                                                                           "lineSep": "\n"}, None),
    "opt-encoding-needs-lineSep": ('{"a": "x"}\n'.encode("latin-1"), {"encoding": "ISO-8859-1"}, None),
    "opt-encoding-utf16le": ('{"a": "x"}\n{"a": "\u00e9"}\n'.encode("utf-16le"), {"encoding": "UTF-16LE",
                                                                              "lineSep": "\n"}, None),
    "opt-encoding-utf8-invalid": (b'{"a": "\xc3("}\n{"a": "ok"}\n', {"encoding": "UTF-8"}, None),
    "opt-encoding-invalid-ascii": (b'{"a": "\x81"}\n{"a": "x"}\n', {"encoding": "US-ASCII", "lineSep": "\n"}, None),
    "opt-encoding-not-a-spark4-charset": (b'{"a": "\xe9"}\n', {"encoding": "windows-1252", "lineSep": "\n"}, None),
    "opt-encoding-alias-refused": (b'{"a": "x"}\n', {"encoding": "UTF8"}, None),
    "opt-encoding-latin1-malformed": ('{"a": 1\n{"a": "caf\xe9"}\n'.encode("latin-1"), {"encoding": "ISO-8859-1",
                                                                                   "lineSep": "\n"}, None),
    "opt-encoding-multiLine": ('[{"a": "caf\xe9"}]'.encode("latin-1"), {"encoding": "ISO-8859-1",
                                                                   "multiLine": "true"}, None),
    "opt-dateFormat": ('{"d": "05/01/2024"}\n{"d": "2024-01-05"}\n{"d": "31/02/2024"}\n{"d": "5/1/2024"}\n',
                       {"dateFormat": "dd/MM/yyyy"}, "d DATE"),
    "opt-dateFormat-month-names": ('{"d": "05 Jan 2024"}\n{"d": "05 jan 2024"}\n{"d": "05 January 2024"}\n',
                                   {"dateFormat": "dd MMM yyyy"}, "d DATE"),
    "opt-timestampFormat": ('{"t": "2024/01/05 10:11:12"}\n{"t": "2024/01/05 10:11:12.123"}\n'
                            '{"t": "2024-01-05T10:11:12"}\n{"t": 1700000000}\n',
                            {"timestampFormat": "yyyy/MM/dd HH:mm:ss[.SSS]"}, "t TIMESTAMP"),
    "opt-timestampFormat-offset-am-pm": ('{"t": "05.01.2024 01:02 PM +0200"}\n{"t": "05.01.2024 12:00 am Z"}\n'
                                         '{"t": "05.01.2024 13:00 pm Z"}\n',
                                         {"timestampFormat": "dd.MM.yyyy hh:mm a X"}, "t TIMESTAMP"),
    "opt-timestampFormat-compact": ('{"t": "20240105101112"}\n{"t": "2024010510111"}\n',
                                    {"timestampFormat": "yyyyMMddHHmmss"}, "t TIMESTAMP"),
    "opt-dateFormat-nested": ('{"s": {"d": "2024.01.05"}, "l": ["2024.02.01", "x"]}\n', {"dateFormat": "yyyy.MM.dd"},
                              "s STRUCT<d: DATE>, l ARRAY<DATE>"),
    "opt-dateFormat-year-signs": ('{"d": "05/01/12024"}\n{"d": "05/01/+12024"}\n{"d": "05/01/-0001"}\n'
                                  '{"d": "05/01/+2024"}\n{"d": "05/01/-0000"}\n{"d": "05/01/0000"}\n',
                                  {"dateFormat": "dd/MM/yyyy"}, "d DATE"),
    "opt-dateFormat-year-widths": ('{"d": "5/1/12024"}\n{"d": "5/1/2024"}\n{"d": "5/1/-12024"}\n',
                                   {"dateFormat": "d/M/yyyyy"}, "d DATE"),
    "opt-timestampFormat-far-years": ('{"t": "+12024-01-05 10:00"}\n{"t": "12024-01-05 10:00"}\n'
                                      '{"t": "-0001-01-05 10:00"}\n{"t": "+294247-01-10 10:00"}\n',
                                      {"timestampFormat": "yyyy-MM-dd HH:mm"}, "t TIMESTAMP"),
    "infer-far-year-strings": ('{"d": "12024-01-05", "t": "+12024-01-05T10:00:00Z", "n": "-0001-01-01"}\n', {}, None),
    "opt-lineSep": ('{"a": 1}|{"a": 2}|', {"lineSep": "|"}, None),
    "opt-lineSep-newline": ('{"a": 1}\r\n{"a": 2}\n', {"lineSep": "\n"}, None),
    "opt-dropFieldIfAllNull": ('{"a": null, "b": 1, "c": [], "d": {"x": null, "y": 1}, "e": [null]}\n',
                               {"dropFieldIfAllNull": "true"}, None),
    "opt-mode-DROPMALFORMED": ('{"a": 1}\nbad\n{"a": ""}\n5\n', {"mode": "DROPMALFORMED"}, None),
    "opt-mode-dropmalformed-lower-case": ('{"a": 1}\nbad\n', {"mode": "dropmalformed"}, None),
    "opt-mode-FAILFAST-malformed": ('{"a": 1}\nbad\n', {"mode": "FAILFAST"}, None),
    "opt-mode-FAILFAST-bad-value": ('{"a": 1}\n{"a": ""}\n', {"mode": "FAILFAST"}, None),
    "opt-mode-FAILFAST-clean": ('{"a": 1}\n{"a": 2}\n', {"mode": "FAILFAST"}, None),
    "opt-mode-PERMISSIVE": ('{"a": 1}\n{"a": 2, "b": ""}\nbad\n', {"mode": "PERMISSIVE"}, None),
    "opt-mode-unknown-is-permissive": ('{"a": 1}\nbad\n', {"mode": "whatever"}, None),
    "opt-columnNameOfCorruptRecord": ('{"a": 1}\nbad\n', {"columnNameOfCorruptRecord": "oops"}, None),
    # an explicit schema (DDL, as spark.read.schema takes it)
    "schema-int": ('{"a": 1, "b": "x"}\n{"a": 1.5, "b": 2}\n{"a": 99999999999, "b": null}\n{"a": "7"}\n', {},
                   "a INT, b STRING"),
    "schema-corrupt-column": ('{"a": 1}\n{"a": "x"}\nbad\n', {}, "a INT, _corrupt_record STRING"),
    "schema-only-corrupt-column": ('{"a": 1}\n', {}, "_corrupt_record STRING"),
    "schema-decimal": ('{"d": 1.005}\n{"d": "2.5"}\n{"d": 123456}\n{"d": -0.004}\n', {}, "d DECIMAL(5,2)"),
    "schema-double-float": ('{"d": 1}\n{"d": "NaN"}\n{"d": "-Infinity"}\n{"d": "1.5"}\n{"f": 0.1}\n{"f": 1e39}\n',
                            {}, "d DOUBLE, f FLOAT"),
    "schema-long-short-byte": ('{"l": 9223372036854775807, "s": 32767, "b": -128}\n{"l": 1, "s": 40000, "b": 128}\n',
                               {}, "l BIGINT, s SMALLINT, b TINYINT"),
    "schema-date-timestamp": ('{"d": "2024-01-05", "t": "2024-01-05T10:11:12Z"}\n'
                              '{"d": "2024-1-5", "t": "2024-01-05 10:11:12.5+02:00"}\n'
                              '{"d": "x", "t": 1700000000}\n{"d": "2024-02-30", "t": "2024-01-05"}\n', {},
                              "d DATE, t TIMESTAMP"),
    "schema-date-far-years": ('{"d": "10000-01-01"}\n{"d": "+10000-02-29"}\n{"d": "-0001-01-01"}\n{"d": "0000-03-01"}\n'
                              '{"d": "10100-02-29"}\n{"d": "999999-12-31"}\n{"d": "-12024-01-05T10:00"}\n', {}, "d DATE"),
    "schema-date-far-days-since-epoch": ('{"d": "3000000"}\n{"d": "-800000"}\n{"d": "12345678"}\n{"d": "+5"}\n'
                                         '{"d": "-12345678"}\n{"d": "3000000000"}\n', {},
                                         "d DATE"),
    "schema-timestamp-far-years": ('{"t": "10000-01-01 10:00"}\n{"t": "+12024-01-05T00:00:00Z"}\n{"t": "-0001-01-01"}\n'
                                   '{"t": "294247-01-01"}\n{"t": "999999-12-31"}\n{"t": "12024-01-05 10:11:12.5+01:00"}\n'
                                   '{"t": "-12024-07-05T10:00:00Z"}\n', {}, "t TIMESTAMP"),
    "schema-timestamp-far-seconds": ('{"t": 300000000000}\n{"t": -70000000000}\n{"t": 9300000000000}\n'
                                     '{"t": 9223372036854775807}\n'
                                     '{"t": 9223372036854775808}\n', {}, "t TIMESTAMP"),
    "schema-far-years-nested": ('{"s": {"d": "12024-01-05", "t": "+12024-01-05T10:00:00Z"}, "l": ["-0001-01-01"]}\n', {},
                                "s STRUCT<d: DATE, t: TIMESTAMP>, l ARRAY<DATE>"),
    "schema-nested": ('{"s": {"x": 1, "y": "z"}, "l": [1, 2]}\n{"s": {"x": "q", "y": "z"}, "l": [1, "2"]}\n'
                      '{"s": 5, "l": 3}\n', {}, "s STRUCT<x: INT, y: STRING>, l ARRAY<INT>"),
    "schema-boolean": ('{"b": true}\n{"b": "true"}\n{"b": 1}\n', {}, "b BOOLEAN"),
    "schema-string-of-values": ('{"s": 1.50}\n{"s": [1, {"k": null}]}\n{"s": true}\n', {}, "s STRING"),
    "schema-duplicate-key-last-wins": ('{"a": 1, "a": 2}\n', {}, "a INT"),
    "schema-missing-and-extra-fields": ('{"z": 1}\n{"a": 2, "q": [1]}\n', {}, "a INT, b STRING"),
    "schema-DROPMALFORMED": ('{"a": 1}\n{"a": "x"}\nbad\n', {"mode": "DROPMALFORMED"}, "a INT"),
    "schema-FAILFAST": ('{"a": 1}\n{"a": "x"}\n', {"mode": "FAILFAST"}, "a INT"),
}

# Spark 3.5 writes a non-string value into a string column through Jackson's generator
# (compact, numbers re-printed: 1.50 -> 1.5, 1e5 -> 100000.0, -0 -> 0); Spark 4 keeps its text.
_UPGRADE = ("3.5 (spark.sql.legacy.timeParserPolicy=EXCEPTION) refuses a value its legacy parser would read "
            "and 4.x nulls (SparkUpgradeException INCONSISTENT_BEHAVIOR_CROSS_VERSION)")
_FAR_YEARS_35 = ("3.5 (spark.sql.legacy.timeParserPolicy=EXCEPTION) refuses with SparkUpgradeException a far "
                 "year its old parser reads differently (5 digits without a sign for yyyy, fewer than 5 for yyyyy, "
                 "an invalid far-year date); 4.x reads them as the pandas reader does")
SPARK35_DIFFERS = {
    "infer-mixed-to-string-raw": "3.5 re-prints non-string values read into a string column (1.50 -> 1.5)",
    "opt-encoding-not-a-spark4-charset": "3.5 reads any Java charset (windows-1252); 4.x only its seven",
    "opt-encoding-alias-refused": "3.5 takes Java's aliases of charsets (UTF8); 4.x only the names",
    "infer-struct-and-scalar": "3.5 re-prints non-string values read into a string column (compact: {\"x\":1})",
    "fuzz-partial-nested-bad-literal": "3.5 re-prints non-string values read into a string column (01.5 -> 1.5)",
    "partial-array-error-string-column": "3.5 copies the array's end marker into a string column through a JSON "
                                         "generator, which fails (null); 4.x takes the marker's bytes (\"]\")",
    "infer-emoji-nested-to-string": "3.5 re-prints nested text: a character past U+FFFF as \\uD83D\\uDE00",
    "schema-date-timestamp": _UPGRADE,
    "opt-dateFormat": _UPGRADE,
    "opt-dateFormat-month-names": _UPGRADE,
    "opt-timestampFormat-compact": _UPGRADE,
    "opt-timestampFormat-offset-am-pm": _UPGRADE,
    "opt-dateFormat-year-signs": _FAR_YEARS_35,
    "opt-dateFormat-year-widths": _FAR_YEARS_35,
    "opt-timestampFormat-far-years": _FAR_YEARS_35,
    "schema-date-far-years": _FAR_YEARS_35,
    "schema-string-of-values": "3.5 re-prints non-string values read into a string column (1.50 -> 1.5)",
}


# Cases the pandas reader refuses (one line, naming the record) while Spark reads them: none
# left. (Records with bytes that are not valid UTF-8 were, until the pandas reader kept their
# raw bytes in _corrupt_record as Spark does and rows-v1 hashed them byte-wise everywhere.)
PANDAS_REFUSES: dict[str, str] = {}


def _write(folder: Path, name: str, data: Data) -> Path:
    path = folder / f"{name}.json"
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


# Cases Spark refuses, and the pandas reader too (in one line of its own); every other case must
# agree, so a reader that refuses everything fails (integration/parity.py).
BOTH_REFUSE = {"infer-case-across-records", "infer-case-in-one-record", "infer-case-nested",
               "infer-case-other-type-refused", "infer-duplicate-name", "infer-every-record-malformed",
               "infer-invalid-utf8-only", "opt-encoding-alias-refused", "opt-encoding-needs-lineSep",
               "opt-encoding-not-a-spark4-charset", "opt-mode-FAILFAST-bad-value", "opt-mode-FAILFAST-malformed",
               "opt-multiLine-bad-value", "opt-multiLine-malformed", "opt-prefersDecimal-negative-scale",
               "schema-FAILFAST", "schema-only-corrupt-column"}


def _expect(spark: Any, outcome: Any, case: str) -> None:
    expect(spark, outcome, case, PANDAS_REFUSES, SPARK35_DIFFERS, BOTH_REFUSE)


@pytest.mark.parametrize("case", sorted(CASES))
def test_json_case(spark: Any, tmp_path: Path, case: str) -> None:
    data, options, schema = CASES[case]
    outcome = check(spark, _write(tmp_path, case, data), "json", options, schema, case=f"json:{case}")
    _expect(spark, outcome, case)


# ---- randomized JSON lines (fixed seed) ----------------------------------------------
# Values are written as Jackson writes them back (compact; doubles as Java prints them
# in this range), so Spark 3.5's re-printing of values read into a string column gives
# the same text as Spark 4's raw text.
_NAMES = ["a", "b", "c", "d", "e", "", "x y", "\u00e9"]
# (no character past U+FFFF: Spark 3.5's Jackson writes it back as a surrogate pair of escapes,
# see "infer-emoji-nested-to-string")
_CHARS = ['"', "\\", "/", "\n", "\t", "'", "\u00e9", "\u4e2d", "\u00ff", "{", "}", "[", ",", ":", " ", "a", "Z", "0"]
_KINDS = ["null", "bool", "long", "double", "bigint", "string", "empty", "array", "object"]


def _scalar(rng: random.Random, kind: str) -> Any:
    if kind == "null":
        return None
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "long":
        return rng.choice([rng.randint(-1000, 1000), rng.randint(-(2**63), 2**63 - 1)])
    if kind == "double":
        return round(rng.uniform(-1e6, 1e6), rng.randint(0, 3)) or 0.5
    if kind == "bigint":
        return rng.choice([1, -1]) * rng.randint(2**63, 10**30)
    if kind == "empty":
        return ""
    return "".join(rng.choice(_CHARS) for _ in range(rng.randint(0, 8)))


def _value(rng: random.Random, kind: str, depth: int) -> Any:
    if kind == "array":
        inner = rng.choice(_KINDS[:6] + (["object"] if depth < 2 else []))
        return [_value(rng, inner if rng.random() < 0.8 else rng.choice(_KINDS[:6]), depth + 1)
                for _ in range(rng.randint(0, 3))]
    if kind == "object":
        if depth >= 2:
            return {}
        return {rng.choice(_NAMES[:5]): _value(rng, rng.choice(_KINDS), depth + 1) for _ in range(rng.randint(0, 3))}
    return _scalar(rng, kind)


def _dumps(v: Any) -> str:
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, list):
        return "[" + ",".join(_dumps(e) for e in v) + "]"
    if isinstance(v, dict):
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + _dumps(x) for k, x in v.items()) + "}"
    return json.dumps(v, ensure_ascii=False)


def random_json_lines(seed: int) -> str:
    """One file of JSON lines: per field a usual kind, sometimes another; blank and broken lines."""
    rng = random.Random(seed)
    names = rng.sample(_NAMES, rng.randint(1, 5))
    usual = {n: rng.choice(_KINDS) for n in names}
    lines = []
    for _ in range(rng.randint(3, 12)):
        roll = rng.random()
        if roll < 0.04:
            lines.append("")
            continue
        record = {n: _value(rng, usual[n] if rng.random() < 0.8 else rng.choice(_KINDS), 0)
                  for n in names if rng.random() < 0.85}
        text = _dumps(record)
        if roll > 0.97:
            text = text[: max(1, len(text) // 2)]  # a malformed record
        lines.append(text)
    return "\n".join(lines) + ("\n" if rng.random() < 0.8 else "")


RANDOM_FILES = 40


@pytest.mark.parametrize("seed", range(RANDOM_FILES))
def test_random_json_lines(spark: Any, tmp_path: Path, seed: int) -> None:
    path = _write(tmp_path, f"random-{seed}", random_json_lines(1000 + seed))
    outcome = check(spark, path, "json", case=f"json:random-{seed}")
    assert outcome.kind == "agree", f"{outcome}\n{path.read_text()}"  # malformed records are kept, not refused


def test_the_both_refuse_list_names_cases_of_this_suite() -> None:
    assert BOTH_REFUSE <= set(CASES)
