"""Spark's JSON reader options, and a file's records as Spark splits them.

Names are lower-case here (``ubunye.io.options.normalize``); values are
Spark's strings. Booleans are parsed as Spark parses them (``true``/``false``,
anything else refused). ``mode`` is PERMISSIVE, DROPMALFORMED or FAILFAST in
any case; any other value is PERMISSIVE, as Spark (with a warning) takes it.
"""
from __future__ import annotations

import codecs
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Optional

from ubunye.io.compressed import read_bytes
from ubunye.io.json_parse import Grammar
from ubunye.io.options import UnsupportedOption, flag

MODES = ("PERMISSIVE", "DROPMALFORMED", "FAILFAST")
# The charsets Spark 4 reads (spark.sql.legacy.javaCharsets=false), by its names only
CHARSETS = {"iso-8859-1": "latin-1", "us-ascii": "ascii", "utf-16": "utf-16", "utf-16be": "utf-16-be",
            "utf-16le": "utf-16-le", "utf-32": "utf-32", "utf-8": "utf-8"}
# Spark refuses these in line mode: their byte order mark makes lines unsplittable
_DENIED_IN_LINES = ("utf-16", "utf-32")


@dataclass(frozen=True)
class JsonOptions:
    grammar: Grammar
    multi_line: bool = False
    primitives_as_string: bool = False
    prefers_decimal: bool = False
    drop_field_if_all_null: bool = False
    mode: str = "PERMISSIVE"
    corrupt_column: str = "_corrupt_record"
    encoding: Optional[str] = None  # a Python codec name; None: UTF-8 as Jackson reads bytes
    line_sep: Optional[str] = None
    date_format: Optional[str] = None
    timestamp_format: Optional[str] = None

    @classmethod
    def parse(cls, options: Mapping[str, str]) -> "JsonOptions":
        grammar = Grammar(
            comments=flag(options, "allowComments", False),
            unquoted_names=flag(options, "allowUnquotedFieldNames", False),
            single_quotes=flag(options, "allowSingleQuotes", True),
            leading_zeros=flag(options, "allowNumericLeadingZeros", False),
            non_numeric=flag(options, "allowNonNumericNumbers", True),
        )
        multi_line = flag(options, "multiLine", False)
        mode = options.get("mode", "PERMISSIVE").upper()
        given = options.get("encoding", options.get("charset"))
        encoding = None
        if given is not None:
            if given.lower() not in CHARSETS:
                raise UnsupportedOption(f"option 'encoding': {given!r} is not one of the charsets Spark 4 reads "
                                        f"({', '.join(sorted(CHARSETS))})")
            encoding = codecs.lookup(CHARSETS[given.lower()]).name
            if not multi_line and encoding in _DENIED_IN_LINES:
                raise UnsupportedOption(f"option 'encoding': {given} is refused when multiLine is off "
                                        "(Spark: use UTF-16LE/BE or UTF-32LE/BE, or multiLine)")
            if not multi_line and encoding != "utf-8" and "linesep" not in options:
                raise UnsupportedOption(f"option 'encoding': the lineSep option must be specified for "
                                        f"the {given} encoding (as Spark requires)")
        line_sep = options.get("linesep")
        if line_sep is not None and line_sep == "":
            raise UnsupportedOption("option 'lineSep' must not be empty")
        return cls(grammar=grammar, multi_line=multi_line,
                   primitives_as_string=flag(options, "primitivesAsString", False),
                   prefers_decimal=flag(options, "prefersDecimal", False),
                   drop_field_if_all_null=flag(options, "dropFieldIfAllNull", False),
                   mode=mode if mode in MODES else "PERMISSIVE",
                   corrupt_column=options.get("columnnameofcorruptrecord", "_corrupt_record"),
                   encoding=encoding, line_sep=line_sep, date_format=options.get("dateformat"),
                   timestamp_format=options.get("timestampformat"))


def _split(data: bytes, sep: Optional[bytes]) -> list[bytes]:
    """Lines as Hadoop's line reader splits them: on ``sep``, or on ``\\n``, ``\\r\\n`` and ``\\r``."""
    if sep is not None:
        parts = data.split(sep)
    else:
        parts = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
    if parts and parts[-1] == b"":
        parts.pop()
    return parts


def decode(data: bytes, opts: JsonOptions) -> tuple[Optional[str], bytes]:
    """A record's text (None when its bytes are not valid in the encoding) and the bytes
    Spark keeps for ``_corrupt_record``: the record's own bytes, whatever the encoding
    (its strings show invalid UTF-8 as U+FFFD; its rows-v1 hash reads the bytes).
    """
    try:
        text: Optional[str] = data.decode(opts.encoding or "utf-8")
    except UnicodeDecodeError:
        text = None
    if text is not None and opts.encoding is None and text.startswith("\ufeff"):
        text = text[1:]  # Jackson skips a UTF-8 byte order mark at the start of its input
    return text, data


def records(path: Path, opts: JsonOptions) -> list[tuple[str, Optional[str], bytes]]:
    """The file's records as ``(where, text or None, raw bytes)``: each line, or the whole file."""
    data = read_bytes(path)
    if opts.multi_line:
        if not data:
            return []
        text, raw = decode(data, opts)
        return [(str(path), text, raw)]
    sep = opts.line_sep.encode(opts.encoding or "utf-8") if opts.line_sep is not None else None
    if sep is not None and opts.encoding and opts.encoding.startswith("utf-16") and sep[:2] in (b"\xff\xfe", b"\xfe\xff"):
        sep = sep[2:]
    out = []
    for number, line in enumerate(_split(data, sep), 1):
        text, raw = decode(line, opts)
        out.append((f"{path}:{number}", text, raw))
    return out
