"""Unit tests of the text writers: Java double/float text, JSON escaping, kinds, digests."""
from __future__ import annotations

import os
import random
import shutil
import struct
import subprocess
from pathlib import Path
from typing import Callable, NoReturn

import pytest

from ubunye.hashing.digest import MASK64, LaneSums, data_hash, line_lanes, schema_hash, sums_of_lines
from ubunye.hashing.errors import RowsV1Error
from ubunye.hashing.javatext import double_text, float_text
from ubunye.hashing.jsontext import compact_json, line_string
from ubunye.hashing.kinds import parse_kind


@pytest.mark.parametrize(
    "x, text",
    [
        (1.5, "1.5"), (100.0, "100.0"), (1234567.0, "1234567.0"), (9999999.0, "9999999.0"),
        (1e7, "1.0E7"), (0.001, "0.001"), (9.99e-4, "9.99E-4"), (1e-5, "1.0E-5"),
        (-2.5e-7, "-2.5E-7"), (1e23, "1.0E23"), (2e23, "2.0E23"), (5e-324, "4.9E-324"),
        (1e-323, "9.9E-324"), (1.7976931348623157e308, "1.7976931348623157E308"),
        (0.30000000000000004, "0.30000000000000004"), (-0.0, "-0.0"), (0.0, "0.0"),
        (float("nan"), "NaN"), (float("inf"), "Infinity"), (float("-inf"), "-Infinity"),
    ],
)
def test_double_text(x: float, text: str) -> None:
    assert double_text(x) == text


@pytest.mark.parametrize(
    "x, text",
    [
        (0.1, "0.1"), (1e10, "1.0E10"), (3.4028234663852886e38, "3.4028235E38"),
        (1.401298464324817e-45, "1.4E-45"), (2.802596928649634e-45, "2.8E-45"),
        (16777216.0, "1.6777216E7"), (1 / 3, "0.33333334"), (123456.79, "123456.79"), (4.3e9, "4.3E9"),
    ],
)
def test_float_text(x: float, text: str) -> None:
    assert float_text(x) == text


def _java() -> str | None:
    """A JDK 19+ ``java``: the machine's JDKs under /usr/lib/jvm (CI's machine has a Temurin 25
    beside its JDK 17), ``$JAVA_HOME`` if set, or ``java`` on the PATH. No environment variable
    is needed: CI sets none of them."""
    homes = [os.environ.get("JAVA_HOME", "")] + sorted(str(p) for p in Path("/usr/lib/jvm").glob("*"))
    candidates = [Path(home) / "bin" / "java" for home in homes if home] + [Path(shutil.which("java") or "")]
    for candidate in candidates:
        if candidate.name == "java" and candidate.exists():
            version = subprocess.run([str(candidate), "-version"], capture_output=True, text=True).stderr
            major = version.split('"')[1].split(".")[0] if '"' in version else "0"
            if major.isdigit() and int(major) >= 19:
                return str(candidate)
    return None


JAVA = _java()
_JAVA_SOURCE = """
import java.io.*;
public class Texts { public static void main(String[] a) throws Exception {
  BufferedReader r = new BufferedReader(new InputStreamReader(System.in));
  String line; StringBuilder out = new StringBuilder();
  while ((line = r.readLine()) != null) {
    String[] p = line.split(" ");
    if (p[0].equals("d")) out.append(Double.toString(Double.longBitsToDouble(Long.parseLong(p[1]))));
    else out.append(Float.toString(Float.intBitsToFloat(Integer.parseInt(p[1]))));
    out.append('\\n');
  }
  System.out.print(out);
} }
"""


def test_java_text_equals_jdk19_on_random_bits(tmp_path: Path, unavailable: Callable[[str], NoReturn]) -> None:
    if JAVA is None:
        unavailable("needs a JDK 19+ to compare with (none under /usr/lib/jvm, $JAVA_HOME or the PATH)")
    rnd = random.Random(20261130)
    cases = [("d", rnd.getrandbits(64) - 2**63) for _ in range(20000)]
    cases += [("f", rnd.getrandbits(32) - 2**31) for _ in range(20000)]
    source = tmp_path / "Texts.java"
    source.write_text(_JAVA_SOURCE)
    stdin = "\n".join(f"{k} {b}" for k, b in cases) + "\n"
    assert JAVA is not None
    java = subprocess.run([JAVA, str(source)], input=stdin, capture_output=True, text=True, check=True)
    expected = java.stdout.splitlines()
    for (k, bits), want in zip(cases, expected):
        if k == "d":
            got = double_text(struct.unpack("<d", struct.pack("<q", bits))[0])
        else:
            got = float_text(struct.unpack("<f", struct.pack("<i", bits))[0])
        assert got == want, (k, bits)
    assert len(expected) == len(cases)


def test_line_string_escapes_like_jackson() -> None:
    assert line_string('a"b\\c') == '"a\\"b\\\\c"'
    assert line_string("\b\t\n\f\r") == '"\\b\\t\\n\\f\\r"'
    assert line_string("\x00\x0b\x1f") == '"\\u0000\\u000B\\u001F"'
    assert line_string("\x7f\u2028/é\U0001f600") == '"\x7f\u2028/é\U0001f600"'


