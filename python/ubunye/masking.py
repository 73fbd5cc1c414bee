"""The one masking path: every text that leaves the process passes a :class:`Masker`.

A :class:`Masker` knows the resolved secrets of a run (``secret://`` values, the values of
variables whose names look secret, jdbc passwords, the passwords found in the run's locations)
and masks, in any text:

- the password of a URL, up to the last ``@`` before the host (``scheme://user:***@host``; the
  password may hold ``/``, ``@`` and ``:``; an empty user too: ``redis://:***@host``);
- Oracle's ``jdbc:oracle:thin:user/***@host``;
- every ``key=value`` whose key looks secret (``password=``, ``api_key=``, ``token=``, ``sig=``,
  ``X-Amz-Signature=`` ...), SQL Server's ``{...}`` values with ``;`` and ``}}`` inside included,
  and ``'password': '...'`` pairs of a dict's repr or a JSON text;
- ``Bearer`` tokens and ``Basic`` credentials;
- every known secret value in its raw, ``repr``, JSON-escaped, URL-encoded (percent-escapes in
  either case: ``%2F`` and ``%2f``) and whitespace-collapsed forms (and each line of a multi-line
  secret). A value of at least ``LONG`` (8) characters is masked wherever it occurs. A shorter
  value is masked only where it stands alone as a token: not inside a word nor joined to one by
  ``-`` or ``_`` (a password ``p`` leaves ``-p`` alone), and not as a part of a path or a file
  name: never right after ``/``, ``\\`` or ``.``, nor right before ``/`` or a ``.`` that goes
  on (``data.csv``); after a repr's ``\\n`` it stands alone, and ``user/data@host`` is masked
  too. So a password ``data`` is masked in ``password=data``, ``user:data@host`` and ``was
  data.``, never in ``/tmp/x/data/people.csv``. A value is never masked inside a longer
  hexadecimal digest or uuid (a run id, a hash).

Each run has its own masker (:meth:`Masker.for_run`, made current with :func:`active`); what a
run learns is also kept by the process masker (:func:`process`), so a secret of an earlier run,
or one seen by a thread the run started, is still masked. :func:`current` is the run's masker
inside :func:`active`, else the process masker. This module imports nothing from ubunye.
"""
from __future__ import annotations

import functools

import json
import logging
import re
import threading
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Iterable, Iterator, Mapping, Optional, Union
from urllib.parse import quote, quote_plus, unquote, unquote_plus

MASK = "***"
ERROR_LIMIT = 2000
RECORD_ERROR_LIMIT = 65536  # a record keeps the whole (masked) error up to this; lines show ERROR_LIMIT
_TRUNCATED = " ... [truncated]"
SHORT = 4  # a number shorter than this is a setting (``sig_figs: 3``), never a secret
LONG = 8  # values shorter than this are masked only where they stand alone as a token (not in a path)

# Record fields that hold ids, hashes, seals, the identity that places a record in its store,
# instants, the environment and a step's localisation sketch (digests in base64): never masked
# (a short secret can occur in a digest or a date).
HASH_KEYS = frozenset({
    "run_id", "seal", "data_hash", "schema_hash", "config_hash", "code_hash", "environment_hash",
    "storage_signature", "hash_method", "hash_engine", "hash_pass", "record_version",
    "usecase", "package", "task_name", "task_path", "started_at", "ended_at", "environment",
    "direction", "status", "sketch",
})
# Record fields whose keys are the user's names (``--var status=...`` is no record status):
# HASH_KEYS do not apply inside them.
USER_KEYS = frozenset({"variables"})

# Parts of a name that make it secret, matched case-insensitively anywhere in it.
_SECRET_PARTS = (
    "password", "passwd", "passphrase", "pwd", "secret", "token", "apikey", "api_key", "api-key",
    "accesskey", "access_key", "access-key", "accountkey", "account_key", "privatekey", "private_key",
    "credential", "sas_key", "saskey",
)
# Whole name segments (split on _ - . and case changes) that make it secret.
_SECRET_SEGMENTS = frozenset({"auth", "authorization", "sig", "signature", "pw"})
# A segment holding ``pass`` is secret (``pass``, ``dbpass``, ``smtp_pass``, ``DBPASS``) unless it is
# one of these words, which name no secret.
_PASS_WORDS = frozenset({"passed", "passing", "passenger", "passengers", "passage", "passive", "compass",
                         "bypass", "surpass"})
