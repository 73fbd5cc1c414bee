"""Errors of the rows-v1 hash (spec section 5: honest failure)."""
from __future__ import annotations


class RowsV1Error(ValueError):
    """A table, column, type or value that has no canonical rows-v1 text.

    The message is one line and names the column and the type at fault.
    """


def one_line_error(exc: BaseException) -> str:
    """``"<ErrorType>: <message>"`` on one line, as a fingerprint's ``error``."""
    message = " ".join(str(exc).split()) or repr(exc)
    return f"{type(exc).__name__}: {message}"

