"""One output written by Spark, top to bottom: stage, write (and swap), hash.

:func:`write_output` holds the order of a write once the engine has decided it may
write (the location checks and the output's mode, :mod:`ubunye.engine.outputs`):

1. **stage**: where the files will hold other values than the frame
   (:func:`ubunye.spark.stored.stored_differently`), the csv/json files there before;
   the native sums attached to the frame when the session's facts say the native engine
   runs (:func:`ubunye.spark.facts.choose`), so the write itself hashes it (``same-pass``);
2. **write**: :func:`ubunye.spark.saving.save` (an overwrite of a local or HDFS folder is
   written beside it and swapped in; a failed write leaves no folder where there was none),
   then the written Delta version and a table's comment (:mod:`ubunye.spark.tables`);
3. **hash**: the observed sums, else a second pass over what was written
   (:func:`ubunye.spark.written_hash.hash_written`).

An output is any object with :class:`Output`'s attributes (the engine's ``IOSpec``):
this layer imports nothing from the engine.
"""
from __future__ import annotations

from typing import Any, Mapping, Optional, Protocol, Sequence

from ubunye.spark import saving, tables
from ubunye.spark.facts import NATIVE, choose, facts
from ubunye.spark.stored import TEXT_WRITERS, json_round_trip, listed_before, stored_differently
from ubunye.spark.written_hash import SAME_PASS, SECOND_PASS, RoundTripWarning, Staged, Written, hash_written

__all__ = ["SAME_PASS", "SECOND_PASS", "Output", "RoundTripWarning", "Written", "write_output"]


class Output(Protocol):
    """What this layer reads of an output (the engine's ``IOSpec`` has it all)."""

    name: str
    format: str
    mode: str
    path: Optional[str]
    table: Optional[str]
    options: Mapping[str, Any]
    partition_by: Sequence[str]
    connection: Mapping[str, Any]
    table_comment: Optional[str]
    table_properties: Mapping[str, str]

    @property
    def written_whole(self) -> bool: ...

    def read_back_options(self) -> dict[str, str]: ...

    def writer_options(self) -> dict[str, str]: ...


def write_output(spark: Any, frame: Any, out: Output, observer: Any, *, existed: bool,
                 hash_output: bool, engine: Optional[str]) -> Written:
    """Write ``frame`` as ``out``; with ``hash_output`` also its rows-v1 fingerprint
    (``engine``: the hash engine asked for, None for the session's best)."""
    staged = _stage(spark, frame, out, observer, engine) if hash_output else Staged(None, frame)
    try:
        saving.save(spark, staged.frame, out, existed=existed)
    except BaseException:
        if staged.observation is not None:  # nothing will read it
            observer.discard(staged.observation, spark)
        raise
    observer.after_write(staged.frame)
    version = tables.written_version(spark, out)  # the data's version (a comment below may add one)
    tables.describe_table(spark, out)
    if not hash_output:
        return Written(version)
    return hash_written(spark, frame, out, observer, staged, version, engine)


def _stage(spark: Any, frame: Any, out: Output, observer: Any, engine: Optional[str]) -> Staged:
    """What to read before the write, and the sums attached to the frame where they can be."""
    native = choose(facts(spark), engine, strict=False).engine == NATIVE
    stored = stored_differently(spark, frame, out)  # a setting that makes the files hold other values
    before = listed_before(spark, out) if out.format in TEXT_WRITERS else None
    if native and stored is None:
        observation, observed, error = observer.attach(frame, out.name, out.partition_by)
        return Staged(observation, observed, error, stored, before)
    if native and json_round_trip(spark, out):  # the json files' hash in the write, for the listener
        observation, observed, _ = observer.attach(frame, out.name, json=(out.writer_options(),
                                                                          out.read_back_options()))
        return Staged(observation, observed, None, stored, before, observation is not None)
    return Staged(None, frame, None, stored, before)
