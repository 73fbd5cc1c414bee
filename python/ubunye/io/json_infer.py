"""Spark's JSON schema inference (``JsonInferSchema``), value by value.

A type is ``None`` (Spark's NullType), ``"bool"``, ``"long"``, ``"double"``,
``"string"``, ``("decimal", precision, scale)``, ``("array", T)`` or
``("struct", ((name, T), ...))`` with fields sorted by name as Java sorts
strings (UTF-16 code units). Each record's type is inferred, types are merged
with Spark's ``compatibleType`` (numbers widen, anything else that disagrees
becomes a string), then "canonicalized": fields with an empty name and structs
with no field are dropped, null-only types become strings (or are dropped with
``dropFieldIfAllNull``).
"""
from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any, Optional, Union

from ubunye.io.json_parse import JArr, JObj, Num

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

SparkType = Union[str, tuple, None]
_LONG = (-(2**63), 2**63 - 1)
MAX_PRECISION = 38


class InferenceRefused(ValueError):
    """A value that makes its record malformed while inferring (the message says why)."""


class NegativeScale(ValueError):
    """prefersDecimal met a number whose decimal has a negative scale: Spark refuses the read."""


def java_order(name: str) -> bytes:
    """Sort key of a name as Java's ``String.compareTo`` orders it (UTF-16 code units)."""
    return name.encode("utf-16-be", "surrogatepass")


def decimal_shape(text: str) -> tuple[int, int]:
    """Java ``BigDecimal(text)``'s precision and scale."""
    sign, digits, exponent = Decimal(text).as_tuple()
    return len(digits), -int(exponent)


def infer(v: Any, strings: bool = False, decimals: bool = False) -> SparkType:
    """The Spark type of one parsed value (``strings``: primitivesAsString; ``decimals``: prefersDecimal)."""
    if v is None:
        return None
    if v is True or v is False:
        return "string" if strings else "bool"
    if isinstance(v, str):
        return None if v == "" else "string"  # Spark infers "" as null: generators that mix them up
    if isinstance(v, Num):
        if strings:
            return "string"
        if v.kind == "int":
            if _LONG[0] <= int(v.raw) <= _LONG[1]:
                return "long"
            precision = len(v.raw.lstrip("-").lstrip("0") or "0")
            return ("decimal", precision, 0) if precision <= MAX_PRECISION else "double"
        if decimals:
            if v.kind == "special":
                raise InferenceRefused(f"prefersDecimal: {v.raw} is not a decimal")
            precision, scale = decimal_shape(v.raw)
            if max(precision, scale) > MAX_PRECISION:
                return "double"
            if scale < 0:
                raise NegativeScale(
                    f"prefersDecimal: {v.raw} would be a decimal of negative scale {scale}, which Spark refuses")
            return ("decimal", max(precision, scale), scale)
        return "double"
    if isinstance(v, JArr):
        element: SparkType = None
        for e in v:
            element = merge(element, infer(e, strings, decimals))
        return ("array", element)
    assert isinstance(v, JObj)
    fields = [(k, infer(x, strings, decimals)) for k, x in v]
    fields.sort(key=lambda f: java_order(f[0]))
    return ("struct", tuple(fields))


def _tag(t: SparkType) -> Optional[str]:
    return t[0] if isinstance(t, tuple) else t


def _decimal_of(t: SparkType) -> tuple[int, int]:
    return (20, 0) if t == "long" else (t[1], t[2])  # type: ignore[index]


def merge(a: SparkType, b: SparkType) -> SparkType:
    """Spark's ``JsonInferSchema.compatibleType``."""
    if a is None:
        return b
    if b is None or a == b or same_ignoring_case(a, b):
        return a  # Spark's findTightestCommonType: types equal but for the case of names keep the first's
    ta, tb = _tag(a), _tag(b)
    if ta in ("long", "double", "decimal") and tb in ("long", "double", "decimal"):
        if "double" in (ta, tb):
            return "double"
        (pa_, sa), (pb, sb) = _decimal_of(a), _decimal_of(b)  # a long is a decimal(20,0) here
        scale = max(sa, sb)
        whole = max(pa_ - sa, pb - sb)
        return "double" if whole + scale > MAX_PRECISION else ("decimal", whole + scale, scale)
    if ta == tb == "array":
        return ("array", merge(a[1], b[1]))  # type: ignore[index]
    if ta == tb == "struct":
        return ("struct", _merge_fields(a[1], b[1]))  # type: ignore[index]
    return "string"


