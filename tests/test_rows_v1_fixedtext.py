"""The vectorised timestamp text (ubunye.hashing.fixedtext) against independent calendars."""
from __future__ import annotations

import datetime as dt

import numpy as np
import pyarrow as pa

from ubunye.hashing import fixedtext
from ubunye.hashing.fixedtext import civil_from_days, timestamp_text
from ubunye.hashing.temporal import MAX_DAY, MIN_DAY


def test_civil_from_days_agrees_with_numpy_over_years_1_to_9999() -> None:
    # every day of the two years around each century's start (the 400-year eras' edges among them),
    # and every 7th day between
    centuries = (np.arange(1, 100) * 100 - 1970) * 365.2425
    near = (centuries.astype(np.int64)[:, None] + np.arange(-400, 400)).ravel()
    days = np.unique(np.concatenate([near, np.arange(MIN_DAY, MAX_DAY + 1, 7), [MIN_DAY, MAX_DAY]]))
    year, month, day = civil_from_days(days)
    dates = days.astype("datetime64[D]")
    months = dates.astype("datetime64[M]")
    assert np.array_equal(year, dates.astype("datetime64[Y]").astype(np.int64) + 1970)
    assert np.array_equal(month, months.astype(np.int64) % 12 + 1)
    assert np.array_equal(day, (dates - months).astype(np.int64) + 1)


def test_the_first_timestamps_of_a_process_have_their_digits(monkeypatch) -> None:
    monkeypatch.setattr(fixedtext, "_PAIRS", None)  # as in a fresh process: the digit table not built yet
    micros = [0, 951_782_400_123_456, 253_402_300_799_999_999, None]
    got = timestamp_text(pa.array(micros, pa.int64()), instant=True).to_pylist()
    want = ['"' + (dt.datetime(1970, 1, 1) + dt.timedelta(microseconds=m)).strftime("%Y-%m-%dT%H:%M:%S.%f")
            + 'Z"' if m is not None else None for m in micros]
    assert got == want == ['"1970-01-01T00:00:00.000000Z"', '"2000-02-29T00:00:00.123456Z"',
                           '"9999-12-31T23:59:59.999999Z"', None]
    # and again, from the table the first call kept
    assert timestamp_text(pa.array(micros, pa.int64()), instant=False).to_pylist()[1] == '"2000-02-29T00:00:00.123456"'


def test_an_empty_chunk_of_timestamps_has_no_text() -> None:
    assert timestamp_text(pa.array([], pa.int64()), instant=True).to_pylist() == []
