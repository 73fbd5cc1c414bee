"""JSON dates and timestamps with years past 9999 and before 1, read as Spark 4.1 reads them.

Values are checked as integers (days / microseconds since the epoch), the way Arrow holds them;
the expected numbers are Spark 4.1's (``unix_date`` / ``unix_micros`` of ``spark.read.json``).
"""
from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from ubunye.io.datetimes import days_from_civil, julian_to_gregorian_days
from ubunye.io.json_convert import Bad, parse_date, parse_timestamp
from ubunye.io.json_datetime import PatternMismatch, date_parser, timestamp_parser
from ubunye.io.jsonl import read_jsonl


@pytest.mark.parametrize("text, days", [
    ("10000-01-01", 2932897), ("+10000-02-29", 2932956), ("-0001-01-01", -719893), ("0000-03-01", -719468),
    ("999999-12-31", 364522971), ("-12024-01-05T10:00", -5111200), ("3000000", 1095007972),
    ("-800000", -292913528), ("12345678", 12345678), ("+5", 5), ("-12345678", -12345437),
])
def test_default_date_far_years(text: str, days: int) -> None:
    assert parse_date(text) == days


@pytest.mark.parametrize("text", ["10100-02-29", "3000000000"])
def test_default_date_bad(text: str) -> None:
    with pytest.raises(Bad):
        parse_date(text)


@pytest.mark.parametrize("text, micros", [
    ("10000-01-01 10:00", 253402336800000000), ("+12024-01-05T00:00:00Z", 317273932800000000),
    ("-0001-01-01", -62198755200000000), ("294247-01-01", 9223371244800000000),
    ("12024-01-05 10:11:12.5+01:00", 317273965872500000), ("-12024-07-05T10:00:00Z", -441591919200000000),
])
def test_default_timestamp_far_years(text: str, micros: int) -> None:
    assert parse_timestamp(text) == micros


def test_timestamp_past_64_bit_micros_is_bad() -> None:
    with pytest.raises(Bad):
        parse_timestamp("999999-12-31")


def test_patterns_year_signs() -> None:
    date = date_parser("dd/MM/yyyy")
    assert [date("05/01/+12024"), date("05/01/-0001"), date("05/01/0000")] == [3672152, -719889, -719524]
    for text in ("05/01/12024", "05/01/+2024", "05/01/-0000"):
        with pytest.raises(PatternMismatch):
            date(text)
    wide = date_parser("d/M/yyyyy")
    assert [wide("5/1/12024"), wide("5/1/-12024")] == [3672152, -5111200]
    with pytest.raises(PatternMismatch):
        wide("5/1/2024")
    stamp = timestamp_parser("yyyy-MM-dd HH:mm")
    assert [stamp("+12024-01-05 10:00"), stamp("-0001-01-05 10:00")] == [317273968800000000, -62198373600000000]
    for text in ("12024-01-05 10:00", "+294247-01-10 10:00"):
        with pytest.raises(PatternMismatch):
            stamp(text)


def test_julian_rebase_of_day_counts() -> None:
    assert julian_to_gregorian_days(-719164) == days_from_civil(1, 1, 1) == -719162
    assert julian_to_gregorian_days(-12345678) == -12345437


def test_reader_far_years_and_seconds(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text('{"s": {"d": "12024-01-05", "t": "+12024-01-05T10:00:00Z"}, "l": ["-0001-01-01"], '
                    '"n": 300000000000}\n{"n": 9300000000000}\n{"n": 9223372036854775807}\n'
                    '{"n": 9223372036854775808}\n')
    schema = pa.schema([("s", pa.struct([("d", pa.date32()), ("t", pa.timestamp("us", tz="UTC"))])),
                        ("l", pa.list_(pa.date32())), ("n", pa.timestamp("us", tz="UTC"))])
    table, counts = read_jsonl([path], {}, schema)
    assert counts == [4]
    s = table.column("s").combine_chunks()
    assert s.field("d").cast(pa.int32())[0].as_py() == 3672152
    assert s.field("t").cast(pa.int64())[0].as_py() == 317273968800000000
    assert table.column("l").combine_chunks().flatten().cast(pa.int32()).to_pylist() == [-719893]
    # seconds times 10**6 wrap as Java's long multiplication does; past a long the record is bad (null)
    assert table.column("n").cast(pa.int64()).to_pylist() == [300000000000000000, -9146744073709551616, -1000000,
                                                               None]
