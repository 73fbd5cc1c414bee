"""Errors of the task engine.

Every error prints as one line naming its culprit (a file and key, a task
folder, an output), so ``ubunye run`` can show ``str(exc)`` as it is.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence, Union

from ubunye.masking import MaskedError, mask


class EngineError(MaskedError):
    """Base class of every task-engine error. Its texts are masked when it is made
    (:class:`ubunye.masking.MaskedError`): a secret of the run never sits in an engine error."""


UbunyeError = EngineError  # ubunye-engine 0.8.0's name (``from ubunye import UbunyeError``)


class ConfigError(EngineError, ValueError):
    """A ``config.yaml`` that cannot be used: names the file, the key and what was expected."""

    def __init__(self, file: Union[str, Path], key: Optional[str], message: str) -> None:
        self.file = str(file)
        self.key = key
        self.reason = mask(message)
        where = f"{self.file}: {key}" if key else self.file
        super().__init__(f"{where}: {message}")


class TaskLoadError(EngineError):
    """A ``transformations.py`` that cannot be imported or has no single Task subclass."""


class ExpectationError(EngineError):
    """One or more ``severity: fail`` expectations were broken; nothing was written after them."""

    def __init__(self, broken: Sequence[str]) -> None:
        self.broken = list(broken)
        super().__init__("expectations failed, nothing written: " + "; ".join(self.broken))


class IOSpecError(EngineError):
    """A read or write that the backend cannot do (format, mode, missing location)."""


class BackendError(EngineError):
    """A backend that cannot run in this Python (a library it needs is too old): one line."""


class ConfigDeprecationWarning(FutureWarning):
    """A config key that still loads but no longer does anything (shown by default)."""
