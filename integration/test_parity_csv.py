"""Parity of Spark and the pandas csv reader: each reader option, each inference rule, random files.

Every case is written once and read by Spark and by ``ubunye.io.read_arrow``
(integration/parity.py); each must ``agree`` or ``both-refuse``. Cases in
``SPARK35_DIFFERS`` read differently on Spark 3.5 (the pandas reader follows Spark
4.x): there the outcome must be ``differ``, for the reason given.
"""
from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Optional

import pytest

from parity import check, expect

Case = tuple[Any, dict[str, str], Optional[str]]  # text or {file name: text}, options, DDL schema


def _c(text: Any, schema: Optional[str] = None, **options: str) -> Case:
    return text, options, schema


OPTION_CASES: dict[str, Case] = {
    "sep": _c("a;b\n1;x\n", sep=";"),
    "sep-tab-escape": _c("a\tb\n1\tx\n", sep="\\t"),
    "sep-two-chars": _c("a||b\n1||x\n", sep="||"),
    "delimiter": _c("a|b\n1|x\n", delimiter="|"),
    "quote": _c("a,b\n'1,2',x\n", quote="'"),
    "quote-empty-no-quoting": _c('a,b\n"1,2",x\n', quote=""),
    "quote-two-chars": _c("a\n1\n", quote="''"),
    "escape-quote": _c('a,b\n"say ""hi""",x\n', escape='"'),
    "escape-default-backslash": _c('a,b\n"say \\"hi\\"",x\n"x\\\\",1\n'),
    "escape-own": _c("a,b\n\"a''b\",1\n\"a'\"b\",2\n", escape="'"),
    "header-false": _c("a,b\n1,x\n", header="false"),
    "header-false-infer": _c("1,x\n2,y\n", header="false"),
    "inferSchema-false": _c("a,b\n1,x\n,\n", inferSchema="false"),
    "nullValue": _c('a,b,c\nNA,NA,\n1,x,""\n', nullValue="NA"),
    "nullValue-header": _c("a,c\n1,2\n", nullValue="a"),
    "emptyValue": _c('a,b\n1,""\n2,\n', emptyValue="EMPTY"),
    "emptyValue-nullValue": _c('a,b\n1,""\n2,\nNA,NA\n', emptyValue="E", nullValue="NA"),
    "nanValue-positiveInf-negativeInf": _c("a\nnope\nPINF\nNINF\n1.5\nNaN\n", nanValue="nope",
                                           positiveInf="PINF", negativeInf="NINF"),
    "dateFormat": _c("a\n05/01/2024\n", dateFormat="dd/MM/yyyy"),
    "dateFormat-and-iso": _c("a\n05/01/2024\n2024-01-05\n", dateFormat="dd/MM/yyyy"),
    "dateFormat-month-names": _c("a\n05 jan 2024\n06 FEB 2024\n", dateFormat="dd MMM yyyy"),
    "dateFormat-yy": _c("a\n05/01/24\n", dateFormat="dd/MM/yy"),
    "dateFormat-strict-widths": _c("a\n5 january 2024\n05 January 2024\n2024-02-30\n", "a DATE",
                                   dateFormat="dd MMMM yyyy"),
    "dateFormat-schema": _c("a\n05.01.2024\n2024-01-05\n", "a DATE", dateFormat="dd.MM.yyyy"),
    "timestampFormat": _c("a\n05/01/2024 10:11:12.345\n", timestampFormat="dd/MM/yyyy HH:mm:ss.SSS"),
    "timestampFormat-XXX": _c("a\n2024-01-05T10:11:12+02:00\n", timestampFormat="yyyy-MM-dd'T'HH:mm:ssXXX"),
    "timestampFormat-ampm": _c("a\n2024-01-05 01:30 PM\n2024-01-05 12:30 AM\n", timestampFormat="yyyy-MM-dd hh:mm a"),
    "timestampFormat-schema": _c("a\n05.01.2024 10:30\n2024-01-05 10:30\n", "a TIMESTAMP",
                                 timestampFormat="dd.MM.yyyy HH:mm"),
    "timestampNTZFormat-inferred": _c("a\n05/01/2024 10:11\n", timestampNTZFormat="dd/MM/yyyy HH:mm"),
    "timestampNTZFormat-schema": _c("a\n05/01/2024 10:11\n", "a TIMESTAMP_NTZ", timestampNTZFormat="dd/MM/yyyy HH:mm"),
    "multiLine": _c('a,b\n"line1\nline2",x\n2,y\n', multiLine="true"),
    "multiLine-crlf": _c('a,b\r\n"x\r\ny",1\r\n2,3\r\n', multiLine="true"),
    "multiLine-cr-inside-lf": _c('a,b\n"x\ry",1\n', multiLine="true"),
    "multiLine-off-newline-in-quotes": _c('a,b\n"line1\nline2",x\n2,y\n'),
    "encoding-latin1": _c(b"a\ncaf\xe9\n", encoding="ISO-8859-1"),
    "charset-cp1252": _c(b"a\n\x80 caf\xe9\n", charset="windows-1252"),
    "encoding-us-ascii": _c(b"a\ncaf\xe9\n", encoding="US-ASCII"),
    "encoding-utf8-invalid-multiLine": _c(b"a,b\n\xff\xfe,1\ncaf\xe9,2\n\xe2\x82,3\n", multiLine="true"),
    "comment": _c("a,b\n#skip,me\n1,x\n  #not,2\n", comment="#"),
    "comment-multiLine": _c("a,b\n#c,d\n1,2\n", comment="#", multiLine="true"),
    "ignoreLeadingWhiteSpace": _c("a,b\n  1  ,  x y  \n", ignoreLeadingWhiteSpace="true"),
    "ignoreTrailingWhiteSpace": _c("a,b\n  1  ,  x y  \n", ignoreTrailingWhiteSpace="true"),
    "ignore-both-quoted": _c('a,b\n" x " , 1\n', ignoreLeadingWhiteSpace="true", ignoreTrailingWhiteSpace="true"),
    "lineSep": _c("a,b;1,x;2,y", lineSep=";"),
    "lineSep-cr": _c("a,b\r1,x\r2,y\r", lineSep="\r"),
    "lineSep-crlf": _c("a,b\r\n1,x\ry\r\n", lineSep="\r\n"),
    "lineSep-crlf-multiLine": _c('a,b\r\n"x\ny",1\r\n', lineSep="\r\n", multiLine="true"),
    "lineSep-multiLine": _c('a,b;"x;y",1;2,3;', lineSep=";", multiLine="true"),
    "lineSep-three-chars": _c("a,babc1,xabc", lineSep="abc"),
    "lineSep-empty": _c("a,b\n1,x\n", lineSep=""),
    "mode-permissive-schema": _c("a,b\n1,x\nz,y\n3\n4,q,r\n", "a INT, b STRING"),
    "mode-dropmalformed-schema": _c("a,b\n1,x\nz,y\n3\n4,q,r\n", "a INT, b STRING", mode="DROPMALFORMED"),
    "mode-dropmalformed-inferred": _c("a,b\n1,x\n3\n4,q,r\n", mode="DROPMALFORMED"),
    "mode-failfast-value": _c("a,b\n1,x\nz,y\n", "a INT, b STRING", mode="FAILFAST"),
    "mode-failfast-short": _c("a,b\n1,x\n3\n", mode="FAILFAST"),
    "mode-failfast-clean": _c("a,b\n1,x\n", mode="FAILFAST"),
    "mode-unknown-is-permissive": _c("a\nz\n", "a INT", mode="bogus"),
    "enforceSchema-true-orders": _c({"p1.csv": "a,b\n1,x\n", "p2.csv": "b,a\ny,2\n"}),
    "enforceSchema-false-orders": _c({"p1.csv": "a,b\n1,x\n", "p2.csv": "b,a\ny,2\n"}, enforceSchema="false"),
    "enforceSchema-false-same": _c({"p1.csv": "a,b\n1,x\n", "p2.csv": "A,b\n2,y\n"}, enforceSchema="false"),
    "enforceSchema-false-schema": _c("a,b\n1,x\n", "b INT, a STRING", enforceSchema="false"),
    "preferDate-true": _c("a\n2024-01-05\n"),
    "preferDate-false": _c("a\n2024-01-05\n", preferDate="false"),
    "schema-types": _c("a,b,c,d,e,f,g\n1.234,2024-1-5,2024-01-05 10:00,TRUE,1.5d,+7,x\n",
                       "a DECIMAL(5,2), b DATE, c TIMESTAMP, d BOOLEAN, e DOUBLE, f LONG, g STRING"),
    "schema-malformed-values": _c("a,b,c,d,e,f\n12345.1,x,y,yes,z,1.5\n",
                                  "a DECIMAL(5,2), b DATE, c TIMESTAMP, d BOOLEAN, e DOUBLE, f LONG"),
    "schema-small-ints": _c("a,b,c\n300,5,1.5\n", "a TINYINT, b SHORT, c FLOAT"),
    "schema-decimal-rounding-and-commas": _c('a\n1.235\n-1.235\n999.999\n"1,000.5"\n', "a DECIMAL(7,2)"),
    "schema-fewer-columns": _c("a,b,c\n1,2,3\n", "a INT, b INT"),
    "schema-ntz-lenient": _c("a\n2024-01-05 10:30\n2024-01-05T10:30Z\n", "a TIMESTAMP_NTZ"),
    "schema-array-refused": _c("a\n1\n", "a ARRAY<INT>"),
    "schema-date-far-years": _c("a\n10000-01-01\n+10000-02-29\n-0001-01-01\n0000-03-01\n", "a DATE"),
    "schema-date-far-invalid-and-six-digits": _c("a\n10100-02-29\n999999-12-31\n", "a DATE"),
    "schema-timestamp-far-years": _c("a\n10000-01-01 10:00\n+12024-01-05T00:00:00Z\n-0001-01-01\n"
                                     "294247-01-01\n999999-12-31\n", "a TIMESTAMP"),
    "schema-ntz-far-years": _c("a\n10000-01-01 10:00\n-0001-01-01 00:00\n", "a TIMESTAMP_NTZ"),
    "dateFormat-year-signs": _c("a\n05/01/12024\n05/01/+12024\n05/01/-0001\n05/01/+2024\n05/01/-0000\n"
                                "05/01/0000\n", "a DATE", dateFormat="dd/MM/yyyy"),
    "dateFormat-year-widths": _c("a\n5/1/12024\n5/1/2024\n", "a DATE", dateFormat="d/M/yyyyy"),
    "dateFormat-year-past-9999-inferred": _c("a\n05/01/+12024\n05/01/12024\n", dateFormat="dd/MM/yyyy"),
    "timestampFormat-year-past-9999": _c("a\n+12024-01-05 10:00\n12024-01-05 10:00\n05/01/0000 10:11\n",
                                         "a TIMESTAMP", timestampFormat="yyyy-MM-dd HH:mm"),
}

