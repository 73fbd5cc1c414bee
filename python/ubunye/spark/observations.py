"""Frames observed by the plugin's planner node (classic sessions): the rows-v1 sums,
and the localisation sketch's cells of the same lanes, taken inside the generated code
of the stage that writes (or reads) the frame.

:func:`attach` puts ``io.ubunye.spark.observe.RowsV1Observations`` over a frame;
after an action ran it, :func:`read` gives the sums. Unlike ``DataFrame.observe``,
the sums are in the driver as soon as the action returns (an accumulator, merged
before the job ends), and a partition computed twice counts once.
"""
from __future__ import annotations

from typing import Any, NamedTuple, Optional, Sequence

from ubunye.hashing.digest import LaneSums, Totals
from ubunye.spark import _compat

_OBSERVATIONS = "observations.jvm"  # session memo key: the JVM RowsV1Observations object
_CLASS = "io.ubunye.spark.observe.RowsV1Observations$"
_SKETCHES = "observations.sketches"  # session memo: the driver's node takes sketches (a newer jar)
_PARTS = "observations.parts"  # session memo: the driver's node takes per-partition sums


class ObservedSums(NamedTuple):
    """What an observation saw: rows, the two lane sums modulo 2^64, partitions reported,
    the sketch cells (``cells x 4`` uint64; None from a jar older than the sketch) and the
    sums of each partition folder's rows (``{key: LaneSums}``; None when not asked for)."""

    rows: int
    a: int
    b: int
    partitions: int
    cells: Optional[Any] = None
    parts: Optional[dict[str, LaneSums]] = None


def _observations(spark: Any) -> Any:
    """The JVM ``RowsV1Observations`` object of ``spark`` (looked up once per session)."""
    return _compat.remembered(_compat.session_memo(spark), _OBSERVATIONS,
                              lambda: getattr(_compat.jvm_class(spark, _CLASS), "MODULE$"))


def available(spark: Any) -> bool:
    """True on a classic session whose driver has the plugin's observation classes."""
    if _compat.is_connect(spark):
        return False
    try:
        _observations(spark)
    except Exception:  # noqa: BLE001 - no plugin (or an older one) on the driver
        return False
    return True


def _has_method(spark: Any, memo_key: str, method: str) -> bool:
    """True when the driver's ``RowsV1Observations`` has ``method`` (asked once per session)."""
    def ask() -> bool:
        try:
            return any(m.getName() == method for m in _observations(spark).getClass().getMethods())
        except Exception:  # noqa: BLE001 - a node that cannot say: the sums alone
            return False

    return bool(_compat.remembered(_compat.session_memo(spark), memo_key, ask))


def takes_sketches(spark: Any) -> bool:
    """True when the driver's planner node also takes the sketch's cells (asked once per session)."""
    return _has_method(spark, _SKETCHES, "resultWithCells")


def takes_parts(spark: Any) -> bool:
    """True when the driver's planner node also takes per-partition sums (a jar of this version)."""
    return not _compat.is_connect(spark) and _has_method(spark, _PARTS, "resultWithParts")


def attach(frame: Any, name: str, partition_by: Optional[Sequence[str]] = None,
           json: Optional[tuple[dict[str, str], dict[str, str]]] = None) -> Any:
    """``frame`` with its sums (and, when the jar can, the sketch's cells) observed under
    ``name`` (new, unused); with ``partition_by`` (when :func:`takes_parts`) also the sums
    of each partition folder's rows (``docs/spec/rows-v1-localise.md`` section 7). Raises
    (py4j) when a column has no rows-v1 text or a partition column none of folder text;
    the message names the column.

    ``json``: ``(writer options, reader options)`` of a json output: the sums are of each row
    as Spark's json writer writes it and its reader reads it back with the frame's schema (the
    hash of the files, in the same pass; ``RowsV1Observations.attachJson``). Raises, saying
    why, where a row's round trip would not be what the files give back (``multiLine`` ...);
    not with ``partition_by`` (a partitioned json output is not read back row by row)."""
    spark = _compat.session_of(frame)
    node = _observations(spark)
    if json is not None:
        if partition_by:
            raise ValueError("no json round trip for a partitioned output")
        write, read = json
        return _compat.map_jdf(frame, lambda jdf: node.attachJson(jdf, name, takes_sketches(spark), write, read))
    if partition_by and takes_parts(spark):
        columns = "\n".join(str(c) for c in partition_by)
        return _compat.map_jdf(frame, lambda jdf: node.attachWithParts(jdf, name, True, columns))
    if takes_sketches(spark):
        return _compat.map_jdf(frame, lambda jdf: node.attach(jdf, name, True))
    return _compat.map_jdf(frame, lambda jdf: node.attach(jdf, name))


def read(spark: Any, name: str, *, forget: bool = True) -> ObservedSums:
    """The sums, cells and per-partition sums observed under ``name`` so far (``forget``:
    then drop the name)."""
    node = _observations(spark)
    sketches = takes_sketches(spark)
    parts = takes_parts(spark)
    if parts:
        head, *lines = str(node.resultWithParts(name, forget)).split("\n")
    else:
        head, lines = str(node.resultWithCells(name, forget) if sketches else node.result(name, forget)), []
    words = head.split()
    rows, a, b, partitions = (int(v) for v in words[:4])
    mask = (1 << 64) - 1  # the JVM's signed longs as the unsigned sums modulo 2^64
    cells = None
    if sketches and words[4] != "-":
        import base64

        from ubunye.spark.native import cells_from_bytes

        cells = cells_from_bytes(base64.b64decode(words[4]))
    keyed = None
    if lines:  # "key TAB rows TAB a TAB b", the sums as signed longs
        keyed = {}
        for line in lines:
            key, *numbers = line.split("\t")
            n, pa, pb = (int(v) for v in numbers)
            keyed[key] = LaneSums(n, pa & mask, pb & mask)
    return ObservedSums(rows, a & mask, b & mask, partitions, cells, keyed)


def keyed_pass(df: Any, partition_by: Sequence[str]) -> tuple[Totals, dict[str, LaneSums]]:
    """One native pass over ``df`` (a write to Spark's ``noop`` sink through the planner
    node, every column read): its totals (sums and cells) and the sums of each partition
    folder's rows. Needs :func:`takes_parts`."""
    import uuid

    spark = _compat.session_of(df)
    name = f"ubunye_keyed_{uuid.uuid4().hex[:12]}"
    attach(df, name, partition_by).write.format("noop").mode("overwrite").save()
    seen = read(spark, name)
    return Totals(LaneSums(seen.rows, seen.a, seen.b), seen.cells), dict(seen.parts or {})


def broken(spark: Any, name: str) -> bool:
    """A row's json round trip failed under ``name`` (an observation attached with ``json``):
    its sums are not of the files. Ask before :func:`read` forgets the name."""
    return bool(_observations(spark).broken(name))


def forget(spark: Any, name: str) -> None:
    """Drop ``name`` without reading it (its write failed: nothing will read it)."""
    _observations(spark).forget(name)


def pending(spark: Any) -> int:
    """How many observations the driver holds, attached and not yet read or forgotten."""
    return int(_observations(spark).pending())
