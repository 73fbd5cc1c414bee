"""Arrow types to canonical kinds (spec section 3) and back."""
from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Any, Optional

from ubunye.hashing import kinds as K
from ubunye.hashing.errors import RowsV1Error
from ubunye.hashing.kinds import check_unique_names

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa


# uint8 -> smallint, uint16 -> int, uint32 -> bigint, uint64 -> decimal(20,0): each value
# is written as its decimal digits (Arrow's integer-to-string cast, on any of them)
UNSIGNED_KINDS = {8: K.scalar("int16"), 16: K.scalar("int32"), 32: K.scalar("int64"), 64: K.decimal(20, 0)}


# The oldest pyarrow the Arrow hashing path runs on (the Spark fallback, the pandas backend,
# ``fingerprint`` of an Arrow or pandas table). Older ones lack the decimal-to-text cast and
# StructType.field (pyarrow 8.0.0, Databricks 14.3 LTS's, fails 6 shared fixtures on the
# fallback); the package's floor is lower (8.0.0) so installing the wheel there changes no
# library: the native Spark path needs no pyarrow of its own, and each path that does refuses
# in one line (tests/test_arrow_pyarrow_floor.py).
OLDEST_PYARROW = "14.0.1"


@functools.lru_cache(maxsize=None)
def pyarrow_too_old(path: str = "the Arrow hashing path", instead: str = "") -> Optional[str]:
    """One line saying the installed pyarrow is older than :data:`OLDEST_PYARROW`, the oldest
    ``path`` runs on, and what to do (``instead``, then upgrading pyarrow); else None."""
    import pyarrow as pa

    def release(text: str) -> tuple[int, ...]:
        return tuple(int(p) for p in re.findall(r"\d+", text.split("+")[0])[:3])

    if release(pa.__version__) >= release(OLDEST_PYARROW):
        return None
    return (f"pyarrow {pa.__version__} is older than {OLDEST_PYARROW}, the oldest {path} runs on "
            f"(it lacks the decimal-to-text cast and StructType.field): {instead}"
            f"pip install 'pyarrow>={OLDEST_PYARROW}'")


def is_view(t: "pa.DataType", name: str) -> bool:
    """Whether ``t`` is Arrow's ``name`` view type (``string_view``, ``binary_view``,
    ``list_view``, ``large_list_view``). False on a pyarrow without that type (before 16,
    as on Databricks 15.4 LTS's pyarrow 14): no value of it can reach us there."""
    import pyarrow.types as pt

    test = getattr(pt, f"is_{name}", None)
    return bool(test is not None and test(t))


def arrow_kind(t: "pa.DataType") -> K.Kind:
    """The kind of an Arrow type; raises :class:`RowsV1Error` if it has none."""
    import pyarrow as pa
    import pyarrow.types as pt

    if pt.is_dictionary(t):
        return arrow_kind(t.value_type)
    if pt.is_boolean(t):
        return K.scalar("bool")
    if pt.is_signed_integer(t):
        return K.scalar(f"int{t.bit_width}")
    if pt.is_unsigned_integer(t):
        # the kind Spark reads a parquet unsigned column as (spec section 3)
        return UNSIGNED_KINDS[t.bit_width]
    if pt.is_float16(t) or pt.is_float32(t):
        return K.scalar("float32")
    if pt.is_float64(t):
        return K.scalar("float64")
    if pt.is_string(t) or pt.is_large_string(t) or is_view(t, "string_view"):
        return K.scalar("string")
    if pt.is_binary(t) or pt.is_large_binary(t) or is_view(t, "binary_view"):
        return K.scalar("binary")
    if pt.is_date(t):
        return K.scalar("date")
    if pt.is_timestamp(t):
        return K.scalar("timestamp" if t.tz else "timestamp_ntz")
    if pt.is_decimal128(t):
        return K.decimal(t.precision, t.scale)
    if pt.is_null(t):
        return K.scalar("null")
    if pt.is_list(t) or pt.is_large_list(t) or is_view(t, "list_view") or is_view(t, "large_list_view"):
        return K.list_of(arrow_kind(t.value_type))
    if pt.is_map(t):
        return K.map_of(arrow_kind(t.key_type), arrow_kind(t.item_type))
    if pt.is_struct(t):
        return K.struct_of([(t.field(i).name, arrow_kind(t.field(i).type)) for i in range(t.num_fields)])
    if isinstance(t, pa.ExtensionType):
        return arrow_kind(t.storage_type)
    raise RowsV1Error(f"type {t} has no canonical text")