INFERENCE_CASES: dict[str, Case] = {
    "integers-past-64-bits": _c("a\n1\n99999999999999999999\n"),
    "long-and-past-64-bits": _c("a\n3000000000\n9999999999999999999\n"),
    "integers-past-38-digits": _c("a\n123456789012345678901234567890123456789\n"),
    "plus-sign": _c("a\n+5\n-3\n"),
    "double-suffix-d": _c("a\n1.5d\n2\n1.5f\n"),
    "unicode-digits": _c("a\n\u0661\u0662\n\uff13\n"),
    "unicode-digits-with-point": _c("a\n\u0661.\u0662\n"),
    "whole-number-with-point": _c("a\n5.\n"),
    "whole-number-exponent": _c("a\n1.5E1\n"),
    "negative-scale-exponent": _c("a\n1E5\n"),
    "decimal-then-long": _c("a\n5.\n3000000000\n"),
    "comma-number": _c('a\n"1,000"\n'),
    "dates-loose": _c("a\n2024-1-5\n"),
    "dates-year-month": _c("a\n2024-01\n"),
    "date-and-timestamp": _c("a\n2024-01-05\n2024-01-05 10:00:00\n"),
    "timestamp-nanos-Z": _c("a\n2024-01-05T10:00:00.123456789Z\n"),
    "timestamp-offset-no-seconds": _c("a\n2024-01-05T10:00+01:00\n"),
    "timestamp-offset-compact": _c("a\n2024-01-05T10:00:00+0130\n"),
    "timestamp-zone-names": _c("a\n2024-01-05T10:00:00UTC\n2024-07-05T10:00:00Europe/Paris\n"
                               "2024-07-05T10:00:00UTC+01:00\n2024-07-05 10:00:00 UTC\n"),
    "timestamp-hour-only": _c("a\n2024-01-05 10\n"),
    "timestamp-empty-fraction": _c("a\n2024-01-05T10:00:00.\n"),
    "timestamp-single-digits": _c("a\n2024-1-5T1:2:3.4\n"),
    "date-trailing-space": _c("a\n2024-01-05 \n"),
    "date-then-T": _c("a\n2024-01-05T\n"),
    "year-past-9999": _c("a\n12024-01-05\n"),
    "year-past-9999-plus-sign": _c("a\n+12024-01-05\n"),
    "year-99999": _c("a\n99999-12-31\n"),
    "year-999999-past-64-bit-micros": _c("a\n999999-12-31\n"),
    "years-before-1": _c("a\n-0001-01-05\n-12024-01-05\n"),
    "year-zero-minus-and-plus-signs": _c("a\n-0000-01-05\n+2024-01-05\n"),
    "timestamp-year-past-9999-zones": _c("a\n12024-07-05T10:00:00Europe/Paris\n+12024-01-05T10:00:00Z\n"
                                         "12024-01-05 10:11:12.5+01:00\n"),
    "empty-string-in-number-column": _c('a,b\n1,\n"",x\n'),
    "empty-string-nullValue-set": _c('a,b\n1,""\n2,x\n', nullValue="NA"),
    "names-differing-by-case": _c("a,A\n1,2\n"),
    "duplicate-and-empty-names": _c("a,a,,b\n1,2,3,4\n"),
    "invalid-utf8": _c(b"a,b\n\xff\xfe,1\ncaf\xe9,2\n\xe2\x82,3\n"),
    # found by the fuzz (integration/test_parity_fuzz.py): Java decodes ED A0..BF (a surrogate) as one sequence
    "fuzz-invalid-utf8-surrogates": _c(b"a,b\n\xed\xa0\x80x,\xed\xbf\xbf\n\xed\xa0,\xed\xa0a\n\xed\x9f\xbf,1\n"),
    "fuzz-invalid-utf8-surrogates-multiLine": _c(b"a,b\n\xed\xa0\x80x,\xed\xa0\n\xed\xa0a,1\n", multiLine="true"),
    "byte-order-mark": _c("\ufeffa,b\n1,2\n"),
    "whitespace-around-numbers": _c("a,b\n 1,1 \n"),
    "booleans": _c("a\nTRUE\nfalse\n"),
    "nan-and-infinities": _c("a\nNaN\n-Inf\nInf\n+NaN\nInfinity\n"),
    "hex-double": _c("a\n0x1p4\n"),
    "short-and-long-records": _c("a,b\n1\n1,2,3\n"),
    "blank-lines": _c("a,b\n1,2\n   \n\t\n3,4\n"),
    "header-line-repeated": _c("a,b\n1,2\na,b\n3,4\n"),
    "quote-in-value": _c('a,b\nx"y,1\n"a"b,2\n"x" ,3\n'),
    "header-only": _c("a,b\n"),
    "headers-in-different-orders": _c({"p1.csv": "a,b\n1,2\n", "p2.csv": "b,a\n11,22\n33,44\n"}),
    "header-of-other-file-differs": _c({"p0.csv": "id,name,x\n1,a,2\n2,b,3\n", "notes": "id,name\n99,x\n"}),
    "empty-part-file": _c({"p0.csv": "", "p1.csv": "a\n1\n"}),
}

