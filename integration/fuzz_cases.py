"""Seeded generators of awkward inputs for the parity fuzz (pure Python, no Spark).

Each generator yields :class:`FuzzCase` values: the bytes of one file, the reader
options and (for csv) the explicit schema. Cases are grouped by their options
(``FuzzCase.group``) so that the runner (integration/fuzz_run.py) reads each group
in one Spark job. A case is fully determined by ``(generator, seed, index)``.

- :func:`csv_text`: text over an alphabet of quote, escape, separator, space, tab,
  CR, LF and letters, read with every ``quote`` x ``escape`` x ``multiLine`` x
  ``header`` combination (36 option sets), into ten string columns (the parser,
  not type inference, is under test).
- :func:`csv_options`: the same kind of text (with ``|``, ``;`` and ``#``) under the other
  settings Spark gives univocity: ``ignoreLeadingWhiteSpace`` x ``ignoreTrailingWhiteSpace``,
  ``comment``, ``nullValue``/``emptyValue``, a two-character ``sep``, ``lineSep``.
- :func:`json_lines`: JSON records with numbers in every spelling Jackson accepts
  or refuses (``NaN``, ``+INF``, ``-Infinity``, leading zeros, ``.5``, ``1.``, hex,
  signs), nested values, comments, single-quoted strings, unquoted names, bad
  tokens, read with type inference under the five Jackson switches Spark exposes.
  Field names carry the case number, so cases read together never share a column.
- :func:`utf8_bytes`: CSV whose fields hold invalid UTF-8 (truncated, overlong,
  surrogate, past U+10FFFF, lone continuation bytes) beside valid multi-byte text,
  read line by line and with ``multiLine``.
"""
from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from typing import Iterator, Optional


@dataclass(frozen=True)
class FuzzCase:
    name: str  # "<generator>:<seed>:<index>"
    data: bytes
    options: tuple[tuple[str, str], ...]
    schema: Optional[str] = None

    @property
    def group(self) -> tuple:
        return self.options, self.schema


# ---- CSV text ------------------------------------------------------------------------

CSV_WIDTH = 10
CSV_SCHEMA = ", ".join(f"_c{i} STRING" for i in range(CSV_WIDTH))
_QUOTES = ('"', "'", "")  # "" turns quoting off
_ESCAPES = ("\\", '"', "")  # "" : no escape character (Spark's \u0000)
CSV_OPTION_SETS = [
    (("quote", q), ("escape", e), ("multiLine", m), ("header", h))
    for q, e, m, h in itertools.product(_QUOTES, _ESCAPES, ("false", "true"), ("false", "true"))
]
_CSV_ALPHABET = ['"', "'", "\\", ",", " ", "\t", "\r", "\n", "a", "b", "x", "1"]


def csv_text(seed: int, count: int) -> Iterator[FuzzCase]:
    for index in range(count):
        rng = random.Random(f"csv:{seed}:{index}")
        options = CSV_OPTION_SETS[index % len(CSV_OPTION_SETS)]
        weights = [rng.randint(0, 4) for _ in _CSV_ALPHABET]
        if not any(weights[-4:]):
            weights[-4] = 1
        text = "".join(rng.choices(_CSV_ALPHABET, weights, k=rng.randint(0, 48)))
        yield FuzzCase(f"csv:{seed}:{index}", text.encode("utf-8"), options, CSV_SCHEMA)


# ---- CSV text under the other univocity settings Spark sets ----------------------------

_WHITESPACE = [(("ignoreLeadingWhiteSpace", lead), ("ignoreTrailingWhiteSpace", trail))
               for lead, trail in itertools.product(("false", "true"), repeat=2)]
_EXTRAS = [(), (("comment", "#"),), (("nullValue", "a"), ("emptyValue", "b"))]
CSV_MORE_OPTION_SETS = [
    (("sep", sep), ("multiLine", m), *ws, *extra)
    for sep, m, ws, extra in itertools.product((",", "||"), ("false", "true"), _WHITESPACE, _EXTRAS)
] + [(("sep", sep), ("lineSep", ";"), ("multiLine", m)) for sep in (",", "||") for m in ("false", "true")]
_CSV_MORE_ALPHABET = ['"', "\\", ",", "|", ";", "#", " ", "\t", "\r", "\n", "a", "b", "1"]


def csv_options(seed: int, count: int) -> Iterator[FuzzCase]:
    """Text over quote, escape, both separators, ``;``, ``#``, whitespace and letters, read with
    ``ignoreLeading/TrailingWhiteSpace``, ``comment``, ``nullValue``/``emptyValue``, a
    two-character ``sep`` and ``lineSep`` (52 option sets), ten string columns."""
    for index in range(count):
        rng = random.Random(f"csvopts:{seed}:{index}")
        options = CSV_MORE_OPTION_SETS[index % len(CSV_MORE_OPTION_SETS)]
        weights = [rng.randint(0, 4) for _ in _CSV_MORE_ALPHABET]
        if not any(weights[-3:]):
            weights[-3] = 1
        text = "".join(rng.choices(_CSV_MORE_ALPHABET, weights, k=rng.randint(0, 48)))
        yield FuzzCase(f"csvopts:{seed}:{index}", text.encode("utf-8"), options, CSV_SCHEMA)


# ---- JSON lines ----------------------------------------------------------------------

