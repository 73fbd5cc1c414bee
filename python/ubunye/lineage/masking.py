"""Keeping secrets out of run records.

Three things are masked before anything is written:

- locations and other texts: the password of a URL (``scheme://user:pass@host``
  becomes ``scheme://user:***@host``) and the value of every ``key=value``
  parameter whose key looks secret (``password=``, ``token=``, ``AccountKey=``,
  ``sig=`` ...), whether it sits in a query string, a JDBC/ODBC string or a
  connection string;
- variables whose name looks secret: their value becomes ``"***"``;
- error texts: masked like locations, with the values of secret variables
  removed too, and cut to :data:`ERROR_LIMIT` characters.
"""
from __future__ import annotations

import re
from typing import Any, Iterable, Mapping, Optional

MASK = "***"
ERROR_LIMIT = 2000
_TRUNCATED = " ... [truncated]"

# Parts of a name that make it secret, matched case-insensitively anywhere in it.
_SECRET_PARTS = (
    "password",
    "passwd",
    "passphrase",
    "pwd",
    "secret",
    "token",
    "apikey",
    "api_key",
    "api-key",
    "accesskey",
    "access_key",
    "access-key",
    "accountkey",
    "account_key",
    "privatekey",
    "private_key",
    "credential",
    "sas_key",
    "saskey",
)
# Whole name segments (split on _ - . and case changes) that make it secret.
_SECRET_SEGMENTS = frozenset({"auth", "authorization", "sig", "signature", "pass", "pw"})
# "<word>_key" is secret for these words; "key" alone is secret too.
_SECRET_KEY_PREFIXES = frozenset({"secret", "master", "shared", "storage", "client", "encryption", "signing"})

# user:password@ inside a URL-like text (scheme://user:pass@host).
_URL_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*://)(?P<user>[^:/@\s]*):(?P<pw>[^@/\s]*)@")
# key=value inside query strings, JDBC/ODBC strings and connection strings.
_PARAM = re.compile(r"(?P<key>[A-Za-z_][\w.\-]*)(?P<sep>\s*=\s*)(?P<value>\"[^\"]*\"|'[^']*'|[^&;,\s\"')]+)")
# "Authorization: Bearer xyz" / "Basic xyz" in error texts.
_BEARER = re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=\-]{8,}")


def _segments(name: str) -> list[str]:
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    return [s for s in re.split(r"[_\-.\s]+", spaced.lower()) if s]


def is_secret_name(name: str) -> bool:
    """True when a variable or parameter name looks like it holds a secret."""
    lowered = name.lower()
    if any(part in lowered for part in _SECRET_PARTS):
        return True
    segments = _segments(name)
    if segments == ["key"] or any(s in _SECRET_SEGMENTS for s in segments):
        return True
    return len(segments) > 1 and segments[-1] == "key" and segments[-2] in _SECRET_KEY_PREFIXES


# Values of ``secret://`` references this process resolved (ubunye.engine.secrets): masked in every text.
_RESOLVED: set[str] = set()


def remember_secret(value: str) -> None:
    """Mask ``value`` (a resolved ``secret://`` reference) wherever :func:`mask_text` masks."""
    if value:
        _RESOLVED.add(value)


def mask_text(text: str, secrets: Iterable[str] = ()) -> str:
    """Mask URL passwords, secret-looking ``key=value`` parameters, known secret values and
    the resolved ``secret://`` values."""
    out = _URL_USERINFO.sub(lambda m: f"{m['scheme']}{m['user']}:{MASK}@", text)
    out = _PARAM.sub(
        lambda m: f"{m['key']}{m['sep']}{MASK}" if is_secret_name(m["key"]) else m.group(0), out
    )
    out = _BEARER.sub(lambda m: f"{m.group(1)} {MASK}", out)
    for value in sorted({s for s in (*secrets, *_RESOLVED) if len(s) >= 4}, key=len, reverse=True):
        out = out.replace(value, MASK)
    return out


def mask_location(location: Optional[str], secrets: Iterable[str] = ()) -> Optional[str]:
    """A location with any password removed (None stays None)."""
    if location is None:
        return None
    return mask_text(str(location), secrets)


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
    """A copy of ``variables`` fit for a record: secret names become ``"***"``,
    strings are masked like locations, nested mappings and lists are walked."""
    secrets = secret_values(variables)

    def clean(key: str, value: Any) -> Any:
        if is_secret_name(key):
            return MASK
        return _clean_value(value, secrets)

    return {str(k): clean(str(k), v) for k, v in variables.items()}


def _clean_value(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, str):
        return mask_text(value, secrets)
    if isinstance(value, Mapping):
        return {str(k): (MASK if is_secret_name(str(k)) else _clean_value(v, secrets)) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean_value(v, secrets) for v in value]
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return mask_text(str(value), secrets)


def mask_error(text: Optional[str], secrets: Iterable[str] = (), limit: int = ERROR_LIMIT) -> Optional[str]:
    """An error text masked like a location and cut to at most ``limit`` characters."""
    if text is None:
        return None
    masked = mask_text(str(text), secrets)
    if len(masked) <= limit:
        return masked
    return masked[: max(0, limit - len(_TRUNCATED))] + _TRUNCATED


def format_error(exc: BaseException, secrets: Iterable[str] = (), limit: int = ERROR_LIMIT) -> str:
    """``"<ErrorType>: <message>"`` for a record, masked and capped."""
    message = str(exc)
    text = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    result = mask_error(text, secrets, limit)
    assert result is not None
    return result


def mask_options(options: Optional[Mapping[str, Any]], secrets: Iterable[str] = ()) -> Optional[dict[str, str]]:
    """Reader options as recorded: a secret-looking name's value is ``***``; other values are
    masked like locations (a URL's password, known secret values)."""
    if options is None:
        return None
    return {str(k): MASK if is_secret_name(str(k)) else mask_text(str(v), secrets) for k, v in options.items()}

