"""``ubunye hash PATH``: the rows-v1 fingerprint of a file or folder.

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

import click

from ubunye.cli.render import echo, json_document
from ubunye.hashing.fingerprint import Fingerprint
from ubunye.userfiles import os_error

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


def parse_options(pairs: tuple[str, ...]) -> dict[str, str]:
    """``KEY=VALUE`` pairs (``--option``) as a mapping; refuses a pair without ``=``."""
    options: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"{pair!r}: expected KEY=VALUE, e.g. sep=';'", param_hint="--option")
        options[key] = value
    return options


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


def _fail(message: str, code: int) -> None:
    echo("error: " + " ".join(message.split()), err=True)
    raise SystemExit(code)


def _refuse_special(path: Path) -> None:
    """A path that is neither a file nor a folder (``/dev/zero``, a FIFO) is refused before any
    reader opens it (and blocks or reads forever)."""
    import stat

    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        _fail(f"{path}: no such file or folder", 2)
        return
    except OSError as exc:  # a loop of links, a name too long: the reason, naming the path
        _fail(str(os_error(exc, path)), 2)
        return
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        _fail(f"{path}: not a file or folder (a device, FIFO or socket)", 2)


@click.command("hash")
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--format", "fmt", default=None, metavar="|".join(FORMATS),
              help="File format (default: from the file names; a folder whose files name "
                   "different formats, or none, is refused). Given, every visible file of a "
                   "folder is read in it, as Spark does.")
@click.option("--engine", default="pandas", show_default=True, metavar="|".join(ENGINES),
              help="Which engine reads and hashes the data.")
@click.option("--option", "option_pairs", multiple=True, metavar="KEY=VALUE",
              help="A reader option, as Spark takes it (repeat: --option sep=';' --option header=false). "
                   "The pandas reader refuses one it does not follow, naming it.")
@click.option("--schema", default=None, metavar="DDL",
              help="An explicit schema, as spark.read.schema takes it: 'id BIGINT, name STRING'.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def hash_command(path: Path, fmt: Optional[str], engine: str, option_pairs: tuple[str, ...],
                 schema: Optional[str], as_json: bool) -> None:
    """Print the rows-v1 row count, schema hash and data hash of PATH (a file or folder)."""
    from ubunye.io import UnreadablePath

    if engine not in ENGINES:
        raise click.BadParameter(f"{engine!r} is not one of {', '.join(sorted(ENGINES))}", param_hint="--engine")
    if fmt is not None and fmt not in FORMATS:
        raise click.BadParameter(f"{fmt!r} is not one of {', '.join(FORMATS)}", param_hint="--format")
    _refuse_special(path)
    try:
        fp = run_engine(resolve_engine(engine), path, fmt, parse_options(option_pairs), schema)
    except (UnreadablePath, OSError, ValueError) as exc:
        message = str(os_error(exc, path) if isinstance(exc, OSError) and not isinstance(exc, UnreadablePath) else exc)
        _fail(message if str(path) in message else f"{path}: {message}", 2)
        return
    if as_json:
        out = {"path": str(path), "format": fmt, **fp.to_dict()}
        json_document(out, indent=None, ensure_ascii=True)
    else:
        echo(f"path:        {path}")
        echo(f"rows:        {fp.row_count if fp.row_count is not None else '-'}")
        echo(f"schema_hash: {fp.schema_hash or '-'}")
        echo(f"data_hash:   {fp.data_hash or '-'}")
        echo(f"engine:      {fp.engine}")
        if fp.error:
            echo(f"error:       {fp.error}")
    if not fp.ok:
        if not as_json:
            echo(f"error: {path}: {fp.error}", err=True)
        raise SystemExit(1)
