"""The vectorised value writer (hashing/arrow_text.py) called directly: each kind's text at the
edges of its fast path (sliced arrays, nulls, escapes, the plain float range, far dates, every
timestamp unit), written literally or compared with the row-at-a-time reference writer, and the
nested values whose strings are not UTF-8."""
from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from ubunye.hashing import arrow_text
from ubunye.hashing.arrow_text import column_pieces
from ubunye.hashing.errors import RowsV1Error
from ubunye.hashing.javatext import double_text, float_text
from ubunye.hashing.kinds import Kind, decimal, list_of, map_of, parse_kind, scalar, struct_of

F64, F32 = scalar("float64"), scalar("float32")


def column_text(arr: Any, kind: Kind) -> Any:
    """The pieces of each value joined: its canonical text (null where the value is null)."""
    pieces = column_pieces(arr, kind)
    for piece in pieces:
        assert isinstance(piece, str) or len(piece) == len(arr)
    return pc.binary_join_element_wise(*[pa.scalar(p) if isinstance(p, str) else p for p in pieces], "")


def _texts(arr: Any, kind: Kind) -> list:
    return column_text(arr, kind).to_pylist()


class _Meters(pa.ExtensionType):
    def __init__(self) -> None:
        super().__init__(pa.int64(), "test.meters")

    def __arrow_ext_serialize__(self) -> bytes:
        return b""

    @classmethod
    def __arrow_ext_deserialize__(cls, storage_type: Any, serialized: Any) -> "_Meters":
        return cls()


def test_chunked_dictionary_and_extension_arrays_are_written_as_their_values() -> None:
    chunked = pa.chunked_array([pa.array([1, None]), pa.array([-3])])
    pieces = column_pieces(chunked, scalar("int64"))
    assert [type(p) for p in pieces] == [pa.StringArray]  # one array, not chunks
    assert pieces[0].to_pylist() == ["1", None, "-3"]
    words = pa.array(["b", "a", None, "b"]).dictionary_encode()
    assert _texts(words, scalar("string")) == ['"b"', '"a"', None, '"b"']
    meters = pa.ExtensionArray.from_storage(_Meters(), pa.array([7, None, -1]))
    assert _texts(meters, scalar("int64")) == ["7", None, "-1"]
    assert _texts(pa.array([b"\x00\xff", None]), scalar("binary")) == ['"AP8="', None]  # the reference writer


def test_pieces_are_constants_and_arrays_of_the_columns_length() -> None:
    assert column_pieces(pa.array([5, None]), scalar("int8"))[0].to_pylist() == ["5", None]
    quoted = column_pieces(pa.array(["x", None]), scalar("string"))
    assert quoted[0] == quoted[2] == '"' and quoted[1].to_pylist() == ["x", None]


def test_bools_and_nulls() -> None:
    assert _texts(pa.array([True, False, None]), scalar("bool")) == ["true", "false", None]
    assert _texts(pa.array([None, None], pa.null()), scalar("null")) == [None, None]
    assert column_text(pa.array([None, None, None], pa.null()), scalar("null")).type == pa.string()


@pytest.mark.parametrize("values", [
    ["plain", None, "ü€😀"],
    ['a"b', "c\\d", "e\nf", "\x00", "\x1f", " ~\x7f", None, ""],
    ["", ""],
    [None, None],
])
def test_strings_are_quoted_and_escaped_like_the_reference(values: list) -> None:
    want = [None if v is None else arrow_text.value_text(v, scalar("string")) for v in values]
    assert _texts(pa.array(values, pa.string()), scalar("string")) == want
    assert _texts(pa.array(values, pa.large_string()), scalar("string")) == want


def test_a_slice_is_escaped_by_its_own_bytes() -> None:
    # the escape before and after the slice is not in it; the one inside is found though the slice starts late
    whole = pa.array(['a"', "b", "c", "d\\", "e"])
    assert _texts(whole.slice(1, 2), scalar("string")) == ['"b"', '"c"']
    assert _texts(whole.slice(2, 2), scalar("string")) == ['"c"', '"d\\\\"']
    assert _texts(whole.slice(4, 1), scalar("string")) == ['"e"']
    assert arrow_text._data_has(whole.slice(1, 2)) is False
    assert arrow_text._data_has(whole.slice(3, 1)) is True
    assert arrow_text._data_has(whole.slice(0, 1)) is True


