"""Frames observed by the plugin's planner node (classic sessions): the rows-v1 sums,
and the localisation sketch's cells of the same lanes, taken inside the generated code
of the stage that writes (or reads) the frame.

:func:`attach` puts ``io.ubunye.spark.observe.RowsV1Observations`` over a frame;
after an action ran it, :func:`read` gives the sums. Unlike ``DataFrame.observe``,
the sums are in the driver as soon as the action returns (an accumulator, merged
before the job ends), and a partition computed twice counts once.
"""
from __future__ import annotations

from typing import Any, NamedTuple, Optional

from ubunye.spark import _compat

_OBSERVATIONS = "observations.jvm"  # session memo key: the JVM RowsV1Observations object
_CLASS = "io.ubunye.spark.observe.RowsV1Observations$"
_SKETCHES = "observations.sketches"  # session memo: the driver's node takes sketches (a newer jar)


class ObservedSums(NamedTuple):
    """What an observation saw: rows, the two lane sums modulo 2^64, partitions reported,
    and the sketch cells (``cells x 4`` uint64; None from a jar older than the sketch)."""

    rows: int
    a: int
    b: int
    partitions: int
    cells: Optional[Any] = None


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


def takes_sketches(spark: Any) -> bool:
    """True when the driver's planner node also takes the sketch's cells (asked once per session)."""
    def ask() -> bool:
        try:
            return any(m.getName() == "resultWithCells"
                       for m in _observations(spark).getClass().getMethods())
        except Exception:  # noqa: BLE001 - a node that cannot say: the sums alone
            return False

    return bool(_compat.remembered(_compat.session_memo(spark), _SKETCHES, ask))


def attach(frame: Any, name: str, json: Optional[tuple[dict[str, str], dict[str, str]]] = None) -> Any:
    """``frame`` with its sums (and, when the jar can, the sketch's cells) observed under
    ``name`` (new, unused). Raises (py4j) when a column has no rows-v1 text; the message
    names the column.

    ``json``: ``(writer options, reader options)`` of a json output: the sums are of each row
    as Spark's json writer writes it and its reader reads it back with the frame's schema (the
    hash of the files, in the same pass; ``RowsV1Observations.attachJson``). Raises, saying
    why, where a row's round trip would not be what the files give back (``multiLine`` ...)."""
    spark = _compat.session_of(frame)
    node = _observations(spark)
    if json is not None:
        write, read = json
        return _compat.map_jdf(frame, lambda jdf: node.attachJson(jdf, name, takes_sketches(spark), write, read))
    if takes_sketches(spark):
        return _compat.map_jdf(frame, lambda jdf: node.attach(jdf, name, True))
    return _compat.map_jdf(frame, lambda jdf: node.attach(jdf, name))


def read(spark: Any, name: str, *, forget: bool = True) -> ObservedSums:
    """The sums and cells observed under ``name`` so far (``forget``: then drop the name)."""
    node = _observations(spark)
    sketches = takes_sketches(spark)
    words = str(node.resultWithCells(name, forget) if sketches else node.result(name, forget)).split()
    rows, a, b, partitions = (int(v) for v in words[:4])
    mask = (1 << 64) - 1  # the JVM's signed longs as the unsigned sums modulo 2^64
    cells = None
    if sketches and words[4] != "-":
        import base64

        from ubunye.spark.native import cells_from_bytes

        cells = cells_from_bytes(base64.b64decode(words[4]))
    return ObservedSums(rows, a & mask, b & mask, partitions, cells)


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