def same_ignoring_case(a: SparkType, b: SparkType) -> bool:
    """Spark's ``sameType`` under spark.sql.caseSensitive=false: equal, names compared ignoring case."""
    ta, tb = _tag(a), _tag(b)
    if ta != tb:
        return False
    if ta == "array":
        return same_ignoring_case(a[1], b[1])  # type: ignore[index]
    if ta == "struct":
        fa, fb = a[1], b[1]  # type: ignore[index]
        return len(fa) == len(fb) and all(
            na.lower() == nb.lower() and same_ignoring_case(x, y) for (na, x), (nb, y) in zip(fa, fb))
    return a == b


def _merge_fields(left: tuple, right: tuple) -> tuple:
    """Two sorted field lists merged as Spark merges them (a walk over both, by name)."""
    out = []
    i = j = 0
    while i < len(left) and j < len(right):
        (ln, lt), (rn, rt) = left[i], right[j]
        kl, kr = java_order(ln), java_order(rn)
        if kl == kr:
            out.append((ln, merge(lt, rt)))
            i += 1
            j += 1
        elif kl < kr:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    out.extend(left[i:])
    out.extend(right[j:])
    return tuple(out)


def with_field(struct: SparkType, name: str) -> SparkType:
    """``struct`` with a string field ``name`` (the corrupt-record column), kept sorted."""
    fields = struct[1]  # type: ignore[index]
    if any(n == name for n, _ in fields):
        return struct
    return ("struct", tuple(sorted(fields + ((name, "string"),), key=lambda f: java_order(f[0]))))


def canonical(t: SparkType, drop_null: bool) -> Any:
    """Spark's ``canonicalizeType``; returns ``False`` for a type that is dropped."""
    tag = _tag(t)
    if tag == "array":
        element = canonical(t[1], drop_null)  # type: ignore[index]
        return False if element is False else ("array", element)
    if tag == "struct":
        fields = []
        for name, ft in t[1]:  # type: ignore[index]
            if name == "":
                continue
            c = canonical(ft, drop_null)
            if c is not False:
                fields.append((name, c))
        return ("struct", tuple(fields)) if fields else False
    if t is None:
        return False if drop_null else "string"
    return t


def duplicate_name(t: SparkType) -> Optional[str]:
    """The first name (lower-cased) that one struct (at any depth) holds twice when case is ignored.

    Spark refuses such a schema (``COLUMN_ALREADY_EXISTS``, naming it lower-cased) under its
    default spark.sql.caseSensitive=false; the reader raises :class:`ubunye.io.names.DuplicateColumns`
    with the line both engine backends give.
    """
    from ubunye.io.names import case_duplicate

    tag = _tag(t)
    if tag == "array":
        return duplicate_name(t[1])  # type: ignore[index]
    if tag != "struct":
        return None
    found = case_duplicate(name for name, _ in t[1])  # type: ignore[index]
    if found is not None:
        return found
    for _, ft in t[1]:  # type: ignore[index]
        found = duplicate_name(ft)
        if found is not None:
            return found
    return None


def to_arrow_type(t: SparkType) -> "pa.DataType":
    """The Arrow type of an inferred Spark JSON type."""
    import pyarrow as pa

    if t is None or t == "string":
        return pa.string()
    if t == "long":
        return pa.int64()
    if t == "double":
        return pa.float64()
    if t == "bool":
        return pa.bool_()
    tag = t[0]  # type: ignore[index]
    if tag == "decimal":
        return pa.decimal128(t[1], t[2])  # type: ignore[index]
    if tag == "array":
        return pa.list_(to_arrow_type(t[1]))  # type: ignore[index]
    return pa.struct([pa.field(k, to_arrow_type(ft)) for k, ft in t[1]])  # type: ignore[index]