@pytest.mark.parametrize("char, has", [("\x00", True), ("\x1f", True), (" ", False), ('"', True), ("\\", True),
                                       ("!", False), ("#", False), ("[", False), ("]", False), ("\x7f", False)])
def test_which_bytes_need_escaping(char: str, has: bool) -> None:
    assert arrow_text._data_has(pa.array(["ab", "c" + char])) is has


def test_strings_with_no_data_need_no_escaping() -> None:
    assert arrow_text._data_has(pa.array(["", '"'])) is True  # the first value empty, the last not
    assert arrow_text._data_has(pa.array(["", "", "\\"])) is True
    assert arrow_text._data_has(pa.array(["", None])) is False
    assert arrow_text._data_has(pa.array([], pa.string())) is False


def test_bytes_that_are_not_utf8_are_escaped_as_held() -> None:
    raw = pa.array([b'\xff"', b"ok", None, b"\xfe"], pa.binary()).view(pa.string())
    got = column_text(raw, scalar("string"))
    assert got.view(pa.binary()).to_pylist() == [b'"\xff\\""', b'"ok"', None, b'"\xfe"']


@pytest.mark.parametrize("kind, values", [
    (F64, [0.0, -0.0, 1.0, -1.0, 100.0, 0.1, 1e-3, 9.99e-4, 1e7, 9999999.0, 9999999.5, 1e-300, 1.5e300,
           123456.789, -2.5, float("nan"), float("inf"), float("-inf"), 1e21, 5e-324]),
    (F32, [0.0, -0.0, 1.0, 0.1, 1e-3, 9.99e-4, 1e7, 9999999.0, 1.1e-5, 3.4e38, 2.5, float("nan"), float("-inf")]),
])
def test_floats_like_the_reference(kind: Kind, values: list) -> None:
    arrow_type = pa.float64() if kind.tag == "float64" else pa.float32()
    arr = pa.array(values, arrow_type)
    want = [arrow_text.value_text(v, kind) for v in arr.to_pylist()]
    assert _texts(arr, kind) == want
    with_nulls = pa.array([None, *values, None], arrow_type)
    assert _texts(with_nulls, kind) == [None, *want, None]


def test_floats_at_the_edges_of_the_plain_range() -> None:
    arr = pa.array([1e-3, 9.999999999999998e-4, 1e7, 9999999.999999998, 0.0, -0.0, 100.0, None, 2.0])
    assert _texts(arr, F64) == ["0.001", "9.999999999999998E-4", "1.0E7", "9999999.999999998", "0.0", "-0.0",
                                "100.0", None, "2.0"]
    assert _texts(pa.array([float("nan"), float("inf"), None, float("-inf")]), F64) == [
        '"NaN"', '"Infinity"', None, '"-Infinity"']
    # a float32 outside the plain range is written by the float32 writer (the double writer gives more digits)
    small = np.float32(1.1e-5)
    assert double_text(float(small)) != float_text(float(small))
    assert _texts(pa.array([small], pa.float32()), F32) == [float_text(float(small))] == ["1.1E-5"]
    # no whole value, no suffix piece
    assert len(column_pieces(pa.array([0.5, 1e20]), F64)) == 1
    assert len(column_pieces(pa.array([0.5, 2.0]), F64)) == 2


def test_half_floats_are_written_as_float32() -> None:
    halves = pa.array(np.array([1.5, 0.1, 65504.0, 6e-5], dtype=np.float16))
    want = [float_text(float(np.float32(v))) for v in np.array([1.5, 0.1, 65504.0, 6e-5], dtype=np.float16)]
    assert _texts(halves, F32) == want
    assert want[1] == "0.099975586"


def test_decimals() -> None:
    arr = pa.array([Decimal("1.50"), Decimal("-0.01"), None, Decimal("0.00")], pa.decimal128(5, 2))
    assert _texts(arr, decimal(5, 2)) == ["1.50", "-0.01", None, "0.00"]
    tiny = pa.array([Decimal("1E-10"), Decimal("0E-10"), Decimal("-1E-10"), Decimal("1.5E-9")], pa.decimal128(20, 10))
    assert _texts(tiny, decimal(20, 10)) == ["1E-10", "0E-10", "-1E-10", "1.5E-9"]


