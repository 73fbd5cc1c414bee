"""What is on storage at a location: a signature that changes whenever its rows can.

An input whose files are exactly the files an earlier recorded step hashed (the
same names, sizes, modification times and, on a local disk, the same inodes and
change times; for Delta the same commit file of the same version and the same data files
that version lists, each signed the same way) holds the same rows, so its
rows-v1 hash can be taken from that step instead of scanning the data again
(``hash_pass: "reused"``, see :mod:`ubunye.lineage.known`).

Only lossless formats are signed (parquet and Delta: their files hold the
frame's types and values, where csv and json are parsed again on every read),
and only where nothing but the files decides the rows:

- an input without read options or an explicit schema (a Delta version is part of the signature);
- an output written whole: mode ``overwrite`` or ``errorifexists``, no
  ``partition_by``, and only write options that cannot change a value
  (compression, file sizes).

A location the process cannot list (any path of a Spark Connect session: the
server reads its own file system; a missing path) has no signature, and its
hash is computed as usual.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any, Iterable, Optional

from ubunye.engine.config import IOSpec

SIGNED_FORMATS = ("parquet", "delta")
# Write options that change how rows are stored, never which rows or values.
HARMLESS_WRITE_OPTIONS = frozenset({"compression", "maxRecordsPerFile", "parquet.block.size", "parquet.page.size"})

Entry = tuple[str, int, int, str]  # relative path, size, modification time, file identity


def signable(spec: IOSpec) -> bool:
    """True when the rows at ``spec``'s location are decided by its files alone."""
    if spec.format not in SIGNED_FORMATS or spec.path is None:
        return False
    if spec.direction == "input":
        return not spec.options and spec.schema is None
    if not spec.written_whole:
        return False
    return {str(k) for k in spec.options} <= HARMLESS_WRITE_OPTIONS


def storage_signature(spec: IOSpec, *, spark: Any = None, delta_version: Optional[int] = None) -> Optional[str]:
    """The signature of what is at ``spec``'s location now, or None when it cannot be
    taken (a format or spec that does not qualify, a location that cannot be listed)."""
    if not signable(spec):
        return None
    if spark is not None:
        from ubunye.spark._compat import is_connect

        if is_connect(spark):  # the server reads its own file system, which this process cannot see
            return None
    location = str(spec.path)
    try:
        if spec.format == "delta":
            if delta_version is None:
                return None
            commit = f"_delta_log/{int(delta_version):020d}.json"
            entries = _entries(location, spark, only=commit)
            files = _delta_data_entries(spark, location, int(delta_version))
            if not entries or files is None:
                return None
            return f"delta2:{int(delta_version)}:{_digest(entries + files)}"
        entries = _entries(location, spark)
        return None if not entries else f"files:{_digest(entries)}"
    except (OSError, ValueError):
        return None


def _digest(entries: Iterable[Entry]) -> str:
    h = hashlib.sha256()
    for rel, size, mtime, ident in sorted(entries):
        h.update(f"{rel}\0{size}\0{mtime}\0{ident}\n".encode("utf-8", "surrogateescape"))
    return "sha256:" + h.hexdigest()


def local_path(location: str) -> Optional[Path]:
    """The local path of a location (a plain path or a ``file:`` URI), else None
    (:func:`ubunye.locations.local_path`)."""
    from ubunye.locations import local_path as local

    found = local(location)
    return None if found is None else Path(found)


def location_identity(location: str) -> str:
    """One text per place: local paths absolute and normalised (``a/x/../b`` and
    ``file:`` URIs of it are the same place), other URIs without a trailing slash."""
    local = local_path(location)
    if local is not None:
        return os.path.abspath(local)
    return location.rstrip("/")


def _entries(location: str, spark: Any, only: Optional[str] = None) -> Optional[list[Entry]]:
    local = local_path(location)
    if local is not None:
        return _local_entries(local, only)
    return _hadoop_entries(spark, location, only)


def _hidden(name: str) -> bool:
    """Files and folders Spark's file sources skip (``_SUCCESS``, ``.crc`` files, ``_delta_log``)."""
    return name.startswith((".", "_"))


def _local_entry(rel: str, path: Path) -> Entry:
    """A local file's entry. Its identity holds the device, the inode and the change time
    (``st_ctime_ns``): a rewrite of the same size can set the modification time back
    (``os.utime``) but not the change time. It also holds the file's parquet footer
    (:func:`footer_digest`), evidence from the content itself that does not depend on what
    the file system keeps. A signature taken before a part was added never equals one
    taken now, so an older record only costs a scan."""
    st = path.stat()
    with open(path, "rb") as handle:
        footer = footer_digest(handle.seek, handle.read, st.st_size)
    return (rel, st.st_size, st.st_mtime_ns, f"{_file_identity(st)}:{footer}")


def _file_identity(st: os.stat_result) -> str:
    """What a local disk keeps of a file besides size and modification time."""
    return f"{st.st_dev}:{st.st_ino}:{st.st_ctime_ns}"


FOOTER_LIMIT = 64 * 1024 * 1024  # a footer longer than this is not read (a damaged or odd file)