# "<word>_key" is secret for these words; "key" alone is secret too.
# "<word>.key" anywhere in a dotted name too: Hadoop's ``fs.azure.account.key.<account>.dfs.core.windows.net``.
_SECRET_KEY_PREFIXES = frozenset({"secret", "master", "shared", "storage", "client", "encryption", "signing",
                                  "account"})

_STOP = r"\s\"'<>`"  # characters that end a URL-like token
# scheme://user:password@ (the password runs to the last @ of the token: it may hold / @ :;
# at most 512 characters, which keeps the pattern linear on long texts)
_URL_USERINFO = re.compile(rf"(?P<head>(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]*://(?P<user>[^:/?#@{_STOP}]*):)(?P<pw>[^{_STOP}]{{0,512}})@")
# jdbc:oracle:thin:user/password@host
_ORACLE = re.compile(rf"(?i)(?P<head>jdbc:oracle:[a-z0-9]+:(?P<user>[^/@:{_STOP}]+)/)(?P<pw>[^{_STOP}]{{0,512}})@")
# key=value in query strings, JDBC/ODBC strings and connection strings (a key starts a token:
# the lookbehinds keep these patterns linear on long texts)
_PARAM = re.compile(
    r"(?<![\w.\-])(?P<key>[A-Za-z_][\w.\-]*)(?P<sep>\s*=\s*)"
    r"(?P<value>\{(?:[^}]|\}\})*\}|\"[^\"]*\"|'[^']*'|(?:[^&;,\s\"')\]}]|[,)\]}](?=[^\s&;,)\]}]))+)"
)
# 'password': 'value' (a dict's repr) and "password": "value" (JSON)
_QUOTED_PAIR = re.compile(r"(?P<q>[\"'])(?P<key>[\w.\-]+)(?P=q)(?P<sep>\s*:\s*)(?P<v>\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*')")
# Authorization: Bearer <token> / Basic <base64 of user:password>
_BEARER = re.compile(r"(?i)\b(?P<kind>bearer)(?P<sep>\s+)(?P<tok>[A-Za-z0-9._~+/\-]+=*)")
_BASIC = re.compile(r"\b(?P<kind>Basic|BASIC|basic)(?P<sep>\s+)(?P<tok>[A-Za-z0-9+/]{4,}=*)")
# long hexadecimal digests and uuids: a known value is never masked inside one
_DIGEST = r"(?<![0-9A-Za-z])(?:[0-9a-fA-F]{32,}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})(?![0-9A-Za-z])"


# Where a short value stands alone as a token: no word character, ``-``, or path or name part
# (``/`` ``\`` ``.``) before it; no word character, ``-``, ``/`` or ``.`` that goes on after it (a
# ``.`` ending a sentence is fine; a ``\`` after it is an escape: ``\"data\"`` in JSON in JSON).
_TOKEN_START = r"(?:(?<![\w\-./\\])|(?<=\\[ntr]))"  # (``\n`` ``\t`` ``\r`` in a repr: no word before)
_TOKEN_END = r"(?![\w\-/]|\.[^\s])"


def _token(form: str) -> str:
    """A short value's pattern: a whole token, or the password of ``user/password@host``."""
    escaped = _escaped(form)
    return rf"{_TOKEN_START}{escaped}{_TOKEN_END}|(?<=/){escaped}(?=@)"


def _escaped(form: str) -> str:
    """``form`` as a pattern; its percent-escapes match in either case (``%2F``, ``%2f``)."""
    return re.sub(r"%([0-9A-Fa-f])([0-9A-Fa-f])",
                  lambda m: "%" + "".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else c for c in m.groups()),
                  re.escape(form))


def _segments(name: str) -> list[str]:
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    return [s for s in re.split(r"[_\-.\s]+", spaced.lower()) if s]


@functools.lru_cache(maxsize=8192)  # a pure function of the name; records repeat the same keys
def is_secret_name(name: str) -> bool:
    """True when a variable or parameter name looks like it holds a secret."""
    lowered = name.lower()
    if any(part in lowered for part in _SECRET_PARTS):
        return True
    segments = _segments(name)
    if segments == ["key"] or any(s in _SECRET_SEGMENTS for s in segments):
        return True
    if "pass" in lowered and any("pass" in s and s not in _PASS_WORDS for s in segments):
        return True
    return any(s == "key" and before in _SECRET_KEY_PREFIXES for before, s in zip(segments, segments[1:]))


