"""ubunye.hashing.temporal on its own: the text of far dates at the edges, and arrow_values on
every nesting (list, large list, list view, map, struct, dictionary, extension, date64, units).

The expected integers are written out (days and microseconds since 1970-01-01), not derived
from the module; the texts are the ones Spark prints (tests/fixtures/rows-v1-extra)."""
from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

from ubunye.hashing import fingerprint
from ubunye.hashing.temporal import (
    Days,
    Micros,
    arrow_values,
    day_text,
    days_of,
    micros_of,
    micros_text,
    year_text,
)

FAR = -810_000  # -0248-04-18 (far_years: Spark prints it so)
BIG = 2_932_897  # +10000-01-01
US_PER_DAY = 86_400_000_000


@pytest.mark.parametrize("days, text", [
    (-719_162, "0001-01-01"), (-719_163, "0000-12-31"), (2_932_896, "9999-12-31"), (2_932_897, "+10000-01-01"),
    (2_932_956, "+10000-02-29"), (-719_893, "-0001-01-01"), (-720_196, "-0002-03-04"), (-810_000, "-0248-04-18"),
])
def test_day_text_at_the_edges_of_pythons_years(days: int, text: str) -> None:
    assert day_text(days) == text


def test_year_text_signs_and_widths() -> None:
    assert [year_text(y) for y in (-10000, -1, 0, 9, 9999, 10000)] == [
        "-10000", "-0001", "0000", "0009", "9999", "+10000"]


def test_micros_text_of_the_last_and_first_microsecond_of_a_day() -> None:
    assert micros_text(BIG * US_PER_DAY - 1) == "9999-12-31T23:59:59.999999"
    assert micros_text(FAR * US_PER_DAY + 3_723_000_004) == "-0248-04-18T01:02:03.000004"


def test_micros_of_aware_and_naive() -> None:
    import datetime as dt

    plus2 = dt.timezone(dt.timedelta(hours=2))
    assert micros_of(dt.datetime(1970, 1, 1, 2, 0, 0, 5, tzinfo=plus2)) == 5
    assert micros_of(dt.datetime(1970, 1, 1, 0, 0, 1)) == 1_000_000
    assert micros_of(Micros(-3)) == -3

    class NoOffset(dt.tzinfo):  # a zone that knows no offset: the value is wall time
        def utcoffset(self, when: Any) -> None:
            return None

    assert micros_of(dt.datetime(1970, 1, 1, 0, 0, 2, tzinfo=NoOffset())) == 2_000_000
    with pytest.raises(TypeError, match="not a datetime: datetime.date"):
        micros_of(dt.date(1970, 1, 1))


def test_days_of_dates_datetimes_and_days() -> None:
    import datetime as dt

    assert days_of(dt.date(1970, 1, 2)) == 1
    assert days_of(dt.datetime(1969, 12, 31, 23, 59)) == -1  # a datetime's date
    assert days_of(Days(-5)) == -5
    with pytest.raises(TypeError, match="not a date: '1970-01-01'"):
        days_of("1970-01-01")


def dates(values: list[Any]) -> pa.Array:
    return pa.array(values, pa.int32()).cast(pa.date32())


def test_leaves_of_every_temporal_type() -> None:
    assert arrow_values(dates([FAR, None, 0])) == [Days(FAR), None, Days(0)]
    assert arrow_values(pa.array([86_400_000 * 3, None], pa.int64()).cast(pa.date64())) == [Days(3), None]
    for unit, per_us in (("s", 1_000_000), ("ms", 1000), ("us", 1)):
        arr = pa.array([-5, 7], pa.int64()).cast(pa.timestamp(unit))
        assert arrow_values(arr) == [Micros(-5 * per_us), Micros(7 * per_us)]
    assert arrow_values(pa.array([-1999, 2001], pa.int64()).cast(pa.timestamp("ns", tz="UTC"))) == [
        Micros(-2), Micros(2)]  # floored to microseconds
    assert all(type(v) is Days for v in arrow_values(dates([1])))
    assert arrow_values(pa.array([-1], pa.int64()).cast(pa.date64())) == [Days(-1)]  # floored to the day
    assert (repr(Days(-3)), repr(Micros(4))) == ("Days(-3)", "Micros(4)")


def test_nested_temporal_values() -> None:
    lists = pa.array([[FAR, None], None, []], pa.list_(pa.int32())).cast(pa.list_(pa.date32()))
    assert arrow_values(lists) == [[Days(FAR), None], None, []]
    large = lists.cast(pa.large_list(pa.date32()))
    assert arrow_values(large) == [[Days(FAR), None], None, []]
    structs = pa.StructArray.from_arrays([dates([BIG, None]), pa.array(["a", "b"])], names=["d", "s"],
                                         mask=pa.array([False, True]))
    assert arrow_values(structs) == [{"d": Days(BIG), "s": "a"}, None]
    maps = pa.MapArray.from_arrays(pa.array([0, 2, 2]), dates([FAR, 1]),
                                   pa.array([10, None], pa.int64()).cast(pa.timestamp("us")))
    assert arrow_values(maps) == [[(Days(FAR), Micros(10)), (Days(1), None)], []]
    chunked = pa.chunked_array([dates([1]), dates([FAR])])
    assert arrow_values(chunked) == [Days(1), Days(FAR)]


def test_list_views_dictionaries_and_extensions() -> None:
    import datetime as dt

    rows = [[dt.date(1970, 1, 3), None], None, [dt.date(1969, 12, 31)]]
    for view_type in (pa.list_view(pa.date32()), pa.large_list_view(pa.date32())):
        view = pa.array(rows, view_type)  # each row its own offset and size
        assert arrow_values(view) == [[Days(2), None], None, [Days(-1)]], view_type
        assert arrow_values(view.slice(1)) == [None, [Days(-1)]]
        as_list = pa.table({"l": pa.array(rows, pa.list_(pa.date32()))})
        assert fingerprint(pa.table({"l": view})) == fingerprint(as_list), view_type  # was: empty lists
    class DateLike(pa.ExtensionType):
        def __init__(self) -> None:
            super().__init__(pa.date32(), "ubunye.test.date")

        def __arrow_ext_serialize__(self) -> bytes:
            return b""

        @classmethod
        def __arrow_ext_deserialize__(cls, storage_type: Any, serialized: bytes) -> "DateLike":
            return cls()

    extension = pa.ExtensionArray.from_storage(DateLike(), dates([FAR, None]))
    assert arrow_values(extension) == [Days(FAR), None]
    in_list = pa.ListArray.from_arrays(pa.array([0, 2]), dates([FAR, FAR]).dictionary_encode())
    assert arrow_values(in_list) == [[Days(FAR), Days(FAR)]]
    encoded = dates([FAR, FAR, None]).dictionary_encode()
    assert arrow_values(encoded) == [Days(FAR), Days(FAR), None]
    assert arrow_values(pa.array(["x", None])) == ["x", None]  # no temporal leaf: as it is
    plain = pa.StructArray.from_arrays([pa.array([1])], names=["i"])
    assert arrow_values(plain) == [{"i": 1}]
    empty = pa.StructArray.from_arrays([], names=[], mask=pa.array([False, True]))
    assert arrow_values(empty) == [{}, None]
