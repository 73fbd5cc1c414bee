"""One pass over a Spark table that finds rows by their lanes (``lineage diff --rows``).

When the session has the plugin's ``ubunye_rows_v1_find`` aggregate (the jar loaded, as
for the native fingerprint), each partition hashes its rows on the JVM and keeps in its
buffer the canonical lines of only the rows asked for (:func:`ubunye.spark.native.native_find`).
Otherwise each Spark partition hashes its rows in a Python worker (``mapInArrow``, the
Arrow path of the fallback engine) and answers with its row count and lane sums and the
lines of the rows asked for. Either way: no join, no shuffle of the data; the driver
receives one buffer or row per partition plus the rows found, and the same answer.
"""
from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Optional, Sequence

from ubunye.hashing.digest import MASK64, LaneSums

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

MATCH_SCHEMA = "rows bigint, a bigint, b bigint, line string"


def match_partition(batches: Iterable["pa.RecordBatch"], names: Optional[Sequence[str]],
                    wanted: Sequence[tuple[int, int]]) -> Iterator["pa.RecordBatch"]:
    """``mapInArrow`` body: a first row (rows, a, b, null) with the partition's count and
    lane sums, then (-1, A, B, line) for each row whose lanes are in ``wanted``."""
    import pyarrow as pa

    from ubunye.hashing.row_match import match_lanes
    from ubunye.spark.fallback import to_signed

    def renamed() -> Iterator["pa.RecordBatch"]:
        for batch in batches:
            yield batch if names is None else pa.RecordBatch.from_arrays(batch.columns, names=list(names))

    _, sums, found = match_lanes(renamed(), wanted)
    rows = [sums.rows] + [-1] * len(found)
    a = [to_signed(sums.a)] + [to_signed(x) for (x, _), _ in found]
    b = [to_signed(sums.b)] + [to_signed(y) for (_, y), _ in found]
    lines = [None] + [line for _, line in found]
    yield pa.RecordBatch.from_arrays([pa.array(rows, pa.int64()), pa.array(a, pa.int64()), pa.array(b, pa.int64()),
                                      pa.array(lines, pa.string())], names=["rows", "a", "b", "line"])


def session(delta: bool = False) -> Any:
    """The active session, else a new local one set up as ``ubunye hash --engine spark``
    sets it up: the plugin jar (the native pass), the Python workers on this Python (the
    ``mapInArrow`` pass), Delta's jars when ``delta``."""
    from ubunye.spark.cli import cli_session

    return cli_session(delta)


def read_step(spark: Any, fmt: Optional[str], location: Optional[str], is_input: bool,
              options: Optional[dict[str, str]], schema: Optional[str], version: Optional[int]) -> Any:
    """A recorded step's data: an input with its recorded reader settings, an output with
    its format's defaults (csv with a header), a Delta table at the recorded version."""
    opts: dict[str, Any] = dict(options or {}) if is_input else ({"header": "true"} if fmt == "csv" else {})
    if fmt in ("delta", "table") and version is not None:
        opts["versionAsOf"] = version
    if fmt == "table":
        return spark.read.options(**opts).table(location)
    reader = spark.read.format(fmt or "parquet").options(**opts)
    if schema is not None and is_input:
        reader = reader.schema(schema)
    return reader.load(location)


def spark_scan(fmt: Optional[str], location: Optional[str], is_input: bool, options: Optional[dict[str, str]],
               schema: Optional[str], version: Optional[int], wanted: Iterable[tuple[int, int]],
               spark: Any = None, engine: Optional[str] = None) -> tuple[Optional[str], list[tuple[tuple[int, int], str]]]:
    """``(data hash of all rows read, ((A, B), line) of each row found)``: through the
    native aggregate when the session has it, else the ``mapInArrow`` pass (``engine``:
    ``"spark-native"`` or ``"spark-sql"`` forces one, for tests and benchmarks)."""
    from ubunye.hashing.digest import data_hash
    from ubunye.spark.kinds import spark_kinds
    from ubunye.spark.facts import NATIVE, choose, facts
    from ubunye.spark.native import find_available, native_find

    spark = spark or session()
    native = engine == NATIVE or (engine is None and _quietly(  # the one engine choice, and a jar with find
        lambda s: choose(facts(s), engine, strict=False).engine == NATIVE and find_available(s), spark))
    if not native:
        return fallback_scan(fmt, location, is_input, options, schema, version, wanted, spark)
    df = read_step(spark, fmt, location, is_input, options, schema, version)
    sums, found = native_find(df, (name_of(lanes) for lanes in wanted))
    return data_hash(spark_kinds(df.schema), sums), found


def name_of(lanes: tuple[int, int]) -> str:
    """The row name ``sha256:<32 hex>`` of lanes ``(A, B)`` (spec section 5)."""
    return f"sha256:{lanes[0]:016x}{lanes[1]:016x}"


def _quietly(ask: Any, spark: Any) -> bool:
    try:
        return bool(ask(spark))
    except Exception:  # noqa: BLE001 - a session that cannot say: the fallback pass
        return False


def fallback_scan(fmt: Optional[str], location: Optional[str], is_input: bool, options: Optional[dict[str, str]],
                  schema: Optional[str], version: Optional[int], wanted: Iterable[tuple[int, int]],
                  spark: Any) -> tuple[Optional[str], list[tuple[tuple[int, int], str]]]:
    """:func:`spark_scan` through ``mapInArrow`` (the Arrow path in Python workers)."""
    from ubunye.hashing.digest import data_hash
    from ubunye.hashing.errors import RowsV1Error
    from ubunye.spark.fallback import fallback_input, pyarrow_refusal, worker_import_error
    from ubunye.spark.kinds import spark_kinds

    refusal = pyarrow_refusal()
    if refusal is not None:  # the pass runs the Arrow path on the workers, as the fallback does
        raise RowsV1Error(refusal)
    df = read_step(spark, fmt, location, is_input, options, schema, version)
    kinds = spark_kinds(df.schema)
    frame, names = fallback_input(df)
    try:
        rows = frame.mapInArrow(partial(match_partition, names=names, wanted=sorted(set(wanted))),
                                MATCH_SCHEMA).collect()
    except Exception as exc:
        raise worker_import_error(exc, df) or exc
    sums, found = LaneSums(), []
    for row in rows:
        a, b = int(row["a"]) & MASK64, int(row["b"]) & MASK64
        if row["rows"] >= 0:
            sums = sums + LaneSums(int(row["rows"]), a, b)
        else:
            found.append(((a, b), str(row["line"])))
    return data_hash(kinds, sums), found
