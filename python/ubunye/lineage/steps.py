"""Turning what a run read and wrote (:class:`DataEvent`) into record steps.

Each frame is hashed with rows-v1 (``ubunye.hashing.fingerprint``), timed, and
the result cached by object identity for the run, so the same frame used twice
is hashed once (the cache holds a reference, so an id cannot be reused while
the run lasts). A hash that fails gives a step with ``data_hash`` null and a
``hash_error`` saying why; it never raises.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterable, Optional

from ubunye.lineage.context import DataEvent
from ubunye.masking import current
from ubunye.lineage.record import Step

METHOD = "rows-v1"
MATERIALISED = "materialised"
NO_FRAME = "no frame was given to hash"

FingerprintFn = Callable[[Any], Any]


def frame_columns(frame: Any) -> Optional[list[dict[str, str]]]:
    """``[{"name", "type"}]`` of a frame as its engine types it (Spark's type strings, pandas
    dtypes, Arrow types), or None when the frame is none of those or cannot say (never raises)."""
    if frame is None:
        return None
    try:
        schema = getattr(frame, "schema", None)
        fields = getattr(schema, "fields", None)
        if fields is not None and all(hasattr(f, "dataType") for f in fields):  # Spark
            return [{"name": str(f.name), "type": f.dataType.simpleString()} for f in fields]
        if schema is not None and hasattr(schema, "types") and hasattr(schema, "names"):  # Arrow
            return [{"name": str(n), "type": str(t)} for n, t in zip(schema.names, schema.types)]
        dtypes = getattr(frame, "dtypes", None)
        if dtypes is not None and hasattr(dtypes, "items") and hasattr(frame, "columns"):  # pandas
            return [{"name": str(n), "type": str(t)} for n, t in dtypes.items()]
    except Exception:  # noqa: BLE001 - the columns are evidence, never a failure of the run
        return None
    return None


def _default_fingerprint(frame: Any) -> Any:
    from ubunye.hashing import fingerprint  # heavy: imported only when a frame is hashed

    return fingerprint(frame)


@dataclass
class _Hashed:
    frame: Any  # kept alive so id(frame) stays unique for the run
    fingerprint: Any  # Fingerprint, or None when hashing raised
    error: Optional[str]
    seconds: float
    step_ref: str  # "<direction>:<name>" of the step that hashed it


class StepHasher:
    """Builds :class:`Step` objects for one run, hashing each distinct frame once."""

    def __init__(
        self,
        *,
        hash_inputs: bool = True,
        fingerprint: Optional[FingerprintFn] = None,
    ) -> None:
        self.hash_inputs = hash_inputs
        self._fingerprint = fingerprint or _default_fingerprint
        self._cache: dict[int, _Hashed] = {}

    def step(self, event: DataEvent) -> Step:
        """The record step of ``event`` (hashing its frame unless told not to)."""
        step = Step(
            name=event.name,
            direction=event.direction,
            format=event.format,
            location=event.location,
            delta_version=event.delta_version,
            storage_signature=event.storage_signature,
            options=getattr(event, "options", None),
            schema=getattr(event, "schema", None),
            columns=getattr(event, "columns", None) or frame_columns(event.frame),
            handed_in=getattr(event, "handed_in", None) or None,
        )
        if event.fingerprint is not None:
            self._fill(step, event.fingerprint, None, event.hash_seconds)
            step.hash_pass = event.hash_pass
            step.hash_reused_from = event.hash_reused_from
            return step
        if event.direction == "input" and not self.hash_inputs:
            return step
        if event.frame is None:
            step.hash_error = NO_FRAME
            return step
        hashed, reused = self._hash(event)
        self._fill(step, hashed.fingerprint, hashed.error, 0.0 if reused else hashed.seconds)
        step.hash_pass = event.hash_pass or MATERIALISED
        if reused:
            step.hash_reused_from = hashed.step_ref
        return step

    def _hash(self, event: DataEvent) -> tuple[_Hashed, bool]:
        key = id(event.frame)
        cached = self._cache.get(key)
        if cached is not None and cached.frame is event.frame:
            return cached, True
        started = time.perf_counter()
        fp: Any = None
        error: Optional[str] = None
        try:
            fp = self._fingerprint(event.frame)
        except Exception as exc:  # noqa: BLE001 - a failed hash never fails the run
            error = current().error(exc)  # "<Type>: <message>", capped
        hashed = _Hashed(
            frame=event.frame,
            fingerprint=fp,
            error=error,
            seconds=time.perf_counter() - started,
            step_ref=f"{event.direction}:{event.name}",
        )
        self._cache[key] = hashed
        return hashed, False

    def _fill(self, step: Step, fp: Any, error: Optional[str], seconds: Optional[float]) -> None:
        step.hash_method = getattr(fp, "method", None) or METHOD
        step.hash_seconds = None if seconds is None else round(float(seconds), 6)
        if fp is None:
            step.hash_error = error
            return
        step.hash_engine = getattr(fp, "engine", None) or None
        step.schema_hash = fp.schema_hash
        step.data_hash = fp.data_hash
        step.row_count = fp.row_count if fp.data_hash is not None else None
        fp_error = getattr(fp, "error", None)
        if fp.data_hash is None:
            step.hash_error = current().error(fp_error) or "no data hash was computed"
        else:
            step.hash_error = None
            sketch = getattr(fp, "sketch", None)
            step.sketch = sketch.to_record() if sketch is not None else None
            step.partitions = getattr(fp, "partitions", None)


def build_steps(hasher: StepHasher, events: Iterable[Any]) -> list[Step]:
    """Steps for a list of :class:`DataEvent`; already built :class:`Step` objects pass
    through (copied; the recorder masks the whole record before it is written)."""
    return [replace(e) if isinstance(e, Step) else hasher.step(e) for e in events]