def test_the_point_before_an_exponent_is_dropped_only_where_pyarrow_writes_one(monkeypatch: pytest.MonkeyPatch) -> None:
    fresh: list[bool] = []
    monkeypatch.setattr(arrow_text, "_POINT_BEFORE_EXPONENT", fresh)
    writes = pa.array([Decimal("1E-10")], pa.decimal128(20, 10)).cast(pa.string())[0].as_py()
    assert arrow_text._decimal_point_before_exponent() is (writes == "1.E-10")
    assert fresh == [writes == "1.E-10"]  # measured once, kept
    pyarrow14 = pa.array(["1.E-10", "-0.E-10", None, "1.5E-9", "10.E-1", "1.E+3"])
    assert arrow_text._without_point_before_exponent(pyarrow14).to_pylist() == [
        "1E-10", "-0E-10", None, "1.5E-9", "10.E-1", "1E+3"]
    monkeypatch.setattr(arrow_text, "_without_point_before_exponent",
                        lambda text: pc.binary_join_element_wise(text, "dropped", ""))
    monkeypatch.setattr(arrow_text, "_POINT_BEFORE_EXPONENT", [True])
    small = pa.array([Decimal("1E-10")], pa.decimal128(20, 10))
    assert arrow_text._decimals(small, decimal(20, 10))[0].to_pylist() == ["1E-10dropped"]
    monkeypatch.setattr(arrow_text, "_POINT_BEFORE_EXPONENT", [False])
    assert arrow_text._decimals(small, decimal(20, 10))[0].to_pylist() == ["1E-10"]


def test_dates_near_and_far() -> None:
    kind = scalar("date")
    near = pa.array([dt.date(1, 1, 1), dt.date(2024, 2, 29), None, dt.date(9999, 12, 31)], pa.date32())
    assert _texts(near, kind) == ['"0001-01-01"', '"2024-02-29"', None, '"9999-12-31"']
    assert _texts(pa.array([None, None], pa.date32()), kind) == [None, None]
    far = pa.array([-719163, None, 0, 2932897, -719162, 2932896], pa.int32()).view(pa.date32())
    assert _texts(far, kind) == ['"0000-12-31"', None, '"1970-01-01"', '"+10000-01-01"', '"0001-01-01"',
                                 '"9999-12-31"']
    assert _texts(far.slice(2, 2), kind) == ['"1970-01-01"', '"+10000-01-01"']
    assert _texts(far.slice(1, 2), kind) == [None, '"1970-01-01"']
    day = 86_400_000
    assert _texts(pa.array([0, 19782 * day, None], pa.date64()), kind) == ['"1970-01-01"', '"2024-02-29"', None]


@pytest.mark.parametrize("unit, values, want", [
    ("s", [0, -1, 1_700_000_000], ["1970-01-01T00:00:00.000000", "1969-12-31T23:59:59.000000",
                                    "2023-11-14T22:13:20.000000"]),
    ("ms", [1, -1, 1_700_000_000_123], ["1970-01-01T00:00:00.001000", "1969-12-31T23:59:59.999000",
                                         "2023-11-14T22:13:20.123000"]),
    ("us", [1, -1], ["1970-01-01T00:00:00.000001", "1969-12-31T23:59:59.999999"]),
    ("ns", [1999, -1, -1000, 1_000], ["1970-01-01T00:00:00.000001", "1969-12-31T23:59:59.999999",
                                       "1969-12-31T23:59:59.999999", "1970-01-01T00:00:00.000001"]),
])
def test_timestamps_of_every_unit(unit: str, values: list, want: list) -> None:
    arr = pa.array([*values, None], pa.timestamp(unit, tz="UTC"))
    assert _texts(arr, scalar("timestamp")) == [f'"{w}Z"' for w in want] + [None]
    walls = pa.array([None, *values], pa.timestamp(unit))
    assert _texts(walls, scalar("timestamp_ntz")) == [None] + [f'"{w}"' for w in want]


