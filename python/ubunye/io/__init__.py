"""Spark-compatible file reading (and writing) for pandas and Arrow.

``read_table(path, format=None, engine="pandas")`` reads a file or a folder
of part files the way Spark reads it, so that a file hashes the same with
``ubunye hash`` as with Spark:

- ``csv``: ``header=true, inferSchema=true`` in a UTC session (:mod:`.csv`);
- ``parquet``: a file or a folder of part files (:mod:`.parquet`);
- ``json``: JSON lines with Spark's inference (:mod:`.jsonl`).

A folder is read as Spark reads it: every visible file (names starting with
``_`` or ``.`` are skipped) in one format; ``key=value`` sub-folders are
partitions, their values appended as columns (:mod:`.partitions`; the
``basePath`` option as Spark's). Without a format, the files' names
must all name the same one (``part-0.snappy.parquet`` and ``part-1.parquet``
do; ``part-0.csv`` and ``part-1.json`` or a ``README.txt`` beside csv parts
do not, and the folder is refused); with a format, every visible file is
read in it. CSV and JSON files ending in ``.gz`` or ``.bz2`` are
decompressed, as Spark decompresses them.

``engine="arrow"`` returns a ``pyarrow.Table``; ``engine="pandas"`` returns
a pandas DataFrame backed by the same Arrow types (``pd.ArrowDtype``), so no
kind is lost on the way (an int column with nulls stays an int column).
"""
from __future__ import annotations

from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Callable, Mapping, Optional, Union

from ubunye.io.compressed import CODECS as _CODECS, OTHER_CODECS as _OTHER_CODECS, UnreadablePath
from ubunye.io.compressed import refuse_other_codec

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

FORMATS = ("parquet", "csv", "json")
ENGINES = ("pandas", "arrow")
_SUFFIXES = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".json": "json", ".jsonl": "json",
             ".ndjson": "json"}


def part_files(path: Path, base_path: Optional[str] = None) -> list[Path]:
    """The data files of ``path``: itself, or a folder's data files, as Spark finds them.

    Files and folders whose names start with ``.`` or ``_`` (``_SUCCESS``,
    ``.crc``) are skipped, as Spark skips them; ``key=value`` partition folders
    are walked (:mod:`ubunye.io.partitions`); ``base_path`` is Spark's ``basePath``.
    """
    return _layout(path, base_path).files


def _layout(path: Path, base_path: Optional[str] = None) -> Any:
    """The files and partition values of ``path`` (:func:`ubunye.io.partitions.discover`)."""
    from ubunye.io.partitions import PartitionError, discover

    if not path.exists():
        raise UnreadablePath(f"{path}: no such file or folder")
    try:
        layout = discover(path, base_path)
    except PartitionError as exc:
        raise UnreadablePath(str(exc)) from exc
    if not layout.files:
        raise UnreadablePath(f"{path}: folder holds no data files")
    return layout


def file_format(path: Path) -> Optional[str]:
    """The format a file's name names, or None.

    The last suffix names it (``.csv``, ``.parquet``, ``.json``, ``.jsonl`` ...),
    or the one before a compression suffix: ``part-0.csv.gz`` is csv,
    ``part-0.snappy.parquet`` is parquet, ``README.txt`` and ``part-0`` name none.
    """
    suffixes = [x.lower() for x in path.suffixes]
    if suffixes and suffixes[-1] in _CODECS + _OTHER_CODECS:
        suffixes = suffixes[:-1]
    return _SUFFIXES.get(suffixes[-1]) if suffixes else None


def detect_format(files: list[Path]) -> str:
    """The one format the files' names name (:func:`file_format`).

    Raises :class:`UnreadablePath` when no name names a format, or when the
    files of a folder name different formats or some name none: Spark reads
    every file of a folder in one format, so such a folder is read wrong
    unless a format is given; the message names two of the files.
    """
    named = [(f, file_format(f)) for f in files]
    if all(fmt is None for _, fmt in named):
        raise UnreadablePath(f"{files[0]}: cannot tell the format from the name; pass a format")
    first, fmt = named[0]
    for other, other_fmt in named[1:]:
        if other_fmt != fmt:
            raise UnreadablePath(
                f"{first.parent}: data files of different formats ({first.name}: {fmt or 'no format'}, "
                f"{other.name}: {other_fmt or 'no format'}); pass a format (--format) to read every "
                "file as that format, as Spark does, or move the other files out")
    return fmt  # type: ignore[return-value]


