"""Reader options as Spark takes them: names case-insensitive, values strings.

``spark.read.option(key, value)`` keeps ``str(value)`` for strings and numbers and
``"true"``/``"false"`` for booleans, and looks names up case-insensitively. The
pandas readers of :mod:`ubunye.io` take the same mapping; each reader lists the
options it follows (``OPTIONS``), and any other option is refused in one line that
names it, never silently ignored (an ignored ``sep`` reads a different table).
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping, Optional


class UnsupportedOption(ValueError):
    """A reader option the pandas reader does not follow (the message names it)."""


def spark_value(value: Any) -> str:
    """The string Spark keeps for an option value (``True`` is ``"true"``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def normalize(options: Optional[Mapping[str, Any]]) -> dict[str, str]:
    """Options keyed by lower-case name, with Spark's string values.

    Raises :class:`UnsupportedOption` when two names differ only by case (Spark
    would keep one of them without a word).
    """
    out: dict[str, str] = {}
    seen: dict[str, str] = {}
    for key, value in (options or {}).items():
        name = str(key)
        low = name.lower()
        if low in seen:
            raise UnsupportedOption(f"options {seen[low]!r} and {name!r} name the same option (names ignore case)")
        seen[low] = name
        out[low] = spark_value(value)
    return out


def check(fmt: str, options: Mapping[str, str], followed: Iterable[str]) -> None:
    """Refuse the first option (lower-case name) the reader of ``fmt`` does not follow."""
    allowed = {name.lower() for name in followed}
    for name in options:
        if name not in allowed:
            listed = ", ".join(sorted(allowed)) or "none"
            raise UnsupportedOption(
                f"option {name!r} is not followed by the pandas reader of {fmt} (it follows: {listed})")


def flag(options: Mapping[str, str], name: str, default: bool) -> bool:
    """A boolean option (``"true"``/``"false"``, any case), as Spark parses it; refuses other text."""
    value = options.get(name.lower())
    if value is None:
        return default
    low = value.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    raise UnsupportedOption(f"option {name!r} must be true or false; got {value!r}")
