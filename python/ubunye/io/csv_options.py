"""Spark's CSV reader options (``CSVOptions``) as the pandas csv reader follows them.

:func:`parse` turns the normalized option mapping (lower-case names, Spark's
string values; :mod:`ubunye.io.options`) into a :class:`CsvOptions` with Spark's
defaults and Spark's checks (a quote of two characters, a ``lineSep`` of two, a
single backslash as separator are refused, as Spark refuses them). An option
value this reader cannot follow (an encoding that is not a superset of ASCII,
say) is refused in one line naming the option.
"""
from __future__ import annotations

import codecs
from dataclasses import dataclass
from typing import Mapping, Optional

from ubunye.io.options import UnsupportedOption, flag

NUL = "\u0000"
MODES = ("PERMISSIVE", "DROPMALFORMED", "FAILFAST")

# The options the csv reader follows (lower-case names; ubunye.io.options refuses others).
FOLLOWED = (
    "sep", "delimiter", "quote", "escape", "header", "inferschema", "nullvalue", "emptyvalue",
    "nanvalue", "positiveinf", "negativeinf", "dateformat", "timestampformat", "timestampntzformat",
    "multiline", "encoding", "charset", "comment", "ignoreleadingwhitespace",
    "ignoretrailingwhitespace", "linesep", "mode", "enforceschema", "preferdate",
)


@dataclass(frozen=True)
class CsvOptions:
    sep: str = ","
    quote: str = '"'  # NUL: no quoting
    escape: str = "\\"
    comment: str = NUL  # NUL: no comment lines
    header: bool = True
    infer_schema: bool = True
    null_value: str = ""
    empty_value: str = ""
    nan_value: str = "NaN"
    positive_inf: str = "Inf"
    negative_inf: str = "-Inf"
    date_format: Optional[str] = None
    timestamp_format: Optional[str] = None
    timestamp_ntz_format: Optional[str] = None
    multi_line: bool = False
    encoding: str = "utf-8"
    ignore_leading: bool = False
    ignore_trailing: bool = False
    line_sep: Optional[str] = None
    mode: str = "PERMISSIVE"
    enforce_schema: bool = True
    prefer_date: bool = True


def separator(text: str) -> str:
    """Spark's ``CSVExprUtils.toDelimiterStr``: ``\\t`` and ``\\uXXXX`` escapes, any length."""
    if text == "":
        raise UnsupportedOption("option 'sep': the delimiter cannot be empty")
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        rest = text[i:]
        if rest == "\\":
            raise UnsupportedOption("option 'sep': a single backslash is prohibited (it is an escape character)")
        nxt = rest[1]
        simple = {"t": "\t", "r": "\r", "b": "\b", "f": "\f", '"': '"', "'": "'", "\\": "\\"}
        if nxt in simple:
            out.append(simple[nxt])
            i += 2
        elif nxt == "u" and len(rest) >= 6:
            out.append(chr(int(rest[2:6], 16)))
            i += 6
        else:
            raise UnsupportedOption(f"option 'sep': unsupported special character for delimiter: {rest[:2]!r}")
    return "".join(out)


def _char(opts: Mapping[str, str], name: str, default: str) -> str:
    value = opts.get(name.lower())
    if value is None:
        return default
    if value == "":
        return NUL
    if len(value) != 1:
        raise UnsupportedOption(f"option {name!r} must be one character; got {value!r}")
    return value


def _encoding(opts: Mapping[str, str]) -> str:
    name = opts.get("encoding", opts.get("charset", "UTF-8"))
    try:
        info = codecs.lookup(name)
    except LookupError:
        raise UnsupportedOption(f"option 'encoding': unknown charset {name!r}") from None
    # line splitting and separators work on ASCII text: only charsets that keep ASCII as is
    if "\n,\"".encode(info.name, errors="strict") != b"\n,\"" or info.name.startswith(("utf-16", "utf-32")):
        raise UnsupportedOption(f"option 'encoding' {name!r} is not followed by the pandas reader of csv "
                                "(charsets that extend ASCII only)")
    return info.name


def parse(opts: Mapping[str, str]) -> CsvOptions:
    """Spark's CSV options from a normalized option mapping.

    ``header`` and ``inferSchema`` default to true: the engine reads csv with both on.
    """
    line_sep = opts.get("linesep")
    if line_sep is not None and len(line_sep) != 1:
        raise UnsupportedOption(f"option 'lineSep' can contain only 1 character; got {line_sep!r}")
    mode = opts.get("mode", "PERMISSIVE").upper()
    if mode not in MODES:  # Spark warns and reads permissively
        mode = "PERMISSIVE"
    return CsvOptions(
        sep=separator(opts.get("sep", opts.get("delimiter", ","))),
        quote=_char(opts, "quote", '"'),
        escape=_char(opts, "escape", "\\"),
        comment=_char(opts, "comment", NUL),
        header=flag(opts, "header", True),
        infer_schema=flag(opts, "inferSchema", True),
        null_value=opts.get("nullvalue", ""),
        empty_value=opts.get("emptyvalue", ""),
        nan_value=opts.get("nanvalue", "NaN"),
        positive_inf=opts.get("positiveinf", "Inf"),
        negative_inf=opts.get("negativeinf", "-Inf"),
        date_format=opts.get("dateformat"),
        timestamp_format=opts.get("timestampformat"),
        timestamp_ntz_format=opts.get("timestampntzformat"),
        multi_line=flag(opts, "multiLine", False),
        encoding=_encoding(opts),
        ignore_leading=flag(opts, "ignoreLeadingWhiteSpace", False),
        ignore_trailing=flag(opts, "ignoreTrailingWhiteSpace", False),
        line_sep=line_sep,
        mode=mode,
        enforce_schema=flag(opts, "enforceSchema", True),
        prefer_date=flag(opts, "preferDate", True),
    )
