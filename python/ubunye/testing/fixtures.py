"""Load the shared rows-v1 fixtures (``rows-v1-fixture/1``) for any engine's tests.

Format: ``shared/spec/fixture-format.md``. Typical use::

    from ubunye.testing.fixtures import load_fixtures

    for fx in load_fixtures():                 # tests/fixtures/rows-v1/*.json
        table = fx.arrow_table()               # pyarrow Table with the kinds' Arrow types
        rows = fx.row_tuples()                 # Python values in column order, e.g. for
        ddl = fx.spark_ddl()                   #   spark.createDataFrame(rows, ddl)
        fx.expect.lines, fx.expect.data_hash   # what every engine must produce

Decoded Python values by kind: ints ``int``; float64 ``float``; float32
``float`` holding the 32-bit value; decimal ``Decimal`` (at the column
scale); string ``str``; bool ``bool``; binary ``bytes``; date ``date``;
timestamp an aware ``datetime`` in UTC; timestamp_ntz a naive ``datetime``
(dates and timestamps outside years 0001..9999, which ``datetime`` cannot
hold, as :class:`~ubunye.hashing.temporal.Days` / ``Micros``);
list ``list``; struct ``dict`` with every field (missing = None); map a
``list`` of ``(key, value)`` tuples in the fixture's (unsorted) order; null ``None``.
A missing key or JSON null in a row is None.
"""
from __future__ import annotations

import base64
import datetime as dt
import json
import os
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Union

from ubunye.hashing.kinds import Kind, parse_kind
from ubunye.hashing.temporal import MAX_MICROS, MIN_MICROS, Days, Micros, days_of, micros_of

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

FORMAT = "rows-v1-fixture/1"
_EPOCH_UTC = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
_EPOCH = dt.datetime(1970, 1, 1)
_EPOCH_DATE = dt.date(1970, 1, 1)


# rows-v1 spec section 6: the conformance table, byte for byte. Read like Spark
# (header, inferSchema, UTC) it must give the reference vector of section 1.
REFERENCE_CSV = (
    "id,name,score,passed,day,seen\n"
    '1,"Mokoena, Thabo",71.5,true,2024-01-02,2024-01-02 03:04:05\n'
    '2,"Anna ""Annie"" Dlamini",,false,2024-02-29,2024-02-29 23:59:59\n'
    "3,Sipho,88.0,,,\n"
)


def write_reference_csv(folder: Union[str, Path], name: str = "reference.csv") -> Path:
    """Write :data:`REFERENCE_CSV` into ``folder`` and return the file's path."""
    path = Path(folder) / name
    path.write_text(REFERENCE_CSV, encoding="utf-8")
    return path


def fixtures_dir() -> Path:
    """The fixture folder: ``$UBUNYE_ROWS_V1_FIXTURES`` or ``tests/fixtures/rows-v1`` of the checkout."""
    env = os.environ.get("UBUNYE_ROWS_V1_FIXTURES")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[3] / "tests" / "fixtures" / "rows-v1"


@dataclass(frozen=True)
class Column:
    """One column of a fixture: its name, canonical kind, Spark DDL type and, when
    the column is built with another Arrow type than the kind's own, that type
    (``"uint8"`` for a column of kind ``int16``)."""

    name: str
    kind: str
    spark: str
    arrow: Optional[str] = None

    @property
    def parsed(self) -> Kind:
        return parse_kind(self.kind, strict=False)


@dataclass(frozen=True)
class Expect:
    """What every engine must produce: digests and lines, or an error."""

    row_count: Optional[int] = None
    schema_hash: Optional[str] = None
    data_hash: Optional[str] = None
    lines: Optional[list[str]] = None
    error: Optional[str] = None

    @property
    def fails(self) -> bool:
        return self.error is not None