def _secret_key(name: str) -> bool:
    """A key whose value is masked in a text: secret-looking, and not a record's own field
    (``hash_pass``, ``storage_signature`` hold no secret: a printed record keeps them)."""
    return name not in HASH_KEYS and is_secret_name(name)


def _is_basic_credential(token: str) -> bool:
    import base64
    import binascii

    try:
        decoded = base64.b64decode(token + "=" * (-len(token) % 4), validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return False
    return ":" in decoded


def _forms(value: str) -> set[str]:
    """The forms a secret takes in texts: raw, collapsed, its lines, escaped, URL-encoded."""
    bases = {value, " ".join(value.split())}
    if "\n" in value or "\r" in value:
        bases |= {line.strip() for line in value.splitlines() if len(line.strip()) >= 8}
    forms: set[str] = set()
    for base in bases:
        r = repr(base)[1:-1]
        for escaped in (r, repr(r)[1:-1], repr(repr(base))[2:-2]):  # a repr, a repr in a repr (quotes off)
            forms |= {escaped, escaped.replace("'", "\\'"), escaped.replace('"', '\\"')}
        forms |= {base, json.dumps(base)[1:-1], json.dumps(base, ensure_ascii=False)[1:-1],
                  json.dumps(json.dumps(base)[1:-1])[1:-1], quote(base, safe=""), quote(base), quote_plus(base)}
    return {f for f in forms if f.strip()}


def _secrets_in(text: str) -> list[str]:
    """The passwords a location or connection text carries (to mask them wherever they appear)."""
    found = [m["pw"] for m in (*_URL_USERINFO.finditer(text), *_ORACLE.finditer(text))]
    for m in _PARAM.finditer(text):
        if is_secret_name(m["key"]):
            value = m["value"]
            if value[:1] == "{" and value[-1:] == "}":
                found += [value, value[1:-1].replace("}}", "}")]
            found.append(value.strip("\"'"))
    # a URL or a query string carries its password percent-encoded: a driver decodes it (and may
    # print what it decoded), so the decoded value is a secret too
    return [v for v in dict.fromkeys(d for f in found for d in (f, unquote(f), unquote_plus(f))) if v]


class Masker:
    """Masks texts, errors and JSON documents with the rules above and the values it knows."""

    def __init__(self, values: Iterable[str] = (), *, parent: Optional["Masker"] = None) -> None:
        self.parent = parent
        self._values: set[str] = set()
        self._lock = threading.Lock()
        self._built: Optional[tuple[frozenset[str], re.Pattern[str], frozenset[str]]] = None
        for value in values:  # this masker's own (the parent learns only what add() is given)
            text = "" if value is None else str(value)
            if text.strip():
                self._values.add(text)

    @classmethod
    def for_run(cls, variables: Optional[Mapping[str, Any]] = None) -> "Masker":
        """A run's masker: it knows the run's secret-named variables and everything the process knows.
        A run masks the log lines of ``ubunye`` and ``py4j`` (:func:`install_log_filter`), also when
        a library caller (a notebook, a job) runs it without the CLI, and the text of every warning
        (:func:`install_warning_mask`)."""
        install_log_filter()
        install_warning_mask()
        masker = cls(parent=process())
        masker.add_variables(variables or {})
        return masker

    # --- learning ----------------------------------------------------------
    def add(self, value: Any) -> None:
        """Mask ``value`` (a resolved secret, a jdbc password) wherever this masker masks."""
        if value is None or isinstance(value, bool):
            return
        text = str(value)
        if not text.strip() or text == MASK or (not isinstance(value, str) and len(text) < SHORT):
            return  # a number such as ``sig_figs: 3`` is a setting, not a secret; ``***`` was masked
        with self._lock:
            self._values.add(text)
        if self.parent is not None:
            self.parent.add(text)

    def add_variables(self, variables: Mapping[str, Any]) -> None:
        """The values of the variables whose names look secret (nested mappings and lists walked:
        each item of a list under a secret name is a secret), and the passwords their texts carry."""
        for key, value in variables.items():
            self._add_variable(value, is_secret_name(str(key)))

    def _add_variable(self, value: Any, secret: bool) -> None:
        if isinstance(value, Mapping):
            self.add_variables(value)  # as Masker.doc: a mapping's own keys say what is secret
        elif isinstance(value, (list, tuple)):
            for item in value:
                self._add_variable(item, secret)
        elif secret and value is not None:
            self.add(value)
        elif isinstance(value, str):
            self.add_location(value)

    def add_location(self, text: Optional[str]) -> None:
        """The passwords a location carries (URL userinfo, JDBC forms, secret parameters)."""
        for value in _secrets_in(str(text or "")):
            self.add(value)

    def clear(self) -> None:
        """Forget every value this masker was given (a test suite: each test as a fresh process)."""
        with self._lock:
            self._values.clear()

    def values(self) -> frozenset[str]:
        with self._lock:
            own = frozenset(self._values)
        return own | self.parent.values() if self.parent is not None else own

    # --- masking -----------------------------------------------------------
    def text(self, s: Any) -> str:
        """``s`` (as text) with every password, secret parameter, token and known value masked."""
        out = str(s)
        built = self._values_pattern()  # known values first: a rule below may cut one in two
        if built is not None:
            pattern, forms = built  # a digest is kept unless it is itself a known value (a hex API key)
            out = pattern.sub(lambda m: m.group(0) if m.lastgroup == "digest" and m.group(0) not in forms
                              else MASK, out)
        out = _URL_USERINFO.sub(lambda m: f"{m['head']}{MASK}@", out)
        out = _ORACLE.sub(lambda m: f"{m['head']}{MASK}@", out)
        out = _PARAM.sub(lambda m: f"{m['key']}{m['sep']}{MASK}" if _secret_key(m["key"]) else m.group(0), out)
        out = _QUOTED_PAIR.sub(
            lambda m: f"{m['q']}{m['key']}{m['q']}{m['sep']}{m['v'][0]}{MASK}{m['v'][0]}"
            if _secret_key(m["key"]) else m.group(0), out)
        out = _BEARER.sub(lambda m: f"{m['kind']}{m['sep']}{MASK}", out)
        return _BASIC.sub(lambda m: f"{m['kind']}{m['sep']}{MASK}" if _is_basic_credential(m["tok"]) else m.group(0), out)

    def error(self, e: Union[BaseException, str, None], limit: int = ERROR_LIMIT) -> Optional[str]:
        """An error as one text for a record or a line: ``"<Type>: <message>"`` for an
        exception, masked, cut to at most ``limit`` characters."""
        if e is None:
            return None
        if isinstance(e, BaseException):
            message = str(e)
            e = f"{type(e).__name__}: {message}" if message else type(e).__name__
        masked = self.text(e)
        if len(masked) <= limit:
            return masked
        return masked[: max(0, limit - len(_TRUNCATED))] + _TRUNCATED

    def doc(self, obj: Any, *, skip: frozenset[str] = HASH_KEYS) -> Any:
        """A copy of a JSON tree with every string masked and every value under a secret-looking
        key ``"***"``; the values under ``skip`` (ids, hashes, the seal) are kept as they are."""
        if isinstance(obj, str):
            return self.text(obj)
        if isinstance(obj, Mapping):
            out: dict[Any, Any] = {}
            for key, value in obj.items():
                name = str(key)
                if name in skip:
                    masked = value
                elif is_secret_name(name) and value is not None and not isinstance(value, (bool, Mapping)):
                    masked = MASK
                else:
                    masked = self.doc(value, skip=frozenset() if name in USER_KEYS else skip)
                out[self._key(key, out)] = masked
            return out
        if isinstance(obj, (list, tuple)):
            return [self.doc(v, skip=skip) for v in obj]
        return obj

    def _key(self, key: Any, taken: Mapping[Any, Any]) -> Any:
        """A mapping's key as it may be shown: masked like any text (a variable named by a
        secret value, an option named by a URL with a password); two keys that mask alike stay
        two (``#2``, ``#3`` ... after the second)."""
        if not isinstance(key, str):
            return key
        masked = self.text(key)
        if masked == key:
            return key
        unique, n = masked, 1
        while unique in taken:
            n += 1
            unique = f"{masked}#{n}"
        return unique

    def _values_pattern(self) -> Optional[tuple[re.Pattern[str], frozenset[str]]]:
        """The pattern of every known value's forms (after the digests it keeps), and the forms."""
        values = self.values()
        if not values:
            return None
        built = self._built  # (values, pattern, forms): one read, so another thread's rebuild cannot mix them
        if built is not None and built[0] == values:
            return built[1], built[2]
        forms = sorted({(f, len(v) >= LONG) for v in values for f in _forms(v)}, key=lambda f: len(f[0]),
                       reverse=True)
        parts = [_escaped(f) if anywhere else _token(f) for f, anywhere in forms]
        pattern = re.compile(rf"(?P<digest>{_DIGEST})|{'|'.join(parts)}")
        self._built = (values, pattern, frozenset(f for f, _ in forms))
        return pattern, self._built[2]


_PROCESS = Masker()
_CURRENT: ContextVar[Optional[Masker]] = ContextVar("ubunye_masker", default=None)


def process() -> Masker:
    """The process's masker: every secret any run of this process learned."""
    return _PROCESS


def current() -> Masker:
    """The masker of the run in progress (see :func:`active`), else the process's."""
    return _CURRENT.get() or _PROCESS


@contextmanager
def active(masker: Masker) -> Iterator[Masker]:
    """Make ``masker`` the current one for the block (this thread or task and what it starts)."""
    token = _CURRENT.set(masker)
    try:
        yield masker
    finally:
        _CURRENT.reset(token)


def mask(text: Any) -> str:
    """``text`` masked by the current masker."""
    return current().text(text)


class MaskedError(Exception):
    """An exception whose texts are masked when it is made (the project's own errors derive from it)."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*(mask(a) if isinstance(a, str) else a for a in args))


class MaskedCause(MaskedError):
    """Stands for an exception whose text held a secret: its type and masked text, no frames
    (a job log prints a cause's traceback and message; a debugger's frames hold the values)."""


def safe_cause(error: Optional[BaseException], masker: Optional[Masker] = None) -> Optional[BaseException]:
    """``error`` itself when no text along its chain changes under masking (``masker``: the
    run's, else the current one), else a masked copy (:class:`MaskedCause`) to chain instead."""
    text = (masker or current()).text
    seen: list[BaseException] = []
    link = error
    while link is not None and all(link is not s for s in seen) and len(seen) < 50:
        seen.append(link)
        link = link.__cause__ if link.__cause__ is not None else (None if link.__suppress_context__ else link.__context__)
    if error is None or all(text(str(e)) == str(e) and text(repr(e)) == repr(e) for e in seen):
        return error
    return MaskedCause(text(f"{type(error).__name__}: {error}"))


@contextmanager
def masked_causes() -> Iterator[None]:
    """Re-raise a :class:`MaskedError` raised in the block with its cause made safe
    (:func:`safe_cause`): ``raise ConfigError(...) from exc`` keeps no secret in ``exc``."""
    try:
        yield
    except MaskedError as exc:
        if exc.__cause__ is not None:
            exc.__cause__ = safe_cause(exc.__cause__)
        elif exc.__context__ is not None and not exc.__suppress_context__:
            exc.__context__ = safe_cause(exc.__context__)
        raise


def mask_doc(obj: Any) -> Any:
    """A JSON tree masked by the current masker (ids and hashes kept)."""
    return current().doc(obj)


class MaskFilter(logging.Filter):
    """Rewrites each log record's message through the current masker (arguments merged in)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a broken format: mask what there is
            message = f"{record.msg} {record.args}"
        record.msg = mask(message)
        record.args = None
        if record.exc_info and record.exc_info[1] is not None:
            import traceback

            record.exc_text = mask("".join(traceback.format_exception(*record.exc_info)).rstrip("\n"))
            record.exc_info = None
        return True


LOGGERS = ("ubunye", "py4j")


def install_warning_mask() -> None:
    """Mask the text of every warning Python formats (``warnings.formatwarning``, which the default
    ``showwarning`` and ``logging.captureWarnings`` use); installed once, around whatever
    formatter was there."""
    import warnings

    shown = warnings.formatwarning
    if getattr(shown, "ubunye_masking", False):
        return

    def formatwarning(message: Any, category: Any, filename: str, lineno: int, line: Optional[str] = None) -> str:
        return mask(shown(message, category, filename, lineno, line))

    formatwarning.ubunye_masking = True  # type: ignore[attr-defined]
    warnings.formatwarning = formatwarning


def install_log_filter(names: Iterable[str] = LOGGERS) -> None:
    """Mask every log record of the named loggers and their children (``ubunye.lineage``...)
    as it is made, whatever handler then prints it (a record factory; installed once)."""
    previous = logging.getLogRecordFactory()
    if getattr(previous, "ubunye_masking", False):
        return
    wanted = tuple(names)
    children = tuple(f"{n}." for n in wanted)
    masking = MaskFilter()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        if record.name in wanted or record.name.startswith(children):
            masking.filter(record)
        return record

    factory.ubunye_masking = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(factory)
