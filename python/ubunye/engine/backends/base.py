"""The backend port: what the engine asks of a backend, and what a frame must offer.

A *frame port* is the least a frame must offer to be checked and hashed by
anything: ``schema`` (column name to rows-v1 kind), ``count()`` and
``collect()`` (rows as dicts of Python values). A *backend* reads and writes
frames for one engine (Spark, pandas, ...) and says how to hash and check
them. ``ubunye.testing.backend_conformance`` is the test every backend passes.
"""
from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Protocol, Sequence, runtime_checkable

from ubunye.engine.config import IOSpec
from ubunye.engine.errors import IOSpecError
from ubunye.engine.expectations import Outcome, Rule


@runtime_checkable
class FramePort(Protocol):
    """What a frame must offer: its schema, its row count and its rows."""

    @property
    def schema(self) -> Mapping[str, str]: ...

    def count(self) -> int: ...

    def collect(self) -> list[dict[str, Any]]: ...


@dataclass(frozen=True)
class ReadResult:
    """A frame read from an input, and the Delta version read (if any)."""

    frame: Any
    delta_version: Optional[int] = None


@dataclass(frozen=True)
class WriteResult:
    """What a write did.

    ``fingerprint`` is set when the backend hashed the output while writing it
    (``hash_pass`` says how: ``same-pass``, ``second-pass`` or
    ``materialised``); ``written`` is False when ``mode: ignore`` found data
    already there.
    """

    written: bool = True
    delta_version: Optional[int] = None
    fingerprint: Any = None
    hash_pass: Optional[str] = None
    hash_seconds: Optional[float] = None
    # the reader settings the hash read the written files back with (csv/json on Spark), which
    # the output's step records so ``lineage verify`` reads them the same way
    read_options: Optional[dict[str, str]] = None
    read_schema: Optional[str] = None


class Backend(abc.ABC):
    """One engine's reading, writing, hashing and checking of frames."""

    name: str = ""
    formats: tuple[str, ...] = ()
    time_zone: Optional[str] = None
    spark: Any = None

    def interrupted(self) -> None:
        """A signal or the time limit stopped the run, maybe in the middle of a call into the engine:
        make the engine usable for ending the record (default: nothing to do)."""

    def close(self) -> None:
        """Put back what the backend changed outside the run (a found Spark session's settings)."""

    def check_spec(self, spec: IOSpec) -> None:
        """Refuse (before anything runs) an input or output this backend cannot do."""
        if spec.format not in self.formats:
            raise IOSpecError(
                f"{spec.direction} {spec.name!r}: format {spec.format!r} is not supported on the "
                f"{self.name} backend (supported: {', '.join(self.formats)})"
            )

    @abc.abstractmethod
    def read(self, spec: IOSpec) -> ReadResult:
        """Read an input into a native frame."""

    @abc.abstractmethod
    def write(self, frame: Any, spec: IOSpec, *, hash_output: bool = False) -> WriteResult:
        """Write an output; with ``hash_output`` also return its rows-v1 fingerprint."""

    @abc.abstractmethod
    def fingerprint(self, frame: Any) -> Any:
        """The rows-v1 :class:`~ubunye.hashing.Fingerprint` of a native frame."""

    @abc.abstractmethod
    def port(self, frame: Any) -> FramePort:
        """The frame seen through the port (schema, count, collect)."""

    @abc.abstractmethod
    def from_arrow(self, table: Any) -> Any:
        """A native frame holding a pyarrow Table's rows (for tests and demos)."""

    @abc.abstractmethod
    def is_frame(self, obj: Any) -> bool:
        """True when ``obj`` is a native frame of this backend."""

    @abc.abstractmethod
    def check(self, frame: Any, rules: Sequence[Rule]) -> list[Outcome]:
        """Check expectations on a frame; one outcome per rule."""

    def check_and_fingerprint(self, frame: Any, rules: Sequence[Rule], *, hash_frame: bool) -> tuple[list[Outcome], Any]:
        """Check ``rules`` and (when ``hash_frame``) fingerprint the frame; backends that
        can do both in one scan override this."""
        outcomes = self.check(frame, rules) if rules else []
        return outcomes, (self.fingerprint(frame) if hash_frame else None)

    def observe_input(self, frame: Any, name: str) -> tuple[Any, Any]:
        """A frame that hashes itself while the run's own queries read it, and a handle
        for :meth:`observed_input`; ``(frame, None)`` when the backend cannot."""
        return frame, None

    def observed_input(self, spec: IOSpec, frame: Any, handle: Any, delta_version: Optional[int]) -> Any:
        """The input's fingerprint observed during the run, if it provably covers every
        row of the input (else None: hash it in a pass of its own)."""
        return None

    def input_hash_pass(self) -> str:
        """How an input's hash is taken on this backend."""
        return "materialised"


def one_line(exc: BaseException) -> str:
    """``"<Type>: <message>"`` on one line."""
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"
