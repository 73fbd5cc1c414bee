"""Frame kinds hashed by a layer above this one register here (the layers run one way).

``ubunye.hashing`` hashes pandas, Arrow, polars, DuckDB and port frames itself.
A frame kind that needs its own engine (a pyspark DataFrame: the plugin's
aggregate or the ``mapInArrow`` fallback) lives in a package above, which
registers its functions here on import::

    register_frame_kind("spark", fingerprint=..., kinds=...)

The hashing layer never imports that package by name in its code: it knows,
from the library a frame comes from (the root of its type's module), which
package registers its kind (:data:`PROVIDERS`), and imports it by that name
the first time such a frame is hashed, so ``ubunye.fingerprint(spark_df)``
works without the user importing ``ubunye.spark`` first.

The same package may register a *worker probe*: a function telling whether
this process is a task of that library's workers (a Spark Python worker),
where hashing must not start processes of its own. Probes of a library are
asked for only once the library is loaded in this process.
"""
from __future__ import annotations

import sys
import threading
from dataclasses import dataclass
from importlib import import_module
from typing import Any, Callable, Optional

# library (root module of a frame's type) -> (frame kind, package that registers it)
PROVIDERS: dict[str, tuple[str, str]] = {"pyspark": ("spark", "ubunye.spark")}


@dataclass(frozen=True)
class FrameKind:
    """What a registered frame kind answers: its fingerprint and its columns' kinds."""

    name: str
    fingerprint: Callable[..., Any]  # (frame, *, engine=None) -> Fingerprint
    kinds: Callable[[Any], list[tuple[str, str]]]  # frame -> [(name, kind text)]


_KINDS: dict[str, FrameKind] = {}
_PROBES: dict[str, Callable[[], bool]] = {}
_LOCK = threading.Lock()


def register_frame_kind(
    name: str,
    *,
    fingerprint: Callable[..., Any],
    kinds: Callable[[Any], list[tuple[str, str]]],
) -> None:
    """Register (or replace) the functions that hash frames of kind ``name``."""
    with _LOCK:
        _KINDS[name] = FrameKind(name, fingerprint, kinds)


def register_worker_probe(library: str, probe: Callable[[], bool]) -> None:
    """Register ``probe()``: True inside a task of ``library``'s workers."""
    with _LOCK:
        _PROBES[library] = probe


def _load_provider(library: str) -> None:
    provider = PROVIDERS.get(library)
    if provider is not None:
        import_module(provider[1])  # registers itself on import


def frame_kind_of(kind: str) -> FrameKind:
    """The registered functions of frame kind ``kind``, importing its provider if needed.

    Raises ``TypeError`` (one line) when no package registers that kind.
    """
    found = _KINDS.get(kind)
    if found is None:
        for library, (provided, _) in PROVIDERS.items():
            if provided == kind:
                _load_provider(library)
        found = _KINDS.get(kind)
    if found is None:
        raise TypeError(f"no hashing engine is registered for {kind} frames")
    return found


def in_worker() -> bool:
    """True when a loaded library's registered probe says this process runs one of its tasks."""
    for library in PROVIDERS:
        if library in sys.modules and library not in _PROBES:
            try:
                _load_provider(library)
            except Exception:  # noqa: BLE001 - a provider that cannot load has no probe
                continue
    for probe in list(_PROBES.values()):
        try:
            if probe():
                return True
        except Exception:  # noqa: BLE001 - a probe that fails says nothing
            continue
    return False


def registered(kind: str) -> Optional[FrameKind]:
    """The functions registered for ``kind`` so far (no provider is imported)."""
    return _KINDS.get(kind)