def arrow_schema_kinds(schema: "pa.Schema") -> list[tuple[str, K.Kind]]:
    """``(name, Kind)`` of each column in table order.

    Raises :class:`RowsV1Error` with a one-line message naming the column and
    its type for an unsupported type, a map with a list/struct/map key, or a
    repeated top-level name; or saying the installed pyarrow is too old.
    """
    too_old = pyarrow_too_old()
    if too_old:
        raise RowsV1Error(too_old)
    check_unique_names(schema.names)
    out: list[tuple[str, K.Kind]] = []
    for field in schema:
        try:
            out.append((field.name, arrow_kind(field.type)))
        except RowsV1Error as exc:
            raise RowsV1Error(f"column {field.name!r} of type {field.type}: {exc}") from None
    return out


def kind_to_arrow(kind: K.Kind) -> "pa.DataType":
    """The natural Arrow type of a kind (timestamps in microseconds, UTC for instants)."""
    import pyarrow as pa

    simple = {
        "bool": pa.bool_(), "int8": pa.int8(), "int16": pa.int16(), "int32": pa.int32(),
        "int64": pa.int64(), "float32": pa.float32(), "float64": pa.float64(),
        "string": pa.string(), "binary": pa.binary(), "date": pa.date32(),
        "timestamp": pa.timestamp("us", tz="UTC"), "timestamp_ntz": pa.timestamp("us"),
        "null": pa.null(),
    }
    if kind.tag in simple:
        return simple[kind.tag]
    if kind.tag == "decimal":
        return pa.decimal128(kind.precision, kind.scale)
    if kind.tag == "list":
        return pa.list_(kind_to_arrow(kind.children[0]))
    if kind.tag == "map":
        return pa.map_(kind_to_arrow(kind.children[0]), kind_to_arrow(kind.children[1]))
    return pa.struct([pa.field(n, kind_to_arrow(k)) for n, k in zip(kind.names, kind.children)])


def strings_as_binary(t: "pa.DataType") -> "pa.DataType":
    import pyarrow as pa
    import pyarrow.types as pt

    if pt.is_string(t) or pt.is_large_string(t):
        return pa.binary() if pt.is_string(t) else pa.large_binary()
    if is_view(t, "string_view"):
        return pa.binary_view()
    if pt.is_dictionary(t):
        return pa.dictionary(t.index_type, strings_as_binary(t.value_type), t.ordered)
    if pt.is_list(t) or pt.is_large_list(t):
        make = pa.list_ if pt.is_list(t) else pa.large_list
        return make(t.value_field.with_type(strings_as_binary(t.value_type)))
    if pt.is_map(t):
        return pa.map_(strings_as_binary(t.key_type), strings_as_binary(t.item_type))
    if pt.is_struct(t):
        return pa.struct([t.field(i).with_type(strings_as_binary(t.field(i).type)) for i in range(t.num_fields)])
    return t


def restored(value: Any, kind: K.Kind) -> Any:
    """``value`` with the bytes of its strings as ``surrogateescape`` text (see above)."""
    if value is None:
        return None
    if kind.tag == "string":
        return value.decode("utf-8", "surrogateescape") if isinstance(value, bytes) else value
    if kind.tag == "list":
        return [restored(v, kind.children[0]) for v in value]
    if kind.tag == "map":
        return [(restored(k, kind.children[0]), restored(v, kind.children[1])) for k, v in value]
    if kind.tag == "struct":
        return {n: restored(value.get(n), k) for n, k in zip(kind.names, kind.children)}
    return value
