"""The result of hashing a frame with rows-v1, and the dispatch to an engine.

Spec: ``shared/spec/rows-v1.md``. A :class:`Fingerprint` either has a data hash
(and row count) or an ``error`` saying why not; the schema hash is never put in
place of a data hash.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Optional

METHOD = "rows-v1"


@dataclass(frozen=True)
class Fingerprint:
    """The rows-v1 fingerprint of one table.

    - ``schema_hash``: ``sha256:`` of the canonical schema (None if the schema
      itself could not be made canonical).
    - ``data_hash``: ``sha256:`` of method, row count, schema and lane sums, or
      None when the rows could not be hashed (then ``error`` says why).
    - ``row_count``: rows hashed, or None with the data hash.
    - ``method``: always ``"rows-v1"``.
    - ``engine``: which implementation computed it: ``"arrow"``, ``"rows"``
      (reference / port), ``"spark-native"``, ``"spark-sql"`` ...
    - ``error``: ``"<ErrorType>: <message>"`` in one line, or None.
    - ``sums``: the two lane sums (A, B) as unsigned ints, for debugging.
    """

    schema_hash: Optional[str]
    data_hash: Optional[str]
    row_count: Optional[int]
    method: str = METHOD
    engine: str = ""
    error: Optional[str] = None
    sums: Optional[tuple[int, int]] = None

    @property
    def ok(self) -> bool:
        return self.data_hash is not None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["sums"] = list(self.sums) if self.sums is not None else None
        return d
