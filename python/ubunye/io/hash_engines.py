"""The engines that read a file or folder and hash it with rows-v1: ``ubunye hash --engine`` and
``ubunye lineage verify`` choose among them by name.

An engine is a small function ``(path, format, options=None, schema=None) ->
Fingerprint`` (reader options as Spark takes them, an explicit DDL schema) registered in
:data:`ENGINES` by name, either as the function itself or as a lazily
imported ``"module:attribute"`` string, so other packages (``ubunye.spark``)
add theirs without this module importing them. :data:`FORMATS` lists the
formats ``--format`` accepts; an engine raises ``ValueError`` for one it
cannot read.
"""
from __future__ import annotations

from importlib import import_module
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Union

from ubunye.hashing.fingerprint import Fingerprint

EngineFn = Callable[..., Fingerprint]

FORMATS: list[str] = ["parquet", "csv", "json", "delta"]


def pandas_engine(path: Path, fmt: Optional[str], options: Optional[Mapping[str, Any]] = None,
                  schema: Optional[str] = None) -> Fingerprint:
    """Read with :func:`ubunye.io.read_table` (pandas, Spark-compatible) and hash."""
    from ubunye.hashing import fingerprint
    from ubunye.io import read_table

    return fingerprint(read_table(path, fmt, engine="pandas", options=options, schema=schema))


def arrow_engine(path: Path, fmt: Optional[str], options: Optional[Mapping[str, Any]] = None,
                 schema: Optional[str] = None) -> Fingerprint:
    """Read into a pyarrow Table and hash it with the vectorised path."""
    from ubunye.hashing import fingerprint
    from ubunye.io import read_table

    return fingerprint(read_table(path, fmt, engine="arrow", options=options, schema=schema))


def run_engine(engine: EngineFn, path: Path, fmt: Optional[str], options: Optional[Mapping[str, Any]] = None,
               schema: Optional[str] = None) -> Fingerprint:
    """Call ``engine``; options and schema are passed only when given (engines of other packages
    may take just the path and the format)."""
    if options or schema:
        return engine(path, fmt, options=options, schema=schema)
    return engine(path, fmt)


ENGINES: dict[str, Union[EngineFn, str]] = {
    "pandas": pandas_engine,
    "arrow": arrow_engine,
    "spark": "ubunye.spark.cli:spark_engine",
}


def register_engine(name: str, engine: Union[EngineFn, str], formats: tuple[str, ...] = ()) -> None:
    """Add an engine (a function or ``"module:attribute"``) and the formats it adds."""
    ENGINES[name] = engine
    for fmt in formats:
        if fmt not in FORMATS:
            FORMATS.append(fmt)


def resolve_engine(name: str) -> EngineFn:
    """The engine function registered as ``name``."""
    engine = ENGINES[name]
    if isinstance(engine, str):
        module, _, attr = engine.partition(":")
        engine = getattr(import_module(module), attr)
    return engine  # type: ignore[return-value]