def footer_digest(seek: Any, read: Any, size: int) -> str:
    """``footer:<sha256>`` of a parquet file's footer (the Thrift file metadata: its schema,
    each row group's row count, each column chunk's offsets, sizes and min/max/null-count
    statistics), read from the file's end through ``seek``/``read``; ``nofooter`` for a file
    that is not parquet (a Delta commit, a damaged file). Two reads, however large the file."""
    if size < 12:
        return "nofooter"
    seek(size - 8)
    tail = read(8)
    length = int.from_bytes(tail[:4], "little")
    if tail[4:] != b"PAR1" or length <= 0 or length > min(size - 12, FOOTER_LIMIT):
        return "nofooter"
    seek(size - 8 - length)
    return "footer:" + hashlib.sha256(read(length)).hexdigest()


def _local_entries(root: Path, only: Optional[str]) -> Optional[list[Entry]]:
    if only is not None:
        return [_local_entry(only, root / only)]
    if root.is_file():
        return [_local_entry(root.name, root)]
    if not root.is_dir():
        return None
    found: list[Entry] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not _hidden(d)]
        for name in files:
            if _hidden(name):
                continue
            path = Path(folder) / name
            found.append(_local_entry(path.relative_to(root).as_posix(), path))
    return found


def _hadoop_entries(spark: Any, location: str, only: Optional[str]) -> Optional[list[Entry]]:
    """The listing through the session's Hadoop file system (classic sessions only)."""
    if spark is None:
        return None
    from ubunye.spark import _compat

    jvm, conf = _compat.jvm(spark), _compat.hadoop_configuration(spark)
    base = jvm.org.apache.hadoop.fs.Path(location)
    fs = base.getFileSystem(conf)
    if only is not None:
        st = fs.getFileStatus(jvm.org.apache.hadoop.fs.Path(base, only) if only else base)
        return [(only, int(st.getLen()), int(st.getModificationTime()), _hadoop_identity(spark, fs, st))]
    if not fs.exists(base):
        return None
    prefix = fs.makeQualified(base).toString().rstrip("/") + "/"
    found: list[Entry] = []
    files = fs.listFiles(base, True)
    while files.hasNext():
        st = files.next()
        full = st.getPath().toString()
        rel = full[len(prefix):] if full.startswith(prefix) else st.getPath().getName()
        if any(_hidden(part) for part in rel.split("/")):
            continue
        found.append((rel, int(st.getLen()), int(st.getModificationTime()), _hadoop_identity(spark, fs, st)))
    return found


def _hadoop_identity(spark: Any, fs: Any, st: Any) -> str:
    """A Hadoop file's content evidence: the file system's checksum where it keeps one (HDFS:
    of every block's CRCs, no data read; None elsewhere) and the parquet footer's digest."""
    from ubunye.spark import _compat

    checksum = fs.getFileChecksum(st.getPath())
    stream = fs.open(st.getPath())
    try:
        position = [0]

        def seek(to: int) -> None:
            position[0] = to

        def read(n: int) -> bytes:
            buffer = _compat.jvm_byte_array(spark, n)
            stream.readFully(position[0], buffer)
            return _compat.jvm_bytes(spark, buffer)

        footer = footer_digest(seek, read, int(st.getLen()))
    finally:
        stream.close()
    return f"{'' if checksum is None else checksum.toString()}:{footer}"


def _delta_data_entries(spark: Any, location: str, version: int) -> Optional[list[Entry]]:
    """Every data file of the table at ``version`` (as Delta's log lists them), signed like
    a parquet file: a data file rewritten in place, with the same name and size, changes its
    modification time, or (on a local disk) its change time, or its parquet footer (row
    counts, chunk sizes, statistics: docs/safety.md says what that misses), so the signature
    changes too.
    None when the files cannot be listed (no session, not a Delta table)."""
    if spark is None:
        return None
    from urllib.parse import unquote, urlparse

    found: list[Entry] = []
    try:
        for uri in sorted(spark.read.format("delta").option("versionAsOf", version).load(location).inputFiles()):
            parsed = urlparse(uri)
            if parsed.scheme in ("", "file"):
                found.append(_local_entry(f"data:{uri}", Path(unquote(parsed.path))))
                continue
            listed = _hadoop_entries(spark, uri, "")
            if not listed:
                return None
            found.extend((f"data:{uri}", size, mtime, ident) for _, size, mtime, ident in listed)
    except Exception:  # noqa: BLE001 - not readable at that version, a file gone: no signature
        return None
    return found


def parquet_row_count(location: str) -> Optional[int]:
    """The rows of a local parquet file or folder from its footers (no data read), or
    None when it is not local or a file is not parquet."""
    local = local_path(location)
    if local is None:
        return None
    try:
        import pyarrow.parquet as pq

        entries = _local_entries(local, None)
        if not entries:
            return None
        base = local if local.is_dir() else local.parent
        return sum(pq.read_metadata(base / rel).num_rows for rel, _, _, _ in entries)
    except Exception:  # noqa: BLE001 - not readable as parquet here: the caller counts with Spark
        return None
