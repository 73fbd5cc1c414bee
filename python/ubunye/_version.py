"""The package version, read from the installed distribution (source: the VERSION file)."""
from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("ubunye")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    from pathlib import Path

    __version__ = (Path(__file__).resolve().parents[2] / "VERSION").read_text().strip()
