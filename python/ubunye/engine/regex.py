"""The one dialect of a ``matches`` expectation's pattern, on pandas (Python ``re``) and Spark (Java).

A pattern is written in Python's syntax and means the same on both backends: what Java's regex
does by default, so

- ``\\d``, ``\\w``, ``\\s`` (and ``\\D``, ``\\W``, ``\\S``) are ASCII: ``[0-9]``, ``[A-Za-z0-9_]``,
  ``[ \\t\\n\\x0B\\f\\r]`` (``١٢٣``, ``é``, a no-break space are none of them); ``\\b`` and ``\\B`` are
  boundaries of that ``\\w``; ``(?i)`` folds ASCII letters only;
- ``.``, ``$`` and ``(?m)``'s ``^`` know one line end, ``\\n``; ``\\Z`` is the end of the text.

Python gets that with ``re.ASCII`` (:func:`python_regex`). Java gets a pattern built from
Python's own parse of the text (:func:`java_regex`), so Python's syntax reads the same there:
every literal as ``\\x{…}`` (nothing Java reads otherwise: ``[[a]``, ``[a&&b]``, ``a{,2}``,
``#`` in ``(?x)``), ``\\b`` and ``\\B`` as look-arounds over ``[A-Za-z0-9_]`` (Java 8 to 17 read
``\\b`` with Unicode letters, 19 and later with ``\\w``), ``\\Z`` as ``\\z``, and ``UNIX_LINES``
(``(?d)``) on. ``(?u)`` (Unicode classes) is refused: the two engines' Unicode classes differ;
so is a conditional group ``(?(1)…)``, which Java does not have.
"""
from __future__ import annotations

import re
import sys
import warnings
from typing import Any

try:  # Python 3.11 and later
    from re import _constants as C  # type: ignore[attr-defined]
    from re import _parser as P  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as C  # type: ignore[no-redef]
    import sre_parse as P  # type: ignore[no-redef]

WORD = "[A-Za-z0-9_]"
_CATEGORIES = {C.CATEGORY_DIGIT: r"\d", C.CATEGORY_NOT_DIGIT: r"\D", C.CATEGORY_SPACE: r"\s",
               C.CATEGORY_NOT_SPACE: r"\S", C.CATEGORY_WORD: r"\w", C.CATEGORY_NOT_WORD: r"\W"}
_NOT_EMPTY = r"(?!\A\z)" if sys.version_info < (3, 14) else ""
# Python's anchors written out (Java's ^ and $ differ: (?m)'s ^ never matches after a final line end)
_AT = {C.AT_BEGINNING: r"\A", C.AT_BEGINNING_STRING: r"\A", C.AT_END: r"(?=\n?\z)", C.AT_END_STRING: r"\z",
       C.AT_BOUNDARY: f"(?:(?<={WORD})(?!{WORD})|(?<!{WORD})(?={WORD}))",
       # Python before 3.14: \B never matches an empty text (3.14: it does, as Java's)
       C.AT_NON_BOUNDARY: f"(?:(?<={WORD})(?={WORD})|(?<!{WORD})(?!{WORD}){_NOT_EMPTY})"}


_MULTILINE_AT = {C.AT_BEGINNING: r"(?:\A|(?<=\n))", C.AT_END: r"(?=\n|\z)"}


class PatternError(ValueError):
    """A pattern that is not valid, or would not mean the same on pandas and Spark."""


def python_regex(pattern: str, *, anywhere: bool = False) -> "re.Pattern[str]":
    """The compiled pattern for pandas: ``re.ASCII``, and ``re.DOTALL`` unless ``anywhere`` (0.8.0's
    form, searched with ``.`` stopping at ``\\n``). Raises :class:`PatternError`."""
    flags = re.ASCII if anywhere else re.ASCII | re.DOTALL
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # "possible nested set": read as Python does
            return re.compile(pattern, flags)
    except (re.error, ValueError) as exc:
        if "ASCII and UNICODE" in str(exc):
            raise PatternError("(?u) asks for Unicode classes, which pandas and Spark (Java) define "
                               "differently; write the characters out (e.g. [0-9\\u0660-\\u0669])") from None
        raise PatternError(f"not a valid regular expression: {exc}") from None


