"""``ubunye hash PATH``: the rows-v1 fingerprint of a file or folder.

The engines (``--engine``) and the formats (``--format``) are :mod:`ubunye.io.hash_engines`'
table, shared with ``ubunye lineage verify``; this module hands their names on.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import click

from ubunye.cli.render import echo, json_document
from ubunye.io.hash_engines import (ENGINES, FORMATS, EngineFn, arrow_engine, pandas_engine,  # noqa: F401
                                    register_engine, resolve_engine, run_engine)
from ubunye.userfiles import os_error


def parse_options(pairs: tuple[str, ...]) -> dict[str, str]:
    """``KEY=VALUE`` pairs (``--option``) as a mapping; refuses a pair without ``=``."""
    options: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"{pair!r}: expected KEY=VALUE, e.g. sep=';'", param_hint="--option")
        options[key] = value
    return options


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