# univocity's quote handling as Spark configures it (python/ubunye/io/univocity.py), each case
# a difference the csv fuzz found (integration/test_parity_fuzz.py, seed 0) or a rule read in its source.
QUOTE_CASES: dict[str, Case] = {
    "fuzz-csv-lone-quote-ends-line": _c('a1a1\t\\\\ba\t"\\11,\rb,"', header="false"),
    "fuzz-csv-lone-quote-line-escape-is-quote": _c('"\r\r"" \rbx \rb"b\txx\nbb\\x', escape='"', header="false"),
    "fuzz-csv-doubled-quotes-no-escape": _c(' "1,\'\n"""""\t\\\n', escape=""),
    "fuzz-csv-quoted-value-escape-is-other-quote": _c("\n\t,',\\a'',\\\\,'\tb\naaa\\11 '   ',,a1'bbb ",
                                                      quote="'", escape='"', header="false"),
    "fuzz-csv-multiLine-cr-lines-lf-is-text": _c('b\r"\r"  \t\r"\'\'\ra\'\n\t\r\n\'\n\'\'b"\n\r', quote="",
                                                 escape='"', multiLine="true", header="false"),
    "fuzz-csv-multiLine-unclosed-quote-runs-to-end": _c('\t\'b\n ,"\'\tb,\n,\t,b\'a\t\'\n\n,bba\'\na\taa\tb ""\nb',
                                                        escape="", multiLine="true", header="false"),
    "fuzz-csv-multiLine-lone-quote-ends-file": _c(',b\n\\",b\nbb\n,,\tb \n,"\\ ,, \n\\,,\'', quote="'",
                                                  multiLine="true"),
    "fuzz-csv-multiLine-cr-doubled-quotes-unquoted": _c('\r1""\tb\n\n1""x\tb,\' ,\t1b', escape='"',
                                                        multiLine="true", header="false"),
    "fuzz-csv-multiLine-escapes-across-lines": _c('"\\,\nx\\","\n\n\n\\,"b"\\\\\n""a""\nb"\n,x",\nxxx,"\na\\\nxb"\na',
                                                  multiLine="true", header="false"),
    "fuzz-csv-multiLine-cr-no-escape": _c('\'\\\t\\11\r\ra\'\'\ra"\t\t "\\\r\'"\'\r\\\'\\\raa\r\',\t "\t\\\',"\r"\'\'1\'\'',
                                          quote="'", escape="", multiLine="true", header="false"),
    "fuzz-csv-empty-file-no-quote-multiLine": _c("", "a STRING", quote="", multiLine="true"),
    "multiLine-short-text-ending-in-cr": _c("a\r", multiLine="true", header="false"),
    "multiLine-text-ending-in-cr": _c("a,b\r1,2\r", multiLine="true"),
    "lineSep-one-char-is-the-newline": _c('a;"x\r\ny"\nz;', lineSep=";"),
    "lineSep-one-char-is-the-newline-multiLine": _c('a;"x\ny";z;', lineSep=";", multiLine="true"),
    "sep-two-chars-partial-matches": _c('a||b\nx|||y||z|\nx||"b"|c||d\n', sep="||"),
    "unescaped-quotes-kept": _c('a,b\n"x" y,"p"q"r"\n'),
    "stray-quote-after-escape-reads-past-the-delimiter": _c('a,b\n"a"\\b",x\n"a"\\' + 'b"' * 300 + ',x\n'),
    "ignoreTrailingWhiteSpace-blank-first-value": _c("a,b\n   ,x\n", ignoreTrailingWhiteSpace="true"),
    "fuzz-csvopts-ignoreTrailingWhiteSpace-whitespace-header": _c('"\t",a\n1,2\n', ignoreTrailingWhiteSpace="true"),
    "ignoreTrailingWhiteSpace-clashing-whitespace-header": _c('"\t","\t "\n1,2\n', ignoreTrailingWhiteSpace="true"),
}