@dataclass(frozen=True)
class Fixture:
    """A loaded fixture: columns, decoded rows (dicts by column name), expectation."""

    name: str
    about: str
    path: Path
    columns: list[Column]
    rows: list[dict[str, Any]]
    expect: Expect
    raw_rows: list[dict[str, Any]] = field(default_factory=list, repr=False)

    def kinds(self) -> list[tuple[str, str]]:
        """``(name, kind)`` in table order."""
        return [(c.name, c.kind) for c in self.columns]

    def row_tuples(self) -> list[tuple[Any, ...]]:
        """Each row as a tuple of Python values in column order."""
        return [tuple(row.get(c.name) for c in self.columns) for row in self.rows]

    def spark_ddl(self) -> str:
        """A Spark DDL schema string, e.g. ``"`id` INT, `x` DOUBLE"``."""
        return ", ".join(f"`{c.name.replace('`', '``')}` {c.spark}" for c in self.columns)

    @property
    def arrow_typed(self) -> bool:
        """Whether a column is built with an Arrow type of its own (Spark reads it from parquet)."""
        return any(c.arrow for c in self.columns)

    def arrow_table(self) -> "pa.Table":
        """The fixture as a pyarrow Table (timestamps ``us``, instants in UTC; a column's
        ``arrow`` type when it has one)."""
        import pyarrow as pa

        from ubunye.hashing.arrow_types import kind_to_arrow

        fields = [
            pa.field(c.name, pa.type_for_alias(c.arrow) if c.arrow else kind_to_arrow(c.parsed))
            for c in self.columns
        ]
        arrays = [
            arrow_column([row.get(c.name) for row in self.rows], c.parsed, f.type)
            for c, f in zip(self.columns, fields)
        ]
        if not fields:  # no columns, but still rows
            return pa.table({"_": pa.nulls(len(self.rows))}).select([])
        return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def load_fixture(path: Union[str, Path]) -> Fixture:
    """Read and decode one fixture file."""
    path = Path(path)
    doc = json.loads(path.read_text(encoding="utf-8"))
    if doc.get("format") != FORMAT:
        raise ValueError(f"{path}: format is {doc.get('format')!r}, expected {FORMAT!r}")
    columns = [Column(c["name"], c["kind"], c["spark"], c.get("arrow")) for c in doc["columns"]]
    kinds = {c.name: c.parsed for c in columns}
    rows = [
        {name: decode_value(raw.get(name), kind) for name, kind in kinds.items()}
        for raw in doc["rows"]
    ]
    e = doc["expect"]
    expect = Expect(
        row_count=e.get("row_count"),
        schema_hash=e.get("schema_hash"),
        data_hash=e.get("data_hash"),
        lines=e.get("lines"),
        error=e.get("error"),
    )
    return Fixture(doc["name"], doc.get("about", ""), path, columns, rows, expect, doc["rows"])


def load_fixtures(folder: Union[str, Path, None] = None) -> list[Fixture]:
    """Every ``*.json`` fixture of ``folder`` (default :func:`fixtures_dir`), by file name."""
    base = Path(folder) if folder is not None else fixtures_dir()
    paths = sorted(base.glob("*.json"))
    if not paths:
        raise FileNotFoundError(f"no rows-v1 fixtures in {base}")
    return [load_fixture(p) for p in paths]


def decode_value(value: Any, kind: Kind) -> Any:
    """Decode one fixture-encoded value of ``kind`` to its Python value."""
    if value is None:
        return None
    tag = kind.tag
    if tag in ("int8", "int16", "int32", "int64"):
        return int(value)
    if tag == "float64":
        return float(value)
    if tag == "float32":
        import numpy as np

        return float(np.float32(float(value)))
    if tag == "decimal":
        return Decimal(value)
    if tag in ("string", "bool"):
        return value
    if tag == "binary":
        return base64.b64decode(value)
    if tag == "date":
        if isinstance(value, str):
            return dt.date.fromisoformat(value)
        days = int(value)  # days since 1970-01-01
        try:
            return _EPOCH_DATE + dt.timedelta(days=days)
        except OverflowError:
            return Days(days)
    if tag in ("timestamp", "timestamp_ntz"):
        micros = int(value)
        if not MIN_MICROS <= micros <= MAX_MICROS:
            return Micros(micros)
        epoch = _EPOCH_UTC if tag == "timestamp" else _EPOCH
        return epoch + dt.timedelta(microseconds=micros)
    if tag == "list":
        return [decode_value(v, kind.children[0]) for v in value]
    if tag == "struct":
        return {n: decode_value(value.get(n), k) for n, k in zip(kind.names, kind.children)}
    if tag == "map":
        key_kind, value_kind = kind.children
        return [(decode_value(k, key_kind), decode_value(v, value_kind)) for k, v in value]
    if tag == "null":
        return None
    raise ValueError(f"unknown kind {kind.text}")


def arrow_column(values: list[Any], kind: Kind, arrow_type: "pa.DataType") -> "pa.Array":
    """Decoded values of ``kind`` as an Arrow array of ``arrow_type``.

    Top-level dates and timestamps go through their integers (days,
    microseconds), so any year is built; integers of an Arrow integer type
    given for a decimal kind (``uint64`` for ``decimal(20,0)``) are taken as ints.
    """
    import pyarrow as pa

    if kind.tag == "date" and pa.types.is_date32(arrow_type):
        ints = [None if v is None else days_of(v) for v in values]
        return pa.array(ints, pa.int32()).cast(arrow_type)
    if kind.tag in ("timestamp", "timestamp_ntz") and pa.types.is_timestamp(arrow_type) \
            and arrow_type.unit == "us":
        ints = [None if v is None else micros_of(v) for v in values]
        return pa.array(ints, pa.int64()).cast(arrow_type)
    if pa.types.is_integer(arrow_type):
        values = [None if v is None else int(v) for v in values]
    return pa.array(values, type=arrow_type)
