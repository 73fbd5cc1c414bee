"""Spark's writer for one output: the save itself, an overwritten folder written beside and
swapped in, and the clean-up after a failed write.

An output is any object with :class:`ubunye.spark.writes.Output`'s attributes.
"""
from __future__ import annotations

import uuid
from typing import Any, Optional

from ubunye.spark import _compat
from ubunye.spark.hadoop_folder import HadoopFolder, remove_quietly


def save(spark: Any, frame: Any, out: Any, *, existed: bool) -> None:
    """Write ``frame`` as ``out``. An overwrite of an existing local or HDFS folder is written
    beside it and swapped in; a failed write leaves no folder where there was none (Spark's job
    makes it first and leaves it, empty or with a failed Delta commit's files: a next run found
    data there, ``mode: ignore`` skipped its write; paths on classic sessions, tables are the
    catalog's)."""
    folder = _swapped(spark, out)
    try:
        if folder is None:
            _write(frame, out, out.path)
        else:
            _write_beside(frame, out, folder)
    except Exception:
        if not existed and out.format not in ("table", "jdbc") and out.path is not None \
                and not _compat.is_connect(spark):
            remove_quietly(spark, str(out.path))
        raise


def _swapped(spark: Any, out: Any) -> Optional[HadoopFolder]:
    """The folder of an overwrite of an existing file folder (parquet, csv, json) on a local or
    HDFS file system, replacing every partition: written beside it and swapped in (Delta and
    tables keep their old version in the log; object stores have no atomic folder rename)."""
    if out.mode != "overwrite" or out.format not in ("parquet", "csv", "json") or _compat.is_connect(spark):
        return None
    dynamic = {str(k).lower(): str(v).lower() for k, v in out.options.items()}.get("partitionoverwritemode")
    dynamic = dynamic or str(spark.conf.get("spark.sql.sources.partitionOverwriteMode", "static")).lower()
    if out.partition_by and dynamic == "dynamic":
        return None  # only the partitions written are replaced: the others stay
    folder = HadoopFolder(spark, str(out.path))
    return folder if folder.scheme in ("file", "hdfs") and folder.exists(folder.path) else None


def _write_beside(frame: Any, out: Any, folder: HadoopFolder) -> None:
    """Write into a hidden sibling, then rename the old folder aside, the new one in, and
    delete the old one: a write that fails half way leaves the old folder as it was."""
    tag = uuid.uuid4().hex[:12]
    stage, old = folder.sibling(f"new-{tag}"), folder.sibling(f"old-{tag}")
    try:
        _write(frame, out, stage.toString())
    except BaseException:
        folder.delete(stage)
        raise
    folder.rename(folder.path, old)
    try:
        folder.rename(stage, folder.path)
    except BaseException:
        folder.rename(old, folder.path)
        folder.delete(stage)
        raise
    folder.delete(old)


def _write(frame: Any, out: Any, path: Optional[str]) -> None:
    """Spark's writer with the output's mode, options and partition columns."""
    options = {str(k): v for k, v in out.options.items()}
    using = options.pop("using", None) if out.format == "table" else None
    writer = frame.write.mode(out.mode).options(**options)
    if using is not None:  # the table's provider (delta, parquet ...); else spark.sql.sources.default
        writer = writer.format(str(using))
    if out.partition_by:
        writer = writer.partitionBy(*out.partition_by)
    if out.format == "csv" and "header" not in out.options:
        writer = writer.option("header", True)
    if out.format == "table":
        writer.saveAsTable(out.table)
    elif out.format == "jdbc":
        writer.format("jdbc").options(**out.connection).save()
    else:
        writer.format(out.format).save(path)