def open_text(path: Path, newline: Optional[str] = None) -> IO[str]:
    """A text file (UTF-8) for the csv and json readers, decompressed by its suffix (``.gz``, ``.bz2``).

    Raises :class:`UnreadablePath` for a compression this reader cannot decompress.
    """
    suffix = path.suffix.lower()
    if suffix == ".gz":
        import gzip

        return gzip.open(path, "rt", encoding="utf-8", newline=newline)
    if suffix == ".bz2":
        import bz2

        return bz2.open(path, "rt", encoding="utf-8", newline=newline)
    refuse_other_codec(path)
    return open(path, encoding="utf-8", newline=newline)


def _readers() -> dict[str, tuple[Callable[..., Any], tuple[str, ...]]]:
    """Each format's reader and the options it follows."""
    from ubunye.io import csv, jsonl, parquet

    return {"csv": (csv.read_csv, csv.OPTIONS), "json": (jsonl.read_jsonl, jsonl.OPTIONS),
            "parquet": (parquet.read_parquet, parquet.OPTIONS)}


def read_arrow(path: Union[str, Path], format: Optional[str] = None, *,
               options: Optional[Mapping[str, Any]] = None, schema: Any = None) -> "pa.Table":
    """Read ``path`` (file or folder) into a ``pyarrow.Table``, Spark-style.

    ``options`` are Spark's reader options for the format (names case-insensitive;
    one the reader does not follow is refused, naming it); ``schema`` is an explicit
    schema, as ``spark.read.schema(...)`` takes it.
    """
    from ubunye.io import options as reader_options
    from ubunye.io.ddl import as_schema

    p = Path(path)
    opts = reader_options.normalize(options)
    schema = as_schema(schema)
    layout = _layout(p, opts.pop("basepath", None))
    files = layout.files
    fmt = format or detect_format(files)
    readers = _readers()
    if fmt not in readers:
        raise ValueError(f"unknown format {fmt!r}: expected one of {', '.join(FORMATS)}")
    read, followed = readers[fmt]
    try:
        from ubunye.io import partitions

        reader_options.check(fmt, opts, followed)
        table, counts = read(files, opts, partitions.split_schema(schema, layout))
        return partitions.attach(table, counts, layout, schema)
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        if isinstance(exc, UnreadablePath):
            raise
        raise UnreadablePath(f"{p}: cannot read as {fmt}: {' '.join(str(exc).split())}") from exc
    except Exception as exc:  # pyarrow errors (ArrowInvalid is a ValueError; others are not)
        raise UnreadablePath(f"{p}: cannot read as {fmt}: {' '.join(str(exc).split())}") from exc


def read_table(path: Union[str, Path], format: Optional[str] = None, engine: str = "pandas", *,
               options: Optional[Mapping[str, Any]] = None, schema: Any = None) -> Any:
    """Read ``path`` as Spark would: a pandas DataFrame (``engine="pandas"``) or an Arrow table."""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}: expected one of {', '.join(ENGINES)}")
    table = read_arrow(path, format, options=options, schema=schema)
    if engine == "arrow":
        return table
    import pandas as pd

    return table.to_pandas(types_mapper=pd.ArrowDtype)


def write_table(table: Any, path: Union[str, Path], format: Optional[str] = None) -> Path:
    """Write a pandas DataFrame or Arrow table as one parquet, csv or json-lines file."""
    import pyarrow as pa

    from ubunye.hashing.frames import pandas_to_arrow

    p = Path(path)
    fmt = format or detect_format([p])
    if p.suffix.lower() in _CODECS + _OTHER_CODECS:
        raise ValueError(f"{p}: writes are not compressed; name the file without {p.suffix}")
    arrow = table if isinstance(table, pa.Table) else pandas_to_arrow(table)
    if fmt == "parquet":
        from ubunye.io.parquet import write_parquet

        write_parquet(arrow, p)
    elif fmt == "csv":
        from ubunye.io.csv_write import write_csv

        write_csv(arrow, p)
    elif fmt == "json":
        from ubunye.io.jsonl import write_jsonl

        write_jsonl(arrow, p)
    else:
        raise ValueError(f"unknown format {fmt!r}: expected one of {', '.join(FORMATS)}")
    return p
