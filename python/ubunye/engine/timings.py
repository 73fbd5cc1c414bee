"""Timings of a run: one entry per read, transform and write, kept on failure."""
from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Any, Iterator


class Timings:
    """Collects ``{"step": ..., "input"/"output": ..., "seconds": s}`` entries."""

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []

    @contextmanager
    def measure(self, step: str, **labels: str) -> Iterator[None]:
        """Time the block; the entry is added even when the block raises."""
        start = time.perf_counter()
        try:
            yield
        finally:
            entry: dict[str, Any] = {"step": step, **labels}
            entry["seconds"] = round(time.perf_counter() - start, 6)
            self.entries.append(entry)

    def read(self, fmt: str, name: str) -> Any:
        return self.measure(f"Reader:{fmt}", input=name)

    def transform(self, name: str) -> Any:
        return self.measure(f"Transform:{name}")

    def write(self, fmt: str, name: str) -> Any:
        return self.measure(f"Writer:{fmt}", output=name)

    def exclude(self, seconds: float) -> None:
        """Take ``seconds`` (spent hashing inside the last step) out of the last entry."""
        if self.entries and seconds > 0:
            last = self.entries[-1]
            last["seconds"] = round(max(0.0, last["seconds"] - seconds), 6)

    def as_list(self) -> list[dict[str, Any]]:
        return [dict(e) for e in self.entries]
