"""Dates and timestamps past year 9999 and before year 1 in the pandas csv reader (no Spark).

Expected integers (days since 1970-01-01, microseconds since the epoch) and types are what
Spark 4.1 read from the same text (``unix_date`` / ``unix_micros``);
integration/test_parity_csv.py checks the cases against Spark itself.
"""
from __future__ import annotations

import datetime as dt
import random
from pathlib import Path
from typing import Any, Optional

import pyarrow as pa
import pytest

from ubunye.io import read_arrow
from ubunye.io.csv_datetime import Pattern, civil_micros, days_from_civil, lenient_date, lenient_timestamp


def read(tmp_path: Path, text: str, schema: Optional[str] = None, **options: str) -> pa.Table:
    path = tmp_path / "data.csv"
    path.write_text(text)
    return read_arrow(path, "csv", options=options, schema=schema)


def ints(table: pa.Table) -> tuple[str, list[Any]]:
    column = table.column(0)
    if pa.types.is_date32(column.type):
        column = column.cast(pa.int32())
    elif pa.types.is_timestamp(column.type):
        column = column.cast(pa.int64())
    return str(table.column(0).type), column.to_pylist()


def test_days_from_civil_agrees_with_python_dates_in_their_range() -> None:
    rng = random.Random(7)
    for _ in range(2000):
        day = dt.date(1, 1, 1) + dt.timedelta(days=rng.randrange(3652059))
        assert days_from_civil(day.year, day.month, day.day) == (day - dt.date(1970, 1, 1)).days, day


def test_days_from_civil_far_years_and_invalid_dates() -> None:
    assert days_from_civil(12024, 1, 5) == 3672152
    assert days_from_civil(-1, 1, 1) == -719893
    assert days_from_civil(0, 3, 1) == -719468
    assert days_from_civil(10000, 2, 29) == 2932956  # 10000 is a leap year
    assert days_from_civil(10100, 2, 29) is None
    assert days_from_civil(2024, 4, 31) is None
    assert civil_micros(294247, 1, 1) == 9223371244800000000
    assert civil_micros(999999, 12, 31) is None  # past 64-bit microseconds: not a timestamp


def test_lenient_far_years() -> None:
    assert lenient_timestamp("12024-01-05") == 317273932800000000
    assert lenient_timestamp("+12024-01-05T10:00:00Z") == 317273968800000000
    assert lenient_timestamp("12024-07-05T10:00:00Europe/Paris") == 317289686400000000  # summer time
    assert lenient_timestamp("-0001-01-05 10:00") == -62198373600000000
    assert lenient_timestamp("-0000-01-05") == -62166873600000000
    assert lenient_timestamp("999999-12-31") is None
    assert lenient_date("-12024-01-05") == -5111200
    assert lenient_date("999999-12-31") == 364522971


def test_pattern_year_signs_follow_java_time() -> None:
    p = Pattern("dd/MM/yyyy", "dateFormat")
    got = [p.date(t) for t in ("05/01/12024", "05/01/+12024", "05/01/-0001", "05/01/+2024", "05/01/-0000",
                               "05/01/0000")]
    assert got == [None, 3672152, -719889, None, None, -719524]
    assert Pattern("d/M/y", "dateFormat").date("5/1/12024") == 3672152
    assert [Pattern("d/M/yyyyy", "dateFormat").date(t) for t in ("5/1/12024", "5/1/2024")] == [3672152, None]
    assert Pattern("yyyy-MM-dd HH:mm", "timestampFormat").timestamp("+12024-01-05 10:00") == 317273968800000000


@pytest.mark.parametrize("text, schema, options, expected", [
    ("a\n12024-01-05\n", None, {}, ("timestamp[us, tz=UTC]", [317273932800000000])),
    ("a\n+12024-01-05\n", None, {}, ("date32[day]", [3672152])),
    ("a\n99999-12-31\n", None, {}, ("timestamp[us, tz=UTC]", [3093527894400000000])),
    ("a\n999999-12-31\n", None, {}, ("string", ["999999-12-31"])),
    ("a\n-0001-01-05\n", None, {}, ("date32[day]", [-719889])),
    ("a\n+2024-01-05\n", None, {}, ("timestamp[us, tz=UTC]", [1704412800000000])),
    ("a\n10000-01-01\n+10000-02-29\n-0001-01-01\n0000-03-01\n", "a DATE", {},
     ("date32[day]", [2932897, 2932956, -719893, -719468])),
    ("a\n10000-01-01 10:00\n+12024-01-05T00:00:00Z\n-0001-01-01\n999999-12-31\n", "a TIMESTAMP", {},
     ("timestamp[us, tz=UTC]", [253402336800000000, 317273932800000000, -62198755200000000, None])),
    ("a\n05/01/12024\n05/01/+12024\n", "a DATE", {"dateFormat": "dd/MM/yyyy"}, ("date32[day]", [None, 3672152])),
    ("a\n05/01/0000 10:11\n", "a TIMESTAMP", {"timestampFormat": "dd/MM/yyyy HH:mm"},
     ("timestamp[us, tz=UTC]", [-62166836940000000])),
])
def test_far_years_read_as_spark_reads_them(tmp_path: Path, text: str, schema: Optional[str],
                                            options: dict[str, str], expected: tuple[str, list[Any]]) -> None:
    assert ints(read(tmp_path, text, schema, **options)) == expected


def test_far_wall_clock_times(tmp_path: Path) -> None:
    table = read(tmp_path, "a\n10000-01-01 10:00\n-0001-01-01 00:00\n", "a TIMESTAMP_NTZ")
    assert ints(table) == ("timestamp[us]", [253402336800000000, -62198755200000000])