def test_micros_keeps_nulls_and_floors_nanoseconds() -> None:
    got = arrow_text._micros(pa.array([None, -1500, 2500], pa.timestamp("ns")))
    assert got.type == pa.int64()
    assert got.to_pylist() == [None, -2, 2]
    assert arrow_text._micros(pa.array([3, None], pa.timestamp("s"))).to_pylist() == [3_000_000, None]
    assert arrow_text._micros(pa.array([None, 3], pa.timestamp("ms"))).to_pylist() == [None, 3_000]


def test_nested_kinds_through_the_reference_writer() -> None:
    kind = parse_kind("struct<a:list<int64>,m:map<string,float64>>")
    arr = pa.array([{"a": [1, None], "m": [("k", 1.0)]}, None, {"a": None, "m": []}],
                   pa.struct([("a", pa.list_(pa.int64())), ("m", pa.map_(pa.string(), pa.float64()))]))
    assert _texts(arr, kind) == ['{"a":[1,null],"m":{"k":1.0}}', None, '{"m":{}}']


def _rebuild(binary: Any, t: Any) -> Any:
    """The array ``binary`` with its binary leaves seen as strings (the same buffers)."""
    if pa.types.is_binary(binary.type) or pa.types.is_large_binary(binary.type):
        return binary.view(t)
    if pa.types.is_map(t):
        keys = _rebuild(binary.keys, t.key_type)
        items = _rebuild(binary.items, t.item_type)
        return pa.MapArray.from_arrays(binary.offsets, keys, items, mask=binary.is_null())
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        values = _rebuild(binary.values, t.value_type)
        make = pa.ListArray if pa.types.is_list(t) else pa.LargeListArray
        return make.from_arrays(binary.offsets, values, mask=binary.is_null())
    if pa.types.is_struct(t):
        fields = [_rebuild(binary.field(i), t.field(i).type) for i in range(t.num_fields)]
        return pa.StructArray.from_arrays(fields, fields=list(t), mask=binary.is_null())
    return binary


@pytest.mark.parametrize("t, kind, values, want", [
    (pa.list_(pa.string()), list_of(scalar("string")), [[b"a\xff", None, b'"'], None, []],
     [b'["a\xff",null,"\\""]', None, b"[]"]),
    (pa.large_list(pa.string()), list_of(scalar("string")), [[b"\xfe"]], [b'["\xfe"]']),
    (pa.map_(pa.string(), pa.large_string()), map_of(scalar("string"), scalar("string")),
     [[(b"k\xff", b"v\xfe")], None, [(b"a", None)]], [b'{"k\xff":"v\xfe"}', None, b'{"a":null}']),
    (pa.struct([("s", pa.string()), ("n", pa.int64())]),
     struct_of([("s", scalar("string")), ("n", scalar("int64"))]),
     [{"s": b"\xff", "n": 1}, {"s": None, "n": None}, None], [b'{"s":"\xff","n":1}', b'{}', None]),
])
def test_nested_strings_that_are_not_utf8_are_written_as_their_bytes(t: Any, kind: Kind, values: list,
                                                                     want: list) -> None:
    arr = _rebuild(pa.array(values, arrow_text.strings_as_binary(t)), t)
    assert arr.type == t
    got = column_text(arr, kind)
    assert got.type == pa.string()
    assert got.view(pa.binary()).to_pylist() == want


def teststrings_as_binary_reaches_every_nested_string() -> None:
    t = pa.struct([("l", pa.large_list(pa.large_string())), ("m", pa.map_(pa.string(), pa.list_(pa.string()))),
                   ("i", pa.int32())])
    assert arrow_text.strings_as_binary(t) == pa.struct([
        ("l", pa.large_list(pa.large_binary())), ("m", pa.map_(pa.binary(), pa.list_(pa.binary()))),
        ("i", pa.int32())])
    named = pa.list_(pa.field("element", pa.string(), nullable=False))
    assert arrow_text.strings_as_binary(named) == pa.list_(pa.field("element", pa.binary(), nullable=False))


