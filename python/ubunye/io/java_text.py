"""Bytes decoded as Java decodes them with ``CodingErrorAction.REPLACE`` (Spark's text readers).

Java's UTF-8 decoder (``sun.nio.cs.UTF_8`` and ``String``'s own decoding) replaces a
malformed sequence with one U+FFFD as Python's ``errors="replace"`` does (one per
maximal invalid subpart: a truncated sequence is one, an overlong or out-of-range lead
byte is one per byte), with one exception: it reads ``ED`` followed by ``A0..BF`` (an
encoded UTF-16 surrogate, which Python refuses at the second byte) as a three-byte
sequence. A whole surrogate (``ED A0 80``) is one U+FFFD for its three bytes, and
``ED A0`` not followed by a continuation byte (or at the end) is one U+FFFD for its two,
where Python gives one per byte.
"""
from __future__ import annotations

import codecs

_HANDLER = "ubunye-java-replace"


def _continuation(byte: int) -> bool:
    return 0x80 <= byte <= 0xBF


def _java_replace(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    data, start = exc.object, exc.start
    if exc.encoding.replace("_", "-").lower() in ("utf-8", "utf8") and data[start] == 0xED \
            and start + 1 < len(data) and 0xA0 <= data[start + 1] <= 0xBF:
        # Java: a surrogate's lead and second byte are one malformed unit, with a third
        # continuation byte (the surrogate itself) one unit of three
        end = start + 3 if start + 2 < len(data) and _continuation(data[start + 2]) else start + 2
        return "\ufffd", end
    return "\ufffd", exc.end


codecs.register_error(_HANDLER, _java_replace)


def java_decode(data: bytes, encoding: str) -> str:
    """``data`` decoded as ``new String(data, charset)`` decodes it (bad bytes: U+FFFD, Java's count)."""
    return data.decode(encoding, errors=_HANDLER)