# Cases Spark 3.5 reads differently from Spark 4.x (the pandas reader follows 4.x), and why.
# Spark reads these and the pandas reader refuses them (a difference, counted as one):
# case -> the words of the pandas reader's refusal.
PANDAS_REFUSES: dict[str, str] = {}

_FAR_YEARS_35 = ("Spark 3.5 (spark.sql.legacy.timeParserPolicy=EXCEPTION) refuses with SparkUpgradeException "
                 "a year its old parser reads differently (past 4 digits without a sign for yyyy, fewer than 5 for "
                 "yyyyy, a far-year invalid or 6-digit date); Spark 4 (CORRECTED) reads them as the pandas reader does")

SPARK35_DIFFERS: dict[str, str] = {
    "dateFormat-year-signs": _FAR_YEARS_35,
    "dateFormat-year-widths": _FAR_YEARS_35,
    "schema-date-far-invalid-and-six-digits": _FAR_YEARS_35,
    "timestampFormat-year-past-9999": _FAR_YEARS_35,
    "charset-cp1252": "Spark 3.5 reads any Java charset (windows-1252 here); Spark 4 accepts only iso-8859-1, "
                      "us-ascii, utf-8, utf-16* and utf-32 and refuses it, as the pandas reader does",
    "dateFormat-strict-widths": "Spark 3.5 (spark.sql.legacy.timeParserPolicy=EXCEPTION) refuses text its old "
                                "parser would read ('5 january 2024' with 'dd') with SparkUpgradeException; Spark 4 "
                                "(CORRECTED) reads it as null, as the pandas reader does",
}


