"""Frames observed by the plugin's planner node (classic sessions): the rows-v1 sums
taken inside the generated code of the stage that writes (or reads) the frame.

:func:`attach` puts ``io.ubunye.spark.observe.RowsV1Observations`` over a frame;
after an action ran it, :func:`read` gives the sums. Unlike ``DataFrame.observe``,
the sums are in the driver as soon as the action returns (an accumulator, merged
before the job ends), and a partition computed twice counts once.
"""
from __future__ import annotations

from typing import Any, NamedTuple

from ubunye.spark import _compat

_OBSERVATIONS = "observations.jvm"  # session memo key: the JVM RowsV1Observations object
_CLASS = "io.ubunye.spark.observe.RowsV1Observations$"


class ObservedSums(NamedTuple):
    """What an observation saw: rows, the two lane sums modulo 2^64, partitions reported."""

    rows: int
    a: int
    b: int
    partitions: int


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


def attach(frame: Any, name: str) -> Any:
    """``frame`` with its sums observed under ``name`` (new, unused). Raises (py4j) when a
    column has no rows-v1 text; the message names the column."""
    node = _observations(_compat.session_of(frame))
    return _compat.map_jdf(frame, lambda jdf: node.attach(jdf, name))


def read(spark: Any, name: str, *, forget: bool = True) -> ObservedSums:
    """The sums observed under ``name`` so far (``forget``: then drop the name)."""
    rows, a, b, partitions = (int(v) for v in str(_observations(spark).result(name, forget)).split())
    mask = (1 << 64) - 1  # the JVM's signed longs as the unsigned sums modulo 2^64
    return ObservedSums(rows, a & mask, b & mask, partitions)


def forget(spark: Any, name: str) -> None:
    """Drop ``name`` without reading it (its write failed: nothing will read it)."""
    _observations(spark).forget(name)


def pending(spark: Any) -> int:
    """How many observations the driver holds, attached and not yet read or forgotten."""
    return int(_observations(spark).pending())
