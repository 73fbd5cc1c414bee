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
# the charsets Spark 4 accepts (spark.sql.legacy.javaCharsets=false)
SPARK_CHARSETS = ("iso-8859-1", "us-ascii", "utf-16", "utf-16be", "utf-16le", "utf-32", "utf-8")

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
    """The Python codec of ``encoding``/``charset``: Spark 4's charsets that extend ASCII."""
    name = opts.get("encoding", opts.get("charset", "UTF-8"))
    low = name.lower()
    if low not in SPARK_CHARSETS:
        raise UnsupportedOption(f"option 'encoding' {name!r} is invalid: Spark 4 expects one of "
                                f"{', '.join(SPARK_CHARSETS)}")
    if low.startswith(("utf-16", "utf-32")):
        raise UnsupportedOption(f"option 'encoding' {name!r} is not followed by the pandas reader of csv "
                                "(iso-8859-1, us-ascii and utf-8 are)")
    return codecs.lookup(low).name


def parse(opts: Mapping[str, str]) -> CsvOptions:
    """Spark's CSV options from a normalized option mapping.

    ``header`` and ``inferSchema`` default to true: the engine reads csv with both on.
    """
    line_sep = opts.get("linesep")
    if line_sep == "":
        raise UnsupportedOption("option 'lineSep' cannot be an empty string")
    if line_sep is not None and len(line_sep) > 2:  # Spark allows two, for \r\n
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