def _write(tmp_path: Path, content: Any) -> Path:
    if isinstance(content, dict):
        folder = tmp_path / "data"
        folder.mkdir()
        for name, text in content.items():
            (folder / name).write_bytes(text.encode("utf-8"))
        return folder
    path = tmp_path / "data.csv"
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return path


# Cases Spark refuses, and the pandas reader too (in one line of its own); every other case must
# agree, so a reader that refuses everything fails (integration/parity.py).
BOTH_REFUSE = {"charset-cp1252", "enforceSchema-false-orders", "enforceSchema-false-schema", "lineSep-empty",
               "lineSep-three-chars", "ignoreTrailingWhiteSpace-blank-first-value",
               "fuzz-csvopts-ignoreTrailingWhiteSpace-whitespace-header", "mode-failfast-short", "mode-failfast-value", "quote-two-chars",
               "schema-array-refused"}


def _assert(spark: Any, name: str, outcome: Any) -> None:
    expect(spark, outcome, name, PANDAS_REFUSES, SPARK35_DIFFERS, BOTH_REFUSE)


@pytest.mark.parametrize("name", sorted(OPTION_CASES))
def test_option(spark: Any, tmp_path: Path, name: str) -> None:
    content, options, schema = OPTION_CASES[name]
    outcome = check(spark, _write(tmp_path, content), "csv", options, schema, case=f"csv-option:{name}")
    _assert(spark, name, outcome)