_JSON_SWITCHES = ("allowComments", "allowNumericLeadingZeros", "allowNonNumericNumbers", "allowSingleQuotes",
                  "allowUnquotedFieldNames")
JSON_OPTION_SETS = [tuple(zip(_JSON_SWITCHES, flags))
                    for flags in itertools.product(("false", "true"), repeat=len(_JSON_SWITCHES))]
_NUMBERS = [
    "0", "-0", "1", "-1", "+1", "00", "007", "-007", "0.5", ".5", "-.5", "1.", "1.0", "01.5", "1e5", "1E+5",
    "1e-5", "-1.5e-3", "1e", "1e+", "0x10", "1_000", "9223372036854775807", "9223372036854775808",
    "-9223372036854775809", "123456789012345678901234567890", "1" * 40, "1.5e400", "-1e400", "4.9e-325",
    "NaN", "+NaN", "-NaN", "nan", "Infinity", "+Infinity", "-Infinity", "infinity", "INF", "+INF", "-INF",
    "Inf", "-Inf", "+Inf", "inf", "1.5d", "1.5f", "--1", "+-1", "0.0", "-0.0", "1.50", "100000000000000000000.0",
]
_WORDS = ["true", "false", "null", "True", "NULL", "nul", "tru"]
_STRINGS = ['"x"', '""', "'y'", "''", '"a\\"b"', "'a\\'b'", '"\\u00e9"', '"1.5"', '"NaN"', '"é"', "'it''s'"]
_GAPS = ["", " ", "  ", "\t", "/* c */", "/**/", " /* , */ "]


def _json_value(rng: random.Random, depth: int) -> str:
    roll = rng.random()
    if depth < 2 and roll < 0.15:
        return "[" + ",".join(_json_value(rng, depth + 1) for _ in range(rng.randint(0, 3))) + "]"
    if depth < 2 and roll < 0.25:
        return "{" + ",".join(f'"{k}":{_json_value(rng, depth + 1)}'
                              for k in rng.sample("pqr", rng.randint(0, 2))) + "}"
    if roll < 0.75:
        return rng.choice(_NUMBERS)
    if roll < 0.88:
        return rng.choice(_STRINGS)
    return rng.choice(_WORDS)


def _json_record(rng: random.Random, prefix: str) -> str:
    gap = lambda: rng.choice(_GAPS) if rng.random() < 0.3 else ""  # noqa: E731
    members = []
    for key in rng.sample("abc", rng.randint(1, 3)):
        name = rng.choice([f'"{prefix}{key}"', f"'{prefix}{key}'", f"{prefix}{key}"]) \
            if rng.random() < 0.3 else f'"{prefix}{key}"'
        members.append(f"{gap()}{name}{gap()}:{gap()}{_json_value(rng, 0)}{gap()}")
    text = "{" + ",".join(members) + "}"
    tail = rng.random()
    if tail < 0.05:
        text += " // note"
    elif tail < 0.08:
        text = text[:-1]  # unbalanced
    elif tail < 0.1:
        text = "[" + text + "]"
    return text


def json_lines(seed: int, count: int) -> Iterator[FuzzCase]:
    for index in range(count):
        rng = random.Random(f"json:{seed}:{index}")
        options = JSON_OPTION_SETS[index % len(JSON_OPTION_SETS)]
        prefix = f"c{index}_"
        lines = [_json_record(rng, prefix) for _ in range(rng.randint(1, 4))]
        yield FuzzCase(f"json:{seed}:{index}", ("\n".join(lines) + "\n").encode("utf-8"), options)


# ---- invalid UTF-8 in CSV fields ----------------------------------------------------

_BYTES = [
    b"a", b"b", b",", b" ", b"\xc3\xa9", b"\xe2\x82\xac", b"\xf0\x9f\x98\x80",  # valid: e-acute, euro, emoji
    b"\xc3", b"\xe2\x82", b"\xe2", b"\xf0\x9f\x98", b"\xf0\x9f", b"\xf0",  # truncated
    b"\x80", b"\xbf", b"\x80\x80",  # lone continuation bytes
    b"\xc0\x80", b"\xc1\xbf", b"\xe0\x80\x80", b"\xe0\x9f\xbf", b"\xf0\x80\x80\x80", b"\xf0\x8f\xbf\xbf",  # overlong
    b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xed\xa0",  # surrogates
    b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80", b"\xf8\x88\x80\x80\x80", b"\xfe", b"\xff",  # past U+10FFFF, never valid
]
UTF8_OPTION_SETS = [(("multiLine", "false"),), (("multiLine", "true"),)]


def utf8_bytes(seed: int, count: int) -> Iterator[FuzzCase]:
    for index in range(count):
        rng = random.Random(f"utf8:{seed}:{index}")
        options = UTF8_OPTION_SETS[index % len(UTF8_OPTION_SETS)]
        lines = [b"".join(rng.choices(_BYTES, k=rng.randint(0, 12))) for _ in range(rng.randint(1, 4))]
        yield FuzzCase(f"utf8:{seed}:{index}", b"\n".join(lines) + b"\n", options, CSV_SCHEMA)


GENERATORS = {"csv": (csv_text, "csv"), "csvopts": (csv_options, "csv"), "json": (json_lines, "json"),
              "utf8": (utf8_bytes, "csv")}