def test_nested_bytes_that_cannot_be_read_as_bytes_are_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    arr = _rebuild(pa.array([[b"\xff"]], pa.list_(pa.binary())), pa.list_(pa.string()))
    monkeypatch.setattr(arrow_text, "strings_as_binary", lambda t: pa.int64())
    with pytest.raises(RowsV1Error) as caught:
        column_text(arr, list_of(scalar("string")))
    with pytest.raises((pa.ArrowInvalid, pa.ArrowNotImplementedError)) as refused:
        arr.cast(pa.int64())
    said = " ".join(str(refused.value).split())
    assert " " in said
    assert str(caught.value) == ("a string inside it holds bytes that are not valid UTF-8, and its strings could not "
                                 f"be read as bytes ({said})")
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


def test_restored_values() -> None:
    s = scalar("string")
    assert arrow_text.restored(None, s) is None
    assert arrow_text.restored(b"a\xff", s) == "a\udcff"
    assert arrow_text.restored("as is", s) == "as is"
    assert arrow_text.restored([b"\xfe", None], list_of(s)) == ["\udcfe", None]
    assert arrow_text.restored([(b"k", b"\xff")], map_of(s, s)) == [("k", "\udcff")]
    nested = map_of(s, list_of(s))
    assert arrow_text.restored([(b"k\xff", [b"\xfe", None]), (b"j", None)], nested) == [
        ("k\udcff", ["\udcfe", None]), ("j", None)]
    kind = struct_of([("a", s), ("b", scalar("int64"))])
    assert arrow_text.restored({"a": b"\xff"}, kind) == {"a": "\udcff", "b": None}
    assert arrow_text.restored(5, scalar("int64")) == 5


def test_a_null_whose_hidden_bytes_need_escaping() -> None:
    # Arrow may keep bytes under a null slot: _data_has sees them, but no value needs escaping
    held = pa.array(['a"', "b"])
    validity = pa.array([False, True]).buffers()[1]
    arr = pa.Array.from_buffers(pa.string(), 2, [validity, held.buffers()[1], held.buffers()[2]])
    assert arr.to_pylist() == [None, "b"]
    assert arrow_text._data_has(arr) is True
    assert _texts(arr, scalar("string")) == [None, '"b"']


def test_floats_in_the_plain_range_are_written_by_arrow(monkeypatch: pytest.MonkeyPatch) -> None:
    def one_at_a_time(x: float) -> str:
        raise AssertionError(f"{x!r} written one at a time")

    monkeypatch.setattr(arrow_text, "double_text", one_at_a_time)
    monkeypatch.setattr(arrow_text, "float_text", one_at_a_time)
    plain = [0.001, 0.0015, 1.0, 1.0005, -0.0, 0.0, 9999999.0, -0.5, None]
    assert _texts(pa.array(plain), F64) == ["0.001", "0.0015", "1.0", "1.0005", "-0.0", "0.0", "9999999.0", "-0.5",
                                            None]
    assert _texts(pa.array(plain, pa.float32()), F32) == ["0.001", "0.0015", "1.0", "1.0005", "-0.0", "0.0",
                                                          "9999999.0", "-0.5", None]


def test_nested_texts_are_a_string_array_even_when_every_value_is_null() -> None:
    kind = list_of(scalar("int64"))
    for arr in (pa.array([None, None], pa.list_(pa.int64())), pa.array([], pa.list_(pa.int64()))):
        (piece,) = column_pieces(arr, kind)
        assert piece.type == pa.string() and piece.null_count == len(arr)


_REAL_ARRAY = pa.array


class _Pyarrow14:
    """An array whose decimal text is pyarrow 14's (a point before the exponent: ``1.E-10``)."""

    def __init__(self, arr: Any) -> None:
        self.arr = arr

    def cast(self, target: Any) -> Any:
        texts = self.arr.cast(target).to_pylist()
        return _REAL_ARRAY([t if t is None or "." in t else t.replace("E", ".E") for t in texts])


def test_the_probe_finds_pyarrow_14s_point_before_the_exponent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pa, "array", lambda *args, **kwargs: _Pyarrow14(_REAL_ARRAY(*args, **kwargs)))
    monkeypatch.setattr(arrow_text, "_POINT_BEFORE_EXPONENT", [])
    assert arrow_text._decimal_point_before_exponent() is True
