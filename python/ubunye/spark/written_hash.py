"""The hash of a write: the sums observed while it ran (``same-pass``), else a second pass
over what was written (``second-pass``).

The second pass: csv and json from exactly the files this write created (``before``: the files there before
it); the written data for lossless formats written whole (read back, at the written Delta
version); else the frame. Where the files hold other values than the frame (``stored``) and
cannot be read back alone, no hash, and the fingerprint says why.
"""
from __future__ import annotations

import time
import warnings
from dataclasses import replace
from typing import Any, NamedTuple, Optional, Sequence

from ubunye.hashing.fingerprint import Fingerprint
from ubunye.spark import observations
from ubunye.spark.fingerprint import fingerprint_spark, spark_error
from ubunye.spark.stored import TEXT_WRITERS, new_files_frame, read_back

SAME_PASS = "same-pass"
SECOND_PASS = "second-pass"


class RoundTripWarning(UserWarning):
    """A json output's round-trip hash (sent in the OpenLineage listener's event) was not the hash
    of its files as read back: the round trip's premise failed for that write."""


class Written(NamedTuple):
    """What a write did (the engine's ``WriteResult`` without ``written``)."""

    version: Optional[int] = None
    fingerprint: Any = None
    hash_pass: Optional[str] = None
    seconds: Optional[float] = None
    read_options: Optional[dict[str, str]] = None
    read_schema: Optional[str] = None


class Staged(NamedTuple):
    """What was set up before the write for its hash."""

    observation: Any  # the sums attached to the written frame (None: not attached)
    frame: Any  # the frame to write (with the sums attached, or the frame itself)
    error: Optional[str] = None  # why the same-pass hash could not be attached
    stored: Optional[str] = None  # why the files hold other values than the frame
    before: Optional[frozenset[str]] = None  # csv/json: the files there before the write
    round_trip: bool = False  # a json round trip's hash rides in the write (for the OpenLineage listener)

# Formats whose files hold exactly the frame's schema and rows: a second pass may read them back
# (csv and json are read back too, with the written schema: stored.new_files_frame).
LOSSLESS = ("parquet", "delta", "table")


def hash_written(spark: Any, frame: Any, out: Any, observer: Any, staged: Staged, version: Optional[int],
                 engine: Optional[str]) -> Written:
    """The same-pass fingerprint when it came, else a second pass over what was written."""
    observation, trip = staged.observation, None
    if staged.round_trip:  # a json round trip: checked on the files below
        trip = _round_trip_hash(spark, observer, observation, frame)
        observation = None
    error = staged.error
    if observation is not None:
        started = time.perf_counter()
        fp, error = observer.result(observation, frame, spark=spark)
        if fp is not None:
            return Written(version, fp, SAME_PASS, round(time.perf_counter() - started, 6))
    started = time.perf_counter()
    fp = second_pass(spark, frame, out, version, staged.stored, staged.before, engine)
    if error and fp.error is None and fp.data_hash is None:
        fp = replace(fp, error=error)
    seconds = round(time.perf_counter() - started, 6)
    if trip is not None and trip != fp.data_hash:
        warnings.warn(f"output {out.name!r}: the json round trip's hash {trip} (in the OpenLineage listener's "
                      f"event) is not the written files' hash {fp.data_hash}", RoundTripWarning, stacklevel=4)
    if out.format in TEXT_WRITERS and fp.data_hash is not None:  # the step records how it was read back
        options, ddl = read_back(frame, out)
        return Written(version, fp, SECOND_PASS, seconds, options, ddl)
    return Written(version, fp, SECOND_PASS, seconds)


def _round_trip_hash(spark: Any, observer: Any, observation: Any, frame: Any) -> Optional[str]:
    """The data hash the json round trip gave (what the listener's event carries), or None
    when a row's round trip failed (the event then carries none)."""
    try:
        broken = observations.broken(spark, observation.name)
    except Exception:  # noqa: BLE001 - read below; an unreadable node gives no hash
        broken = True
    fp, _ = observer.result(observation, frame, spark=spark)
    return None if broken or fp is None else fp.data_hash


def second_pass(spark: Any, frame: Any, out: Any, version: Optional[int], stored: Optional[str],
                before: Optional[frozenset[str]], engine: Optional[str]) -> Fingerprint:
    """The fingerprint of what the write of ``out`` left (see the module's text)."""
    readback = out.format in LOSSLESS and out.written_whole
    if out.format in TEXT_WRITERS:  # as lineage verify reads them: read_back's settings
        if before is None:
            return _unhashed(f"the {out.format} files this write created cannot be told apart (the output "
                             "location could not be listed before the write)")
        try:
            written = new_files_frame(spark, frame, out, before)
            return hashed(written, out.partition_by, engine)
        except Exception as exc:  # noqa: BLE001 - recorded: text the written schema cannot take
            return _unhashed(f"the written {out.format} files cannot be read back with the written schema: "
                             f"{spark_error(exc)}")
    if stored is not None and not readback:
        return _unhashed(f"the files hold other values than the frame ({stored}), and a write with mode "
                         f"{out.mode}{' and partition_by' if out.partition_by else ''} cannot be read back alone")
    if readback:
        options: dict[str, Any] = {}
        if version is not None:
            options["versionAsOf"] = version
        if out.format == "table":
            target = spark.read.options(**options).table(out.table)
        else:
            target = spark.read.format(out.format).options(**options).load(out.path)
        return hashed(target, out.partition_by, engine)  # the folders it wrote: their sums too
    return hashed(frame, out.partition_by, engine)


def hashed(frame: Any, partition_by: Optional[Sequence[str]], engine: Optional[str]) -> Fingerprint:
    """The fingerprint; with ``partition_by`` the sums of each folder's rows too."""
    return fingerprint_spark(frame, engine=engine, partition_by=partition_by or None)


def _unhashed(why: str) -> Fingerprint:
    return Fingerprint(None, None, None, engine="", error=f"not hashed: {why}")
