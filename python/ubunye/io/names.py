"""Column names that differ only by case: refused as Spark refuses them, in one shared line.

Spark resolves names case-insensitively (its default ``spark.sql.caseSensitive=false``),
so a file with columns ``a`` and ``A`` has one name twice and Spark refuses it
(``[COLUMN_ALREADY_EXISTS] The column `a` already exists``, the name lower-cased).
The pandas readers refuse such a table too, and both engine backends say the same
line: :func:`message` (the Spark backend maps Spark's error with :func:`from_spark_error`).
"""
from __future__ import annotations

import re
from typing import Iterable, Optional

# Spark 3.4+ (error class) and older Spark (free text) name the duplicate lower-cased.
_SPARK_PATTERNS = (
    re.compile(r"\[COLUMN_ALREADY_EXISTS\]\s*The column `((?:[^`]|``)*)` already exists"),
    re.compile(r"Found duplicate column\(s\) in the [a-z ]*schema: `((?:[^`]|``)*)`"),
)


class DuplicateColumns(ValueError):
    """Two column names that are the same when case is ignored (the message is :func:`message`)."""


def message(name: str) -> str:
    """The one line both backends give for ``name`` (lower-cased) appearing twice."""
    return (f"column {name.lower()!r} appears more than once when case is ignored (Spark refuses names that "
            "differ only by case while spark.sql.caseSensitive is false)")


def case_duplicate(names: Iterable[str]) -> Optional[str]:
    """The first name (lower-cased) seen twice when case is ignored, or None."""
    seen: set[str] = set()
    for name in names:
        low = name.lower()
        if low in seen:
            return low
        seen.add(low)
    return None


def check_unique(names: Iterable[str]) -> None:
    """Raise :class:`DuplicateColumns` when two names differ only by case (or not at all)."""
    dup = case_duplicate(names)
    if dup is not None:
        raise DuplicateColumns(message(dup))


def from_spark_error(text: str) -> Optional[str]:
    """:func:`message` for a Spark error about a duplicate column, else None."""
    for pattern in _SPARK_PATTERNS:
        match = pattern.search(text)
        if match:
            return message(match.group(1).replace("``", "`"))
    return None
