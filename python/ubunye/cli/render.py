"""Terminal output shared by the commands: aligned tables, colour, JSON, errors.

Colour is used only when stdout is a terminal and ``NO_COLOR`` is not set.
Errors and warnings go to stderr in one line each; stdout carries only the
result (with ``--json``, exactly one JSON document).

Every command prints through :func:`echo`, :func:`warn`, :func:`fail` and :func:`emit_json`
only, and each of them passes its text through the one masking path
(:mod:`ubunye.masking`): no secret of the run reaches the terminal. A line on stderr (a
``FAIL``, ``warning:`` or ``error:`` line) is at most :data:`LINE_LIMIT` characters, cut after
masking with a note of how much was cut (a run record keeps the error itself).
"""
from __future__ import annotations

import json
import os
import sys
from contextlib import contextmanager, redirect_stdout
from typing import Any, Iterator, NoReturn, Optional, Sequence

import click

from ubunye._names import BIDI, visible
from ubunye.masking import current

JSON_SCHEMA_VERSION = 1
LINE_LIMIT = 2000  # characters of one line on stderr

# verdicts and statuses -> colour
_COLOURS = {
    "unchanged": "green", "success": "green", "same": "green", "yes": "green",
    "changed": "red", "error": "red", "missing": "red", "no": "red", "FAIL": "red",
    "unknown": "yellow", "not comparable": "yellow", "interrupted": "yellow", "running": "cyan",
}


def use_colour(stream: Any = None) -> bool:
    """True when ``stream`` (default stdout) is a terminal and NO_COLOR is unset."""
    if os.environ.get("NO_COLOR"):
        return False
    stream = stream if stream is not None else sys.stdout
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # closed stream
        return False


def paint(text: str, key: Optional[str] = None, *, bold: bool = False) -> str:
    """``text`` coloured after ``key`` (default: the text itself) when colour is on."""
    if not use_colour():
        return text
    colour = _COLOURS.get(key if key is not None else text)
    if colour is None and not bold:
        return text
    return click.style(text, fg=colour, bold=bold)


def cell(value: Any) -> str:
    """A value as table text: ``-`` for None, never a false 0."""
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}".rstrip("0").rstrip(".") if value else "0"
    return visible(str(value))  # written out before the columns are measured


def short_hash(value: Optional[str], width: int = 12) -> str:
    """``sha256:9c8ec3b88dbe`` (the algorithm and the first ``width`` hex digits)."""
    if value is None:
        return "-"
    algo, sep, digest = value.partition(":")
    return f"{algo}:{digest[:width]}" if sep else value[:width]


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], *, colour_column: Optional[int] = None) -> str:
    """Plain text columns, left aligned, two spaces apart (colour after alignment)."""
    texts = [[cell(v) for v in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in texts:
        for i, text in enumerate(row):
            widths[i] = max(widths[i], len(text))
    lines = ["  ".join(paint(h.ljust(widths[i]), "", bold=True) for i, h in enumerate(headers)).rstrip()]
    for row in texts:
        parts = []
        for i, text in enumerate(row):
            padded = text.ljust(widths[i])
            parts.append(paint(padded, text) if i == colour_column else padded)
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines)


def printable(text: str) -> str:
    """``text`` as any UTF-8 terminal prints it: a direction control written out (``\\u202e``:
    a name never reads reversed), a byte of a file name that is not UTF-8 (Python holds it as a
    lone surrogate, which a strict stream refuses) shown as ``\\xff``."""
    text = visible(text)
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        try:
            return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        except UnicodeEncodeError:  # a surrogate no file name holds
            return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _json_printable(text: str) -> str:
    """A JSON text with every lone surrogate and direction control as its ``\\u`` escape (the
    same JSON value; a terminal shows it unreversed and a strict stream takes it)."""
    return "".join(f"\\u{ord(c):04x}" if "\ud800" <= c <= "\udfff" or c in BIDI else c for c in text)


def emit_json(command: str, payload: dict[str, Any]) -> None:
    """Print exactly one JSON document: ``schema_version``, ``command`` and the payload
    (every string masked; ids and hashes kept)."""
    json_document({"schema_version": JSON_SCHEMA_VERSION, "command": command, **payload})


def json_document(document: Any, **dumps: Any) -> None:
    """Print one JSON document as given (every string masked; ids and hashes kept)."""
    plain = json.loads(json.dumps(document, ensure_ascii=False, default=str))
    options = {"indent": 2, "ensure_ascii": False, **dumps}
    click.echo(_json_printable(json.dumps(current().doc(plain), **options)))


def capped(text: str, limit: int = LINE_LIMIT) -> str:
    """Each line of ``text`` cut to at most ``limit`` characters, a cut one saying how much went."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if len(line) > limit:
            keep = max(0, limit - 40)  # the note is shorter than 40 characters
            lines[i] = f"{line[:keep]} ... [{len(line) - keep:,} characters cut]"
    return "\n".join(lines)


@contextmanager
def stdout_kept_for_json(active: bool = True) -> Iterator[None]:
    """While ``active`` (a ``--json`` command at work), whatever else writes to stdout (task code
    printing as it is imported) goes to stderr: stdout holds the one JSON document."""
    if not active:
        yield
        return
    with redirect_stdout(sys.stderr):
        yield


def echo(text: Any = "", *, err: bool = False, nl: bool = True) -> None:
    """A line of human output (masked, direction controls written out) on stdout, or on stderr
    with ``err`` (each line capped)."""
    masked = printable(current().text(text))
    click.echo(capped(masked) if err else masked, err=err, nl=nl)


def warn(message: str) -> None:
    """One warning line on stderr (masked, capped)."""
    label = paint('warning:', 'unknown') if use_colour(sys.stderr) else 'warning:'
    click.echo(capped(printable(f"{label} {current().text(message)}")), err=True)


def fail(message: str, code: int = 2) -> NoReturn:
    """One error line on stderr (masked: the whole text first, then its first line; capped), then
    exit with ``code`` (2: error or usage)."""
    masked = current().text(str(message))
    first = " ".join(masked.split("\n")[0].split()) or "error"
    click.echo(capped(printable(f"error: {current().text(first)}")), err=True)
    raise SystemExit(code)
