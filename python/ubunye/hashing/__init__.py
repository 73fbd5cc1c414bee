"""rows-v1: the content hash of a table (spec ``shared/spec/rows-v1.md``).

Public API, imported lazily (nothing here imports pandas or pyarrow until used):

- :func:`fingerprint` -> :class:`Fingerprint`
- :func:`canonical_kinds`, :func:`canonical_line`, :func:`canonical_lines`:
  for debugging a mismatch
- :class:`RowsV1Error`: a table or value with no canonical text
- modules: :mod:`.digest` (lanes, sums, digests), :mod:`.arrow` (vectorised
  path), :mod:`.reference` (row-at-a-time reference), :mod:`.kinds`.
"""
from __future__ import annotations

from ubunye._lazy import lazy_getattr

from typing import TYPE_CHECKING

from ubunye.hashing.errors import RowsV1Error
from ubunye.hashing.fingerprint import Fingerprint, fingerprint

if TYPE_CHECKING:  # pragma: no cover
    from ubunye.hashing.debug import canonical_kinds, canonical_line, canonical_lines

__all__ = [
    "Fingerprint",
    "fingerprint",
    "canonical_kinds",
    "canonical_line",
    "canonical_lines",
    "RowsV1Error",
]

_LAZY = {
    "canonical_kinds": "ubunye.hashing.debug",
    "canonical_line": "ubunye.hashing.debug",
    "canonical_lines": "ubunye.hashing.debug",
}


__getattr__ = lazy_getattr(__name__, globals(), _LAZY)
