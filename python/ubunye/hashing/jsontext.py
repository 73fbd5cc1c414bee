"""JSON text of rows-v1: the line's string escaping (spec 2.2) and the compact
``ensure_ascii`` JSON of the schema and digest payload (spec 1.8)."""
from __future__ import annotations

import json
from typing import Any

_SHORT = {0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0C: "\\f", 0x0D: "\\r"}
# Jackson's escaping, as Spark's to_json writes strings: upper-case hex.
LINE_ESCAPES: dict[int, str] = {i: _SHORT.get(i, f"\\u{i:04X}") for i in range(0x20)}
LINE_ESCAPES[ord('"')] = '\\"'
LINE_ESCAPES[ord("\\")] = "\\\\"


def line_string(value: str) -> str:
    """``value`` as a JSON string of the canonical line (Jackson escaping)."""
    return '"' + value.translate(LINE_ESCAPES) + '"'


_BYTE_ESCAPES: dict[int, bytes] = {i: e.encode("ascii") for i, e in LINE_ESCAPES.items()}


def line_bytes(value: bytes) -> bytes:
    """``value`` (a string's bytes as held) as a JSON string of the canonical line.

    The escapes of spec 2.2 touch only ASCII bytes (below 0x20, ``"`` and ``\\``),
    which never occur inside a multi-byte UTF-8 sequence, so escaping byte by byte
    is the same as escaping character by character, and is still defined when the
    bytes are not valid UTF-8 (Spark keeps such bytes, e.g. in a JSON reader's
    ``_corrupt_record``): they pass through unchanged, as the plugin writes them."""
    return b'"' + b"".join(_BYTE_ESCAPES.get(b, bytes((b,))) for b in value) + b'"'


def compact_json(value: Any) -> str:
    """Compact ``ensure_ascii`` JSON, as S and P of spec 1.6-1.8 are written."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=True)