def java_regex(pattern: str, *, anywhere: bool = False) -> str:
    """The Java pattern matching what :func:`python_regex` matches: the whole value
    (``\\A(?:…)\\z``, DOTALL) or, ``anywhere``, found anywhere. Raises :class:`PatternError`."""
    python_regex(pattern, anywhere=anywhere)  # Python's verdict first (the same errors)
    flags = re.ASCII if anywhere else re.ASCII | re.DOTALL
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        parsed = P.parse(pattern, flags)
    state = getattr(parsed, "state", None) or getattr(parsed, "pattern", None)
    glob = int(getattr(state, "flags", flags))
    body = _seq(parsed, bool(glob & re.M))
    # no (?m): the anchors are written out (Java's multiline ^ does not match an empty text)
    head = "(?d" + "".join(c for f, c in ((re.I, "i"), (re.S, "s")) if glob & f) + ")"
    return head + body if anywhere else f"{head}\\A(?:{body})\\z"


def _lit(code: int) -> str:
    ch = chr(code)
    return ch if ch.isascii() and ch.isalnum() else "\\x{%X}" % code


def _seq(items: Any, multiline: bool) -> str:
    return "".join(_one(op, av, multiline) for op, av in items)


def _flags(add: int, remove: int) -> str:
    on = "".join(c for f, c in ((re.I, "i"), (re.S, "s")) if add & f)  # m: the anchors say it
    off = "".join(c for f, c in ((re.I, "i"), (re.S, "s")) if remove & f)
    return on + (f"-{off}" if off else "")


def _one(op: Any, av: Any, multiline: bool) -> str:
    if op is C.LITERAL:
        return _lit(av)
    if op is C.NOT_LITERAL:
        return f"[^{_lit(av)}]"
    if op is C.ANY:
        return "."
    if op is C.IN:
        return _set(av)
    if op is C.AT:
        return _MULTILINE_AT.get(av, _AT[av]) if multiline else _AT[av]
    if op is C.BRANCH:
        return "(?:" + "|".join(_seq(alt, multiline) for alt in av[1]) + ")"
    if op is C.SUBPATTERN:
        group, add, remove, sub = av
        inner = _seq(sub, bool(add & re.M) or (multiline and not remove & re.M))
        flags = _flags(add, remove)
        if flags:
            inner = f"(?{flags}:{inner})"
        return f"({inner})" if group is not None else f"(?:{inner})"
    if op in (C.MAX_REPEAT, C.MIN_REPEAT) or op is getattr(C, "POSSESSIVE_REPEAT", None):
        lo, hi, sub = av
        count = f"{{{lo},}}" if hi == C.MAXREPEAT else f"{{{lo},{hi}}}"
        lazy = "?" if op is C.MIN_REPEAT else "+" if op is not C.MAX_REPEAT else ""
        return f"(?:{_seq(sub, multiline)}){count}{lazy}"
    if op in (C.ASSERT, C.ASSERT_NOT):
        direction, sub = av
        sign = ("=" if op is C.ASSERT else "!")
        return f"(?{'<' if direction < 0 else ''}{sign}{_seq(sub, multiline)})"
    if op is getattr(C, "ATOMIC_GROUP", None):
        return f"(?>{_seq(av, multiline)})"
    if op is C.GROUPREF:
        return f"(?:\\{av})"
    if op is C.GROUPREF_EXISTS:
        raise PatternError("a conditional group (?(…)…) has no Java equivalent on Spark")
    raise PatternError(f"{op} has no Java equivalent on Spark")  # pragma: no cover - all of sre's ops above


def _set(items: Any) -> str:
    out = []
    negate = False
    for op, av in items:
        if op is C.NEGATE:
            negate = True
        elif op is C.LITERAL:
            out.append(_lit(av))
        elif op is C.RANGE:
            out.append(f"{_lit(av[0])}-{_lit(av[1])}")
        elif op is C.CATEGORY:
            out.append(_CATEGORIES[av])
        else:  # pragma: no cover - the parser gives no other item in a set
            raise PatternError(f"{op} in a character class has no Java equivalent on Spark")
    return "[" + ("^" if negate else "") + "".join(out) + "]"