def test_compact_json_is_ascii_with_lower_hex() -> None:
    assert compact_json([["é", "x\x7f"]]) == '[["\\u00e9","x\\u007f"]]'
    assert compact_json(["\U0001f600"]) == '["\\ud83d\\ude00"]'


def test_spec_reference_vector_and_degenerate_tables() -> None:
    kinds = [("day", "date"), ("id", "int32"), ("name", "string"), ("passed", "bool"),
             ("score", "float64"), ("seen", "timestamp")]
    sums = LaneSums(3, 6192466235194664508, 16197602425010648478)
    assert data_hash(kinds, sums) == "sha256:05d3777fa1c396a7572f50f7a24db2dbe0f9e974c18ac7abd3308019d6371125"
    assert schema_hash(list(reversed(kinds))) == (
        "sha256:fda33811c26094a8e54d5f9498523bcf89a0683e74c18dbfde0343d387ad3875")
    assert schema_hash([]) == "sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945"
    assert data_hash([], LaneSums()) == (
        "sha256:817c2882bb210ce81f6d1171adaf5dde55b34649ab3361af7952f5e7663fd860")


@pytest.mark.parametrize(
    "text",
    ["int8", "decimal(10,2)", "list<map<string,list<int64>>>", "struct<x:float64,y:decimal(5,1),z:struct<>>",
     "map<decimal(10,2),float32>", "struct<>"],
)
def test_kind_text_round_trips(text: str) -> None:
    assert parse_kind(text).text == text


@pytest.mark.parametrize(
    "text, message",
    [("map<list<int8>,string>", "map key of kind list<int8>"), ("struct<a:int8,a:int8>", "duplicate field"),
     ("uint8", "unknown kind"), ("list<int8", "expected '>'")],
)
def test_bad_kinds(text: str, message: str) -> None:
    with pytest.raises(RowsV1Error, match=message):
        parse_kind(text)


def test_byte_wise_escaping_is_the_character_escaping_on_utf8_and_keeps_other_bytes() -> None:
    """The Arrow path escapes a string's bytes (the plugin's way): for valid UTF-8 that is the
    character escaping of spec 2.2; bytes that are not UTF-8 pass through as held."""
    from ubunye.hashing.jsontext import line_bytes

    rng = random.Random(7)
    alphabet = [chr(c) for c in range(0x00, 0x80)] + ["é", "😀", "\u2028", "\u007f", "中"]
    for _ in range(500):
        s = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        assert line_bytes(s.encode("utf-8")) == line_string(s).encode("utf-8"), s
    assert line_bytes(b'x\xff"\n\x01') == b'"x\xff\\"\\n\\u0001"'


def test_nested_strings_that_are_not_utf8_are_written_as_their_bytes() -> None:
    """Inside a struct, list or map too, a string's bytes are written as held, escapes byte-wise
    (integration/test_spark_invalid_utf8.py checks the digest against the plugin's)."""
    import pyarrow as pa

    from ubunye.hashing.arrow import arrow_schema_kinds, line_array
    from ubunye.hashing import fingerprint

    inner = pa.array([b"ok", b'\xc3("'], pa.binary()).view(pa.string())
    table = pa.table({"t": pa.StructArray.from_arrays([inner], ["s"]),
                      "l": pa.ListArray.from_arrays(pa.array([0, 1, 2], pa.int32()), inner)})
    batch = table.to_batches()[0]
    lines = line_array(batch, arrow_schema_kinds(batch.schema)).cast(pa.binary()).to_pylist()
    assert lines == [b'{"l":["ok"],"t":{"s":"ok"}}', b'{"l":["\xc3(\\""],"t":{"s":"\xc3(\\""}}']
    assert fingerprint(table).error is None


def test_line_lanes_of_text_are_those_of_its_utf8_bytes() -> None:
    import hashlib

    line = '{"name":"Zoë ✓"}'
    digest = hashlib.sha256(line.encode("utf-8")).digest()
    want = (int.from_bytes(digest[:8], "big"), int.from_bytes(digest[8:16], "big"))
    assert line_lanes(line) == line_lanes(line.encode("utf-8")) == want


def test_lane_sums_add_with_sum_and_wrap_modulo_2_64() -> None:
    top = 2**64 - 1
    parts = [LaneSums(1, top, 2), LaneSums(2, 3, top)]
    assert sum(parts) == LaneSums(3, 2, 1)  # sum() starts from 0
    assert LaneSums(1, 1, 1).__add__(5) is NotImplemented


def test_repeated_lines_each_count_in_the_reference_sums() -> None:
    """A table of two equal rows is not the table of one: each line adds its lanes (rows-v1 is a
    multiset digest, never a set)."""
    one, other = '{"id":1}', '{"id":2}'
    a, b = line_lanes(one)
    assert sums_of_lines([one, one, other]) == LaneSums(3, (2 * a + line_lanes(other)[0]) & MASK64,
                                                        (2 * b + line_lanes(other)[1]) & MASK64)
    assert sums_of_lines([one, one]) != sums_of_lines([one])
