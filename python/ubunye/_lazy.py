"""Lazy package attributes: ``__getattr__ = lazy_getattr(__name__, globals(), {...})``.

The packages' public names are imported on first use, so ``import ubunye`` (and
the CLI's lineage commands) never import pandas, pyarrow or pyspark by itself.
"""
from __future__ import annotations

from importlib import import_module
from typing import Any, Callable, Mapping, MutableMapping


def lazy_getattr(
    package: str, namespace: MutableMapping[str, Any], table: Mapping[str, str]
) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports ``table[name]`` (a module path) on first use."""

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module), name)
        namespace[name] = value
        return value

    return __getattr__