@pytest.mark.parametrize("name", sorted(INFERENCE_CASES))
def test_inference(spark: Any, tmp_path: Path, name: str) -> None:
    content, options, schema = INFERENCE_CASES[name]
    outcome = check(spark, _write(tmp_path, content), "csv", options, schema, case=f"csv-infer:{name}")
    _assert(spark, name, outcome)


@pytest.mark.parametrize("name", sorted(QUOTE_CASES))
def test_quotes(spark: Any, tmp_path: Path, name: str) -> None:
    content, options, schema = QUOTE_CASES[name]
    outcome = check(spark, _write(tmp_path, content), "csv", options, schema, case=f"csv-quotes:{name}")
    _assert(spark, name, outcome)


def random_csv(seed: int) -> tuple[str, dict[str, str]]:
    """A random CSV file and the options to read it: quotes, separators, escapes, line breaks."""
    rng = random.Random(seed)
    sep = rng.choice([",", ";", "|", "\t", "::"])
    quote = rng.choice(['"', '"', "'"])
    escape = rng.choice(["\\", quote])
    multi = rng.random() < 0.5
    options = {"sep": sep.replace("\t", "\\t"), "quote": quote, "escape": escape}
    if multi:
        options["multiLine"] = "true"
    if rng.random() < 0.3:
        options["nullValue"] = "NULL"
    pieces = ["x", "y z", " pad ", sep, quote, "\\", "1", "-2", "3.5", "NULL", "", "2024-01-05", "true", "é"]
    if multi:
        pieces += ["\n", "\r\n"]
    width = rng.randint(1, 4)
    kinds = [rng.choice(["int", "double", "text", "date", "bool"]) for _ in range(width)]

    def value(kind: str) -> str:
        if rng.random() < 0.1:
            return ""
        if kind == "int":
            return str(rng.randint(-10**12, 10**12))
        if kind == "double":
            return repr(round(rng.uniform(-1e4, 1e4), rng.randint(0, 4)))
        if kind == "date":
            return f"20{rng.randint(10, 30)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        if kind == "bool":
            return rng.choice(["true", "false", "TRUE"])
        return "".join(rng.choice(pieces) for _ in range(rng.randint(0, 4)))

    def field(v: str) -> str:
        special = any(s in v for s in (sep, quote, "\n", "\r")) or v != v.strip() or v == ""
        if not special and rng.random() < 0.8:
            return v
        body = v.replace(escape, escape + escape) if escape != quote else v
        return quote + body.replace(quote, escape + quote) + quote

    line_end = rng.choice(["\n", "\r\n"])
    lines = [sep.join(field(f"c{i}") for i in range(width))]
    for _ in range(rng.randint(1, 8)):
        lines.append(sep.join(field(value(k)) for k in kinds))
    return line_end.join(lines) + line_end, options


@pytest.mark.parametrize("seed", range(40))
def test_random_csv(spark: Any, tmp_path: Path, seed: int) -> None:
    text, options = random_csv(seed)
    outcome = check(spark, _write(tmp_path, text), "csv", options, case=f"csv-random:{seed}")
    _assert(spark, f"random-{seed}", outcome)


def test_the_both_refuse_list_names_cases_of_this_suite() -> None:
    assert BOTH_REFUSE <= set(OPTION_CASES) | set(INFERENCE_CASES) | set(QUOTE_CASES)
