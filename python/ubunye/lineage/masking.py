"""Keeping secrets out of run records: the functions of earlier versions, now thin names over
the one masking path, :mod:`ubunye.masking` (its :class:`~ubunye.masking.Masker`).

``secrets`` given to a function here are masked as well as every value the current masker
knows (the run's, else the process's).
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping, Optional

from ubunye.masking import ERROR_LIMIT, MASK, Masker, current, is_secret_name

__all__ = ["MASK", "ERROR_LIMIT", "is_secret_name", "remember_secret", "mask_text", "mask_location",
           "secret_values", "mask_variables", "mask_error", "format_error", "mask_options"]


def _masker(secrets: Iterable[str]) -> Masker:
    extra = [s for s in secrets if s]
    return Masker(extra, parent=current()) if extra else current()


def remember_secret(value: str) -> None:
    """Mask ``value`` (a resolved ``secret://`` reference) wherever the current masker masks."""
    current().add(value)


def mask_text(text: str, secrets: Iterable[str] = ()) -> str:
    """URL passwords, secret-looking parameters, tokens and known secret values masked."""
    return _masker(secrets).text(text)


def mask_location(location: Optional[str], secrets: Iterable[str] = ()) -> Optional[str]:
    """A location with any password removed (None stays None)."""
    return None if location is None else mask_text(str(location), secrets)


def secret_values(variables: Mapping[str, Any]) -> list[str]:
    """The string values of the secret-looking variables (to scrub them from texts)."""
    found: list[str] = []
    for key, value in variables.items():
        if isinstance(value, Mapping):
            found.extend(secret_values(value))
        elif is_secret_name(str(key)) and value is not None:
            found.append(str(value))
    return found


def mask_variables(variables: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``variables`` fit for a record: secret names become ``"***"``, strings are
    masked like locations, nested mappings and lists are walked."""
    masker = _masker(secret_values(variables))
    return {str(k): v for k, v in masker.doc(_plain(variables), skip=frozenset()).items()}


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def mask_error(text: Optional[str], secrets: Iterable[str] = (), limit: int = ERROR_LIMIT) -> Optional[str]:
    """An error text masked like a location and cut to at most ``limit`` characters."""
    return None if text is None else _masker(secrets).error(str(text), limit)


def format_error(exc: BaseException, secrets: Iterable[str] = (), limit: int = ERROR_LIMIT) -> str:
    """``"<ErrorType>: <message>"`` for a record, masked and capped."""
    result = _masker(secrets).error(exc, limit)
    assert result is not None
    return result


def mask_options(options: Optional[Mapping[str, Any]], secrets: Iterable[str] = ()) -> Optional[dict[str, str]]:
    """Reader options as recorded: a secret-looking name's value is ``***``; other values are
    masked like locations (a URL's password, known secret values)."""
    if options is None:
        return None
    masker = _masker(secrets)
    return {str(k): MASK if is_secret_name(str(k)) else masker.text(str(v)) for k, v in options.items()}
