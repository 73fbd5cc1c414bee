"""Java's JDK 19+ ``Double.toString`` / ``Float.toString`` text (spec 2.3).

The digits are the shortest decimal that rounds back to the value (Python's
``repr`` for doubles, numpy's unique Dragon4 digits for float32); when that is
a single digit, the closest decimal of one or two digits is taken instead
(``4.9E-324``, not ``5.0E-324``). Layout: plain notation for
``1e-3 <= |x| < 1e7``, else ``d.dddE<exp>``.

Non-finite values return the bare words ``NaN``, ``Infinity``, ``-Infinity``;
the line writer quotes them.
"""
from __future__ import annotations

import math
from decimal import ROUND_HALF_EVEN, Context, Decimal

_TWO_DIGITS = Context(prec=2, rounding=ROUND_HALF_EVEN)


def double_text(x: float) -> str:
    """Java (JDK 19+) ``Double.toString(x)``."""
    special = _special(x)
    if special is not None:
        return special
    ax = abs(x)
    digits, exp = _repr_digits(repr(ax))
    if len(digits) == 1:
        digits, exp = _two_digit_rule(ax, digits, exp, lambda c: float(c) == ax)
    return _layout(x < 0, digits, exp, ax)


def float_text(x: float) -> str:
    """Java (JDK 19+) ``Float.toString`` of the float32 value nearest ``x``."""
    import numpy as np

    f = np.float32(x)
    special = _special(float(f))
    if special is not None:
        return special
    af = abs(f)
    mantissa, _, exponent = np.format_float_scientific(af, unique=True).partition("e")
    digits = mantissa.replace(".", "").rstrip("0") or "0"
    exp = int(exponent)
    if len(digits) == 1:
        digits, exp = _two_digit_rule(
            float(af), digits, exp, lambda c: np.float32(float(c)) == af
        )
    return _layout(bool(f < 0), digits, exp, float(af))


def _special(x: float) -> str | None:
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0.0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    return None


def _repr_digits(text: str) -> tuple[str, int]:
    """Significant digits and decimal exponent (value = d.ddd x 10^exp) of a repr."""
    mantissa, _, exponent = text.partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = whole + frac
    point = len(whole) + (int(exponent) if exponent else 0)
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    return stripped.rstrip("0") or "0", point - 1


def _two_digit_rule(ax: float, digits: str, exp: int, rounds_back: "object") -> tuple[str, int]:
    """Closest decimal of at most two digits, if it still reads back as the value."""
    candidate = _TWO_DIGITS.plus(Decimal(ax))
    if not rounds_back(candidate):  # type: ignore[operator]
        return digits, exp
    sign, cdigits, cexp = candidate.as_tuple()
    text = "".join(str(d) for d in cdigits)
    new_exp = int(cexp) + len(text) - 1
    return text.rstrip("0") or "0", new_exp


def _layout(negative: bool, digits: str, exp: int, ax: float) -> str:
    sign = "-" if negative else ""
    if 1e-3 <= ax < 1e7:
        if exp >= 0:
            whole = digits[: exp + 1].ljust(exp + 1, "0")
            frac = digits[exp + 1:] or "0"
        else:
            whole, frac = "0", "0" * (-exp - 1) + digits
        return f"{sign}{whole}.{frac}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{exp}"
